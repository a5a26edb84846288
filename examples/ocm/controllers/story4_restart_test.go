package controllers_test

import (
	"slices"
	"testing"
	"time"

	"github.com/fleetover/fleetover/failover"
)

// Story 4: the controllers restart in the middle of an application
// failover countdown. The new process reads the detector's records from the
// PlacementDecision: it neither starts the countdown again (the move would
// come late) nor treats it as run out (it would come early).
func TestStory4RestartKeepsCountdown(t *testing.T) {
	const toleration = 60
	f := newFixture(t, nil)
	f.start()
	sick, spare := f.clusterName("a"), f.clusterName("b")
	f.joinTrackedClusters(sick, spare)

	f.createPlacement("batch")
	f.decide("batch", sick)
	manifest, rules := deployment(f.ns, "batch", 1)
	tol := int32(toleration)
	set := f.createSet("batch", "batch", manifest, "deployments", rules, &failover.FailoverBehavior{
		Application: &failover.ApplicationFailoverBehavior{
			DecisionConditions: failover.DecisionConditions{TolerationSeconds: &tol},
		},
	})
	f.waitWorks(set, "work on the first cluster", sick)
	f.feedback(set, sick, deploymentStatus(1, 0))
	started := f.clock.Now()
	deadline := started.Add(toleration * time.Second)
	f.eventually("countdown persisted on the PlacementDecision", func() (bool, string) {
		st := f.failoverState("batch")
		if len(st.ApplicationHealth) != 1 || st.ApplicationHealth[0].FailingSince == nil {
			return false, "no record"
		}
		return st.ApplicationHealth[0].FailingSince.Time.Equal(started), st.ApplicationHealth[0].FailingSince.String()
	})

	// 40 s into the countdown the process restarts.
	f.advance(started.Add(40*time.Second), 10*time.Second, sick, spare)
	f.restart()
	f.eventually("countdown resumed after the restart", func() (bool, string) {
		at, ok := f.ctrls.ApplicationFailover.Recheck.Pending(keyOf(set))
		return ok && at.Equal(deadline), "pending " + at.String() + ", want " + deadline.String()
	})
	if got := decided(f.decision("batch")); !slices.Equal(got, []string{sick}) {
		t.Fatalf("moved right after the restart, 20 s early: %v", got)
	}
	f.advance(deadline.Add(-time.Second), 10*time.Second, sick, spare)
	if got := decided(f.decision("batch")); !slices.Equal(got, []string{sick}) {
		t.Fatalf("moved before the countdown ended: %v", got)
	}
	f.advance(deadline, time.Second, sick, spare)
	f.waitDecision("batch", "moved when the countdown ends", spare)
}
