package controllers_test

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// writeCounter counts the write requests (anything but GET) the
// controllers send, by the object they touch, once armed.
type writeCounter struct {
	next    http.RoundTripper
	armed   atomic.Bool
	classes func(path string) string

	mu     sync.Mutex
	counts map[string]int
	log    []string
}

// RoundTrip counts a write sent while the counter is armed: a write sent
// before, whose answer comes after (the test arms it once it has seen that
// write's effect, which can be before the writer has its answer), is not
// the failover's.
func (w *writeCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	armed := w.armed.Load()
	resp, err := w.next.RoundTrip(req)
	if armed && req.Method != http.MethodGet && resp != nil && resp.StatusCode < 300 {
		if class := w.classes(req.URL.Path); class != "" {
			w.mu.Lock()
			w.counts[class]++
			w.log = append(w.log, fmt.Sprintf("%s %s", req.Method, req.URL.Path))
			w.mu.Unlock()
		}
	}
	return resp, err
}

func (w *writeCounter) snapshot() (map[string]int, []string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]int{}
	for k, v := range w.counts {
		out[k] = v
	}
	return out, slices.Clone(w.log)
}

// writesPerFailover is what a cluster failover of one binding costs in
// successful API writes, measured by TestClusterFailoverWrites and recorded
// in docs/performance.md; the test wants exactly these counts, so a write
// more (or one lost) fails it. The binding's spec is written twice: the
// taint manager's eviction with the scheduler's new placement (cluster out,
// task in and stamped, the replacement in), and the graceful eviction
// controller's task removal once the new copy is Healthy, a later event.
// Its status follows each spec write once (status.schedulerObservedGeneration,
// which must reach every generation; the status is a subresource, so no
// spec write can carry it). The new Work is created, with no status write
// (dispatching is not suspended); the old one is deleted. Conflicts (409)
// are retries, not counted.
var writesPerFailover = map[string]int{"binding": 2, "binding status": 2, "old work": 1, "new work": 1}

// A cluster failover of one binding, counted in API writes through the
// manager's transport: from the NoExecute taint to the old Work's
// deletion, with the new copy Healthy.
func TestClusterFailoverWrites(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *controllers.Config) { c.Prober = newProbes() })
	oldCluster, newCluster := f.clusterName("a"), f.clusterName("b")
	counter := &writeCounter{counts: map[string]int{}, classes: func(path string) string {
		switch {
		case strings.HasSuffix(path, "/namespaces/"+f.ns+"/resourcebindings/web/status"):
			return "binding status"
		case strings.HasSuffix(path, "/namespaces/"+f.ns+"/resourcebindings/web"):
			return "binding"
		case strings.Contains(path, "/namespaces/"+controllers.ExecutionNamespace(oldCluster)+"/works"):
			return "old work"
		case strings.Contains(path, "/namespaces/"+controllers.ExecutionNamespace(newCluster)+"/works"):
			return "new work"
		}
		return ""
	}}
	f.wrapTransport = func(rt http.RoundTripper) http.RoundTripper { counter.next = rt; return counter }
	f.start()
	f.readyClusters(clusterv1alpha1.Push, oldCluster, newCluster)
	f.createTemplate(deployment("web", 2))
	f.createBinding(deploymentBinding(f.ns, "web", 2, workv1alpha2.TargetCluster{Name: oldCluster}))
	rb := f.binding("web")
	f.waitWork(rb, oldCluster, true)
	f.waitBinding("web", "finalizer set and generation observed", func(rb *workv1alpha2.ResourceBinding) bool {
		return len(rb.Finalizers) > 0 && rb.Status.SchedulerObservedGeneration == rb.Generation
	})
	f.setHealth("web", healthItem(oldCluster, "Healthy", nil))

	counter.armed.Store(true)
	f.taint(oldCluster, "maintenance", corev1.TaintEffectNoExecute)
	rb = f.waitBinding("web", "moved with a task", func(rb *workv1alpha2.ResourceBinding) bool {
		return slices.Equal(clusterNames(rb), []string{newCluster}) && len(rb.Spec.GracefulEvictionTasks) == 1 &&
			rb.Status.SchedulerObservedGeneration == rb.Generation
	})
	f.waitWork(rb, newCluster, true)
	f.setHealth("web", healthItem(oldCluster, "Unknown", nil), healthItem(newCluster, "Healthy", nil))
	f.waitBinding("web", "task completed and generation observed", func(rb *workv1alpha2.ResourceBinding) bool {
		return len(rb.Spec.GracefulEvictionTasks) == 0 && rb.Status.SchedulerObservedGeneration == rb.Generation
	})
	f.waitWork(rb, oldCluster, false)

	// Every write the failover needs is in by now; wait for the counts to
	// match (a write more never comes back down), then stop the
	// controllers, which waits for their reconciles, and look again.
	f.eventually("the expected writes", func() (bool, string) {
		counts, log := counter.snapshot()
		return maps.Equal(counts, writesPerFailover), fmt.Sprintf("%v\n%s", counts, strings.Join(log, "\n"))
	})
	f.stopControllers()
	counts, log := counter.snapshot()
	t.Logf("writes: %v\n%s", counts, strings.Join(log, "\n"))
	if !maps.Equal(counts, writesPerFailover) {
		t.Errorf("writes %v, want %v:\n%s", counts, writesPerFailover, strings.Join(log, "\n"))
	}
	// The status writes carried the Failover condition: the failover
	// ended, and said so, at no write of its own.
	if c := failoverCondition(f.binding("web")); c == nil || c.Status != metav1.ConditionFalse || c.Reason != controllers.ReasonSettled {
		t.Errorf("after the failover: %s, want Failover=False reason %s", failoverString(c), controllers.ReasonSettled)
	}
}

// Several bindings leave one cluster at once: the taint manager writes them
// from its eviction writers, each binding still in one spec write (eviction
// and placement) and one status write, whatever the interleaving (run with
// -race, this is where the writers run side by side).
func TestClusterFailoverWritesSeveralBindingsAtOnce(t *testing.T) {
	t.Parallel()
	const bindings = 7
	f := newFixture(t, func(c *controllers.Config) {
		c.Prober = newProbes()
		c.Pacer = eviction.PacerConfig{Rate: eviction.MaxEvictionRate, Burst: bindings}
	})
	oldCluster, newCluster := f.clusterName("a"), f.clusterName("b")
	counter := &writeCounter{counts: map[string]int{}, classes: func(path string) string {
		prefix := "/namespaces/" + f.ns + "/resourcebindings/"
		i := strings.Index(path, prefix)
		if i < 0 {
			return ""
		}
		return path[i+len(prefix):] // "<name>" or "<name>/status"
	}}
	f.wrapTransport = func(rt http.RoundTripper) http.RoundTripper { counter.next = rt; return counter }
	f.start()
	f.readyClusters(clusterv1alpha1.Push, oldCluster, newCluster)
	want := map[string]int{}
	for i := range bindings {
		name := fmt.Sprintf("web-%d", i)
		f.createBinding(deploymentBinding(f.ns, name, 2, workv1alpha2.TargetCluster{Name: oldCluster}))
		f.waitBinding(name, "finalizer set and generation observed", func(rb *workv1alpha2.ResourceBinding) bool {
			return len(rb.Finalizers) > 0 && rb.Status.SchedulerObservedGeneration == rb.Generation
		})
		want[name], want[name+"/status"] = 1, 1
	}

	// The pacer's bucket fills with time, which is the fake clock's: a
	// second at MaxEvictionRate fills it to its burst, one token per
	// binding, so one reconcile evicts them all.
	f.clock.Step(time.Second)
	counter.armed.Store(true)
	f.taint(oldCluster, "maintenance", corev1.TaintEffectNoExecute)
	for i := range bindings {
		f.waitBinding(fmt.Sprintf("web-%d", i), "moved with one task, generation observed", func(rb *workv1alpha2.ResourceBinding) bool {
			return slices.Equal(clusterNames(rb), []string{newCluster}) && slices.Equal(taskClusters(rb), []string{oldCluster}) &&
				rb.Status.SchedulerObservedGeneration == rb.Generation
		})
	}
	f.eventually("one spec and one status write per binding", func() (bool, string) {
		counts, log := counter.snapshot()
		return maps.Equal(counts, want), fmt.Sprintf("%v\n%s", counts, strings.Join(log, "\n"))
	})
	f.stopControllers()
	if counts, log := counter.snapshot(); !maps.Equal(counts, want) {
		t.Errorf("writes %v, want %v:\n%s", counts, want, strings.Join(log, "\n"))
	}
}
