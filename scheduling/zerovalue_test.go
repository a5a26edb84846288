package scheduling

import (
	"errors"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetover/fleetover/eviction"
)

// TestZeroValues holds every struct a caller fills in this package to its
// documented zero value: a safe default, or an error at the first call.
func TestZeroValues(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	evicted := func() (kept, gone []eviction.TargetCluster) {
		return []eviction.TargetCluster{{Name: "m1", Replicas: 1}}, []eviction.TargetCluster{{Name: "m2", Replicas: 1}}
	}
	cases := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"Request: no type is an error", func(t *testing.T) {
			if _, err := Replace(&Request{}); !errors.Is(err, ErrInvalidRequest) {
				t.Fatalf("err = %v", err)
			}
			if _, err := Replace(nil); !errors.Is(err, ErrInvalidRequest) {
				t.Fatalf("nil request: err = %v", err)
			}
		}},
		{"Request: nothing evicted changes nothing", func(t *testing.T) {
			kept, _ := evicted()
			plan, err := Replace(&Request{Type: Duplicated, Targets: kept, Replicas: 1})
			if err != nil || plan.Changed || plan.Reason != ReasonNothingFailed {
				t.Fatalf("%+v %v", plan, err)
			}
		}},
		{"Workload: nil and zero are the same view, every filter passes a plain cluster", func(t *testing.T) {
			for _, w := range []*Workload{nil, {}} {
				res := RunFilters(w, []Cluster{{Name: "m1"}}, DefaultFilters()...)
				if len(res.Feasible) != 1 {
					t.Fatalf("%+v", res)
				}
			}
			kept, gone := evicted()
			plan, err := Replace(&Request{Type: Duplicated, Targets: kept, Evicted: gone, Replicas: 1,
				Clusters: []Cluster{{Name: "m1"}, {Name: "m2"}, {Name: "m3"}}})
			if err != nil || len(plan.Targets) != 2 || plan.Targets[1].Name != "m3" {
				t.Fatalf("%+v %v", plan, err)
			}
		}},
		{"Workload: a history without Now is an error", func(t *testing.T) {
			kept, gone := evicted()
			w := &Workload{History: eviction.EvictionHistory{{ClusterName: "m3", CreationTimestamp: metav1.NewTime(now)}}}
			_, err := Replace(&Request{Workload: w, Type: Duplicated, Targets: kept, Evicted: gone, Replicas: 1,
				Clusters: []Cluster{{Name: "m1"}, {Name: "m3"}}})
			if !errors.Is(err, ErrInvalidRequest) {
				t.Fatalf("err = %v", err)
			}
			w.Now = now.Add(time.Hour)
			if _, err := Replace(&Request{Workload: w, Type: Duplicated, Targets: kept, Evicted: gone, Replicas: 1,
				Clusters: []Cluster{{Name: "m1"}, {Name: "m3"}}}); err != nil {
				t.Fatal(err)
			}
		}},
		{"Cluster: no name is rejected", func(t *testing.T) {
			res := RunFilters(nil, []Cluster{{}})
			if len(res.Feasible) != 0 || len(res.Rejected) != 1 {
				t.Fatalf("%+v", res)
			}
		}},
		{"SpreadConstraint: no bound", func(t *testing.T) {
			kept, gone := evicted()
			plan, err := Replace(&Request{Type: Duplicated, Targets: kept, Evicted: gone, Replicas: 1, Spread: &SpreadConstraint{},
				Clusters: []Cluster{{Name: "m1"}, {Name: "m3"}}})
			if err != nil || len(plan.Targets) != 2 {
				t.Fatalf("%+v %v", plan, err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}
