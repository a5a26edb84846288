package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/suspension"

	workv1alpha1 "github.com/fleetover/fleetover/examples/karmada/apis/work/v1alpha1"
	workv1alpha2 "github.com/fleetover/fleetover/examples/karmada/apis/work/v1alpha2"
)

// StateInjector puts the preserved state of the binding's eviction tasks
// into the manifest bound for cluster (labels for a new cluster only). It
// is package preservation's injection, taken as a function so the
// dispatcher stays testable on its own.
type StateInjector func(manifest *unstructured.Unstructured, cluster string, targets []eviction.TargetCluster, tasks []eviction.GracefulEvictionTask) error

// WorkDispatcher keeps one Work per cluster of a binding: its target
// clusters and the clusters an old copy is still kept on by a graceful
// eviction task. Every decision comes from the library: whether a cluster
// may receive changes and the Dispatching condition (package suspension),
// the preserved state to inject (package preservation).
type WorkDispatcher struct {
	Client client.Client
	// Clock stamps the Dispatching condition's transition time.
	Clock clock.PassiveClock
	// Events receives a "DispatchingChanged" event when the Dispatching
	// condition of a Work flips; nil records nothing.
	Events *EventSink
	// InjectState injects preserved state into new clusters' manifests; nil
	// injects nothing.
	InjectState StateInjector
}

// SetupWithManager registers the dispatcher: it reconciles bindings and
// their Works (a Work edited or deleted by hand is put back).
func (d *WorkDispatcher) SetupWithManager(mgr ctrl.Manager, name string) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		For(&workv1alpha2.ResourceBinding{}).
		Watches(&workv1alpha1.Work{}, handler.EnqueueRequestsFromMapFunc(bindingOfWork)).
		Complete(d)
}

func bindingOfWork(_ context.Context, o client.Object) []ctrl.Request {
	a := o.GetAnnotations()
	ns, name := a[BindingNamespaceAnnotation], a[BindingNameAnnotation]
	if name == "" {
		return nil
	}
	return []ctrl.Request{{NamespacedName: types.NamespacedName{Namespace: ns, Name: name}}}
}

// Reconcile brings the binding's Works in line with it.
func (d *WorkDispatcher) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	rb := &workv1alpha2.ResourceBinding{}
	if err := d.Client.Get(ctx, req.NamespacedName, rb); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !rb.DeletionTimestamp.IsZero() {
		return ctrl.Result{}, d.finalize(ctx, rb)
	}
	if !controllerutil.ContainsFinalizer(rb, BindingFinalizer) {
		if err := d.updateBinding(ctx, rb, func(b *workv1alpha2.ResourceBinding) bool {
			return controllerutil.AddFinalizer(b, BindingFinalizer)
		}); err != nil {
			return ctrl.Result{}, err
		}
	}

	template, err := d.template(ctx, rb)
	if err != nil {
		return ctrl.Result{}, err
	}
	desired := dispatchClusters(rb)
	for _, tc := range desired {
		if err := d.ensureWork(ctx, rb, template, tc); err != nil {
			return ctrl.Result{}, fmt.Errorf("work for cluster %q: %w", tc.Name, err)
		}
	}
	return ctrl.Result{}, d.removeStaleWorks(ctx, rb, desired)
}

// dispatchClusters lists the clusters that get a Work: the targets, then the
// clusters an eviction task still keeps the old copy on.
func dispatchClusters(rb *workv1alpha2.ResourceBinding) []workv1alpha2.TargetCluster {
	out := slices.Clone(rb.Spec.Clusters)
	for _, t := range rb.Spec.GracefulEvictionTasks {
		if !slices.ContainsFunc(out, func(tc workv1alpha2.TargetCluster) bool { return tc.Name == t.FromCluster }) {
			out = append(out, workv1alpha2.TargetCluster{Name: t.FromCluster, Replicas: ptr.Deref(t.Replicas, 0)})
		}
	}
	return out
}

func (d *WorkDispatcher) template(ctx context.Context, rb *workv1alpha2.ResourceBinding) (*unstructured.Unstructured, error) {
	ref := rb.Spec.Resource
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(schema.FromAPIVersionAndKind(ref.APIVersion, ref.Kind))
	if err := d.Client.Get(ctx, types.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}, u); err != nil {
		return nil, fmt.Errorf("resource template %s %s/%s: %w", ref.Kind, ref.Namespace, ref.Name, err)
	}
	return u, nil
}

// manifestFor is the template as the member cluster should receive it: no
// server-set fields, no status, the cluster's replica share, and the state
// preserved for it.
func (d *WorkDispatcher) manifestFor(rb *workv1alpha2.ResourceBinding, template *unstructured.Unstructured, tc workv1alpha2.TargetCluster) (runtime.RawExtension, error) {
	m := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": template.GetAPIVersion(),
		"kind":       template.GetKind(),
	}}
	m.SetNamespace(template.GetNamespace())
	m.SetName(template.GetName())
	m.SetLabels(template.GetLabels())
	m.SetAnnotations(template.GetAnnotations())
	if spec, ok := template.Object["spec"]; ok {
		m.Object["spec"] = runtime.DeepCopyJSONValue(spec)
	}
	if tc.Replicas > 0 {
		if _, found, _ := unstructured.NestedFieldNoCopy(m.Object, "spec", "replicas"); found {
			if err := unstructured.SetNestedField(m.Object, int64(tc.Replicas), "spec", "replicas"); err != nil {
				return runtime.RawExtension{}, err
			}
		}
	}
	if d.InjectState != nil {
		if err := d.InjectState(m, tc.Name, targetsOf(rb), rb.Spec.GracefulEvictionTasks); err != nil {
			return runtime.RawExtension{}, fmt.Errorf("inject preserved state: %w", err)
		}
	}
	raw, err := json.Marshal(m.Object)
	if err != nil {
		return runtime.RawExtension{}, err
	}
	return runtime.RawExtension{Raw: raw}, nil
}

func (d *WorkDispatcher) ensureNamespace(ctx context.Context, name string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := d.Client.Get(ctx, types.NamespacedName{Name: name}, ns); err == nil {
		return nil
	}
	if err := d.Client.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}

func (d *WorkDispatcher) ensureWork(ctx context.Context, rb *workv1alpha2.ResourceBinding, template *unstructured.Unstructured, tc workv1alpha2.TargetCluster) error {
	s := rb.Spec.Suspension
	manifest, err := d.manifestFor(rb, template, tc)
	if err != nil {
		return err
	}
	key := types.NamespacedName{Namespace: ExecutionNamespace(tc.Name), Name: WorkName(rb)}
	if err := d.ensureNamespace(ctx, key.Namespace); err != nil {
		return err
	}
	suspended := !suspension.ShouldDispatch(s, tc.Name)

	work := &workv1alpha1.Work{}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		err := d.Client.Get(ctx, key, work)
		if apierrors.IsNotFound(err) {
			// A new Work is created even while suspended, marked so: the
			// execution side applies nothing until the resume.
			work = &workv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{
				Namespace:   key.Namespace,
				Name:        key.Name,
				Labels:      map[string]string{BindingPermanentIDLabel: string(rb.UID)},
				Annotations: map[string]string{BindingNamespaceAnnotation: rb.Namespace, BindingNameAnnotation: rb.Name},
			}}
			work.Spec.Workload.Manifests = []workv1alpha1.Manifest{{RawExtension: manifest}}
			work.Spec.SuspendDispatching = suspendFlag(suspended)
			return d.Client.Create(ctx, work)
		}
		if err != nil {
			return err
		}
		changed := false
		if !ptr.Equal(work.Spec.SuspendDispatching, suspendFlag(suspended)) {
			work.Spec.SuspendDispatching = suspendFlag(suspended)
			changed = true
		}
		// While suspended the Work keeps what was last dispatched: the
		// change waits for the resume.
		if suspension.Decide(s, tc.Name, suspension.OperationApply) == suspension.ActionProceed &&
			!manifestsEqual(work.Spec.Workload.Manifests, manifest) {
			work.Spec.Workload.Manifests = []workv1alpha1.Manifest{{RawExtension: manifest}}
			changed = true
		}
		if !changed {
			return nil
		}
		return d.Client.Update(ctx, work)
	})
	if err != nil {
		return err
	}
	return d.setDispatchingCondition(ctx, key, s, tc.Name)
}

func suspendFlag(suspended bool) *bool {
	if suspended {
		return ptr.To(true)
	}
	return nil
}

func manifestsEqual(have []workv1alpha1.Manifest, want runtime.RawExtension) bool {
	if len(have) != 1 {
		return false
	}
	var a, b any
	if json.Unmarshal(have[0].Raw, &a) != nil || json.Unmarshal(want.Raw, &b) != nil {
		return false
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

// setDispatchingCondition writes the Work's Dispatching condition only when
// it changes, and records an event only when its status flips.
func (d *WorkDispatcher) setDispatchingCondition(ctx context.Context, key types.NamespacedName, s *suspension.Suspension, cluster string) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		work := &workv1alpha1.Work{}
		if err := d.Client.Get(ctx, key, work); err != nil {
			return err
		}
		update := suspension.SetDispatchingCondition(&work.Status.Conditions, s, cluster, work.Generation, d.Clock.Now())
		if !update.Changed {
			return nil
		}
		if err := d.Client.Status().Update(ctx, work); err != nil {
			return err
		}
		if update.Transitioned {
			reason := suspension.ReasonDispatching
			if update.Suspended {
				reason = suspension.ReasonSuspendDispatching
			}
			d.Events.event(work, corev1.EventTypeNormal, reason, "Dispatching to cluster %s: suspended=%t", cluster, update.Suspended)
		}
		return nil
	})
}

func (d *WorkDispatcher) works(ctx context.Context, rb *workv1alpha2.ResourceBinding) ([]workv1alpha1.Work, error) {
	list := &workv1alpha1.WorkList{}
	if err := d.Client.List(ctx, list, client.MatchingLabels{BindingPermanentIDLabel: string(rb.UID)}); err != nil {
		return nil, err
	}
	return list.Items, nil
}

// removeStaleWorks deletes the Works of clusters the binding left. Deletion
// is never held by a suspension.
func (d *WorkDispatcher) removeStaleWorks(ctx context.Context, rb *workv1alpha2.ResourceBinding, desired []workv1alpha2.TargetCluster) error {
	works, err := d.works(ctx, rb)
	if err != nil {
		return err
	}
	for i := range works {
		cluster, ok := ClusterOfExecutionNamespace(works[i].Namespace)
		if !ok || slices.ContainsFunc(desired, func(tc workv1alpha2.TargetCluster) bool { return tc.Name == cluster }) {
			continue
		}
		if suspension.Decide(rb.Spec.Suspension, cluster, suspension.OperationDelete) != suspension.ActionProceed {
			continue
		}
		if err := d.Client.Delete(ctx, &works[i]); client.IgnoreNotFound(err) != nil {
			return err
		}
	}
	return nil
}

// finalize deletes every Work of a binding being deleted, suspended or not,
// then lets the binding go.
func (d *WorkDispatcher) finalize(ctx context.Context, rb *workv1alpha2.ResourceBinding) error {
	if !controllerutil.ContainsFinalizer(rb, BindingFinalizer) {
		return nil
	}
	if err := d.removeStaleWorks(ctx, rb, nil); err != nil {
		return err
	}
	return d.updateBinding(ctx, rb, func(b *workv1alpha2.ResourceBinding) bool {
		return controllerutil.RemoveFinalizer(b, BindingFinalizer)
	})
}

// updateBinding applies mutate to the latest binding and writes it with
// optimistic concurrency, reading again and retrying on a conflict so a
// concurrent writer's change is kept, not overwritten (Karmada #7483).
func (d *WorkDispatcher) updateBinding(ctx context.Context, rb *workv1alpha2.ResourceBinding, mutate func(*workv1alpha2.ResourceBinding) bool) error {
	return updateBinding(ctx, d.Client, client.ObjectKeyFromObject(rb), mutate)
}
