package controllers

import (
	"context"
	"fmt"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"

	"github.com/fleetover/fleetover/failover"
)

// DefaultProbeInterval is how often a push-mode cluster is probed.
const DefaultProbeInterval = 10 * time.Second

// Prober probes a push-mode cluster: is its API server reachable, and does
// its health endpoint answer ok.
type Prober interface {
	Probe(ctx context.Context, cluster *clusterv1alpha1.Cluster) failover.ProbeResult
}

// ProberFunc adapts a function to Prober.
type ProberFunc func(ctx context.Context, cluster *clusterv1alpha1.Cluster) failover.ProbeResult

// Probe calls f.
func (f ProberFunc) Probe(ctx context.Context, cluster *clusterv1alpha1.Cluster) failover.ProbeResult {
	return f(ctx, cluster)
}

// ClusterHealthController keeps each cluster's Ready condition and health
// taints. Push-mode clusters are probed; a pull-mode cluster's agent reports
// by renewing its Lease (coordination.k8s.io, in LeaseNamespace, named after
// the cluster) and, as Karmada's agent does, by posting the Ready condition
// it decided, which this controller leaves as posted (see observePull). The Ready condition comes from failover's
// ClusterHealthTracker (debounce, silence -> Unknown) and the taints from
// failover.ComputeClusterTaints (a diff that keeps TimeAdded).
type ClusterHealthController struct {
	Client client.Client
	Clock  clock.PassiveClock
	// Queue tunes this controller's work queue and workers.
	Queue QueueOptions
	// Tracker holds the debounce state; its clock must be Clock.
	Tracker failover.ClusterHealthTracker
	// Taints configures the health taints (NoExecute after a timeout, keys).
	Taints failover.ClusterTaintConfig
	// Prober probes push-mode clusters; nil treats them as unreachable.
	Prober Prober
	// ProbeInterval defaults to DefaultProbeInterval.
	ProbeInterval time.Duration
	// MonitorPeriod, when positive, bounds the time between two looks at
	// a cluster (Karmada's --cluster-monitor-period); the looks that are
	// due (a silence deadline, a probe) come when they are due anyway.
	MonitorPeriod time.Duration
	// WithoutProbes leaves push-mode clusters unprobed (Karmada's
	// clusterStatus controller off): nothing is heard from them, so they
	// turn Unknown after the monitor grace period.
	WithoutProbes bool
	// WithoutTaints leaves the health taints alone (Karmada's cluster
	// controller off); the Ready condition is still kept.
	WithoutTaints bool
	// Schedule records when each object is due for its next look.
	Schedule *Schedule
	Events   *EventSink

	// posted is each pull-mode cluster's Ready condition as last seen.
	postedMu sync.Mutex
	posted   map[string]metav1.Condition
}

// SetupWithManager registers the controller.
func (c *ClusterHealthController) SetupWithManager(mgr manager.Manager, name string) error {
	return ctrl.ControllerManagedBy(mgr).
		Named(name).
		// Status and annotation writes (ours) do not bump the generation:
		// reacting to them would probe in a loop. A pull-mode cluster's
		// Ready condition is the exception: its agent posts it.
		For(&clusterv1alpha1.Cluster{}, ctrl.WithPredicates(predicate.Or[client.Object](predicate.GenerationChangedPredicate{}, pulledReadyChanged()))).
		Watches(&coordinationv1.Lease{}, handler.EnqueueRequestsFromMapFunc(clusterOfLease)).
		WithOptions(controllerOptions(c.Clock, c.Queue)).
		Complete(c)
}

// pulledReadyChanged passes the updates that change a pull-mode cluster's
// Ready condition: the agent's posts. A write of this controller's own
// passes too, and the reconcile it causes finds nothing to do.
func pulledReadyChanged() predicate.Funcs {
	return predicate.Funcs{
		CreateFunc:  func(event.CreateEvent) bool { return false },
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
		UpdateFunc: func(e event.UpdateEvent) bool {
			before, okOld := e.ObjectOld.(*clusterv1alpha1.Cluster)
			after, okNew := e.ObjectNew.(*clusterv1alpha1.Cluster)
			if !okOld || !okNew || after.Spec.SyncMode != clusterv1alpha1.Pull {
				return false
			}
			return !sameReady(meta.FindStatusCondition(before.Status.Conditions, clusterv1alpha1.ClusterConditionReady),
				meta.FindStatusCondition(after.Status.Conditions, clusterv1alpha1.ClusterConditionReady))
		},
	}
}

func clusterOfLease(_ context.Context, o client.Object) []reconcile.Request {
	if o.GetNamespace() != ClusterLeaseNamespace {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: o.GetName()}}}
}

// Reconcile observes one cluster and writes its Ready condition and taints.
func (c *ClusterHealthController) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	cluster := &clusterv1alpha1.Cluster{}
	if err := c.Client.Get(ctx, req.NamespacedName, cluster); err != nil {
		if apierrors.IsNotFound(err) {
			c.Tracker.Forget(req.Name)
			c.Schedule.Forget(req.NamespacedName)
			c.postedChanged(req.Name, nil) // forgets the condition it last saw
		}
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if err := c.track(ctx, cluster); err != nil {
		return reconcile.Result{}, err
	}
	now := c.Clock.Now()
	ready, err := c.observe(ctx, cluster, now)
	if err != nil {
		return reconcile.Result{}, err
	}

	if err := c.writeReady(ctx, cluster.Name, ready); err != nil {
		return reconcile.Result{}, err
	}
	nextTaints, err := c.writeTaintsAndState(ctx, cluster.Name, now)
	if err != nil {
		return reconcile.Result{}, err
	}

	next, _ := c.Tracker.NextCheck(cluster.Name)
	next = earliest(next, nextTaints)
	if cluster.Spec.SyncMode == clusterv1alpha1.Push && !c.WithoutProbes {
		next = earliest(next, now.Add(c.probeInterval()))
	}
	if c.MonitorPeriod > 0 {
		next = earliest(next, now.Add(c.MonitorPeriod))
	}
	return c.Schedule.Result(req.NamespacedName, now, next), nil
}

func (c *ClusterHealthController) probeInterval() time.Duration {
	if c.ProbeInterval > 0 {
		return c.ProbeInterval
	}
	return DefaultProbeInterval
}

// track registers the cluster with the tracker, importing the persisted
// state first so that a restart continues every countdown.
func (c *ClusterHealthController) track(ctx context.Context, cluster *clusterv1alpha1.Cluster) error {
	mode := failover.ClusterSyncMode(cluster.Spec.SyncMode)
	if st, ok := c.Tracker.Export(cluster.Name); ok {
		if st.SyncMode != mode {
			c.Tracker.Register(cluster.Name, mode)
		}
		return nil
	}
	st, err := decodeClusterHealthState(cluster.Annotations)
	if err != nil {
		c.Events.event(cluster, corev1.EventTypeWarning, "InvalidHealthState", "%v", err)
	}
	if st != nil {
		st.SyncMode = mode
		if mode == failover.ClusterSyncModePull {
			c.heardSinceSaved(ctx, cluster.Name, st)
		}
		if err := c.Tracker.Import(cluster.Name, *st); err == nil {
			return nil
		}
		// A damaged state is replaced by a fresh registration below.
	}
	c.Tracker.Register(cluster.Name, mode)
	return nil
}

// heardSinceSaved moves a restored pull cluster's LastHeard up to its
// Lease's latest renewal: the saved state carries the time it was heard
// as of its last write (see persistedHealthState), and the silence
// countdown must run from the latest renewal, as it did before the
// restart, not from that write.
func (c *ClusterHealthController) heardSinceSaved(ctx context.Context, cluster string, st *failover.ClusterHealthState) {
	lease := &coordinationv1.Lease{}
	if err := c.Client.Get(ctx, types.NamespacedName{Namespace: ClusterLeaseNamespace, Name: cluster}, lease); err != nil || lease.Spec.RenewTime == nil {
		return
	}
	renewed := lease.Spec.RenewTime.Time
	if now := c.Clock.Now(); renewed.After(now) {
		renewed = now
	}
	// Whole seconds, rounded up, as the tracker counts a renewal.
	heard := renewed.Truncate(time.Second)
	if heard.Before(renewed) {
		heard = heard.Add(time.Second)
	}
	if st.LastHeard == nil || heard.After(st.LastHeard.Time) {
		st.LastHeard = &metav1.Time{Time: heard}
	}
}

// observe feeds the latest report to the tracker and returns the Ready
// condition as of now.
func (c *ClusterHealthController) observe(ctx context.Context, cluster *clusterv1alpha1.Cluster, now time.Time) (*metav1.Condition, error) {
	switch cluster.Spec.SyncMode {
	case clusterv1alpha1.Pull:
		if err := c.observePull(ctx, cluster); err != nil {
			return nil, err
		}
	default:
		if c.WithoutProbes {
			// Nothing is heard: the tracker's silence rule decides.
			break
		}
		result := failover.ProbeResult{Message: "no prober configured"}
		if c.Prober != nil {
			result = c.Prober.Probe(ctx, cluster)
		}
		if _, err := c.Tracker.ObserveProbe(cluster.Name, result); err != nil {
			return nil, err
		}
	}
	cond, ok := c.Tracker.Ready(cluster.Name)
	if !ok {
		return nil, nil
	}
	return &cond, nil
}

// observePull feeds what a pull-mode cluster's agent said. The agent
// renews the cluster's Lease, and Karmada's agent also decides the Ready
// condition itself (it probes its own API server and debounces) and posts
// it: a True or False condition that changed since the last look is the
// agent's post, and stands as posted, so this controller never contradicts
// it; it only turns the cluster Unknown when the agent falls silent. An
// agent that posts no condition reports by its renewals alone: each one
// counts as a healthy report.
func (c *ClusterHealthController) observePull(ctx context.Context, cluster *clusterv1alpha1.Cluster) error {
	st, _ := c.Tracker.Export(cluster.Name)
	lease := &coordinationv1.Lease{}
	err := c.Client.Get(ctx, types.NamespacedName{Namespace: ClusterLeaseNamespace, Name: cluster.Name}, lease)
	if client.IgnoreNotFound(err) != nil {
		return err
	}
	renewed := err == nil && lease.Spec.RenewTime != nil && (st.LastHeard == nil || lease.Spec.RenewTime.After(st.LastHeard.Time))
	if renewed {
		// A renewal says the agent runs and reaches us.
		if err := c.Tracker.ObserveLease(cluster.Name, lease.Spec.RenewTime.Time); err != nil {
			return err
		}
	}
	posted := meta.FindStatusCondition(cluster.Status.Conditions, clusterv1alpha1.ClusterConditionReady)
	changed := c.postedChanged(cluster.Name, posted)
	switch {
	case posted != nil && posted.Status != metav1.ConditionUnknown:
		// Unknown is only ever this controller's word; True and False are
		// the agent's (or this controller's own, which the tracker holds
		// already).
		if changed && !sameReady(posted, st.Ready) {
			return c.Tracker.ObserveStatus(cluster.Name, *posted)
		}
	case renewed:
		_, err := c.Tracker.ObserveProbe(cluster.Name, failover.ProbeResult{Reachable: true, Healthy: true, Message: "agent renewed its lease"})
		return err
	}
	return nil
}

// postedChanged reports whether a pull-mode cluster's posted Ready
// condition differs from the one seen at the last look, and remembers it.
// Only a change is news from the agent, as in Karmada's cluster
// controller: a condition left as it was is no sign of life.
func (c *ClusterHealthController) postedChanged(cluster string, posted *metav1.Condition) bool {
	c.postedMu.Lock()
	defer c.postedMu.Unlock()
	if c.posted == nil {
		c.posted = map[string]metav1.Condition{}
	}
	last, seen := c.posted[cluster]
	if posted == nil {
		delete(c.posted, cluster)
		return seen
	}
	c.posted[cluster] = *posted
	return !seen || !sameReady(&last, posted)
}

// sameReady reports whether two Ready conditions say the same thing.
func sameReady(a, b *metav1.Condition) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message && a.LastTransitionTime.Equal(&b.LastTransitionTime)
}

// writeReady puts the tracker's Ready condition on the cluster's status
// when it differs.
func (c *ClusterHealthController) writeReady(ctx context.Context, name string, ready *metav1.Condition) error {
	if ready == nil {
		return nil
	}
	var flipped *metav1.Condition
	cl := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
	err := patchStatus(ctx, c.Client, cl, func(client.Object) bool {
		flipped = nil
		prev := meta.FindStatusCondition(cl.Status.Conditions, clusterv1alpha1.ClusterConditionReady)
		if sameReady(prev, ready) {
			return false
		}
		if prev == nil || prev.Status != ready.Status {
			flipped = ready
		}
		// The tracker owns the transition time: it is the moment the
		// debounced condition flipped, not the moment we wrote it.
		meta.RemoveStatusCondition(&cl.Status.Conditions, clusterv1alpha1.ClusterConditionReady)
		cl.Status.Conditions = append(cl.Status.Conditions, *ready)
		return true
	})
	if err == nil && flipped != nil {
		eventType := corev1.EventTypeNormal
		if flipped.Status != metav1.ConditionTrue {
			eventType = corev1.EventTypeWarning
		}
		c.Events.event(cl, eventType, flipped.Reason, "Ready=%s: %s", flipped.Status, flipped.Message)
	}
	return err
}

// writeTaintsAndState applies failover's taint diff and persists the
// tracker state, in one optimistic write of the cluster. It returns when
// the taints change next without new input.
func (c *ClusterHealthController) writeTaintsAndState(ctx context.Context, name string, now time.Time) (time.Time, error) {
	var next time.Time
	var taintErr error
	var tainted []corev1.Taint
	taintsChanged := false
	state, _ := c.Tracker.Export(name)
	cl := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
	err := patchObject(ctx, c.Client, cl, func(client.Object) bool {
		changed := false
		tainted, taintsChanged = nil, false
		if !c.WithoutTaints {
			diff, err := failover.ComputeClusterTaints(c.Taints, cl.Status.Conditions, cl.Spec.Taints, now)
			// The rest of the diff is still valid (see ErrMissingTransitionTime).
			taintErr = err
			next = diff.NextCheck
			if diff.Changed {
				cl.Spec.Taints = diff.Result
				tainted, taintsChanged = diff.Result, true
				changed = true
			}
		}
		if setClusterHealthState(cl, persistedHealthState(cl.Annotations, state)) {
			changed = true
		}
		return changed
	})
	if err == nil && taintErr != nil {
		c.Events.event(cl, corev1.EventTypeWarning, "TaintComputation", "%v", taintErr)
	}
	if err != nil {
		c.Events.event(cl, corev1.EventTypeWarning, EventReasonTaintClusterFailed, "%v", err)
		return time.Time{}, fmt.Errorf("cluster %q taints: %w", name, err)
	}
	if taintsChanged {
		c.Events.event(cl, corev1.EventTypeNormal, EventReasonTaintClusterSucceed, "Taint cluster succeed: %s.", taintsMessage(tainted))
	}
	return next, nil
}

// persistedHealthState is the part of the tracker's state worth a write
// of the cluster. When the cluster was last heard is not, on its own: a
// cluster is heard at every probe or lease renewal, and writing each one
// would make every controller that watches clusters look again, every few
// seconds, for every cluster. The tracker never reads it for a push
// cluster (silence decides nothing for a cluster the control plane
// probes), so it is left out; a pull cluster's is written with the next
// change that matters, and between two, its Lease keeps the latest renewal
// (track reads it on a restart).
func persistedHealthState(annotations map[string]string, st failover.ClusterHealthState) failover.ClusterHealthState {
	if st.SyncMode != failover.ClusterSyncModePull {
		st.LastHeard = nil
		return st
	}
	prev, err := decodeClusterHealthState(annotations)
	if err != nil || prev == nil {
		return st
	}
	heard := st.LastHeard
	st.LastHeard = prev.LastHeard
	if !equality.Semantic.DeepEqual(*prev, st) {
		st.LastHeard = heard
	}
	return st
}

func earliest(a, b time.Time) time.Time {
	switch {
	case a.IsZero():
		return b
	case b.IsZero() || a.Before(b):
		return a
	default:
		return b
	}
}
