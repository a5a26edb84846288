package controllers_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/api/policy/v1alpha1"
	workv1alpha1 "github.com/karmada-io/api/work/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// workMonitor watches a binding's Works and records any moment at which
// two of them exist at once (a terminating Work still counts: its workload
// may still run).
type workMonitor struct {
	mu      sync.Mutex
	live    map[string]bool
	overlap []string
}

func (f *fixture) monitorWorks(label, uid string) *workMonitor {
	f.t.Helper()
	m := &workMonitor{live: map[string]bool{}}
	f.watchEach(&workv1alpha1.WorkList{}, func(ev watch.Event) {
		work, ok := ev.Object.(*workv1alpha1.Work)
		if !ok {
			return
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		switch ev.Type {
		case watch.Added, watch.Modified:
			m.live[work.Namespace] = true
		case watch.Deleted:
			delete(m.live, work.Namespace)
		}
		if len(m.live) > 1 {
			var names []string
			for ns := range m.live {
				names = append(names, ns)
			}
			slices.Sort(names)
			m.overlap = append(m.overlap, fmt.Sprint(names))
		}
	}, client.MatchingLabels{label: uid})
	return m
}

func (m *workMonitor) overlaps() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.overlap)
}

// Story 7: a stateful job leaves a cluster under purge mode Directly while
// the old copy's Work cannot be deleted yet (a finalizer holds it, as the
// member cluster's execution side would while the job still runs). The new
// cluster's Work is not created until the old one is gone, so two copies
// never exist at once, and it then carries the job id preserved from the
// old copy: the Directly task stays on the binding, with the state, until
// the old Work is gone and the new copy is healthy.
func TestStory7DirectlyHoldsDispatchUntilOldCopyIsGone(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *controllers.Config) {
		c.Prober = newProbes()
		c.StatefulFailoverInjection = true
	})
	f.start()
	oldCluster, newCluster := f.clusterName("a"), f.clusterName("b")
	f.readyClusters(clusterv1alpha1.Push, oldCluster, newCluster)

	f.createTemplate(&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "flink.apache.org/v1beta1",
		"kind":       "FlinkDeployment",
		"metadata":   map[string]any{"name": "sessions"},
		"spec":       map[string]any{"image": "flink:1.20", "flinkVersion": "v1_20"},
	}})
	f.createBinding(flinkJobBinding(f.ns, "sessions", policyv1alpha1.PurgeModeDirectly, workv1alpha2.TargetCluster{Name: oldCluster}))
	rb := f.binding("sessions")
	monitor := f.monitorWorks(workv1alpha2.ResourceBindingPermanentIDLabel, string(rb.UID))
	f.waitWork(rb, oldCluster, true)
	f.holdWorkOn(rb, oldCluster)
	f.setHealth("sessions", healthItem(oldCluster, "Healthy", map[string]any{
		"jobStatus": map[string]any{"jobId": "9f1e2d3c4b5a", "state": "RUNNING"},
	}))

	f.taint(oldCluster, "maintenance", corev1.TaintEffectNoExecute)

	// The job is placed on the new cluster and the old Work is being
	// deleted, but the new Work is held back.
	key := client.ObjectKeyFromObject(rb)
	f.waitBinding("sessions", "placed on the new cluster", func(rb *workv1alpha2.ResourceBinding) bool {
		return slices.Equal(clusterNames(rb), []string{newCluster})
	})
	f.eventually("old Work terminating", func() (bool, string) {
		w := f.work(rb, oldCluster)
		return w != nil && !w.DeletionTimestamp.IsZero(), fmt.Sprintf("work %v", w != nil)
	})
	f.eventually("the new Work held back", func() (bool, string) {
		held := f.ctrls.Dispatcher.Held(key)
		return slices.Equal(held, []string{newCluster}), fmt.Sprintf("held %v", held)
	})
	// The Directly task stays while the old copy is not confirmed gone,
	// carrying the preserved state.
	f.waitBinding("sessions", "task kept with the state", func(rb *workv1alpha2.ResourceBinding) bool {
		tasks := rb.Spec.GracefulEvictionTasks
		return len(tasks) == 1 && tasks[0].FromCluster == oldCluster && tasks[0].PreservedLabelState[jobIDLabel] == "9f1e2d3c4b5a"
	})
	if w := f.work(rb, newCluster); w != nil {
		t.Fatal("the new Work exists while the old one is still terminating")
	}

	// The old copy is confirmed gone: the new Work follows, with the state.
	f.releaseWorkOn(rb, oldCluster)
	f.waitWork(rb, oldCluster, false)
	newWork := f.waitWork(rb, newCluster, true)
	if got := manifest(newWork).GetLabels()[jobIDLabel]; got != "9f1e2d3c4b5a" {
		t.Fatalf("new Work's manifest labels = %v, want %s=9f1e2d3c4b5a", manifest(newWork).GetLabels(), jobIDLabel)
	}
	// The task ends once the new copy runs.
	if got := f.binding("sessions").Spec.GracefulEvictionTasks; len(got) != 1 {
		t.Fatalf("the task went before the new copy ran: %v", got)
	}
	f.setHealth("sessions", healthItem(newCluster, "Healthy", map[string]any{
		"jobStatus": map[string]any{"jobId": "9f1e2d3c4b5a", "state": "RUNNING"},
	}))
	f.waitBinding("sessions", "task removed once the new copy is healthy", func(rb *workv1alpha2.ResourceBinding) bool {
		return len(rb.Spec.GracefulEvictionTasks) == 0
	})
	if o := monitor.overlaps(); len(o) > 0 {
		t.Fatalf("two Works existed at once: %v", o)
	}
}
