package controllers_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/api/policy/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/scheduling"

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
	t.Parallel()
	events := &eventLog{}
	f := newFixture(t, func(c *controllers.Config) {
		c.Prober = newProbes()
		c.EventRecorder = events
	})
	f.start()
	a, b := f.clusterName("a"), f.clusterName("b")
	f.readyClusters(clusterv1alpha1.Push, a, b)
	f.createTemplate(deployment("web", 1))
	rb := deploymentBinding(f.ns, "web", 1, workv1alpha2.TargetCluster{Name: a, Replicas: 1})
	rb.Spec.Suspension = &workv1alpha2.Suspension{Scheduling: ptr.To(true)}
	f.createBinding(rb)
	rb = f.binding("web")
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
	f.eventually("the scheduler says the eviction is undone", func() (bool, string) {
		paused := events.of(f.ns+"/web", scheduling.ReasonFailoverPaused)
		return len(paused) == 1 && strings.Contains(paused[0].Note, "undone"), fmt.Sprint(paused)
	})

	// Dispatching to a resumes: nothing else changes, and the failover is
	// decided again.
	setSuspension(func(s *workv1alpha2.Suspension) { s.DispatchingOnClusters = nil })
	// The pacer's bucket refills on the test's clock, which stands still
	// unless stepped: the taint manager asks to look again when the next
	// token is due.
	evictedAgain := func(rb *workv1alpha2.ResourceBinding) bool {
		return slices.Equal(clusterNames(rb), []string{b}) && slices.Equal(taskClusters(rb), []string{a})
	}
	f.stepToPendingUnless("the taint manager evicts from a after the resume, or waits for a token", f.ctrls.TaintManager.Schedule,
		client.ObjectKey{Name: a}, func() bool { return evictedAgain(f.binding("web")) })
	rb = f.waitBinding("web", "evicted from a again and re-placed on b after the resume", evictedAgain)
	f.waitWork(rb, b, true)
}

// Story 14, continued: a binding change alone can end a toleration. "web"
// tolerates the taint on a forever and stays; "api", which tolerates
// nothing, leaves when the taint lands, which shows the taint manager has
// looked at a. Then web's toleration is withdrawn, and nothing else
// changes: the taint manager, woken by the binding, evicts it.
func TestStory14WithdrawnTolerationEvicts(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *controllers.Config) { c.Prober = newProbes() })
	f.start()
	a, b := f.clusterName("a"), f.clusterName("b")
	f.readyClusters(clusterv1alpha1.Push, a, b)
	for _, name := range []string{"web", "api"} {
		f.createTemplate(deployment(name, 1))
		rb := deploymentBinding(f.ns, name, 1, workv1alpha2.TargetCluster{Name: a, Replicas: 1})
		if name == "web" {
			rb.Spec.Placement = &policyv1alpha1.Placement{ClusterTolerations: []corev1.Toleration{{
				Key: "maintenance", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute,
			}}}
		}
		f.createBinding(rb)
	}

	f.taint(a, "maintenance", corev1.TaintEffectNoExecute)
	f.waitBinding("api", "api evicted from a", func(rb *workv1alpha2.ResourceBinding) bool {
		return slices.Equal(taskClusters(rb), []string{a})
	})
	if rb := f.binding("web"); !slices.Equal(clusterNames(rb), []string{a}) || len(rb.Spec.GracefulEvictionTasks) > 0 {
		t.Fatalf("web, which tolerates the taint, left a: clusters %v, tasks %v", clusterNames(rb), taskClusters(rb))
	}

	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur := f.binding("web")
		cur.Spec.Placement.ClusterTolerations = nil
		return f.c.Update(f.ctx, cur)
	}); err != nil {
		t.Fatal(err)
	}
	webEvicted := func(rb *workv1alpha2.ResourceBinding) bool { return slices.Equal(taskClusters(rb), []string{a}) }
	f.stepToPendingUnless("the taint manager evicts web from a once its toleration went, or waits for a token", f.ctrls.TaintManager.Schedule,
		client.ObjectKey{Name: a}, func() bool { return webEvicted(f.binding("web")) })
	f.waitBinding("web", "web evicted from a once its toleration is withdrawn", webEvicted)
}
