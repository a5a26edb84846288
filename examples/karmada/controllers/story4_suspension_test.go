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
// third receives changes (its Work says Dispatching=True; the others
// SuspendDispatching and keep what they had), and deleting the binding
// still removes every Work, suspended or not.
func TestStory4SuspensionDispatchesToOneAndDeletes(t *testing.T) {
	f := newFixture(t, func(c *controllers.Config) { c.Prober = newProbes() })
	f.start()
	open, paused1, paused2 := f.clusterName("open"), f.clusterName("paused1"), f.clusterName("paused2")
	for _, name := range []string{open, paused1, paused2} {
		f.createCluster(name, clusterv1alpha1.Push)
	}

	f.createTemplate(deployment("shop", 1))
	f.createBinding(&workv1alpha2.ResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "shop"},
		Spec: workv1alpha2.ResourceBindingSpec{
			Resource:   workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: f.ns, Name: "shop"},
			Clusters:   []workv1alpha2.TargetCluster{{Name: open}, {Name: paused1}, {Name: paused2}},
			Suspension: &workv1alpha2.Suspension{Suspension: policyv1alpha1.Suspension{DispatchingOnClusters: &policyv1alpha1.SuspendClusters{ClusterNames: []string{paused1, paused2}}}},
		},
	})
	rb := f.binding("shop")
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
	if w := waitDispatching(open, metav1.ConditionTrue, suspension.ReasonDispatching); ptr.Deref(w.Spec.SuspendDispatching, false) {
		t.Fatal("the open cluster's Work is suspended")
	}
	for _, name := range []string{paused1, paused2} {
		if w := waitDispatching(name, metav1.ConditionFalse, suspension.ReasonSuspendDispatching); !ptr.Deref(w.Spec.SuspendDispatching, false) {
			t.Fatalf("the Work on %s is not marked suspendDispatching", name)
		}
	}

	// The condition is written on transitions only: a later dispatch, at
	// a later time, leaves it as it is.
	openSince := meta.FindStatusCondition(f.work(rb, open).Status.Conditions, suspension.ConditionDispatching).LastTransitionTime
	f.clock.Step(time.Minute)

	// A change to the template reaches the open cluster only.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		d := &unstructured.Unstructured{}
		d.SetAPIVersion("apps/v1")
		d.SetKind("Deployment")
		if err := f.c.Get(f.ctx, client.ObjectKey{Namespace: f.ns, Name: "shop"}, d); err != nil {
			return err
		}
		if err := unstructured.SetNestedField(d.Object, int64(5), "spec", "replicas"); err != nil {
			return err
		}
		return f.c.Update(f.ctx, d)
	})
	if err != nil {
		t.Fatal(err)
	}
	// The template is no binding field: nudge the dispatcher as the
	// detector of template changes would.
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		b := f.binding("shop")
		if b.Annotations == nil {
			b.Annotations = map[string]string{}
		}
		b.Annotations["example.fleetover.io/template-generation"] = "2"
		return f.c.Update(f.ctx, b)
	}); err != nil {
		t.Fatal(err)
	}
	f.eventually("the open cluster gets 5 replicas", func() (bool, string) {
		r, _, _ := unstructured.NestedInt64(manifest(f.work(rb, open)).Object, "spec", "replicas")
		return r == 5, fmt.Sprintf("replicas %d", r)
	})
	var c *metav1.Condition
	f.eventually("Dispatching condition observes the new Work generation", func() (bool, string) {
		w := f.work(rb, open)
		c = meta.FindStatusCondition(w.Status.Conditions, suspension.ConditionDispatching)
		return c.ObservedGeneration == w.Generation, fmt.Sprintf("observed %d, generation %d", c.ObservedGeneration, w.Generation)
	})
	if !c.LastTransitionTime.Equal(&openSince) {
		t.Fatalf("Dispatching condition rewritten without a transition: %v, was %v", c.LastTransitionTime, openSince)
	}
	for _, name := range []string{paused1, paused2} {
		if r, _, _ := unstructured.NestedInt64(manifest(f.work(rb, name)).Object, "spec", "replicas"); r != 1 {
			t.Fatalf("suspended cluster %s received the change: replicas %d", name, r)
		}
	}

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
