package controllers_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

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

// karmadaDeployArgs reads the arguments of karmada-controller-manager in
// Karmada's own deploy file (artifacts/deploy/karmada-controller-manager.yaml
// of the module at karmadaBesideVersion), without the binary's path.
func karmadaDeployArgs(t *testing.T) []string {
	t.Helper()
	dir, err := moduleDir(karmadaBesideModule)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, "artifacts", "deploy", "karmada-controller-manager.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var d appsv1.Deployment
	if err := yaml.Unmarshal(data, &d); err != nil {
		t.Fatal(err)
	}
	for _, c := range d.Spec.Template.Spec.Containers {
		if c.Name == "karmada-controller-manager" && len(c.Command) > 1 {
			return c.Command[1:]
		}
	}
	t.Fatalf("no karmada-controller-manager container command in %s", dir)
	return nil
}

// writeKubeconfig writes a kubeconfig for the test API server.
func writeKubeconfig(t *testing.T) string {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["karmada"] = &clientcmdapi.Cluster{Server: restConfig.Host, CertificateAuthorityData: restConfig.CAData}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{ClientCertificateData: restConfig.CertData, ClientKeyData: restConfig.KeyData, Token: restConfig.BearerToken}
	cfg.Contexts["karmada"] = &clientcmdapi.Context{Cluster: "karmada", AuthInfo: "admin"}
	cfg.CurrentContext = "karmada"
	path := filepath.Join(t.TempDir(), "karmada.config")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// The binary, started with the arguments of Karmada's own deploy file for
// karmada-controller-manager (the kubeconfig path and the pod's address
// filled in, and the leader election Lease kept in the test's namespace),
// means what Karmada means by them: every gate on (AllAlpha, AllBeta),
// NoExecute eviction on, the status update frequency as the probe
// interval, JSON logs at -v=4, Karmada's controllers it does not run
// logged. It elects itself leader, serves its health endpoint, and fails
// a binding over from a cluster with an untolerated NoExecute taint.
func TestControllerManagerRunsWithKarmadasDeployArguments(t *testing.T) {
	f := newFixture(t, nil)
	healthAddr := freeAddress(t)
	var args []string
	for _, a := range karmadaDeployArgs(t) {
		switch {
		case strings.HasPrefix(a, "--kubeconfig="):
			a = "--kubeconfig=" + writeKubeconfig(t)
		case strings.HasPrefix(a, "--metrics-bind-address="):
			a = "--metrics-bind-address=0"
		case strings.HasPrefix(a, "--health-probe-bind-address="):
			a = "--health-probe-bind-address=" + healthAddr
		}
		args = append(args, a)
	}
	args = append(args, "--leader-elect-resource-namespace="+f.ns)
	t.Logf("karmada-controller-manager's deploy arguments: %q", args)
	o := app.NewOptions()
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	o.AddFlags(fs)
	if err := o.Parse(args); err != nil {
		t.Fatalf("Karmada's own arguments are refused: %v", err)
	}
	gates := o.Karmada.FeatureGates
	if !gates.Enabled(app.GateFailover) || !gates.Enabled(app.GateStatefulFailoverInjection) || !gates.Enabled(app.GateGracefulEviction) {
		t.Errorf("gates %s: AllAlpha=true,AllBeta=true turns every gate on", gates.Effective())
	}
	c := o.Config()
	for _, name := range []string{controllers.ControllerTaintManager, controllers.ControllerClusterTaintPolicy, controllers.ControllerGracefulEviction,
		controllers.ControllerApplicationFailover, controllers.ControllerBinding} {
		if !slices.Contains(c.Controllers, name) {
			t.Errorf("controllers %v: want %s", c.Controllers, name)
		}
	}
	if c.ProbeInterval != 10*time.Second || !c.StatefulFailoverInjection || c.ClusterFailover.PurgeMode != eviction.PurgeGracefully {
		t.Errorf("config: probe interval %v (want --cluster-status-update-frequency=10s), injection %t, purge mode %q", c.ProbeInterval, c.StatefulFailoverInjection, c.ClusterFailover.PurgeMode)
	}
	if notRun := o.NotRun(); !slices.Contains(notRun, "hpaScaleTargetMarker") || !slices.Contains(notRun, "deploymentReplicasSyncer") || !slices.Contains(notRun, "execution") {
		t.Errorf("controllers left to Karmada: %v, want hpaScaleTargetMarker, deploymentReplicasSyncer (named) and execution (by *)", notRun)
	}
	var logs bytes.Buffer
	var logsMu sync.Mutex
	log := app.NewLogger(o, &lockedWriter{w: &logs, mu: &logsMu})
	cfg, err := app.RESTConfig(o)
	if err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var mu sync.Mutex
	var ctrls *controllers.Controllers
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := app.Run(ctx, cfg, o, log, func(c *controllers.Controllers) {
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
	logsMu.Lock()
	logged := logs.String()
	logsMu.Unlock()
	if !strings.Contains(logged, `"msg":"controllers left to karmada-controller-manager`) || !strings.Contains(logged, "hpaScaleTargetMarker") {
		t.Errorf("the JSON log does not name the controllers left to Karmada:\n%s", logged)
	}

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

// lockedWriter serializes the writes of the manager's goroutines.
type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
