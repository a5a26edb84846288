package controllers

import (
	"context"
	"fmt"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/examples/karmada/carrier"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/suspension"
)

// TaintManager moves bindings off clusters whose NoExecute taints they do
// not tolerate. Per cluster it asks failover's ClusterFailoverPlanner which
// bindings leave now and when to look again, draws each eviction from the
// fleet-wide eviction.Pacer (disruption modes: nothing is evicted while the
// whole fleet is unhealthy), and applies it with eviction.Evict. It lists
// only the bindings on the cluster (BindingTargetClusterIndex) and never
// re-lists every binding on a timer: the next look is a deadline in its
// result's RequeueAfter.
//
// With InlineScheduling the eviction and the binding's new placement are
// one write: the same reconcile runs the failover scheduler's placement
// (scheduling.Replace, as the scheduler would on the evicted binding) on
// the binding eviction.Evict just changed, then reports the scheduler's
// observation of the new generation in one status write.
type TaintManager struct {
	Client client.Client
	Clock  clock.PassiveClock
	// Queue tunes this controller's work queue and workers.
	Queue QueueOptions
	// Planner holds the global purge mode and grace period.
	Planner failover.ClusterFailoverPlanner
	// DefaultTolerations are added to each binding's tolerations, unless
	// NoDefaultTolerations.
	DefaultTolerations   failover.DefaultTolerationsConfig
	NoDefaultTolerations bool
	// Pacer paces evictions across the fleet; its clock must be Clock.
	Pacer eviction.Pacer
	// Rules caches compiled state-preservation rules; nil compiles each time.
	Rules *RuleCache
	// PreserveState extracts the state a policy preserves at the eviction
	// (Karmada's StatefulFailoverInjection gate): the eviction waits until
	// it can be read, and the task carries it. Off, no state is read.
	PreserveState bool
	// Schedule records when each object is due for its next look.
	Schedule *Schedule
	Events   *EventSink
	// Conditions, with InlineScheduling, keeps the binding's Failover
	// condition in the status write that follows an eviction.
	Conditions *FailoverConditions
	// InlineScheduling runs the failover scheduler's placement in the
	// eviction's write, and records status.schedulerObservedGeneration in
	// the status write that follows it. Set it only where this process's
	// FailoverScheduler is the scheduler (Setup does, when failoverScheduler
	// is enabled): beside karmada-scheduler the taint manager must leave
	// placement to it. A placement that finds no cluster is left to the
	// scheduler, which reports why and looks again.
	InlineScheduling bool
	// EvictionWorkers is how many evictions of one reconcile are written at
	// once; 0 is DefaultEvictionWorkers. Each eviction is its own binding's
	// writes, so they need not wait for each other; the pacer still admits
	// them one by one, in the planner's order.
	EvictionWorkers int
}

// DefaultEvictionWorkers is the taint manager's default EvictionWorkers:
// Karmada's taint manager also evicts from 3 workers per binding kind.
const DefaultEvictionWorkers = 3

// SetupWithManager registers the taint manager. It looks at a cluster when
// the cluster changes, when a deadline of its last look falls due, and when
// a binding on it changes what its failover there depends on
// (failoverInputsChanged).
func (m *TaintManager) SetupWithManager(mgr manager.Manager, name string) error {
	b := builder.ControllerManagedBy(mgr).
		Named(name).
		For(&clusterv1alpha1.Cluster{}).
		WithOptions(controllerOptions(m.Clock, m.Queue))
	for _, kind := range BindingKinds() {
		b = b.Watches(kind.NewObject(), handler.EnqueueRequestsFromMapFunc(targetClustersOf), builder.WithPredicates(failoverInputsChanged()))
	}
	return b.Complete(m)
}

// failoverInputsChanged passes the binding updates that can change the
// taint manager's answer on the binding's clusters without any cluster
// changing: its dispatch suspension (a resume ends the pause of its
// failover, and a binding whose eviction a held re-placement undid is on
// its cluster again) and its cluster tolerations. Every other binding
// write, the taint manager's own evictions among them, passes nothing.
func failoverInputsChanged() predicate.Funcs {
	return predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return false },
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
		UpdateFunc: func(e event.UpdateEvent) bool {
			before, after := bindingSpec(e.ObjectOld), bindingSpec(e.ObjectNew)
			if before == nil || after == nil {
				return false
			}
			return !equality.Semantic.DeepEqual(before.Suspension, after.Suspension) ||
				!equality.Semantic.DeepEqual(clusterTolerations(before), clusterTolerations(after))
		},
	}
}

func clusterTolerations(spec *workv1alpha2.ResourceBindingSpec) []corev1.Toleration {
	if spec.Placement == nil {
		return nil
	}
	return spec.Placement.ClusterTolerations
}

// targetClustersOf maps a binding to the clusters it is on.
func targetClustersOf(_ context.Context, o client.Object) []reconcile.Request {
	spec := bindingSpec(o)
	if spec == nil {
		return nil
	}
	out := make([]reconcile.Request, 0, len(spec.Clusters))
	for _, t := range spec.Clusters {
		out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Name: t.Name}})
	}
	return out
}

// Reconcile plans one cluster.
func (m *TaintManager) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	cluster := &clusterv1alpha1.Cluster{}
	if err := m.Client.Get(ctx, req.NamespacedName, cluster); err != nil {
		m.Schedule.Forget(req.NamespacedName)
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	clusters, err := m.observeFleet(ctx, cluster)
	if err != nil {
		return reconcile.Result{}, err
	}
	taints := cluster.Spec.Taints
	now := m.Clock.Now()

	var bindings []failover.ClusterBinding
	var objects []client.Object
	var policies []*failover.FailoverBehavior
	for _, kind := range BindingKinds() {
		list := kind.NewList()
		if err := m.Client.List(ctx, list, client.MatchingFields{BindingTargetClusterIndex: cluster.Name}); err != nil {
			return reconcile.Result{}, err
		}
		for _, rb := range bindingItems(list) {
			spec := bindingSpec(rb)
			// Failover is paused where dispatching is suspended (dispatch suspension pauses failover).
			if suspension.FailoverPaused(toSuspension(spec.Suspension), cluster.Name) || !rb.GetDeletionTimestamp().IsZero() {
				continue
			}
			policy, err := failoverPolicy(ctx, m.Client, rb)
			if err != nil {
				m.Events.event(rb, corev1.EventTypeWarning, "InvalidFailoverPolicy", "%v", err)
				continue
			}
			var tolerations []corev1.Toleration
			var behaviour *failover.ClusterFailoverBehavior
			if spec.Placement != nil {
				tolerations = spec.Placement.ClusterTolerations
			}
			if policy != nil {
				behaviour = policy.Cluster
			}
			bindings = append(bindings, failover.ClusterBinding{
				Key:         string(kind) + "/" + client.ObjectKeyFromObject(rb).String(),
				Tolerations: m.defaultTolerations().add(tolerations),
				Failover:    behaviour,
			})
			objects = append(objects, rb)
			policies = append(policies, policy)
		}
	}

	plan := m.Planner.Plan(taints, bindings, now)
	next := plan.NextCheck
	var fl *fleet
	if len(plan.Evict) > 0 {
		fl = newFleet(clusters)
	}
	// The pacer admits the evictions in the planner's order, each when a
	// writer is free to take it; the writes of different bindings do not
	// wait for each other.
	writers := m.EvictionWorkers
	if writers <= 0 {
		writers = DefaultEvictionWorkers
	}
	writers = min(writers, len(plan.Evict))
	admitted := make(chan failover.ClusterEviction)
	failed := make(chan error, writers)
	stop := make(chan struct{})
	var stopOnce sync.Once
	var wg sync.WaitGroup
	for range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ev := range admitted {
				if err := m.evict(ctx, objects[ev.Index], policies[ev.Index], fl, cluster.Name, ev); err != nil {
					failed <- err
					stopOnce.Do(func() { close(stop) })
					return
				}
			}
		}()
	}
	stopped := false
	for _, ev := range plan.Evict {
		// An eviction that waits for its state spends no token: a binding
		// whose status stays unreadable would otherwise take its zone's
		// token at every look, ahead of every binding behind it. It is
		// looked at again after StateRetryInterval.
		if err := m.stateReadable(objects[ev.Index], policies[ev.Index], cluster.Name); err != nil {
			m.Events.event(objects[ev.Index], corev1.EventTypeWarning, "StatePreservationFailed", "eviction from %s waits: %v", cluster.Name, err)
			next = earliest(next, now.Add(StateRetryInterval))
			continue
		}
		if !m.Pacer.TryAccept(clusterZone(cluster)) {
			// Out of budget (or stopped in a full disruption): look again
			// when a token is due; a stopped pacer is woken by the next
			// cluster health change.
			if at, ok := m.Pacer.When(clusterZone(cluster)); ok {
				next = earliest(next, at)
			}
			break
		}
		select {
		case admitted <- ev:
		case <-stop:
			// A write failed: this admitted eviction and the rest wait
			// for the retry of the whole reconcile.
			stopped = true
		}
		if stopped {
			break
		}
	}
	close(admitted)
	wg.Wait()
	select {
	case err := <-failed:
		return reconcile.Result{}, err
	default:
	}
	return m.Schedule.Result(req.NamespacedName, now, next), nil
}

// StateRetryInterval is how long an eviction that waits for a readable
// state waits before the taint manager reads the binding's status again.
const StateRetryInterval = 30 * time.Second

// stateReadable reports why the state a cluster eviction of rb must carry
// cannot be read from its aggregated status yet; nil when it can, or when
// the policy preserves no state.
func (m *TaintManager) stateReadable(rb client.Object, fb *failover.FailoverBehavior, cluster string) error {
	if !m.PreserveState || fb == nil || fb.Cluster == nil || fb.Cluster.StatePreservation == nil {
		return nil
	}
	_, err := extractState(m.Rules, fb.Cluster.StatePreservation, bindingStatus(rb), cluster)
	return err
}

// observeFleet gives the pacer the health of every cluster so it can pick
// the disruption mode.
// Mode changes are reported as events on the cluster being reconciled.
// It returns the clusters it listed.
func (m *TaintManager) observeFleet(ctx context.Context, reconciled *clusterv1alpha1.Cluster) ([]clusterv1alpha1.Cluster, error) {
	clusters := &clusterv1alpha1.ClusterList{}
	if err := m.Client.List(ctx, clusters); err != nil {
		return nil, err
	}
	views := make([]eviction.ClusterHealthView, len(clusters.Items))
	for i := range clusters.Items {
		cl := &clusters.Items[i]
		views[i] = eviction.ClusterHealthView{
			Name:    cl.Name,
			Zone:    clusterZone(cl),
			Healthy: meta.IsStatusConditionTrue(cl.Status.Conditions, clusterv1alpha1.ClusterConditionReady),
		}
	}
	for _, st := range m.Pacer.Observe(views) {
		if st.Changed {
			m.Events.event(reconciled, corev1.EventTypeWarning, string(st.Mode), "eviction pacing for zone %q: %s", st.Zone, st.Message)
		}
	}
	return clusters.Items, nil
}

// evict applies one planned eviction to the binding and, with
// InlineScheduling, the new placement over fl in the same spec write, then
// the scheduler's observation in one status write. The events are recorded once, after the writes, whatever the
// number of conflict retries.
func (m *TaintManager) evict(ctx context.Context, rb client.Object, fb *failover.FailoverBehavior, fl *fleet, cluster string, ev failover.ClusterEviction) error {
	var sp *failover.ClusterFailoverBehavior
	if fb != nil {
		sp = fb.Cluster
	}
	planned := ev.Eviction(cluster)
	// Stamped at the decision, in the same write: the graceful eviction
	// controller then has no stamp to write.
	planned.CreatedAt = m.Clock.Now()
	var lastEpoch int64
	if sp != nil && sp.StatePreservation != nil {
		lastEpoch = lastFencingEpoch(ctx, m.Client, rb)
	}
	var outcome eviction.EvictOutcome
	var refusal error
	refusalReason := ""
	wrote := false
	affinityName := ""
	b := kindOf(rb).NewObject()
	b.SetNamespace(rb.GetNamespace())
	b.SetName(rb.GetName())
	err := patchObject(ctx, m.Client, b, func(client.Object) bool {
		refusal, refusalReason, outcome, wrote, affinityName = nil, "", "", false, ""
		var state map[string]string
		if m.PreserveState && sp != nil && sp.StatePreservation != nil {
			s, err := extractState(m.Rules, sp.StatePreservation, bindingStatus(b), cluster)
			if err != nil {
				refusal, refusalReason = fmt.Errorf("eviction from %s waits: %w", cluster, err), "StatePreservationFailed"
				return false
			}
			state = s
		}
		withState := planned
		withState.PreservedLabelState = state
		o, changed, err := evictInto(bindingSpec(b), withState, lastEpoch)
		if err != nil {
			refusal, refusalReason = err, "EvictionRejected"
			return false
		}
		outcome, wrote = o, changed
		if changed && m.InlineScheduling {
			// What the scheduler would do next with this binding, in this
			// write. A history that cannot be read, or no cluster that
			// fits, is left to the scheduler, which reports it.
			if history, err := carrier.DecodeEvictionHistory(b.GetAnnotations()); err == nil {
				_, affinityName, _, _ = replaceLost(b, fl, bindingOldCopies(ctx, m.Client, b), history, blockSeconds(fb), m.defaultTolerations(), m.Planner.Tolerations, planned.CreatedAt)
			}
		}
		return changed
	})
	if err != nil {
		return fmt.Errorf("evict %s %s from %s: %w", kindOf(rb), types.NamespacedName{Namespace: rb.GetNamespace(), Name: rb.GetName()}, cluster, err)
	}
	if wrote && m.InlineScheduling {
		var status statusUpdate
		recordSchedulerObservation(&status)
		recordAffinityName(&status, affinityName)
		var condition conditionUpdate
		if m.Conditions != nil {
			works, err := bindingWorks(ctx, m.Client, b)
			if err != nil {
				return err
			}
			m.Conditions.addTo(ctx, &status, fl.clusters, works, planned.CreatedAt, &condition)
		}
		if err := status.apply(ctx, m.Client, b); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("status of %s %s after its eviction from %s: %w", kindOf(rb), types.NamespacedName{Namespace: rb.GetNamespace(), Name: rb.GetName()}, cluster, err)
		}
		condition.record(m.Events, b)
	}
	if refusal != nil {
		m.Events.event(b, corev1.EventTypeWarning, refusalReason, "%v", refusal)
	}
	if outcome == eviction.EvictTaskAdded {
		m.Events.evicted(b, cluster)
		m.Events.event(b, corev1.EventTypeWarning, eviction.ReasonTaintUntolerated, "evicted from cluster %s: %s", cluster, planned.Message)
	}
	return nil
}

// clusterZone is the zone the pacer counts a cluster in: spec.zone, or the
// first of spec.zones (Karmada's API server moves a lone zone there).
func clusterZone(cl *clusterv1alpha1.Cluster) string {
	if cl.Spec.Zone != "" || len(cl.Spec.Zones) == 0 {
		return cl.Spec.Zone
	}
	return cl.Spec.Zones[0]
}

// defaultTolerations is what every binding tolerates beyond what its
// policy says: the configured defaults, or nothing when none is set (as in
// Karmada since v1.15). The taint manager, the scheduler and the
// explanation all add them through it, so that they agree.
type defaultTolerations struct {
	config failover.DefaultTolerationsConfig
	none   bool
}

// add returns tolerations with the defaults they do not cover added.
func (d defaultTolerations) add(tolerations []corev1.Toleration) []corev1.Toleration {
	if d.none {
		return tolerations
	}
	return failover.AddDefaultClusterTolerations(tolerations, d.config)
}

func (m *TaintManager) defaultTolerations() defaultTolerations {
	return defaultTolerations{config: m.DefaultTolerations, none: m.NoDefaultTolerations}
}
