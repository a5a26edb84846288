package controllers_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
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

	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// The API server and etcd are shared by every test; each test runs its own
// controllers (a manager with a fake clock) on its own namespace and
// clusters, and stops them when it ends.
var (
	restConfig *rest.Config
	testScheme *runtime.Scheme
	// crdPaths are the CRDs the API server serves, for a test that starts
	// an API server of its own.
	crdPaths []string
)

func TestMain(m *testing.M) {
	flag.Parse()
	if fuzzing() {
		// Fuzz targets need no API server, and every fuzz worker process
		// runs TestMain: starting one server per worker would swamp the
		// machine. The integration tests refuse to run in this mode.
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

// fuzzing reports whether this process is a fuzzing coordinator or worker.
func fuzzing() bool {
	for _, name := range []string{"test.fuzz", "test.fuzzworker"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" && f.Value.String() != "false" {
			return true
		}
	}
	return false
}

func run(m *testing.M) int {
	ctrl.SetLogger(logr.Discard())
	var err error
	if testScheme, err = controllers.NewScheme(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	crdDirs, err := karmadaCRDs()
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: Karmada's CRDs: %v\n", err)
		return 1
	}
	env := &envtest.Environment{
		CRDDirectoryPaths:     append(crdDirs, filepath.Join("testdata", "crd")),
		ErrorIfCRDPathMissing: true,
		Scheme:                testScheme,
		// A cold or busy 2-core machine starts kube-apiserver slowly
		// (envtest's default allows 20 s).
		ControlPlaneStartTimeout: 2 * time.Minute,
	}
	crdPaths = env.CRDDirectoryPaths
	if restConfig, err = env.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: start kube-apiserver and etcd from KUBEBUILDER_ASSETS=%s: %v\n", os.Getenv("KUBEBUILDER_ASSETS"), err)
		return 1
	}
	defer func() { _ = env.Stop() }()
	return m.Run()
}

// The API server serves Karmada's own CRDs, read from the Go module cache
// (nothing is copied into this repository): work.karmada.io (bindings in
// their stored version v1alpha2, Works) and policy.karmada.io, from the
// chart's bases without the patches that add a conversion webhook. Cluster
// is no CRD in Karmada (its aggregated API server serves it): a CRD
// generated from karmada-io/api's Cluster type stands in for it
// (testdata/crd, hack/update-codegen.sh); docs/karmada.md says what the
// real server does that it does not.
const karmadaModule = "github.com/karmada-io/karmada@v1.17.1"

// karmadaBesideModule is the newest Karmada release, whose deploy files
// the command-line tests read. The checksum database does not answer for
// it here, so its download skips the lookup: the exact version pins it.
const karmadaBesideModule = "github.com/karmada-io/karmada@v1.18.1"

// moduleDir downloads a module at an exact version (a no-op when cached)
// and returns its folder in the module cache.
func moduleDir(module string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", module)
	cmd.Env = append(os.Environ(), "GONOSUMDB=github.com/karmada-io/karmada")
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %w", module, commandError(err))
	}
	var mod struct{ Dir, Error string }
	if err := json.Unmarshal(out, &mod); err != nil {
		return "", fmt.Errorf("go mod download %s: %w", module, err)
	}
	if mod.Error != "" || mod.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %s", module, mod.Error)
	}
	return mod.Dir, nil
}

// karmadaCRDs downloads Karmada's module (a no-op when cached) and returns
// the folders of the CRDs it holds that the tests load.
func karmadaCRDs() ([]string, error) {
	dir, err := moduleDir(karmadaModule)
	if err != nil {
		return nil, err
	}
	bases := filepath.Join(dir, "charts", "karmada", "_crds", "bases")
	return []string{filepath.Join(bases, "work"), filepath.Join(bases, "policy")}, nil
}

func commandError(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return fmt.Errorf("%w: %s", err, ee.Stderr)
	}
	return err
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
	// newClient, when set, wraps the manager's client (story 5).
	newClient func(client.WithWatch) client.Client
	// wrapTransport, when set, wraps the manager's HTTP transport (the
	// write-count test).
	wrapTransport func(http.RoundTripper) http.RoundTripper

	ctrls *controllers.Controllers
	stop  func()
	runs  int

	// activity and deliveries tell when the running controllers are idle
	// (settle, eventually); both are new with every start.
	activity   *controllers.Activity
	mu         sync.Mutex // guards deliveries, which the client reads
	deliveries *deliveries
	// cache is the running controllers' cache.
	cache client.Reader

	// crash, when set, kills a controller process between two writes;
	// settle and eventually then start a new one (crash_test.go).
	crash        *crashInjector
	crashHandled bool
	// startWith, when set, starts the controllers instead of start
	// (leader election, crash_leader_test.go).
	startWith func()
	// rest is the API server the fixture talks to: the shared one, or a
	// test's own (newFixtureOn).
	rest *rest.Config
}

func newFixture(t *testing.T, configure func(*controllers.Config)) *fixture {
	t.Helper()
	return newFixtureOn(t, restConfig, configure)
}

// newFixtureOn is newFixture on the API server rc.
func newFixtureOn(t *testing.T, rc *rest.Config, configure func(*controllers.Config)) *fixture {
	t.Helper()
	if rc == nil {
		t.Fatal("no API server: integration tests do not run together with -fuzz; run them without it (bash hack/test.sh)")
	}
	c, err := client.NewWithWatch(rc, client.Options{Scheme: testScheme})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, ctx: t.Context(), clock: clocktesting.NewFakeClock(epoch), rest: rc}
	f.cfg = controllers.Config{Clock: f.clock}
	if configure != nil {
		configure(&f.cfg)
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "story-"}}
	if err := c.Create(f.ctx, ns); err != nil {
		t.Fatal(err)
	}
	f.ns = ns.Name
	f.c = f.recordingClient(c, f.ns)
	t.Cleanup(f.stopControllers)
	return f
}

// start runs a fresh set of controllers: fresh in-memory state, the same
// API server and clock.
func (f *fixture) start() {
	f.t.Helper()
	if f.startWith != nil {
		f.startWith()
		return
	}
	f.runs++
	cfg := f.cfg
	cfg.Registerer = prometheus.NewRegistry()
	cfg.NamePrefix = fmt.Sprintf("%s-%d-", f.ns, f.runs)
	f.activity = controllers.NewActivity(f.clock)
	cfg.Activity = f.activity
	d := newDeliveries(testScheme)
	f.mu.Lock()
	f.deliveries = d
	f.mu.Unlock()
	opts := manager.Options{
		Scheme:                 testScheme,
		Cache:                  scopedCache(f.ns),
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	}
	wrap := f.newClient
	opts.NewClient = func(cfg *rest.Config, o client.Options) (client.Client, error) {
		c, err := client.NewWithWatch(cfg, o)
		if err != nil {
			return nil, err
		}
		c = f.recordingClient(c, "")
		if wrap != nil {
			return wrap(c), nil
		}
		return c, nil
	}
	rc := f.rest
	if f.wrapTransport != nil {
		rc = rest.CopyConfig(f.rest)
		rc.Wrap(f.wrapTransport)
	}
	mgr, err := ctrl.NewManager(rc, opts)
	if err != nil {
		f.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if f.ctrls, err = controllers.Setup(ctx, mgr, cfg); err != nil {
		cancel()
		f.t.Fatal(err)
	}
	if err := d.watch(ctx, mgr.GetCache()); err != nil {
		cancel()
		f.t.Fatal(err)
	}
	f.cache = mgr.GetCache()
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

// restart stops the controllers and starts new ones, as a controller
// process restart would.
func (f *fixture) restart() {
	f.stopControllers()
	f.start()
}

// eventually checks cond until it holds or a bounded timeout passes, then
// fails the test with what it was waiting for and the last observation.
// It checks again whenever the controllers' informers see a write or their
// queues move; the slow tick is for conditions on neither (an object
// outside the controllers' watch).
func (f *fixture) eventually(what string, cond func() (bool, string)) {
	f.t.Helper()
	deadline := time.NewTimer(30 * time.Second)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		var activity, delivered <-chan struct{}
		if f.activity != nil {
			// Looks due since the last clock step may still sit in the
			// delaying queue (see Activity.ReleaseDue).
			f.activity.ReleaseDue()
			activity = f.activity.Changed()
		}
		if d := f.currentDeliveries(); d != nil {
			delivered = d.Changed()
		}
		ok, obs := cond()
		if ok {
			return
		}
		select {
		case <-f.ctx.Done():
			f.t.Fatalf("%s: test ended", what)
		case <-deadline.C:
			f.t.Fatalf("timed out waiting for %s; last seen: %s", what, obs)
		case <-activity:
			f.coalesce()
		case <-delivered:
			f.coalesce()
		case <-f.crashed():
			f.recoverCrash()
			deadline.Reset(30 * time.Second)
		case <-tick.C:
		}
	}
}

// coalesce lets a burst of changes pass before a condition is checked
// again, so a busy controller does not turn every queue move into reads.
func (f *fixture) coalesce() {
	t := time.NewTimer(quiet)
	defer t.Stop()
	select {
	case <-t.C:
	case <-f.ctx.Done():
	}
}

// waitPending waits until r holds a look at key, then returns its deadline.
func (f *fixture) waitPending(what string, r *controllers.Schedule, key client.ObjectKey) time.Time {
	f.t.Helper()
	var at time.Time
	f.eventually(what+" scheduled", func() (bool, string) {
		var ok bool
		at, ok = r.Pending(key)
		return ok, "nothing pending"
	})
	return at
}

// stepToPendingUnless waits until done holds or r holds a look at key; in
// the second case it moves the clock to the look. A controller that
// decides at once (its pacer had a token) schedules no look; one that must
// wait for a token asks for a look; one that does neither has lost the
// change, and the wait times out.
func (f *fixture) stepToPendingUnless(what string, r *controllers.Schedule, key client.ObjectKey, done func() bool) {
	f.t.Helper()
	var at time.Time
	var pending bool
	f.eventually(what, func() (bool, string) {
		if done() {
			return true, ""
		}
		at, pending = r.Pending(key)
		return pending, "not done, and no look pending"
	})
	if pending {
		f.stepTo(at)
	}
}

// stepTo moves the fake clock forward to t, once the running controllers
// have done what the present asks of them: a look they request is a wait
// from the time they read, so the clock must not move under them.
func (f *fixture) stepTo(t time.Time) {
	f.t.Helper()
	if f.activity != nil {
		f.settle()
	}
	if d := t.Sub(f.clock.Now()); d > 0 {
		f.clock.Step(d)
	}
}
