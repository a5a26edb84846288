package controllers_test

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/api/policy/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// Story 10: a Duplicated workload spread over exactly two regions loses
// its copy in one of them. The failover scheduler re-places it in a region
// it does not cover yet (d, in ap), not beside the copy that stays (b, in
// eu, comes first by name), and not on e, which names no region.
func TestStory10RegionSpreadReplacesInANewRegion(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *controllers.Config) { c.Prober = newProbes() })
	f.start()
	regions := map[string]string{"a": "eu", "b": "eu", "c": "us", "d": "ap", "e": ""}
	for _, short := range []string{"a", "b", "c", "d", "e"} {
		name := f.clusterName(short)
		f.createCluster(name, clusterv1alpha1.Push)
		if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			cl := f.cluster(name)
			cl.Spec.Region = regions[short]
			return f.c.Update(f.ctx, cl)
		}); err != nil {
			t.Fatal(err)
		}
		f.waitReady(name, metav1.ConditionTrue)
	}
	a, c, d := f.clusterName("a"), f.clusterName("c"), f.clusterName("d")

	f.createTemplate(deployment("web", 1))
	rb := deploymentBinding(f.ns, "web", 1, workv1alpha2.TargetCluster{Name: a, Replicas: 1}, workv1alpha2.TargetCluster{Name: c, Replicas: 1})
	rb.Spec.Placement = &policyv1alpha1.Placement{SpreadConstraints: []policyv1alpha1.SpreadConstraint{
		{SpreadByField: policyv1alpha1.SpreadByFieldCluster, MinGroups: 2, MaxGroups: 2},
		{SpreadByField: policyv1alpha1.SpreadByFieldRegion, MinGroups: 2, MaxGroups: 2},
	}}
	f.createBinding(rb)
	rb = f.binding("web")
	f.waitWork(rb, a, true)
	f.waitWork(rb, c, true)

	// c is taken out: an untolerated NoExecute taint evicts at once.
	f.taint(c, "maintenance", corev1.TaintEffectNoExecute)
	rb = f.waitBinding("web", "re-placed in a new region", func(rb *workv1alpha2.ResourceBinding) bool {
		return slices.Equal(taskClusters(rb), []string{c}) && len(clusterNames(rb)) == 2
	})
	if got, want := clusterNames(rb), []string{a, d}; !slices.Equal(got, want) {
		t.Fatalf("clusters %v, want %v: the copy lost in us goes to ap, the one region not covered", got, want)
	}
	f.waitWork(rb, d, true)
}
