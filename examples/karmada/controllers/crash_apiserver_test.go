package controllers_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// TestCrashAPIServerRestartsMidFailover stops the API server and starts it
// again in the middle of a failover: right after the taint manager's write
// that evicts the binding from its tainted cluster and places it on the
// other, before the new Work exists. etcd keeps running, so nothing
// written is lost; every watch and request of the controllers breaks. The
// controllers reconnect and finish: the new Work is created, the old copy
// stays until the new one is healthy, then goes with its eviction task.
//
// The shared API server cannot stop (other tests run on it), so this test
// starts one of its own on a fresh etcd. envtest (controller-runtime
// v0.25.2) restarts an API server in place when its certificate folder is
// fixed: the serving certificate, the client CA and the port are kept, so
// the controllers' configuration stays valid.
func TestCrashAPIServerRestartsMidFailover(t *testing.T) {
	t.Parallel()
	env := &envtest.Environment{CRDDirectoryPaths: crdPaths, ErrorIfCRDPathMissing: true, Scheme: testScheme}
	env.ControlPlane.APIServer = &envtest.APIServer{CertDir: t.TempDir(), StopTimeout: time.Minute}
	rc, err := env.Start()
	if err != nil {
		t.Fatalf("start a second kube-apiserver and etcd: %v", err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	apiServer := env.ControlPlane.GetAPIServer()

	f := newFixtureOn(t, rc, func(c *controllers.Config) { c.Prober = newProbes() })
	var (
		once      sync.Once
		restarted = make(chan struct{})
	)
	f.newClient = func(c client.WithWatch) client.Client {
		return interceptor.NewClient(c, interceptor.Funcs{
			Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
				err := c.Patch(ctx, obj, patch, opts...)
				if rb, ok := obj.(*workv1alpha2.ResourceBinding); ok && err == nil && len(rb.Spec.GracefulEvictionTasks) > 0 {
					once.Do(func() {
						defer close(restarted)
						// kube-apiserver drains for a while after SIGTERM,
						// longer on a busy machine: StopTimeout only bounds
						// that (past it envtest kills the process but does
						// not wait for it, and the restart then finds the
						// old one still holding the port).
						if err := apiServer.Stop(); err != nil {
							t.Logf("stop the API server: %v", err)
						}
						if err := apiServer.Start(); err != nil {
							t.Errorf("start the API server again: %v", err)
						}
					})
				}
				return err
			},
		})
	}
	f.start()
	from, to := f.clusterName("a"), f.clusterName("b")
	f.readyClusters(clusterv1alpha1.Push, from, to)
	f.createTemplate(deployment("orders", 2))
	f.createBinding(deploymentBinding(f.ns, "orders", 0, workv1alpha2.TargetCluster{Name: from}))
	rb := f.binding("orders")
	f.waitWork(rb, from, true)

	f.taint(from, "decommission", corev1.TaintEffectNoExecute)
	// A real process stops and starts: the wait is bounded by the two
	// timeouts, not by the fixture's deadline.
	select {
	case <-restarted:
	case <-time.After(2 * time.Minute):
		t.Fatal("the API server did not restart after the eviction")
	case <-f.ctx.Done():
		t.Fatal("test ended")
	}
	f.waitBinding("orders", "evicted and placed", func(rb *workv1alpha2.ResourceBinding) bool {
		return slices.Equal(clusterNames(rb), []string{to}) && slices.Equal(taskClusters(rb), []string{from})
	})
	f.waitWork(rb, to, true)
	f.settle()
	if f.work(rb, from) == nil {
		t.Fatal("the old copy went before the new one was healthy")
	}
	f.setHealth("orders", healthItem(to, "Healthy", nil))
	f.waitWork(rb, from, false)
	f.waitBinding("orders", "the eviction task done", func(rb *workv1alpha2.ResourceBinding) bool {
		return len(rb.Spec.GracefulEvictionTasks) == 0 && slices.Equal(clusterNames(rb), []string{to})
	})
}
