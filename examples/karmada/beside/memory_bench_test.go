package beside_test

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/examples/karmada/beside"
)

var memoryBindings = flag.String("beside.memory-bindings", "1000", "comma-separated numbers of ResourceBindings for BenchmarkManagerMemory")

// BenchmarkManagerMemory measures the resident memory of
// fleetover-controller-manager, built and run as its own process in
// beside-karmada mode against configuration F's control plane, once its
// caches hold N more ResourceBindings and its work queues are drained, and
// the same with none: the difference per binding is what the bindings
// cost it. The bindings are written directly (scheduled to a stage
// cluster, their templates absent), not made by Karmada from templates,
// so that 10,000 of them take minutes, not an hour.
//
//	go test ./beside/ -run '^$' -bench ManagerMemory -benchtime 1x -timeout 60m [-beside.memory-bindings 1000,10000]
func BenchmarkManagerMemory(b *testing.B) {
	binary := filepath.Join(b.TempDir(), "fleetover-controller-manager")
	build := exec.Command("go", "build", "-o", binary, "../cmd/fleetover-controller-manager")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("go build fleetover-controller-manager: %v\n%s", err, out)
	}
	for _, f := range strings.Split(*memoryBindings, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			b.Fatalf("-beside.memory-bindings: %q is not a positive number", f)
		}
		b.Run(fmt.Sprintf("bindings=%d", n), func(b *testing.B) {
			for range b.N {
				s := newStage(b, planes[beside.FleetoverBeside], beside.FleetoverBeside)
				empty := s.managerRSS(binary)
				s.writeBindings(n)
				full := s.managerRSS(binary)
				b.ReportMetric(float64(empty)/(1<<20), "MiB-empty")
				b.ReportMetric(float64(full)/(1<<20), "MiB-with-bindings")
				b.ReportMetric(float64(full-empty)/float64(n), "B/binding")
			}
		})
	}
}

// writeBindings creates n ResourceBindings in the stage's namespace,
// scheduled to its first cluster, eight writers at a time, and deletes
// them when the benchmark ends, in one request (the stage's cleanup would
// delete them one by one with the namespace).
func (s *stage) writeBindings(n int) {
	s.t.Helper()
	s.t.Cleanup(func() {
		_ = s.c.DeleteAllOf(context.Background(), &workv1alpha2.ResourceBinding{}, client.InNamespace(s.ns))
	})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 8 {
				name := fmt.Sprintf("mem-%05d", i)
				rb := &workv1alpha2.ResourceBinding{
					ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: name + "-deployment"},
					Spec: workv1alpha2.ResourceBindingSpec{
						Resource: workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: s.ns, Name: name},
						Replicas: 1,
						Clusters: []workv1alpha2.TargetCluster{{Name: s.clusters[0], Replicas: 1}},
					},
				}
				if err := s.c.Create(s.ctx, rb); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		s.t.Fatal(err)
	}
}

// managerRSS runs fleetover-controller-manager until its work queues
// have been empty for three readings in a row, and returns its resident
// set size then, after which it stops it.
func (s *stage) managerRSS(binary string) int64 {
	s.t.Helper()
	metricsAddr, healthAddr := freeLocalAddress(s.t), freeLocalAddress(s.t)
	args := append([]string{
		"--kubeconfig=" + s.cp.Kubeconfig,
		"--fleetover-mode=beside-karmada",
		"--feature-gates=AllAlpha=true,AllBeta=true",
		"--enable-no-execute-taint-eviction=true",
		"--leader-elect=false",
		"--metrics-bind-address=" + metricsAddr,
		"--health-probe-bind-address=" + healthAddr,
		"--fleetover-pace-by-zone",
	}, timings...)
	cmd := exec.Command(binary, args...)
	logFile, err := os.Create(filepath.Join(s.t.TempDir(), "fleetover-controller-manager.log"))
	if err != nil {
		s.t.Fatal(err)
	}
	defer logFile.Close()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		s.t.Fatal(err)
	}
	defer func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	}()
	calm := 0
	s.eventuallyWithin(10*time.Minute, "fleetover-controller-manager's queues drained", func() (bool, string) {
		depth, err := queueDepth(s.ctx, "http://"+metricsAddr+"/metrics")
		if err != nil || depth > 0 {
			calm = 0
			return false, fmt.Sprintf("depth %v, %v", depth, err)
		}
		calm++
		if calm < 3 {
			time.Sleep(2 * time.Second)
			return false, "calm"
		}
		return true, ""
	})
	rss, err := residentBytes(cmd.Process.Pid)
	if err != nil {
		s.t.Fatal(err)
	}
	return rss
}

// queueDepth sums controller-runtime's workqueue_depth over the
// manager's controllers.
func queueDepth(ctx context.Context, url string) (float64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return 0, err
	}
	family, ok := families["workqueue_depth"]
	if !ok {
		return 0, fmt.Errorf("no workqueue_depth yet")
	}
	var depth float64
	for _, m := range family.GetMetric() {
		depth += m.GetGauge().GetValue()
	}
	return depth, nil
}

// residentBytes reads a process's resident set size (VmRSS) from /proc.
func residentBytes(pid int) (int64, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, fmt.Errorf("no VmRSS in /proc/%d/status", pid)
}

func freeLocalAddress(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}
