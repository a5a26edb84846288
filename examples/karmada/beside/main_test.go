package beside_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/fleetover/fleetover/examples/karmada/beside"
	"github.com/fleetover/fleetover/examples/karmada/cmd/fleetover-controller-manager/app"
)

// The control planes and members every test shares: Karmada alone (K),
// fleetover beside Karmada (F), and three member clusters both join under
// names of their own.
var (
	planes  = map[beside.Configuration]*beside.ControlPlane{}
	members []*beside.Member
	// fleetoverWrites counts configuration F's fleetover-controller-manager
	// writes at its transport.
	fleetoverWrites = &beside.WriteCounter{}
)

// karmadaModule is the Karmada release the harness runs: its CRDs come
// from this module, its components from hack/kube-assets.sh's build of it.
const karmadaModule = "github.com/karmada-io/karmada@v1.18.1"

// timings shorten Karmada's cluster health periods, and the timeout of an
// eviction task that has no grace period of its own (10 minutes by
// default), so that a scenario runs in seconds, the same on both sides
// (Karmada's controllers run on the real clock). The client rate limits
// (40 requests a second by default, for the controller managers and the
// scheduler alike, clientRate) are raised: one control plane serves
// every scenario running at the time, each with clusters of its own whose
// status is written every second, where Karmada's e2e has one set of
// clusters; at the default the controller manager's events came late
// past the scenarios' deadlines with eight scenarios at a time.
var timings = append([]string{
	"--graceful-eviction-timeout=30s",
	"--cluster-status-update-frequency=1s",
	"--cluster-monitor-period=1s",
	"--cluster-monitor-grace-period=6s",
	"--cluster-startup-grace-period=20s",
	"--cluster-success-threshold=1s",
	"--cluster-failure-threshold=3s",
	"--enable-cluster-resource-modeling=false",
}, clientRate...)

// clientRate is the client rate limit of every component, the controller
// managers' (in timings) and the schedulers': see timings for why.
var clientRate = []string{"--kube-api-qps=400", "--kube-api-burst=800"}

func TestMain(m *testing.M) {
	flag.Parse()
	if os.Getenv("KUBEBUILDER_ASSETS") == "" {
		fmt.Fprintln(os.Stderr, "FAIL: KUBEBUILDER_ASSETS is not set. These tests run Karmada's own control plane; "+
			"run `bash hack/test.sh` from the repository root: it builds kube-apiserver, etcd and Karmada's components "+
			"with hack/kube-assets.sh and sets KUBEBUILDER_ASSETS.")
		os.Exit(1)
	}
	os.Exit(run(m))
}

func run(m *testing.M) int {
	// fleetover-controller-manager logs through runFleetover's logger; the
	// controller-runtime machinery it builds on has nothing to say here.
	ctrllog.SetLogger(logr.Discard())
	ctx := context.Background()
	if *evictionRate != "" {
		timings = append(timings, "--resource-eviction-rate="+*evictionRate)
	}
	dir, err := moduleDir(karmadaModule)
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		return 1
	}
	binDir, err := os.MkdirTemp("", "fleetover-beside-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		return 1
	}
	defer os.RemoveAll(binDir)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	fail := func(err error) {
		mu.Lock()
		errs = append(errs, err)
		mu.Unlock()
	}
	members = make([]*beside.Member, 3)
	for i := range members {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mem, err := beside.StartMember(ctx, "")
			if err != nil {
				fail(fmt.Errorf("member %d: %w", i+1, err))
				return
			}
			members[i] = mem
		}()
	}
	for _, c := range []beside.Configuration{beside.KarmadaAlone, beside.FleetoverBeside} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			opts := beside.Options{Configuration: c, KarmadaModuleDir: dir, ControllerManagerArgs: timings, SchedulerArgs: clientRate,
				// The benchmarks count every component's writes from the
				// audit log (BenchmarkClusterFailover).
				AuditWrites: benchmarking()}
			if *keepDir != "" {
				opts.Dir = filepath.Join(*keepDir, string(c))
				if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
					fail(err)
					return
				}
			}
			if c == beside.FleetoverBeside {
				if err := installFleetover(&opts, binDir); err != nil {
					fail(err)
					return
				}
			}
			cp, err := beside.Start(ctx, opts)
			if err != nil {
				fail(fmt.Errorf("control plane %s: %w", c, err))
				return
			}
			mu.Lock()
			planes[c] = cp
			mu.Unlock()
		}()
	}
	wg.Wait()
	defer func() {
		// Side by side: each waits for its API servers to shut down.
		var wg sync.WaitGroup
		for _, cp := range planes {
			wg.Go(cp.Stop)
		}
		for _, mem := range members {
			if mem != nil {
				wg.Go(mem.Stop)
			}
		}
		wg.Wait()
	}()
	if len(errs) > 0 {
		fmt.Fprintln(os.Stderr, "FAIL:", errors.Join(errs...))
		return 1
	}
	code := m.Run()
	if err := cleanups.end(); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		code = 1
	}
	if err := checkRBAC(ctx, planes[beside.FleetoverBeside], fullRun()); err != nil {
		fmt.Fprintln(os.Stderr, "FAIL:", err)
		code = 1
	}
	fmt.Printf("Karmada's failover bugs, side by side:\n%s", outcomeTable())
	if code == 0 && fullRun() && (*update || *checkDocs) {
		if err := checkDocumentedTable(docsPath, *update); err != nil {
			fmt.Fprintln(os.Stderr, "FAIL:", err)
			return 1
		}
	}
	return code
}

// docsPath is the page whose outcome table the run writes.
const docsPath = "../../../docs/karmada.md"

var keepDir = flag.String("beside.dir", "", "keep each control plane's files (kubeconfigs, certificates, the components' logs) in DIR/K and DIR/F")

var evictionRate = flag.String("beside.eviction-rate", "", "--resource-eviction-rate for both configurations (empty: Karmada's default, 0.5 per second)")

var update = flag.Bool("update", false, "write this run's outcome table into docs/karmada.md")

// checkDocs is off in hack/test.sh: the table's words depend on the
// timing of Karmada's own controllers (a copy Karmada deleted and made
// again between two looks read as kept until the scenarios compared
// UIDs), and the suite must not fail on the timing of the system it
// compares with. The scenarios themselves pass or fail as always.
var checkDocs = flag.Bool("beside.check-docs", false, "fail a full run whose outcome table differs from docs/karmada.md's")

// fullRun reports whether every test ran (no -run filter), so the
// outcome table is whole.
func fullRun() bool {
	f := flag.Lookup("test.run")
	return f == nil || f.Value.String() == ""
}

// benchmarking reports whether go test was asked to run benchmarks.
func benchmarking() bool {
	f := flag.Lookup("test.bench")
	return f != nil && f.Value.String() != ""
}

// installFleetover sets configuration F up as deploy/ installs it:
// fleetover-karmada-scheduler in place of karmada-scheduler, and both it
// and fleetover-controller-manager with the arguments of their
// Deployments, as the ServiceAccounts of their karmada-apiserver bases,
// with those bases' RBAC and nothing more. The API server keeps an audit
// log of both identities' requests (checkRBAC).
func installFleetover(opts *beside.Options, binDir string) error {
	scheduler, err := buildScheduler(binDir)
	if err != nil {
		return err
	}
	opts.Scheduler = scheduler
	deployed, err := deploymentArgs(schedulerComponent)
	if err != nil {
		return err
	}
	opts.SchedulerArgs = append(deployed, opts.SchedulerArgs...)
	managerArgs, err := deploymentArgs(managerComponent)
	if err != nil {
		return err
	}
	opts.Fleetover = func(ctx context.Context, kubeconfig string) error {
		return runFleetover(ctx, kubeconfig, managerArgs)
	}
	opts.AuditUsers = []string{serviceAccountUser(managerComponent), serviceAccountUser(schedulerComponent)}
	opts.Identities = func(ctx context.Context, cp *beside.ControlPlane) (string, string, error) {
		for _, c := range []string{managerComponent, schedulerComponent} {
			objs, err := beside.Kustomize(filepath.Join(deployDir, c, "karmada-apiserver"))
			if err != nil {
				return "", "", err
			}
			if err := beside.Apply(ctx, cp.Client, objs, false); err != nil {
				return "", "", err
			}
		}
		sched, err := cp.ServiceAccountKubeconfig(ctx, beside.NamespaceSystem, schedulerComponent, 24*time.Hour)
		if err != nil {
			return "", "", err
		}
		mgr, err := cp.ServiceAccountKubeconfig(ctx, beside.NamespaceSystem, managerComponent, 24*time.Hour)
		return sched, mgr, err
	}
	return nil
}

// runFleetover is configuration F's fleetover-controller-manager: the
// binary's own Run, in this process, with the arguments of its Deployment
// and the harness's.
func runFleetover(ctx context.Context, kubeconfig string, deployed []string) error {
	o := app.NewOptions()
	fs := flag.NewFlagSet("fleetover-controller-manager", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o.AddFlags(fs)
	args := append(append([]string{"--kubeconfig=" + kubeconfig}, deployed...),
		"--feature-gates=AllAlpha=true,AllBeta=true",
		"--metrics-bind-address=0",
		"--health-probe-bind-address=0",
		// Each scenario's clusters are a zone (see newStage).
		"--fleetover-pace-by-zone")
	args = append(args, timings...)
	if err := o.Parse(args); err != nil {
		return err
	}
	// RestartFailoverControllers runs it again in this process.
	o.RunAgainInProcess = true
	cfg, err := app.RESTConfig(o)
	if err != nil {
		return err
	}
	if err := fleetoverWrites.Wrap(cfg); err != nil {
		return err
	}
	// Its log goes beside the Karmada components' logs.
	logFile, err := os.OpenFile(filepath.Join(filepath.Dir(kubeconfig), "fleetover-controller-manager.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer logFile.Close()
	var logMu sync.Mutex
	log := funcr.NewJSON(func(obj string) {
		logMu.Lock()
		defer logMu.Unlock()
		fmt.Fprintln(logFile, obj)
	}, funcr.Options{Verbosity: 4})
	err = app.Run(ctx, cfg, o, log, nil)
	log.Info("fleetover-controller-manager's Run returned", "err", fmt.Sprint(err))
	if errors.Is(err, context.Canceled) || ctx.Err() != nil {
		return nil
	}
	return err
}

// schedulerModule is fleetover-karmada-scheduler's module, its own: it
// builds on the Kubernetes release of the Karmada it embeds.
const schedulerModule = "../cmd/fleetover-karmada-scheduler"

// buildScheduler builds fleetover-karmada-scheduler, configuration F's
// scheduler, into dir and returns the binary: Karmada's
// scheduler of karmadaModule's release with fleetover's plugins. The build
// is Go's, cached: a rerun links only. It is built as Karmada's own
// components are, with the compiler's default flags: GOFLAGS loses any
// -gcflags the test binary was built with (hack/test.sh compiles test code
// without inlining), so the scheduler is a release build, and what
// hack/test.sh's scheduler step and its assets build compiled of the same
// packages is not compiled again.
func buildScheduler(dir string) (string, error) {
	out := filepath.Join(dir, "fleetover-karmada-scheduler")
	cmd := exec.Command("go", "build", "-o", out, ".")
	cmd.Dir = schedulerModule
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS="+withoutCompilerFlags(os.Getenv("GOFLAGS")))
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %w\n%s", schedulerModule, err, b)
	}
	return out, nil
}

// withoutCompilerFlags returns goflags (GOFLAGS: space-separated
// -flag=value settings) without its -gcflags settings.
func withoutCompilerFlags(goflags string) string {
	var kept []string
	for _, f := range strings.Fields(goflags) {
		if strings.HasPrefix(f, "-gcflags=") || strings.HasPrefix(f, "--gcflags=") {
			continue
		}
		kept = append(kept, f)
	}
	return strings.Join(kept, " ")
}

// moduleDir downloads a module at an exact version (a no-op when cached)
// and returns its folder. The checksum database does not answer for
// Karmada's module here: the exact version pins it.
func moduleDir(module string) (string, error) {
	cmd := exec.Command("go", "mod", "download", "-json", module)
	cmd.Env = append(os.Environ(), "GONOSUMDB=github.com/karmada-io/karmada")
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			err = fmt.Errorf("%w: %s", err, strings.TrimSpace(string(ee.Stderr)))
		}
		return "", fmt.Errorf("go mod download %s: %w", module, err)
	}
	var mod struct{ Dir, Error string }
	if err := json.Unmarshal(out, &mod); err != nil {
		return "", err
	}
	if mod.Error != "" || mod.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %s", module, mod.Error)
	}
	return mod.Dir, nil
}

// both runs scenario in configuration K and in configuration F, side by
// side, each when the harness gives it its turn (admission_test.go).
func both(t *testing.T, scenario func(t *testing.T, s *stage)) {
	name := t.Name()
	for _, c := range []beside.Configuration{beside.KarmadaAlone, beside.FleetoverBeside} {
		t.Run(string(c), func(t *testing.T) {
			t.Parallel()
			defer scenarios.enter(t, name)()
			scenario(t, newStage(t, planes[c], c))
		})
	}
}

// deadline bounds a scenario's waits: Karmada's controllers run on the
// real clock, with the periods shortened above.
const deadline = 90 * time.Second

func TestWithoutCompilerFlags(t *testing.T) {
	for in, want := range map[string]string{
		"":                                  "",
		"-ldflags=-w -gcflags=all=-l":       "-ldflags=-w",
		"-mod=mod --gcflags=-N -ldflags=-w": "-mod=mod -ldflags=-w",
		"-gcflags=all=-l -gcflags=std=":     "",
		"-race -tags=e2e":                   "-race -tags=e2e",
	} {
		if got := withoutCompilerFlags(in); got != want {
			t.Errorf("withoutCompilerFlags(%q) = %q, want %q", in, got, want)
		}
	}
}
