package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	workv1alpha1 "github.com/karmada-io/api/work/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/suspension"
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
	// Kind is the binding kind it reconciles.
	Kind BindingKind
	// Clock stamps the Dispatching condition's transition time and times
	// the next look at a held dispatch (the Directly escape).
	Clock clock.PassiveClock
	// Queue tunes this controller's work queue and workers.
	Queue QueueOptions
	// Events receives a "DispatchingChanged" event when the Dispatching
	// condition of a Work flips; nil records nothing.
	Events *EventSink
	// InjectState injects preserved state into new clusters' manifests; nil
	// injects nothing.
	InjectState StateInjector
	// Assess holds the escape timeout for an unreachable old cluster under
	// Directly (DirectlyEscapeTimeout).
	Assess eviction.AssessOptions

	mu   sync.Mutex
	held map[types.NamespacedName][]string
}

// SetupWithManager registers the dispatcher: it reconciles bindings and
// their Works (a Work edited or deleted by hand is put back).
func (d *WorkDispatcher) SetupWithManager(mgr ctrl.Manager, name string) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		For(d.Kind.NewObject()).
		Watches(&workv1alpha1.Work{}, handler.EnqueueRequestsFromMapFunc(bindingOfWork(d.Kind))).
		WithOptions(controllerOptions(d.Clock, d.Queue)).
		Complete(d)
}

// bindingOfWork maps a Work to its binding of kind, by the annotations
// Karmada puts on Works.
func bindingOfWork(kind BindingKind) handler.MapFunc {
	return func(_ context.Context, o client.Object) []ctrl.Request {
		a := o.GetAnnotations()
		var key types.NamespacedName
		if kind == ClusterResourceBindingKind {
			key.Name = a[workv1alpha2.ClusterResourceBindingAnnotationKey]
		} else {
			key = types.NamespacedName{Namespace: a[workv1alpha2.ResourceBindingNamespaceAnnotationKey], Name: a[workv1alpha2.ResourceBindingNameAnnotationKey]}
		}
		if key.Name == "" {
			return nil
		}
		return []ctrl.Request{{NamespacedName: key}}
	}
}

// workMeta is the labels and annotations that tie a Work to its binding, as
// Karmada sets them.
func workMeta(rb client.Object) (labels, annotations map[string]string) {
	labels = map[string]string{kindOf(rb).workLabel(): permanentID(rb)}
	if kindOf(rb) == ClusterResourceBindingKind {
		return labels, map[string]string{workv1alpha2.ClusterResourceBindingAnnotationKey: rb.GetName()}
	}
	return labels, map[string]string{
		workv1alpha2.ResourceBindingNamespaceAnnotationKey: rb.GetNamespace(),
		workv1alpha2.ResourceBindingNameAnnotationKey:      rb.GetName(),
	}
}

// Reconcile brings the binding's Works in line with it.
func (d *WorkDispatcher) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	rb := d.Kind.NewObject()
	if err := d.Client.Get(ctx, req.NamespacedName, rb); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if !rb.GetDeletionTimestamp().IsZero() {
		return ctrl.Result{}, d.finalize(ctx, rb)
	}
	if !controllerutil.ContainsFinalizer(rb, BindingFinalizer) {
		if err := patchObject(ctx, d.Client, rb, func(b client.Object) bool {
			return controllerutil.AddFinalizer(b, BindingFinalizer)
		}); err != nil {
			return ctrl.Result{}, err
		}
	}

	now := d.Clock.Now()
	template, err := d.template(ctx, rb)
	if err != nil {
		return ctrl.Result{}, err
	}
	spec := bindingSpec(rb)
	targets := toTargets(spec.Clusters)
	tasks := toTasks(spec.GracefulEvictionTasks)
	desired := dispatchClusters(rb)
	// Old copies go first: a Directly task deletes its Work now.
	if err := d.removeStaleWorks(ctx, rb, desired); err != nil {
		return ctrl.Result{}, err
	}
	works, err := d.works(ctx, rb)
	if err != nil {
		return ctrl.Result{}, err
	}
	old := oldCopies(ctx, d.Client, works, tasks)
	var held []string
	var until time.Time
	for _, tc := range desired {
		if !slices.ContainsFunc(works, func(w workv1alpha1.Work) bool { return w.Namespace == ExecutionNamespace(tc.Name) }) {
			if gate := eviction.DispatchBlocked(tc.Name, tasks, old, now, d.Assess); gate.Blocked {
				held = append(held, tc.Name)
				until = earliest(until, gate.Until)
				continue
			}
		}
		if err := d.ensureWork(ctx, rb, template, tc, targets, tasks); err != nil {
			return ctrl.Result{}, fmt.Errorf("work for cluster %q: %w", tc.Name, err)
		}
	}
	d.setHeld(req.NamespacedName, held)
	if len(held) > 0 {
		d.Events.event(rb, corev1.EventTypeNormal, "DispatchHeld", "Works for %v wait until the old copies under purge mode Directly are gone", held)
	}
	if until.IsZero() {
		return ctrl.Result{}, nil
	}
	return ctrl.Result{RequeueAfter: max(until.Sub(now), dueNow)}, nil
}

// Held returns the clusters whose new Work the last reconcile of key held
// back, for tests and diagnostics.
func (d *WorkDispatcher) Held(key types.NamespacedName) []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.Clone(d.held[key])
}

func (d *WorkDispatcher) setHeld(key types.NamespacedName, clusters []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.held == nil {
		d.held = map[types.NamespacedName][]string{}
	}
	if len(clusters) == 0 {
		delete(d.held, key)
		return
	}
	d.held[key] = clusters
}

// dispatchClusters lists the clusters that get a Work: the targets, then the
// clusters a graceful eviction task still keeps the old copy on (not those
// whose old copy eviction.DeleteOldCopy says to delete: under Directly it
// goes first, unless it is the last copy).
func dispatchClusters(rb client.Object) []workv1alpha2.TargetCluster {
	spec := bindingSpec(rb)
	out := slices.Clone(spec.Clusters)
	targets := toTargets(spec.Clusters)
	for _, t := range toTasks(spec.GracefulEvictionTasks) {
		if eviction.DeleteOldCopy(&t, targets) {
			continue
		}
		if !slices.ContainsFunc(out, func(tc workv1alpha2.TargetCluster) bool { return tc.Name == t.FromCluster }) {
			out = append(out, workv1alpha2.TargetCluster{Name: t.FromCluster, Replicas: ptr.Deref(t.Replicas, 0)})
		}
	}
	return out
}

func (d *WorkDispatcher) template(ctx context.Context, rb client.Object) (*unstructured.Unstructured, error) {
	ref := bindingSpec(rb).Resource
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
func (d *WorkDispatcher) manifestFor(template *unstructured.Unstructured, tc workv1alpha2.TargetCluster, targets []eviction.TargetCluster, tasks []eviction.GracefulEvictionTask) (runtime.RawExtension, error) {
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
		if err := d.InjectState(m, tc.Name, targets, tasks); err != nil {
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

func (d *WorkDispatcher) ensureWork(ctx context.Context, rb client.Object, template *unstructured.Unstructured, tc workv1alpha2.TargetCluster, targets []eviction.TargetCluster, tasks []eviction.GracefulEvictionTask) error {
	s := toSuspension(bindingSpec(rb).Suspension)
	manifest, err := d.manifestFor(template, tc, targets, tasks)
	if err != nil {
		return err
	}
	key := types.NamespacedName{Namespace: ExecutionNamespace(tc.Name), Name: WorkName(rb)}
	if err := d.ensureNamespace(ctx, key.Namespace); err != nil {
		return err
	}
	suspended := !suspension.ShouldDispatch(s, tc.Name)

	work := &workv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}
	err = d.Client.Get(ctx, key, work)
	switch {
	case apierrors.IsNotFound(err):
		// A new Work is created even while suspended, marked so: the
		// execution side applies nothing until the resume.
		labels, annotations := workMeta(rb)
		work = &workv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{
			Namespace: key.Namespace, Name: key.Name, Labels: labels, Annotations: annotations,
		}}
		work.Spec.Workload.Manifests = []workv1alpha1.Manifest{{RawExtension: manifest}}
		work.Spec.SuspendDispatching = suspendFlag(suspended)
		if err := d.Client.Create(ctx, work, FieldOwner); err != nil {
			return err
		}
	case err != nil:
		return err
	default:
		err := patchObject(ctx, d.Client, work, func(client.Object) bool {
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
			return changed
		})
		if err != nil {
			return err
		}
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
// it changes, and records an event only when its status flips. A Work whose
// dispatching has never been suspended gets no condition: its absence
// means Dispatching, so a new Work costs its create alone. The condition
// appears with the first suspension (False) and from then on follows every
// change (True on the resume, the Work's generation while it is there).
func (d *WorkDispatcher) setDispatchingCondition(ctx context.Context, key types.NamespacedName, s *suspension.Suspension, cluster string) error {
	var update suspension.ConditionUpdate
	work := &workv1alpha1.Work{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}
	err := patchStatus(ctx, d.Client, work, func(client.Object) bool {
		update = suspension.ConditionUpdate{}
		if suspension.ShouldDispatch(s, cluster) && meta.FindStatusCondition(work.Status.Conditions, suspension.ConditionDispatching) == nil {
			return false
		}
		// The library's reasons are Karmada's; the message is the one
		// Karmada's execution controller writes.
		want := suspension.DispatchingCondition(s, cluster, work.Generation)
		want.Message = workDispatchingMessage(want.Status == metav1.ConditionFalse)
		update = suspension.ApplyDispatchingCondition(&work.Status.Conditions, want, d.Clock.Now())
		return update.Changed
	})
	if err != nil {
		return err
	}
	if update.Transitioned {
		d.Events.event(work, corev1.EventTypeNormal, EventReasonWorkDispatching, "%s", workDispatchingMessage(update.Suspended))
	}
	return nil
}

// Karmada's messages of a Work's Dispatching condition and event.
const (
	workSuspendedMessage  = "Work dispatching is in a suspended state."
	workDispatchedMessage = "Work is being dispatched to member clusters."
)

func workDispatchingMessage(suspended bool) string {
	if suspended {
		return workSuspendedMessage
	}
	return workDispatchedMessage
}

func (d *WorkDispatcher) works(ctx context.Context, rb client.Object) ([]workv1alpha1.Work, error) {
	return bindingWorks(ctx, d.Client, rb)
}

// removeStaleWorks deletes the Works of clusters the binding left. Deletion
// is never held by a suspension.
func (d *WorkDispatcher) removeStaleWorks(ctx context.Context, rb client.Object, desired []workv1alpha2.TargetCluster) error {
	works, err := d.works(ctx, rb)
	if err != nil {
		return err
	}
	for i := range works {
		cluster, ok := ClusterOfExecutionNamespace(works[i].Namespace)
		if !ok || slices.ContainsFunc(desired, func(tc workv1alpha2.TargetCluster) bool { return tc.Name == cluster }) {
			continue
		}
		if suspension.Decide(toSuspension(bindingSpec(rb).Suspension), cluster, suspension.OperationDelete) != suspension.ActionProceed {
			continue
		}
		if works[i].DeletionTimestamp != nil {
			// Deleting it again changes nothing: its cluster still holds it.
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
func (d *WorkDispatcher) finalize(ctx context.Context, rb client.Object) error {
	if !controllerutil.ContainsFinalizer(rb, BindingFinalizer) {
		return nil
	}
	if err := d.removeStaleWorks(ctx, rb, nil); err != nil {
		return err
	}
	return patchObject(ctx, d.Client, rb, func(b client.Object) bool {
		return controllerutil.RemoveFinalizer(b, BindingFinalizer)
	})
}
