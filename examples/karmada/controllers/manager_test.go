package controllers_test

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/eviction"

	"github.com/fleetover/fleetover/examples/karmada/cmd/fleetover-controller-manager/app"
	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

func freeAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// renewLeaseNow renews a pull-mode cluster's Lease at the wall clock's
// now: the binary runs on the real clock.
func (f *fixture) renewLeaseNow(cluster string) {
	f.t.Helper()
	now := metav1.NewMicroTime(time.Now())
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: controllers.ClusterLeaseNamespace}}
	if err := f.c.Create(f.ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		f.t.Fatal(err)
	}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: controllers.ClusterLeaseNamespace, Name: cluster}}
		err := f.c.Get(f.ctx, client.ObjectKeyFromObject(lease), lease)
		lease.Spec.RenewTime = &now
		if apierrors.IsNotFound(err) {
			return f.c.Create(f.ctx, lease)
		}
		if err != nil {
			return err
		}
		return f.c.Update(f.ctx, lease)
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

// The binary, started against the API server with Karmada's flag names,
// elects itself leader, serves its health endpoint, and fails a binding
// over from a cluster with an untolerated NoExecute taint.
func TestControllerManagerFailsOverABinding(t *testing.T) {
	f := newFixture(t, nil)
	o := app.NewOptions()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	o.AddFlags(fs)
	healthAddr := freeAddress(t)
	if err := fs.Parse([]string{
		"--feature-gates=Failover=true",
		"--enable-no-execute-taint-eviction=true",
		"--metrics-bind-address=0",
		"--health-probe-bind-address=" + healthAddr,
		"--leader-elect-resource-namespace=" + f.ns,
	}); err != nil {
		t.Fatal(err)
	}
	if o.ResourceEvictionRate != app.KarmadaResourceEvictionRate || o.FeatureGates[app.GateStatefulFailoverInjection] {
		t.Fatalf("Karmada's defaults not kept: rate %v, gates %v", o.ResourceEvictionRate, o.FeatureGates)
	}
	if err := fs.Parse([]string{"--feature-gates=Failover=maybe"}); err == nil {
		t.Fatal("an invalid feature gate value was accepted")
	}

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var mu sync.Mutex
	var ctrls *controllers.Controllers
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := app.Run(ctx, restConfig, o, logr.Discard(), func(c *controllers.Controllers) {
			mu.Lock()
			ctrls = c
			mu.Unlock()
		}); err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })

	f.eventually("leader lease", func() (bool, string) {
		l := &coordinationv1.Lease{}
		err := f.c.Get(f.ctx, client.ObjectKey{Namespace: f.ns, Name: app.LeaderElectionID}, l)
		return err == nil && l.Spec.HolderIdentity != nil, fmt.Sprint(err)
	})
	f.eventually("healthz", func() (bool, string) {
		resp, err := http.Get("http://" + healthAddr + "/healthz")
		if err != nil {
			return false, err.Error()
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK, resp.Status
	})
	mu.Lock()
	if ctrls == nil || ctrls.TaintManager == nil {
		mu.Unlock()
		t.Fatal("the binary did not set up the taint manager")
	}
	mu.Unlock()

	from, to := f.clusterName("a"), f.clusterName("b")
	f.createCluster(from, clusterv1alpha1.Pull)
	f.createCluster(to, clusterv1alpha1.Pull)
	f.renewLeaseNow(from)
	f.renewLeaseNow(to)
	f.waitReady(from, metav1.ConditionTrue)
	f.waitReady(to, metav1.ConditionTrue)

	f.createTemplate(deployment("checkout", 1))
	f.createBinding(deploymentBinding(f.ns, "checkout", 1, workv1alpha2.TargetCluster{Name: from}))
	f.waitWork(f.binding("checkout"), from, true)

	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cl := f.cluster(from)
		now := metav1.Now()
		cl.Spec.Taints = append(cl.Spec.Taints, corev1.Taint{Key: "maintenance", Effect: corev1.TaintEffectNoExecute, TimeAdded: &now})
		return f.c.Update(f.ctx, cl)
	}); err != nil {
		t.Fatal(err)
	}
	rb := f.waitBinding("checkout", "failed over to the other cluster", func(rb *workv1alpha2.ResourceBinding) bool {
		return slices.Equal(clusterNames(rb), []string{to}) && slices.Equal(taskClusters(rb), []string{from})
	})
	if task := rb.Spec.GracefulEvictionTasks[0]; task.Reason != eviction.ReasonTaintUntolerated || string(task.PurgeMode) != string(eviction.PurgeGracefully) {
		t.Fatalf("task = %+v, want TaintUntolerated with the default purge mode Gracefully", task)
	}
	f.waitWork(rb, to, true)
}
