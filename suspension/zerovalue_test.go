package suspension

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestZeroValues holds every struct a caller fills in this package to its
// documented zero value: a safe default, or an error at the first call.
func TestZeroValues(t *testing.T) {
	cases := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"Suspension: suspends nothing, valid, Dispatching True", func(t *testing.T) {
			for _, s := range []*Suspension{nil, {}} {
				if !ShouldDispatch(s, "m1") || FailoverPaused(s, "m1") || SuspendsAll(s) || s.DispatchSuspended("m1") {
					t.Fatalf("%+v suspends", s)
				}
				if errs := ValidateSuspension(s, field.NewPath("suspension")); len(errs) != 0 {
					t.Fatal(errs)
				}
				if c := DispatchingCondition(s, "m1", 1); c.Status != metav1.ConditionTrue {
					t.Fatalf("%+v", c)
				}
			}
		}},
		{"SuspendClusters: names no cluster, suspends nothing", func(t *testing.T) {
			s := &Suspension{DispatchingOnClusters: &SuspendClusters{}}
			if !ShouldDispatch(s, "m1") || s.DispatchSuspended("m1") {
				t.Fatal("an empty cluster list suspended m1")
			}
			if errs := ValidateSuspension(s, field.NewPath("suspension")); len(errs) != 0 {
				t.Fatal(errs)
			}
		}},
		{"GuardRedivision: with no suspension the proposal stands", func(t *testing.T) {
			old := map[string]int32{"m1": 2}
			proposed := map[string]int32{"m2": 2}
			got, held := GuardRedivision(&Suspension{}, old, proposed)
			if len(held) != 0 || len(got) != 1 || got["m2"] != 2 {
				t.Fatalf("%v %v", got, held)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}
