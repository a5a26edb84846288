package controllers_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/fleetover/fleetover/examples/ocm/controllers"
)

// outageConfig: NoSelect one minute after a cluster stops being available.
func outageConfig(c *controllers.Config) {
	c.ClusterTaints = controllers.DefaultClusterTaintConfig()
	c.ClusterTaints.EvictionTimeout = time.Minute
}

// Story 1: a cluster's klusterlet goes silent. Its health taints come from
// fleetover (unreachable, NoSelectIfNew at once and NoSelect after the
// eviction timeout); the Placement tolerates NoSelect for 30 s; then the
// workload moves to the other cluster, and the old ManifestWork stays
// until the new one reports the workload healthy.
func TestStory1ClusterOutageMovesPlacement(t *testing.T) {
	const toleration = 30
	f := newFixture(t, outageConfig)
	f.start()
	down, spare := f.clusterName("a"), f.clusterName("b")
	f.joinTrackedClusters(down, spare)

	f.createPlacement("web", clusterv1beta1.Toleration{
		Key: clusterv1.ManagedClusterTaintUnreachable, Operator: clusterv1beta1.TolerationOpExists,
		Effect: clusterv1.TaintEffectNoSelect, TolerationSeconds: ptrInt64(toleration),
	})
	f.decide("web", down)
	manifest, rules := deployment(f.ns, "web", 2)
	set := f.createSet("web", "web", manifest, "deployments", rules, nil)
	f.waitWorks(set, "work on the first cluster", down)
	f.feedback(set, down, deploymentStatus(2, 2))

	// The klusterlet on down stops renewing; spare's keeps going.
	silentSince := f.clock.Now()
	f.advance(silentSince.Add(45*time.Second), 5*time.Second, spare)
	noNew := f.waitTaint(down, clusterv1.ManagedClusterTaintUnreachable, clusterv1.TaintEffectNoSelectIfNew)
	if taint(f.managedCluster(down), clusterv1.ManagedClusterTaintUnreachable, clusterv1.TaintEffectNoSelect) != nil {
		t.Fatalf("NoSelect before the eviction timeout: %v", f.managedCluster(down).Spec.Taints)
	}
	if taint(f.managedCluster(spare), clusterv1.ManagedClusterTaintUnreachable, clusterv1.TaintEffectNoSelectIfNew) != nil {
		t.Fatalf("the cluster that kept renewing its lease is tainted: %v", f.managedCluster(spare).Spec.Taints)
	}

	// NoSelect comes EvictionTimeout after the cluster went unreachable.
	f.advance(noNew.TimeAdded.Add(time.Minute), 5*time.Second, spare)
	noSelect := f.waitTaint(down, clusterv1.ManagedClusterTaintUnreachable, clusterv1.TaintEffectNoSelect)
	deadline := noSelect.TimeAdded.Add(toleration * time.Second)

	// The Placement tolerates it for 30 s, not a second less.
	f.eventually("toleration countdown scheduled", func() (bool, string) {
		at, ok := f.ctrls.PlacementFailover.Recheck.Pending(keyOf(set))
		return ok && at.Equal(deadline), "pending " + at.String() + ", want " + deadline.String()
	})
	f.advance(deadline.Add(-time.Second), 5*time.Second, spare)
	if got := decided(f.decision("web")); !slices.Equal(got, []string{down}) {
		t.Fatalf("moved before the toleration ran out: %v", got)
	}
	f.advance(deadline, time.Second, spare)
	f.waitDecision("web", "workload moved to the spare cluster", spare)
	if got := taskClusters(f.failoverState("web")); !slices.Equal(got, []string{down}) {
		t.Fatalf("eviction tasks %v, want one for %s", got, down)
	}

	// Gracefully: the old copy stays until the new one is healthy.
	f.waitWorks(set, "new work next to the old one", down, spare)
	f.feedback(set, spare, deploymentStatus(2, 1))
	f.advance(f.clock.Now().Add(10*time.Second), 5*time.Second, spare)
	if got := workClusters(f.works(set)); !slices.Equal(got, slices.Sorted(slices.Values([]string{down, spare}))) {
		t.Fatalf("old work deleted while the new copy is not healthy: works on %v", got)
	}
	f.feedback(set, spare, deploymentStatus(2, 2))
	f.waitWorks(set, "old work deleted once the new copy is healthy", spare)
	f.eventually("eviction task done", func() (bool, string) {
		st := f.failoverState("web")
		return len(st.Tasks) == 0, fmt.Sprintf("tasks on %v", taskClusters(st))
	})
}
