package controllers_test

import (
	"context"
	"slices"
	"sync"
	"testing"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// Story 5: another writer changes the binding between the taint manager's
// read and its write. The write, a merge patch under an optimistic lock,
// fails with a conflict and is retried on the fresh object: the eviction
// lands and the other writer's change is kept (Karmada #7483).
func TestStory5ConflictingUpdateIsRetriedNotLost(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *controllers.Config) { c.Prober = newProbes() })
	var (
		mu        sync.Mutex
		injected  bool
		conflicts int
	)
	f.newClient = func(c client.WithWatch) client.Client {
		return interceptor.NewClient(c, interceptor.Funcs{
			Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
				rb, ok := obj.(*workv1alpha2.ResourceBinding)
				mu.Lock()
				first := ok && rb.Name == "orders" && len(rb.Spec.GracefulEvictionTasks) > 0 && !injected
				injected = injected || first
				mu.Unlock()
				if first {
					// The concurrent writer: bumps the resourceVersion the
					// controller read.
					if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
						fresh := &workv1alpha2.ResourceBinding{}
						if err := f.c.Get(ctx, client.ObjectKeyFromObject(rb), fresh); err != nil {
							return err
						}
						if fresh.Labels == nil {
							fresh.Labels = map[string]string{}
						}
						fresh.Labels["team"] = "payments"
						return f.c.Update(ctx, fresh)
					}); err != nil {
						return err
					}
				}
				err := c.Patch(ctx, obj, patch, opts...)
				if ok && rb.Name == "orders" && apierrors.IsConflict(err) {
					mu.Lock()
					conflicts++
					mu.Unlock()
				}
				return err
			},
		})
	}
	f.start()
	from, to := f.clusterName("a"), f.clusterName("b")
	f.readyClusters(clusterv1alpha1.Push, from, to)
	f.createTemplate(deployment("orders", 1))
	f.createBinding(deploymentBinding(f.ns, "orders", 0, workv1alpha2.TargetCluster{Name: from}))
	f.waitWork(f.binding("orders"), from, true)

	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cl := f.cluster(from)
		now := metav1.NewTime(f.clock.Now())
		cl.Spec.Taints = append(cl.Spec.Taints, corev1.Taint{Key: "decommission", Effect: corev1.TaintEffectNoExecute, TimeAdded: &now})
		return f.c.Update(f.ctx, cl)
	}); err != nil {
		t.Fatal(err)
	}

	rb := f.waitBinding("orders", "eviction despite the concurrent writer", func(rb *workv1alpha2.ResourceBinding) bool {
		return slices.Equal(taskClusters(rb), []string{from}) && slices.Equal(clusterNames(rb), []string{to})
	})
	if rb.Labels["team"] != "payments" {
		t.Fatalf("the concurrent writer's label was lost: labels %v", rb.Labels)
	}
	mu.Lock()
	defer mu.Unlock()
	if !injected || conflicts == 0 {
		t.Fatalf("the test did not provoke a conflict (injected=%t conflicts=%d)", injected, conflicts)
	}
}
