package controllers_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/fleetover/fleetover/examples/ocm/controllers"
)

// ocmModule is the Open Cluster Management API module whose CRDs the API
// server loads: the version go.mod requires.
const ocmModule = "open-cluster-management.io/api@v1.1.0"

// ocmCRDs are the CRD files the controllers need, relative to the module.
var ocmCRDs = []string{
	"cluster/v1/0000_00_clusters.open-cluster-management.io_managedclusters.crd.yaml",
	"cluster/v1beta1/0000_02_clusters.open-cluster-management.io_placements.crd.yaml",
	"cluster/v1beta1/0000_03_clusters.open-cluster-management.io_placementdecisions.crd.yaml",
	"work/v1/0000_00_work.open-cluster-management.io_manifestworks.crd.yaml",
	"work/v1alpha1/0000_00_work.open-cluster-management.io_manifestworkreplicasets.crd.yaml",
}

// The API server and etcd are shared by every test; each test runs its own
// controllers (a manager with a fake clock) on its own namespace and
// clusters, and stops them when it ends.
var (
	restConfig *rest.Config
	testScheme *runtime.Scheme
)

func TestMain(m *testing.M) {
	flag.Parse()
	if fuzzing() {
		// Fuzz targets need no API server, and every fuzz worker runs
		// TestMain: one server per worker would swamp the machine.
		os.Exit(m.Run())
	}
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		fmt.Fprintln(os.Stderr, "FAIL: KUBEBUILDER_ASSETS is not set. These integration tests run the controllers "+
			"against a real kube-apiserver and etcd. Run `bash hack/test.sh` from the repository root: it builds both "+
			"with hack/kube-assets.sh and sets KUBEBUILDER_ASSETS.")
		os.Exit(1)
	}
	os.Exit(run(m))
}

func fuzzing() bool {
	for _, name := range []string{"test.fuzz", "test.fuzzworker"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" && f.Value.String() != "false" {
			return true
		}
	}
	return false
}

// moduleDir finds the OCM API module in the module cache (downloading it
// if needed) with the go command, so the CRDs are read from the module
// itself and never copied.
func moduleDir(mod string) (string, error) {
	out, err := exec.Command("go", "mod", "download", "-json", mod).Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %w", mod, err)
	}
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(out, &info); err != nil {
		return "", fmt.Errorf("go mod download %s: %w", mod, err)
	}
	if info.Error != "" || info.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %s", mod, info.Error)
	}
	return info.Dir, nil
}

func run(m *testing.M) int {
	ctrl.SetLogger(logr.Discard())
	var err error
	if testScheme, err = controllers.NewScheme(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	dir, err := moduleDir(ocmModule)
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		return 1
	}
	var paths []string
	for _, p := range ocmCRDs {
		paths = append(paths, filepath.Join(dir, filepath.FromSlash(p)))
	}
	env := &envtest.Environment{
		CRDDirectoryPaths:     paths,
		ErrorIfCRDPathMissing: true,
		Scheme:                testScheme,
		// A cold or busy 2-core machine starts kube-apiserver slowly
		// (envtest's default allows 20 s).
		ControlPlaneStartTimeout: 2 * time.Minute,
	}
	if restConfig, err = env.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: start kube-apiserver and etcd from KUBEBUILDER_ASSETS=%s: %v\n", os.Getenv("KUBEBUILDER_ASSETS"), err)
		return 1
	}
	defer func() { _ = env.Stop() }()
	return m.Run()
}

// epoch is where every fake clock starts: whole seconds, as the API server
// keeps timestamps to the second.
var epoch = time.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC)

// fixture is one test's controllers and objects.
type fixture struct {
	t     *testing.T
	ctx   context.Context
	c     client.Client // direct, uncached
	clock *clocktesting.FakeClock
	ns    string
	cfg   controllers.Config

	ctrls *controllers.Controllers
	stop  func()
	runs  int

	// newClient, when set, wraps the manager's client.
	newClient func(client.WithWatch) client.Client
	// crash, when set, kills a controller process between two writes;
	// eventually and advance then start a new one (crash_test.go).
	crash        *crashInjector
	crashHandled bool
	crashLogged  bool
}

func newFixture(t *testing.T, configure func(*controllers.Config)) *fixture {
	t.Helper()
	if restConfig == nil {
		t.Fatal("no API server: integration tests do not run together with -fuzz")
	}
	c, err := client.NewWithWatch(restConfig, client.Options{Scheme: testScheme})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, ctx: t.Context(), clock: clocktesting.NewFakeClock(epoch)}
	f.cfg = controllers.Config{Clock: f.clock}
	if configure != nil {
		configure(&f.cfg)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "story-"}}
	if err := c.Create(f.ctx, ns); err != nil {
		t.Fatal(err)
	}
	f.ns = ns.Name
	f.c = scopedClient(c, f.ns)
	t.Cleanup(f.stopControllers)
	plannedCrash(f)
	return f
}

// start runs a fresh set of controllers: fresh in-memory state, the same
// API server and clock.
func (f *fixture) start() {
	f.t.Helper()
	f.runs++
	cfg := f.cfg
	cfg.NamePrefix = fmt.Sprintf("%s-%d-", f.ns, f.runs)
	wrap := f.newClient
	mgr, err := ctrl.NewManager(restConfig, manager.Options{
		Scheme:                 testScheme,
		Cache:                  scopedCache(f.ns),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
		NewClient: func(cfg *rest.Config, o client.Options) (client.Client, error) {
			c, err := client.NewWithWatch(cfg, o)
			if err != nil || wrap == nil {
				return c, err
			}
			return wrap(c), nil
		},
	})
	if err != nil {
		f.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if f.ctrls, err = controllers.Setup(ctx, mgr, cfg); err != nil {
		cancel()
		f.t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := mgr.Start(ctx); err != nil {
			f.t.Errorf("manager: %v", err)
		}
	}()
	f.stop = func() { cancel(); wg.Wait() }
}

func (f *fixture) stopControllers() {
	if f.stop != nil {
		f.stop()
		f.stop = nil
	}
}

// restart stops the controllers and starts new ones, as a process restart
// would.
func (f *fixture) restart() {
	f.stopControllers()
	f.start()
}

// eventually polls cond until it holds or a bounded timeout passes, then
// fails the test with what it was waiting for and the last observation.
func (f *fixture) eventually(what string, cond func() (bool, string)) {
	f.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	last := ""
	for time.Now().Before(deadline) {
		if f.crashPending() {
			f.recoverCrash()
			deadline = time.Now().Add(30 * time.Second)
		}
		ok, obs := cond()
		if ok {
			return
		}
		last = obs
		select {
		case <-f.ctx.Done():
			f.t.Fatalf("%s: test ended", what)
		case <-time.After(25 * time.Millisecond):
		}
	}
	f.t.Fatalf("timed out waiting for %s; last seen: %s", what, last)
}

// stepTo moves the fake clock forward to t.
func (f *fixture) stepTo(t time.Time) {
	f.t.Helper()
	if d := t.Sub(f.clock.Now()); d > 0 {
		f.clock.Step(d)
	}
}
