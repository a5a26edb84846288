package scheduling_test

import (
	"testing"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/scheduling"
	"github.com/fleetover/fleetover/suspension"
)

// *suspension.Suspension is the checker callers hand over; this test binary
// (not the package) imports suspension to prove the two fit together.
var _ scheduling.SuspensionChecker = (*suspension.Suspension)(nil)

func TestSuspensionFromPolicy(t *testing.T) {
	s := &suspension.Suspension{DispatchingOnClusters: &suspension.SuspendClusters{ClusterNames: []string{"member2"}}}
	req := &scheduling.Request{
		Type:     scheduling.Divided,
		Targets:  []eviction.TargetCluster{{Name: "member2", Replicas: 2}},
		Evicted:  []eviction.TargetCluster{{Name: "member1", Replicas: 1}},
		Clusters: []scheduling.Cluster{{Name: "member1"}, {Name: "member2"}, {Name: "member3"}},
		Replicas: 3,
		Workload: &scheduling.Workload{Suspension: s},
	}
	plan, err := scheduling.Replace(req)
	if err != nil {
		t.Fatal(err)
	}
	// member2 is suspended: it keeps its two replicas and takes no new one.
	want := map[string]int32{"member2": 2, "member3": 1}
	if len(plan.Targets) != len(want) {
		t.Fatalf("targets %v, want %v", plan.Targets, want)
	}
	for _, tc := range plan.Targets {
		if want[tc.Name] != tc.Replicas {
			t.Fatalf("targets %v, want %v", plan.Targets, want)
		}
	}
	// A nil suspension in the interface suspends nothing: member2 may grow
	// again and wins the tie with member3 by name.
	var none *suspension.Suspension
	req.Workload.Suspension = none
	plan, err = scheduling.Replace(req)
	if err != nil || len(plan.Targets) != 1 || plan.Targets[0] != (eviction.TargetCluster{Name: "member2", Replicas: 3}) {
		t.Fatalf("nil suspension: %v %v", plan.Targets, err)
	}
}
