package controllers_test

import (
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
)

// Story 6: a Placement selects its clusters with two predicates, one per
// region (OCM ORs them). Its cluster in east fails and east has no other:
// the workload moves to the cluster in west, which the second predicate
// selects, and not to the one in north, which no predicate selects.
func TestStory6SecondPredicateTakesTheWorkload(t *testing.T) {
	f := newFixture(t, outageConfig)
	f.start()
	east, north, west := f.clusterName("a-east"), f.clusterName("b-north"), f.clusterName("c-west")
	for name, region := range map[string]string{east: "east", north: "north", west: "west"} {
		f.joinCluster(name)
		if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			mc := f.managedCluster(name)
			mc.Labels["region"] = region
			return f.c.Update(f.ctx, mc)
		}); err != nil {
			t.Fatal(err)
		}
		f.waitHealthTracked(name)
	}
	predicate := func(region string) clusterv1beta1.ClusterPredicate {
		return clusterv1beta1.ClusterPredicate{RequiredClusterSelector: clusterv1beta1.ClusterSelector{
			LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"fleet": f.ns, "region": region}},
		}}
	}
	p := &clusterv1beta1.Placement{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "web"},
		Spec: clusterv1beta1.PlacementSpec{
			NumberOfClusters: ptrInt32(1),
			Predicates:       []clusterv1beta1.ClusterPredicate{predicate("east"), predicate("west")},
		},
	}
	if err := f.c.Create(f.ctx, p); err != nil {
		t.Fatal(err)
	}
	f.decide("web", east)
	manifest, rules := deployment(f.ns, "web", 2)
	set := f.createSet("web", "web", manifest, "deployments", rules, nil)
	f.waitWorks(set, "work in east", east)
	f.feedback(set, east, deploymentStatus(2, 2))

	// east's klusterlet goes silent; the others keep renewing. The
	// Placement tolerates nothing: the workload leaves once NoSelect lands.
	f.silenceUntilNoSelect(east, north, west)
	f.advance(f.clock.Now().Add(5*time.Second), 5*time.Second, north, west)
	f.waitDecision("web", "moved to the cluster of the second predicate", west)
	if got := taskClusters(f.failoverState("web")); !slices.Equal(got, []string{east}) {
		t.Fatalf("eviction tasks %v, want one for %s", got, east)
	}
}
