package controllers_test

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/api/policy/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// Story 11: a workload whose placement names a primary and a backup group
// of clusters (clusterAffinities) runs on both primary clusters. One of
// them fails, and the primary group has no other: the workload moves whole
// to the backup group, as Karmada's scheduler moves it. The binding
// records the group it now runs in; the copy on the primary cluster that
// stayed is removed at once, the one on the failed cluster once the new
// copies are healthy.
func TestStory11AffinityGroupsFailOverToTheBackup(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *controllers.Config) { c.Prober = newProbes() })
	f.start()
	p1, p2, b1, b2 := f.clusterName("p1"), f.clusterName("p2"), f.clusterName("b1"), f.clusterName("b2")
	f.readyClusters(clusterv1alpha1.Push, p1, p2, b1, b2)
	f.createTemplate(deployment("web", 1))
	rb := deploymentBinding(f.ns, "web", 1, workv1alpha2.TargetCluster{Name: p1, Replicas: 1}, workv1alpha2.TargetCluster{Name: p2, Replicas: 1})
	rb.Spec.Placement = &policyv1alpha1.Placement{
		ClusterAffinities: []policyv1alpha1.ClusterAffinityTerm{
			{AffinityName: "primary", ClusterAffinity: policyv1alpha1.ClusterAffinity{ClusterNames: []string{p1, p2}}},
			{AffinityName: "backup", ClusterAffinity: policyv1alpha1.ClusterAffinity{ClusterNames: []string{b1, b2}}},
		},
		SpreadConstraints: []policyv1alpha1.SpreadConstraint{
			{SpreadByField: policyv1alpha1.SpreadByFieldCluster, MinGroups: 2, MaxGroups: 2},
		},
	}
	f.createBinding(rb)
	rb = f.binding("web")
	f.waitWork(rb, p1, true)
	f.waitWork(rb, p2, true)

	f.taint(p1, "maintenance", corev1.TaintEffectNoExecute)
	rb = f.waitBinding("web", "moved to the backup group", func(rb *workv1alpha2.ResourceBinding) bool {
		return slices.Equal(clusterNames(rb), []string{b1, b2}) && slices.Equal(taskClusters(rb), []string{p1}) &&
			rb.Status.SchedulerObservedAffinityName == "backup"
	})
	f.waitWork(rb, b1, true)
	f.waitWork(rb, b2, true)
	// p2 is outside the backup group and was not evicted: its copy goes now.
	// p1's stays while its task waits for the new copies.
	f.waitWork(rb, p2, false)
	f.waitWork(rb, p1, true)

	f.setHealth("web", healthItem(b1, "Healthy", nil), healthItem(b2, "Healthy", nil))
	f.waitBinding("web", "task completed", func(rb *workv1alpha2.ResourceBinding) bool {
		return len(rb.Spec.GracefulEvictionTasks) == 0
	})
	f.waitWork(rb, p1, false)
	if got := f.binding("web"); !slices.Equal(clusterNames(got), []string{b1, b2}) || got.Status.SchedulerObservedAffinityName != "backup" {
		t.Fatalf("clusters %v, affinity %q; want the backup group, recorded", clusterNames(got), got.Status.SchedulerObservedAffinityName)
	}
}
