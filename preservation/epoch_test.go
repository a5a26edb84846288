package preservation

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/fleetover/fleetover/eviction"
)

// TestStateForCarriesFencingEpoch: the fencing epoch of the task whose
// state applies travels with the state, under eviction.FencingEpochLabel,
// and goes only where the state goes.
func TestStateForCarriesFencingEpoch(t *testing.T) {
	task := eviction.GracefulEvictionTask{
		FromCluster: "a", PurgeMode: eviction.PurgeDirectly, Reason: eviction.ReasonTaintUntolerated, Producer: eviction.ProducerTaintManager,
		PreservedLabelState:    map[string]string{"flink.io/job-id": "j1", eviction.FencingEpochLabel: "99"},
		ClustersBeforeFailover: []string{"a"},
		FencingEpoch:           4,
	}
	targets := []eviction.TargetCluster{{Name: "b"}}
	state, ok := StateFor("b", targets, []eviction.GracefulEvictionTask{task})
	want := map[string]string{"flink.io/job-id": "j1", eviction.FencingEpochLabel: "4"}
	if !ok || !cmp.Equal(state, want) {
		t.Fatalf("StateFor = %v %v, want %v: the task's epoch wins over a preserved value", state, ok, want)
	}
	if task.PreservedLabelState[eviction.FencingEpochLabel] != "99" {
		t.Fatal("StateFor changed the task's state")
	}
	obj := manifest(nil)
	if ok, err := (Injector{Enabled: true}).InjectFor(obj, "b", targets, []eviction.GracefulEvictionTask{task}); !ok || err != nil || obj.GetLabels()[eviction.FencingEpochLabel] != "4" {
		t.Fatalf("InjectFor: %v %v labels %v, want the epoch label", ok, err, obj.GetLabels())
	}
	// Not back to the old cluster, and not under Gracefully: no state, no epoch.
	if state, ok := StateFor("a", targets, []eviction.GracefulEvictionTask{task}); ok {
		t.Fatalf("state and epoch went back to the old cluster: %v", state)
	}
	graceful := task
	graceful.PurgeMode = eviction.PurgeGracefully
	if state, ok := StateFor("b", targets, []eviction.GracefulEvictionTask{graceful}); ok {
		t.Fatalf("state and epoch injected while the old copy runs: %v", state)
	}
	// A task without an epoch adds no label.
	task.FencingEpoch = 0
	if state, _ := StateFor("b", targets, []eviction.GracefulEvictionTask{task}); state[eviction.FencingEpochLabel] != "99" {
		t.Fatalf("no epoch: %v, want the preserved state unchanged", state)
	}
}
