package controllers_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	clusterv1 "open-cluster-management.io/api/cluster/v1"
)

// Story 5: every cluster goes silent at once, as when the hub loses its own
// network. The eviction pacer sees a full disruption and evicts nothing: no
// workload is stripped from its last cluster for an outage it could not
// escape. When one cluster comes back, the workload moves there.
func TestStory5FullDisruptionEvictsNothing(t *testing.T) {
	f := newFixture(t, outageConfig)
	f.start()
	a, b := f.clusterName("a"), f.clusterName("b")
	f.joinTrackedClusters(a, b)

	f.createPlacement("svc")
	f.decide("svc", a)
	manifest, rules := deployment(f.ns, "svc", 1)
	set := f.createSet("svc", "svc", manifest, "deployments", rules, nil)
	f.waitWorks(set, "work on the first cluster", a)

	// Both klusterlets go silent: both clusters get NoSelect.
	f.silenceUntilNoSelect(a)
	f.waitTaint(b, clusterv1.ManagedClusterTaintUnreachable, clusterv1.TaintEffectNoSelect)
	f.advance(f.clock.Now().Add(time.Minute), 10*time.Second)
	if got := decided(f.decision("svc")); !slices.Equal(got, []string{a}) {
		t.Fatalf("evicted during a full disruption: decisions %v", got)
	}
	if st := f.failoverState("svc"); len(st.Tasks) != 0 {
		t.Fatalf("eviction tasks during a full disruption: %v", taskClusters(st))
	}

	// b's klusterlet is back: after the success debounce b is healthy, the
	// disruption is partial, and the workload leaves a for b.
	f.setAvailable(b, "True")
	f.renewLease(b)
	f.advance(f.clock.Now().Add(40*time.Second), 5*time.Second, b)
	f.eventually("b untainted", func() (bool, string) {
		mc := f.managedCluster(b)
		return len(mc.Spec.Taints) == 0, fmt.Sprintf("%v", mc.Spec.Taints)
	})
	f.waitDecision("svc", "moved once a healthy cluster exists", b)
}
