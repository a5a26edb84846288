package controllers_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

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

func (w *writeCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := w.next.RoundTrip(req)
	if w.armed.Load() && req.Method != http.MethodGet && resp != nil && resp.StatusCode < 300 {
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

// maxWritesPerFailover is what a cluster failover of one binding costs in
// successful API writes, measured by TestClusterFailoverWrites and recorded
// in docs/performance.md: a write more is a regression. The binding's
// spec is written by the taint manager (eviction and task, stamped), the
// scheduler (new placement) and the graceful eviction controller (task
// removed); its status by the scheduler after each spec change it sees
// (schedulerObservedGeneration), so at most once per spec write. The new
// Work is created and gets its Dispatching condition; the old one is
// deleted. Conflicts (409) are retries, not counted.
var maxWritesPerFailover = map[string]int{"binding": 3, "binding status": 3, "old work": 1, "new work": 2}

// A cluster failover of one binding, counted in API writes through the
// manager's transport: from the NoExecute taint to the old Work's
// deletion, with the new copy Healthy.
func TestClusterFailoverWrites(t *testing.T) {
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
	f.createCluster(oldCluster, clusterv1alpha1.Push)
	f.createCluster(newCluster, clusterv1alpha1.Push)
	f.waitReady(oldCluster, metav1.ConditionTrue)
	f.waitReady(newCluster, metav1.ConditionTrue)
	f.createTemplate(deployment("web", 2))
	f.createBinding(&workv1alpha2.ResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: workv1alpha2.ResourceBindingSpec{
			Resource: workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: f.ns, Name: "web"},
			Replicas: 2,
			Clusters: []workv1alpha2.TargetCluster{{Name: oldCluster}},
		},
	})
	rb := f.binding("web")
	f.waitWork(rb, oldCluster, true)
	f.eventually("the first Work settled", func() (bool, string) {
		w := f.work(rb, oldCluster)
		return w != nil && len(w.Status.Conditions) > 0, "no Dispatching condition yet"
	})
	f.waitBinding("web", "finalizer set", func(rb *workv1alpha2.ResourceBinding) bool { return len(rb.Finalizers) > 0 })
	f.setHealth("web", healthItem(oldCluster, "Healthy", nil))

	counter.armed.Store(true)
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cl := f.cluster(oldCluster)
		now := metav1.NewTime(f.clock.Now())
		cl.Spec.Taints = append(cl.Spec.Taints, corev1.Taint{Key: "maintenance", Effect: corev1.TaintEffectNoExecute, TimeAdded: &now})
		return f.c.Update(f.ctx, cl)
	}); err != nil {
		t.Fatal(err)
	}
	rb = f.waitBinding("web", "moved with a task", func(rb *workv1alpha2.ResourceBinding) bool {
		return slices.Equal(clusterNames(rb), []string{newCluster}) && len(rb.Spec.GracefulEvictionTasks) == 1 &&
			rb.Status.SchedulerObservedGeneration == rb.Generation
	})
	f.eventually("the new Work settled", func() (bool, string) {
		w := f.work(rb, newCluster)
		return w != nil && len(w.Status.Conditions) > 0, "no Dispatching condition yet"
	})
	f.setHealth("web", healthItem(oldCluster, "Unknown", nil), healthItem(newCluster, "Healthy", nil))
	f.waitBinding("web", "task completed", func(rb *workv1alpha2.ResourceBinding) bool {
		return len(rb.Spec.GracefulEvictionTasks) == 0
	})
	f.waitWork(rb, oldCluster, false)

	counts, log := counter.snapshot()
	t.Logf("writes: %v\n%s", counts, strings.Join(log, "\n"))
	for class, limit := range maxWritesPerFailover {
		if counts[class] > limit {
			t.Errorf("%d writes to the %s, want at most %d:\n%s", counts[class], class, limit, strings.Join(log, "\n"))
		}
	}
	if counts["binding"] == 0 || counts["binding status"] == 0 || counts["old work"] == 0 || counts["new work"] == 0 {
		t.Errorf("the counter saw no write to some object: %v", counts)
	}
}
