package controllers_test

import (
	"slices"
	"testing"
	"time"

	"github.com/fleetover/fleetover/failover"
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
	f.joinCluster(sick)
	f.joinCluster(spare)
	f.waitHealthTracked(sick)
	f.waitHealthTracked(spare)

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
