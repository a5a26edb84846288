package scheduling_test

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/scheduling"
)

// The examples of this file back docs/migrating.md: each shows the call that
// replaces one of 583b264's.

// Request.Targets is the placement the workload keeps and Request.Evicted
// the entries it left, both as eviction.Evict returned them; Request.Failed
// is gone.
func ExampleRequest_evicted() {
	placed := []eviction.TargetCluster{{Name: "member1", Replicas: 2}, {Name: "member2", Replicas: 2}}
	res, err := eviction.Evict(placed, nil, eviction.Eviction{
		Cluster: "member2", Producer: eviction.ProducerTaintManager, Reason: eviction.ReasonTaintUntolerated,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Before: scheduling.Request{Targets: placed, Failed: []string{"member2"}, ...}
	plan, err := scheduling.Replace(&scheduling.Request{
		Workload: &scheduling.Workload{EvictionTasks: res.Tasks},
		Type:     scheduling.Duplicated,
		Targets:  res.Targets,
		Evicted:  res.Evicted,
		Clusters: []scheduling.Cluster{{Name: "member1"}, {Name: "member2"}, {Name: "member3"}},
		Replicas: 2,
	})
	fmt.Println(plan.Targets, plan.Changed, err)
	// Output:
	// [{member1 2} {member3 2}] true <nil>
}

// When nothing can take the evicted replicas, Plan.Changed is true with no
// move: the evicted cluster is gone from Plan.Targets, which the caller
// writes.
func ExamplePlan_changedWithoutMoves() {
	placed := []eviction.TargetCluster{{Name: "member1", Replicas: 2}, {Name: "member2", Replicas: 2}}
	res, err := eviction.Evict(placed, nil, eviction.Eviction{
		Cluster: "member2", Producer: eviction.ProducerTaintManager, Reason: eviction.ReasonTaintUntolerated,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	plan, err := scheduling.Replace(&scheduling.Request{
		Workload: &scheduling.Workload{EvictionTasks: res.Tasks},
		Type:     scheduling.Duplicated,
		Targets:  res.Targets,
		Evicted:  res.Evicted,
		Clusters: []scheduling.Cluster{{Name: "member1"}, {Name: "member2"}}, // no spare cluster
		Replicas: 2,
	})
	fmt.Println(plan.Targets, plan.Changed, len(plan.Moves), plan.Reason, err)
	// Output:
	// [{member1 2}] true 0 InsufficientCandidates <nil>
}

// The eviction history is the stored entries (eviction.EvictionHistory) and
// the policy's window, set on the Workload: HistoryRecords and the
// EvictionHistory interface are gone.
func ExampleWorkload_history() {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	history := eviction.EvictionHistory{{ClusterName: "member2", CreationTimestamp: metav1.NewTime(now.Add(-time.Minute))}}
	// Before: scheduling.Workload{History: scheduling.HistoryRecords{History: history, BlockPredecessorSeconds: &s}}
	w := &scheduling.Workload{History: history, BlockPredecessorSeconds: ptr.To[int32](600), Now: now}
	res := scheduling.RunFilters(w, []scheduling.Cluster{{Name: "member2"}, {Name: "member3"}}, scheduling.EvictionHistoryFilter())
	fmt.Println(res.Feasible)
	// Output:
	// [member3]
}

// TaintToleration takes failover.TolerationOptions, the rule failover's
// planner uses; scheduling.TaintTolerationOptions is its deprecated alias
// and scheduling.TargetCluster that of eviction.TargetCluster.
func ExampleTaintToleration_options() {
	// Before: scheduling.TaintToleration(scheduling.TaintTolerationOptions{EnableComparisonOperators: true})
	f := scheduling.TaintToleration(failover.TolerationOptions{EnableComparisonOperators: true})
	var old scheduling.TargetCluster = eviction.TargetCluster{Name: "member1"} // the same type
	fmt.Println(f.Name(), old.Name)
	// Output:
	// TaintToleration member1
}
