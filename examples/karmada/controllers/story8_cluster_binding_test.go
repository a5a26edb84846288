package controllers_test

import (
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/eviction"
)

// Story 8: a ClusterResourceBinding (a cluster-scoped template, here a
// ClusterRole) fails over like a ResourceBinding: evicted from a cluster
// with an untolerated NoExecute taint, re-placed by the scheduler, its Work
// dispatched to the new cluster and, once the new copy is Healthy, removed
// from the old one.
func TestStory8ClusterResourceBindingFailsOver(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	f.cfg.Prober = newProbes()
	f.start()
	from, to := f.clusterName("a"), f.clusterName("b")
	f.readyClusters(clusterv1alpha1.Push, from, to)

	role := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1",
		"kind":       "ClusterRole",
		"metadata":   map[string]any{"name": f.ns + "-reader"},
		"rules":      []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"pods"}, "verbs": []any{"get"}}},
	}}
	f.createClusterTemplate(role)
	name := f.ns + "-reader"
	f.createClusterBinding(&workv1alpha2.ClusterResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: workv1alpha2.ResourceBindingSpec{
			Resource: workv1alpha2.ObjectReference{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: role.GetName()},
			Clusters: []workv1alpha2.TargetCluster{{Name: from}},
		},
	})
	f.waitWork(f.clusterBinding(name), from, true)

	f.taint(from, "maintenance", corev1.TaintEffectNoExecute)
	f.eventually("evicted and re-placed", func() (bool, string) {
		cur := f.clusterBinding(name)
		var clusters, tasks []string
		for _, tc := range cur.Spec.Clusters {
			clusters = append(clusters, tc.Name)
		}
		for _, tk := range cur.Spec.GracefulEvictionTasks {
			tasks = append(tasks, tk.FromCluster)
		}
		return slices.Equal(clusters, []string{to}) && slices.Equal(tasks, []string{from}), fmt.Sprintf("clusters %v tasks %v", clusters, tasks)
	})
	if task := f.clusterBinding(name).Spec.GracefulEvictionTasks[0]; task.Reason != eviction.ReasonTaintUntolerated {
		t.Fatalf("task = %+v, want TaintUntolerated", task)
	}
	f.waitWork(f.clusterBinding(name), to, true)
	f.waitWork(f.clusterBinding(name), from, true)

	// The new copy is Healthy: the task completes and the old Work goes.
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur := f.clusterBinding(name)
		base := cur.DeepCopy()
		cur.Status.AggregatedStatus = []workv1alpha2.AggregatedStatusItem{{ClusterName: to, Applied: true, Health: workv1alpha2.ResourceHealthy}}
		return f.c.Status().Patch(f.ctx, cur, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}))
	}); err != nil {
		t.Fatal(err)
	}
	f.eventually("task completed", func() (bool, string) {
		return len(f.clusterBinding(name).Spec.GracefulEvictionTasks) == 0, "task still there"
	})
	f.waitWork(f.clusterBinding(name), from, false)
}
