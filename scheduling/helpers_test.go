package scheduling

import (
	"testing"

	"github.com/fleetover/fleetover/eviction"
)

// evictAll runs eviction.Evict for each cluster, as a controller does before
// it calls Replace, and returns the result.
func evictAll(targets []eviction.TargetCluster, clusters ...string) eviction.EvictResult {
	res := eviction.EvictResult{Targets: targets}
	for _, c := range clusters {
		next, err := res.Then(eviction.Eviction{Cluster: c, Producer: eviction.ProducerTaintManager, Reason: eviction.ReasonTaintUntolerated})
		if err != nil {
			panic(err)
		}
		res = next
	}
	return res
}

// keptAfter and evictedFrom are the two halves of evictAll's result that a
// Request takes.
func keptAfter(targets []eviction.TargetCluster, clusters ...string) []eviction.TargetCluster {
	return evictAll(targets, clusters...).Targets
}

func evictedFrom(targets []eviction.TargetCluster, clusters ...string) []eviction.TargetCluster {
	return evictAll(targets, clusters...).Evicted
}

func TestEvictResultFeedsReplace(t *testing.T) {
	targets := []eviction.TargetCluster{{Name: "a", Replicas: 2}, {Name: "b", Replicas: 2}}
	res, err := eviction.Evict(targets, nil, eviction.Eviction{Cluster: "b", Producer: eviction.ProducerTaintManager, Reason: eviction.ReasonTaintUntolerated})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := Replace(&Request{
		Workload: &Workload{EvictionTasks: res.Tasks},
		Type:     Duplicated, Targets: res.Targets, Evicted: res.Evicted,
		Clusters: fleetOf("a", "b", "c"), Replicas: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Targets) != 2 || plan.Targets[0].Name != "a" || plan.Targets[1].Name != "c" || !plan.Changed {
		t.Fatalf("plan %+v", plan)
	}

	// An eviction that changed nothing passes through as NothingFailed.
	same, err := eviction.Evict(plan.Targets, res.Tasks, eviction.Eviction{Cluster: "z", Producer: eviction.ProducerTaintManager, Reason: eviction.ReasonTaintUntolerated})
	if err != nil || same.Outcome != eviction.EvictNotPlaced {
		t.Fatalf("outcome %v, err %v", same.Outcome, err)
	}
	plan, err = Replace(&Request{Type: Duplicated, Targets: same.Targets, Evicted: same.Evicted, Clusters: fleetOf("a", "b", "c"), Replicas: 2})
	if err != nil || plan.Changed || plan.Reason != ReasonNothingFailed || len(plan.Targets) != 2 {
		t.Fatalf("plan %+v, err %v", plan, err)
	}
}
