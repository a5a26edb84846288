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
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	explainapp "github.com/fleetover/fleetover/examples/karmada/cmd/fleetover-explain/app"
	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// Story 12: a binding whose scheduling is suspended
// (spec.suspension.scheduling, which a third-party admission webhook sets
// in Karmada) loses its only cluster. The taint manager still evicts it,
// but neither its own write nor the failover scheduler re-places it, and
// the scheduler reports no generation, as Karmada's scheduler skips such a
// binding. Once scheduling resumes, the lost cluster is replaced.
func TestStory12SuspendedSchedulingWaitsForTheResume(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *controllers.Config) { c.Prober = newProbes() })
	f.start()
	a, b := f.clusterName("a"), f.clusterName("b")
	f.readyClusters(clusterv1alpha1.Push, a, b)
	f.createTemplate(deployment("web", 1))
	rb := deploymentBinding(f.ns, "web", 1, workv1alpha2.TargetCluster{Name: a, Replicas: 1})
	rb.Spec.Suspension = &workv1alpha2.Suspension{Scheduling: ptr.To(true)}
	f.createBinding(rb)
	rb = f.binding("web")
	f.waitWork(rb, a, true)

	// a is taken out: an untolerated NoExecute taint evicts at once.
	f.taint(a, "maintenance", corev1.TaintEffectNoExecute)
	rb = f.waitBinding("web", "evicted from a", func(rb *workv1alpha2.ResourceBinding) bool {
		return slices.Equal(taskClusters(rb), []string{a})
	})
	if got := clusterNames(rb); len(got) != 0 {
		t.Fatalf("the eviction's own write re-placed the binding on %v while its scheduling is suspended", got)
	}

	// The scheduler, once its cache holds the eviction, is asked directly:
	// it leaves the binding as it is.
	sched := f.ctrls.Scheduler
	key := client.ObjectKeyFromObject(rb)
	f.eventually("the scheduler's cache holds the eviction", func() (bool, string) {
		cur := &workv1alpha2.ResourceBinding{}
		if err := sched.Client.Get(f.ctx, key, cur); err != nil {
			return false, err.Error()
		}
		return len(cur.Spec.GracefulEvictionTasks) == 1, fmt.Sprint(cur.Spec.GracefulEvictionTasks)
	})
	if _, err := sched.Reconcile(f.ctx, reconcile.Request{NamespacedName: key}); err != nil {
		t.Fatal(err)
	}
	rb = f.binding("web")
	if got := clusterNames(rb); len(got) != 0 || rb.Status.SchedulerObservedGeneration == rb.Generation {
		t.Fatalf("with scheduling suspended the scheduler placed %v and observed generation %d of %d", got, rb.Status.SchedulerObservedGeneration, rb.Generation)
	}
	out, code := f.explainCommand(f.ns + "/web")
	if line, held := stepLine(out, controllers.StepPlacement); code != explainapp.ExitHeld || !held || !strings.Contains(line, controllers.ReasonSchedulingSuspended) {
		t.Fatalf("fleetover-explain (exit %d) does not hold the binding at the placement for its suspended scheduling:\n%s", code, out)
	}

	// Scheduling resumes: b takes the place of a.
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur := f.binding("web")
		cur.Spec.Suspension.Scheduling = ptr.To(false)
		return f.c.Update(f.ctx, cur)
	}); err != nil {
		t.Fatal(err)
	}
	rb = f.waitBinding("web", "re-placed on b after the resume", func(rb *workv1alpha2.ResourceBinding) bool {
		return slices.Equal(clusterNames(rb), []string{b}) && rb.Status.SchedulerObservedGeneration == rb.Generation
	})
	f.waitWork(rb, b, true)
}
