package controllers_test

import (
	"slices"
	"testing"
	"time"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"

	"github.com/fleetover/fleetover/examples/ocm/controllers"
)

// Story 3: a Deployment stays unhealthy on its cluster (its ManifestWork's
// status feedback shows no available replica). The health interpreter reads
// the feedback, the detector counts the toleration, the workload moves and
// the cluster is recorded in the eviction history; the old copy goes once
// the new one is healthy.
func TestStory3ApplicationFailover(t *testing.T) {
	const toleration = 60
	f := newFixture(t, nil)
	f.start()
	sick, spare := f.clusterName("a"), f.clusterName("b")
	f.joinTrackedClusters(sick, spare)

	f.createPlacement("api")
	f.decide("api", sick)
	manifest, rules := deployment(f.ns, "api", 3)
	tol := int32(toleration)
	set := f.createSet("api", "api", manifest, "deployments", rules, &failover.FailoverBehavior{
		Application: &failover.ApplicationFailoverBehavior{
			DecisionConditions: failover.DecisionConditions{TolerationSeconds: &tol},
		},
	})
	f.waitWorks(set, "work on the first cluster", sick)

	// Healthy first, then no replica available.
	f.feedback(set, sick, deploymentStatus(3, 3))
	f.advance(f.clock.Now().Add(10*time.Second), 5*time.Second, sick, spare)
	f.feedback(set, sick, deploymentStatus(3, 0))
	started := f.clock.Now()
	deadline := started.Add(toleration * time.Second)
	f.eventually("countdown running", func() (bool, string) {
		at, ok := f.ctrls.ApplicationFailover.Recheck.Pending(keyOf(set))
		return ok && at.Equal(deadline), "pending " + at.String() + ", want " + deadline.String()
	})
	f.advance(deadline.Add(-time.Second), 10*time.Second, sick, spare)
	if got := decided(f.decision("api")); !slices.Equal(got, []string{sick}) {
		t.Fatalf("moved before the toleration ran out: %v", got)
	}
	f.advance(deadline, time.Second, sick, spare)
	f.waitDecision("api", "workload moved off the failing cluster", spare)
	st := f.failoverState("api")
	if got := taskClusters(st); !slices.Equal(got, []string{sick}) {
		t.Fatalf("tasks %v, want one for %s", got, sick)
	}
	if len(st.History) != 1 || st.History[0].ClusterName != sick {
		t.Fatalf("eviction history %+v, want %s", st.History, sick)
	}

	f.waitWorks(set, "new work next to the old one", sick, spare)
	f.feedback(set, spare, deploymentStatus(3, 3))
	f.waitWorks(set, "old work deleted once the new copy is healthy", spare)
}

// Story 3, stateful: a Flink job fails on its cluster past its toleration,
// but its feedback does not carry the job id its state preservation rule
// reads. The eviction waits, with no timed retry (the state can only come
// with the work's next status report). The report with the job id brings
// the eviction back: the job resumes on the spare cluster with its id.
func TestStory3StatefulApplicationFailoverWaitsForItsState(t *testing.T) {
	const toleration = 60
	f := newFixture(t, func(c *controllers.Config) { c.StatefulFailoverInjection = true })
	f.start()
	sick, spare := f.clusterName("a"), f.clusterName("b")
	f.joinTrackedClusters(sick, spare)

	f.createPlacement("job")
	f.decide("job", sick)
	manifest, rules := flinkDeployment(f.ns, "orders")
	tol := int32(toleration)
	set := f.createSet("orders", "job", manifest, "flinkdeployments", rules, &failover.FailoverBehavior{
		Application: &failover.ApplicationFailoverBehavior{
			DecisionConditions: failover.DecisionConditions{TolerationSeconds: &tol},
			PurgeMode:          eviction.PurgeDirectly,
			StatePreservation:  jobIDPreservation(),
		},
	})
	f.waitWorks(set, "job on the first cluster", sick)
	f.feedback(set, sick, map[string]any{"jobState": "RUNNING", "lifecycleState": "STABLE"})
	f.advance(f.clock.Now().Add(10*time.Second), 5*time.Second, sick, spare)
	// The job restarts in a loop, and its status lost the job id.
	f.feedback(set, sick, map[string]any{"jobState": "RESTARTING", "lifecycleState": "DEPLOYED"})
	deadline := f.clock.Now().Add(toleration * time.Second)
	f.eventually("countdown running", func() (bool, string) {
		at, ok := f.ctrls.ApplicationFailover.Recheck.Pending(keyOf(set))
		return ok && at.Equal(deadline), "pending " + at.String() + ", want " + deadline.String()
	})
	f.advance(deadline, time.Second, sick, spare)
	f.waitEvent("orders", "StatePreservationFailed", "the job's eviction says it waits for its state")
	if at, ok := f.ctrls.ApplicationFailover.Recheck.Pending(keyOf(set)); ok {
		t.Fatalf("a look at %v is scheduled for an eviction that only a status report can move", at)
	}
	if got := decided(f.decision("job")); !slices.Equal(got, []string{sick}) {
		t.Fatalf("the job moved to %v without its state", got)
	}

	f.feedback(set, sick, map[string]any{"jobId": "9c1e7a3b5d2f", "jobState": "RESTARTING", "lifecycleState": "DEPLOYED"})
	f.waitDecision("job", "the job moves once its id can be read", spare)
	ws := f.waitWorks(set, "job resumed on the spare cluster", spare)
	if got := workManifest(ws[spare]).GetLabels()[jobIDLabel]; got != "9c1e7a3b5d2f" {
		t.Fatalf("new copy's job id label = %q, want the old job's 9c1e7a3b5d2f", got)
	}
}
