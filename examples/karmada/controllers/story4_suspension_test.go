package controllers_test

import (
	"fmt"
	"testing"
	"time"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/api/policy/v1alpha1"
	workv1alpha1 "github.com/karmada-io/api/work/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/fleetover/fleetover/suspension"

	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// Story 4: dispatching is suspended on two of three clusters. Only the
// third receives changes (its Work carries no Dispatching condition, which
// means dispatching; the others say Dispatching=False, SuspendDispatching,
// and keep what they had). Resuming one of them dispatches the change to it
// and turns its condition True, and deleting the binding still removes every
// Work, suspended or not.
func TestStory4SuspensionDispatchesToOneAndDeletes(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *controllers.Config) { c.Prober = newProbes() })
	f.start()
	open, paused1, paused2 := f.clusterName("open"), f.clusterName("paused1"), f.clusterName("paused2")
	for _, name := range []string{open, paused1, paused2} {
		f.createCluster(name, clusterv1alpha1.Push)
	}

	f.createTemplate(deployment("shop", 1))
	rb := deploymentBinding(f.ns, "shop", 0, workv1alpha2.TargetCluster{Name: open}, workv1alpha2.TargetCluster{Name: paused1}, workv1alpha2.TargetCluster{Name: paused2})
	rb.Spec.Suspension = &workv1alpha2.Suspension{Suspension: policyv1alpha1.Suspension{DispatchingOnClusters: &policyv1alpha1.SuspendClusters{ClusterNames: []string{paused1, paused2}}}}
	f.createBinding(rb)
	rb = f.binding("shop")
	for _, name := range []string{open, paused1, paused2} {
		f.waitWork(rb, name, true)
	}
	waitDispatching := func(cluster string, want metav1.ConditionStatus, reason string) *workv1alpha1.Work {
		var w *workv1alpha1.Work
		f.eventually("Dispatching condition on "+cluster, func() (bool, string) {
			w = f.work(rb, cluster)
			c := meta.FindStatusCondition(w.Status.Conditions, suspension.ConditionDispatching)
			return c != nil && c.Status == want && c.Reason == reason, "conditions " + conditionString(w.Status.Conditions)
		})
		return w
	}
	for _, name := range []string{paused1, paused2} {
		if w := waitDispatching(name, metav1.ConditionFalse, suspension.ReasonSuspendDispatching); !ptr.Deref(w.Spec.SuspendDispatching, false) {
			t.Fatalf("the Work on %s is not marked suspendDispatching", name)
		}
	}
	noCondition := func(cluster string) {
		t.Helper()
		w := f.work(rb, cluster)
		if ptr.Deref(w.Spec.SuspendDispatching, false) {
			t.Fatalf("the Work on %s is suspended", cluster)
		}
		if c := meta.FindStatusCondition(w.Status.Conditions, suspension.ConditionDispatching); c != nil {
			t.Fatalf("the Work on %s, never suspended, carries a Dispatching condition (a status write): %+v", cluster, *c)
		}
	}
	noCondition(open)

	// touchTemplate sets the template's replicas and nudges the dispatcher,
	// as the detector of template changes would (the template is no
	// binding field).
	touchTemplate := func(replicas int64) {
		t.Helper()
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			d := &unstructured.Unstructured{}
			d.SetAPIVersion("apps/v1")
			d.SetKind("Deployment")
			if err := f.c.Get(f.ctx, client.ObjectKey{Namespace: f.ns, Name: "shop"}, d); err != nil {
				return err
			}
			if err := unstructured.SetNestedField(d.Object, replicas, "spec", "replicas"); err != nil {
				return err
			}
			return f.c.Update(f.ctx, d)
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			b := f.binding("shop")
			if b.Annotations == nil {
				b.Annotations = map[string]string{}
			}
			b.Annotations["example.fleetover.io/template-generation"] = fmt.Sprint(replicas)
			return f.c.Update(f.ctx, b)
		}); err != nil {
			t.Fatal(err)
		}
	}
	waitReplicas := func(cluster string, want int64) {
		t.Helper()
		f.eventually(fmt.Sprintf("%s gets %d replicas", cluster, want), func() (bool, string) {
			r, _, _ := unstructured.NestedInt64(manifest(f.work(rb, cluster)).Object, "spec", "replicas")
			return r == want, fmt.Sprintf("replicas %d", r)
		})
	}
	suspendedKeep := func(clusters ...string) {
		t.Helper()
		for _, name := range clusters {
			if r, _, _ := unstructured.NestedInt64(manifest(f.work(rb, name)).Object, "spec", "replicas"); r != 1 {
				t.Fatalf("suspended cluster %s received the change: replicas %d", name, r)
			}
		}
	}

	// A change to the template reaches the open cluster only, and writes
	// no status there.
	f.clock.Step(time.Minute)
	touchTemplate(5)
	waitReplicas(open, 5)
	noCondition(open)
	suspendedKeep(paused1, paused2)

	// paused1 resumes: it receives the change, and its condition turns
	// True at the resume.
	f.clock.Step(time.Minute)
	resumedAt := metav1.NewTime(f.clock.Now())
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		b := f.binding("shop")
		b.Spec.Suspension.DispatchingOnClusters.ClusterNames = []string{paused2}
		return f.c.Update(f.ctx, b)
	}); err != nil {
		t.Fatal(err)
	}
	waitReplicas(paused1, 5)
	if w := waitDispatching(paused1, metav1.ConditionTrue, suspension.ReasonDispatching); ptr.Deref(w.Spec.SuspendDispatching, false) {
		t.Fatal("the resumed Work is still marked suspendDispatching")
	} else if c := meta.FindStatusCondition(w.Status.Conditions, suspension.ConditionDispatching); !c.LastTransitionTime.Equal(&resumedAt) {
		t.Fatalf("Dispatching turned True at %v, want the resume at %v", c.LastTransitionTime, resumedAt)
	}

	// The condition is written on transitions only: a later dispatch, at
	// a later time, updates its observed generation and keeps its
	// transition time.
	f.clock.Step(time.Minute)
	touchTemplate(6)
	waitReplicas(open, 6)
	waitReplicas(paused1, 6)
	var c *metav1.Condition
	f.eventually("Dispatching condition observes the new Work generation", func() (bool, string) {
		w := f.work(rb, paused1)
		c = meta.FindStatusCondition(w.Status.Conditions, suspension.ConditionDispatching)
		return c.ObservedGeneration == w.Generation, fmt.Sprintf("observed %d, generation %d", c.ObservedGeneration, w.Generation)
	})
	if !c.LastTransitionTime.Equal(&resumedAt) {
		t.Fatalf("Dispatching condition rewritten without a transition: %v, was %v", c.LastTransitionTime, resumedAt)
	}
	noCondition(open)
	suspendedKeep(paused2)

	// Deletion is never blocked by the suspension.
	if err := f.c.Delete(f.ctx, f.binding("shop")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{open, paused1, paused2} {
		f.waitWork(rb, name, false)
	}
	f.eventually("binding deleted", func() (bool, string) {
		err := f.c.Get(f.ctx, client.ObjectKey{Namespace: f.ns, Name: "shop"}, &workv1alpha2.ResourceBinding{})
		return apierrors.IsNotFound(err), "still there"
	})
}

func conditionString(cs []metav1.Condition) string {
	s := ""
	for _, c := range cs {
		s += c.Type + "=" + string(c.Status) + "/" + c.Reason + " "
	}
	return s
}
