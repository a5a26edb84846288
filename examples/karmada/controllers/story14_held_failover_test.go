package controllers_test

import (
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/api/policy/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// Story 14: failover is paused where dispatching is suspended, and resumes
// with the dispatching. A binding whose scheduling is suspended is evicted
// from its only cluster, a; before anything replaces a, dispatching to a is
// suspended too. When scheduling resumes, the scheduler's re-placement
// holds a (scheduling.Plan.Held): the eviction is undone, so the binding is
// on a again, with the Work that never left, and without the task, which
// would have purged it. Nothing moves while dispatching to a stays
// suspended. When it resumes, the taint manager, woken by that binding
// change alone, evicts the binding again and b takes it.
func TestStory14HeldFailoverResumesWithTheDispatching(t *testing.T) {
	events := &eventLog{}
	f := newFixture(t, func(c *controllers.Config) {
		c.Prober = newProbes()
		c.EventRecorder = events
	})
	f.start()
	a, b := f.clusterName("a"), f.clusterName("b")
	for _, name := range []string{a, b} {
		f.createCluster(name, clusterv1alpha1.Push)
		f.waitReady(name, metav1.ConditionTrue)
	}
	f.createTemplate(deployment("web", 1))
	f.createBinding(&workv1alpha2.ResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: workv1alpha2.ResourceBindingSpec{
			Resource:   workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: f.ns, Name: "web"},
			Replicas:   1,
			Clusters:   []workv1alpha2.TargetCluster{{Name: a, Replicas: 1}},
			Suspension: &workv1alpha2.Suspension{Scheduling: ptr.To(true)},
		},
	})
	rb := f.binding("web")
	f.waitWork(rb, a, true)

	f.taint(a, "maintenance", corev1.TaintEffectNoExecute)
	f.waitBinding("web", "evicted from a, placed nowhere while scheduling is suspended", func(rb *workv1alpha2.ResourceBinding) bool {
		return slices.Equal(taskClusters(rb), []string{a}) && len(rb.Spec.Clusters) == 0
	})

	setSuspension := func(change func(*workv1alpha2.Suspension)) {
		t.Helper()
		if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			cur := f.binding("web")
			change(cur.Spec.Suspension)
			return f.c.Update(f.ctx, cur)
		}); err != nil {
			t.Fatal(err)
		}
	}
	setSuspension(func(s *workv1alpha2.Suspension) {
		s.DispatchingOnClusters = &policyv1alpha1.SuspendClusters{ClusterNames: []string{a}}
	})
	setSuspension(func(s *workv1alpha2.Suspension) { s.Scheduling = ptr.To(false) })
	rb = f.waitBinding("web", "the eviction from a undone: on a again, without its task", func(rb *workv1alpha2.ResourceBinding) bool {
		return slices.Equal(clusterNames(rb), []string{a}) && len(rb.Spec.GracefulEvictionTasks) == 0 &&
			rb.Status.SchedulerObservedGeneration == rb.Generation
	})
	f.waitWork(rb, a, true)
	if w := f.work(rb, b); w != nil {
		t.Fatalf("a Work on b while failover from a is paused: %s", w.Name)
	}

	// Dispatching to a resumes: nothing else changes, and the failover is
	// decided again.
	setSuspension(func(s *workv1alpha2.Suspension) { s.DispatchingOnClusters = nil })
	// The pacer's bucket refills on the test's clock, which stands still
	// unless stepped: the taint manager asks to look again when the next
	// token is due.
	f.stepTo(f.waitPending("the taint manager's look at a after the resume", f.ctrls.TaintManager.Schedule, client.ObjectKey{Name: a}))
	rb = f.waitBinding("web", "evicted from a again and re-placed on b after the resume", func(rb *workv1alpha2.ResourceBinding) bool {
		return slices.Equal(clusterNames(rb), []string{b}) && slices.Equal(taskClusters(rb), []string{a})
	})
	f.waitWork(rb, b, true)
}
