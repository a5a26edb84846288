package controllers

import (
	"context"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	workv1alpha1 "github.com/karmada-io/api/work/v1alpha1"
)

// FailoverConditions keeps the Failover condition (FailoverConditionType)
// of the bindings of one kind: it asks the library why the binding is
// where it is (ExplainBinding) and writes the step that holds it, with
// one event per change of reason.
//
// It owns no write of its own: the failover scheduler, which already
// writes each binding's status after every change of its spec, carries
// the condition on that write (FailoverScheduler.Conditions). Only when the
// scheduler does not run (beside Karmada's own scheduler) does a
// FailoverConditionController write it, and then only when it changed.
type FailoverConditions struct {
	Client client.Reader
	// Explain is what the explanation needs of the controllers'
	// configuration.
	Explain ExplainConfig
	Events  *EventSink
}

// update brings rb's Failover condition in line with the explanation of
// the facts (rb as just read, clusters and works read in the same
// reconcile). It only changes rb in memory; the caller writes the status
// and then calls record on the result. The returned time is when the
// explanation changes on its own (zero: not by itself).
func (fc *FailoverConditions) update(ctx context.Context, rb client.Object, clusters []clusterv1alpha1.Cluster, works []workv1alpha1.Work, now time.Time) (conditionUpdate, time.Time) {
	facts := &explainFacts{binding: rb, clusters: clusters, works: works}
	facts.policy, facts.policyErr = failoverPolicy(ctx, fc.Client, rb)
	ex := explain(facts, fc.Explain, now)
	return setFailoverCondition(&bindingStatus(rb).Conditions, ex.condition(), now), ex.NextChange
}

// addTo adds the condition to the status write u of a reconcile that holds
// clusters and works (the binding's); out receives what it did, for record
// after the write. A nil fc adds nothing.
func (fc *FailoverConditions) addTo(ctx context.Context, u *statusUpdate, clusters []clusterv1alpha1.Cluster, works []workv1alpha1.Work, now time.Time, out *conditionUpdate) {
	if fc == nil {
		return
	}
	u.add(func(o client.Object) bool {
		*out = conditionUpdate{}
		if !o.GetDeletionTimestamp().IsZero() {
			return false
		}
		*out, _ = fc.update(ctx, o, clusters, works, now)
		return out.Changed
	})
}

// explanationWatches adds to b what makes the explanation of a binding of
// kind change without a change of the binding: its clusters' taints and
// Ready condition, and its Works (an old copy gone or terminating).
func explanationWatches(b *builder.Builder, c client.Reader, kind BindingKind) *builder.Builder {
	return b.
		Watches(&clusterv1alpha1.Cluster{}, handler.EnqueueRequestsFromMapFunc(bindingsOnCluster(c, kind)),
			builder.WithPredicates(clusterExplanationChanged())).
		Watches(&workv1alpha1.Work{}, handler.EnqueueRequestsFromMapFunc(bindingOfWork(kind)))
}

// bindingsOnCluster maps a cluster to the bindings of kind that have it as
// a target or keep an old copy on it.
func bindingsOnCluster(c client.Reader, kind BindingKind) handler.MapFunc {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		var out []reconcile.Request
		for _, index := range []string{BindingTargetClusterIndex, BindingTaskClusterIndex} {
			list := kind.NewList()
			if err := c.List(ctx, list, client.MatchingFields{index: o.GetName()}); err != nil {
				return out
			}
			for _, rb := range bindingItems(list) {
				req := reconcile.Request{NamespacedName: client.ObjectKeyFromObject(rb)}
				if !slices.Contains(out, req) {
					out = append(out, req)
				}
			}
		}
		return out
	}
}

// clusterExplanationChanged lets through the cluster events that can change
// a binding's explanation: creation, deletion, and a change of taints or of
// the Ready condition (not the health tracker's annotation, which changes
// with every probe).
func clusterExplanationChanged() predicate.Predicate {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			o, ok1 := e.ObjectOld.(*clusterv1alpha1.Cluster)
			n, ok2 := e.ObjectNew.(*clusterv1alpha1.Cluster)
			if !ok1 || !ok2 {
				return true
			}
			if !equality.Semantic.DeepEqual(o.Spec.Taints, n.Spec.Taints) {
				return true
			}
			or := meta.FindStatusCondition(o.Status.Conditions, clusterv1alpha1.ClusterConditionReady)
			nr := meta.FindStatusCondition(n.Status.Conditions, clusterv1alpha1.ClusterConditionReady)
			return !equality.Semantic.DeepEqual(or, nr)
		},
	}
}

// FailoverConditionController writes the Failover condition of the
// bindings of one kind when the failover scheduler does not run (Karmada's
// own scheduler places the workloads): it writes the status only when the
// condition changed, and looks again when the explanation says it
// changes on its own.
type FailoverConditionController struct {
	Client client.Client
	Clock  clock.PassiveClock
	// Queue tunes this controller's work queue and workers.
	Queue QueueOptions
	// Kind is the binding kind it reconciles.
	Kind       BindingKind
	Conditions *FailoverConditions
	// Schedule records when each object is due for its next look.
	Schedule *Schedule
}

// SetupWithManager registers the controller.
func (r *FailoverConditionController) SetupWithManager(mgr manager.Manager, name string) error {
	return explanationWatches(builder.ControllerManagedBy(mgr).
		Named(name).
		For(r.Kind.NewObject()).
		WithOptions(controllerOptions(r.Clock, r.Queue)), r.Client, r.Kind).
		Complete(r)
}

// Reconcile explains one binding and keeps its condition.
func (r *FailoverConditionController) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	now := r.Clock.Now()
	rb := r.Kind.NewObject()
	if err := r.Client.Get(ctx, req.NamespacedName, rb); err != nil {
		r.Schedule.Forget(req.NamespacedName)
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	clusters := &clusterv1alpha1.ClusterList{}
	if err := r.Client.List(ctx, clusters); err != nil {
		return reconcile.Result{}, err
	}
	works, err := bindingWorks(ctx, r.Client, rb)
	if err != nil {
		return reconcile.Result{}, err
	}
	var update conditionUpdate
	var next time.Time
	var status statusUpdate
	status.add(func(o client.Object) bool {
		update, next = conditionUpdate{}, time.Time{}
		if !o.GetDeletionTimestamp().IsZero() {
			return false
		}
		update, next = r.Conditions.update(ctx, o, clusters.Items, works, now)
		return update.Changed
	})
	if err := status.apply(ctx, r.Client, rb); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	update.record(r.Conditions.Events, rb)
	return r.Schedule.Result(req.NamespacedName, now, next), nil
}

// BindingTaskClusterIndex indexes bindings of both kinds by the clusters
// their graceful eviction tasks keep an old copy on, so a change of such a
// cluster (unreachable: the Directly escape) reaches the binding's
// explanation.
const BindingTaskClusterIndex = "spec.gracefulEvictionTasks.fromCluster"

// IndexBindingsByTaskCluster registers BindingTaskClusterIndex for both
// binding kinds with the manager's cache.
func IndexBindingsByTaskCluster(ctx context.Context, indexer client.FieldIndexer) error {
	for _, kind := range BindingKinds() {
		err := indexer.IndexField(ctx, kind.NewObject(), BindingTaskClusterIndex, func(o client.Object) []string {
			spec := bindingSpec(o)
			if spec == nil {
				return nil
			}
			names := make([]string, 0, len(spec.GracefulEvictionTasks))
			for _, t := range spec.GracefulEvictionTasks {
				names = append(names, t.FromCluster)
			}
			return names
		})
		if err != nil {
			return err
		}
	}
	return nil
}
