package eviction_test

import (
	"testing"
	"time"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/preservation"
)

// A Directly task must carry the state until a new copy has it: while the
// new target cannot be dispatched to (unreachable, or held by another
// task), its grace period running out must not drop the state.
func TestDirectlyTaskKeepsStateUntilTheNewCopyHasIt(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	res, err := eviction.Evict([]eviction.TargetCluster{{Name: "a"}}, nil, eviction.Eviction{
		Cluster: "a", PurgeMode: eviction.PurgeDirectly, Settled: true,
		Producer: eviction.ProducerTaintManager, Reason: eviction.ReasonTaintUntolerated,
		PreservedLabelState: map[string]string{"jobid": "A"},
	})
	if err != nil {
		t.Fatal(err)
	}
	targets := []eviction.TargetCluster{{Name: "b"}} // placed, b unreachable: no copy yet
	gone := eviction.OldCopyLookupFunc(func(string) eviction.OldCopy { return eviction.OldCopy{Gone: true} })
	unknown := eviction.HealthLookupFunc(func(string) health.Status { return health.Unknown })
	tasks := res.Tasks
	for _, at := range []time.Duration{0, 11 * time.Minute} {
		a := eviction.Assess(eviction.AssessInput{Tasks: tasks, Targets: targets, Health: unknown, OldCopies: gone, Now: now.Add(at)}, eviction.AssessOptions{})
		if len(a.Removed) > 0 {
			t.Fatalf("at +%s: the state-carrying task was removed (%s) before any new copy ran", at, a.Removed[0].Reason)
		}
		tasks = a.Kept
	}
	if state, ok := preservation.StateFor("b", targets, tasks); !ok || state["jobid"] != "A" {
		t.Fatalf("b, still to be dispatched to, gets no state: the task that carried it is gone")
	}
}

// With CancelOnRecovery, a Directly task whose old copy is Healthy again is
// not cancelled once the workload has moved on: the old copy is being
// deleted, and the task still holds the new copy back and carries its
// state. (Cancelling it used to let the new copy start beside the old one,
// without the state.)
func TestRecoveredDirectlyTaskKeptWhenTheWorkloadMovedOn(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	res, err := eviction.Evict([]eviction.TargetCluster{{Name: "a"}}, nil, eviction.Eviction{
		Cluster: "a", PurgeMode: eviction.PurgeDirectly, Settled: true,
		Producer: eviction.ProducerApplicationFailover, Reason: eviction.ReasonApplicationFailure,
		PreservedLabelState: map[string]string{"jobid": "A"},
	})
	if err != nil {
		t.Fatal(err)
	}
	running := eviction.OldCopyLookupFunc(func(string) eviction.OldCopy { return eviction.OldCopy{} })
	opts := eviction.AssessOptions{CancelOnRecovery: true}
	// No replacement at first: the task is stamped and kept.
	a := eviction.Assess(eviction.AssessInput{Tasks: res.Tasks, OldCopies: running, Now: now}, opts)
	// Later b is placed, and the copy on a is Healthy again.
	targets := []eviction.TargetCluster{{Name: "b"}}
	healthyOnA := eviction.HealthLookupFunc(func(c string) health.Status {
		if c == "a" {
			return health.Healthy
		}
		return health.Unknown
	})
	a = eviction.Assess(eviction.AssessInput{Tasks: a.Kept, Targets: targets, Health: healthyOnA, OldCopies: running, Now: now.Add(20 * time.Minute)}, opts)
	if g := eviction.DispatchBlocked("b", a.Kept, running, now.Add(20*time.Minute), opts); !g.Blocked {
		t.Errorf("dispatch to b is not held while the copy on a runs (removed: %v)", a.Removed)
	}
	if state, ok := preservation.StateFor("b", targets, a.Kept); !ok || state["jobid"] != "A" {
		t.Errorf("b gets no state")
	}
}
