package controllers

import (
	"context"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/utils/clock"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
)

// PlacementFailoverController moves a workload off the clusters whose
// taints its Placement no longer tolerates, and re-places it. Per decided
// cluster it asks failover's ClusterFailoverPlanner (the toleration math:
// tolerationSeconds counted from the taint's timeAdded) whether the
// workload leaves now or when to look again; each eviction is drawn from
// the fleet-wide eviction.Pacer (nothing is evicted while the whole fleet
// is unhealthy) and applied with eviction.Evict, carrying the state the
// policy preserves. A cluster that an eviction took away is then replaced
// with scheduling.Replace, and the PlacementDecision rewritten.
type PlacementFailoverController struct {
	Client client.Client
	Clock  clock.PassiveClock
	// Planner holds the global purge mode and grace period.
	Planner failover.ClusterFailoverPlanner
	// Taints are the health taint keys (for the pacer's view of the fleet
	// and the dispatch gate).
	Taints failover.ClusterTaintConfig
	// Pacer paces evictions across the fleet; its clock must be Clock.
	Pacer eviction.Pacer
	// Health reads the workload's state from its ManifestWork.
	Health  *workHealth
	Recheck *Rechecker
	Events  *EventSink
}

// SetupWithManager registers the controller: it looks at a replica set when
// it, its decision, the status of one of its works or any cluster changes,
// and when a countdown ends.
func (p *PlacementFailoverController) SetupWithManager(mgr manager.Manager, name string) error {
	if err := mgr.Add(p.Recheck); err != nil {
		return err
	}
	c := mgr.GetClient()
	return builder.ControllerManagedBy(mgr).
		Named(name).
		For(&workv1alpha1.ManifestWorkReplicaSet{}).
		Watches(&clusterv1beta1.PlacementDecision{}, handler.EnqueueRequestsFromMapFunc(bindingsOfDecision(c))).
		Watches(&clusterv1.ManagedCluster{}, handler.EnqueueRequestsFromMapFunc(allBindings(c))).
		// The state an eviction carries is read from a work's status: an
		// eviction that waits for it goes ahead when the agent reports it.
		Watches(&workv1.ManifestWork{}, handler.EnqueueRequestsFromMapFunc(bindingOfWork), builder.WithPredicates(workStatusChanged())).
		WatchesRawSource(p.Recheck.Source()).
		Complete(p)
}

// workStatusChanged passes the updates of a ManifestWork that change its
// status, the only part of a work this controller reads; the distributor's
// writes of the spec and the finalizers' comings and goings are no news to
// it. Creations and deletions pass: they are rare.
func workStatusChanged() predicate.Funcs {
	return predicate.Funcs{
		UpdateFunc: func(e event.UpdateEvent) bool {
			old, ok := e.ObjectOld.(*workv1.ManifestWork)
			cur, ok2 := e.ObjectNew.(*workv1.ManifestWork)
			return !ok || !ok2 || !equality.Semantic.DeepEqual(old.Status, cur.Status)
		},
	}
}

// Reconcile plans one workload.
func (p *PlacementFailoverController) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	b, err := loadOrForget(ctx, p.Client, p.Recheck, req.NamespacedName)
	if err != nil || b == nil {
		return reconcile.Result{}, err
	}
	fleet, byName, err := listFleet(ctx, p.Client)
	if err != nil {
		return reconcile.Result{}, err
	}
	for _, st := range observeFleet(p.Pacer, p.Taints, fleet) {
		if st.Changed {
			p.Events.event(b.Set, corev1.EventTypeWarning, string(st.Mode), "eviction pacing: %s", st.Message)
		}
	}
	predicates, err := b.predicates()
	if err != nil {
		p.Events.event(b.Set, corev1.EventTypeWarning, "InvalidPlacement", "%v", err)
		return reconcile.Result{}, nil
	}
	tolerations := placementTolerations(b.Placement.Spec.Tolerations)
	key := req.String()
	now := p.Clock.Now()

	var next time.Time
	var evicted []eviction.Eviction
	var reason string
	// The clusters whose eviction the pacer admitted: a write retried
	// after a conflict runs the closure again, and must not take a second
	// token for the same eviction.
	admitted := map[string]bool{}
	err = writeDecision(ctx, p.Client, b.decisionKey(), func(pd *clusterv1beta1.PlacementDecision, st *FailoverState) ([]string, bool, error) {
		next, evicted, reason = time.Time{}, nil, ""
		_, next = gcHistory(st, b.Policy, now)
		targets := liveTargets(decidedClusters(pd), *st)
		changed := len(targets) != len(decidedClusters(pd))
		for _, cluster := range slices.Clone(targets) {
			mc, ok := byName[cluster]
			if !ok {
				continue
			}
			ev, at := tolerationEviction(p.Planner, key, cluster, mc.Spec.Taints, tolerations, b.Policy, now)
			next = earliest(next, at)
			if ev == nil {
				continue
			}
			ev.Settled = settledOn(st, p.Health, b.Works[cluster])
			// The state is read before the pacer is asked: an eviction
			// that waits for its state must not spend a token, which
			// another workload's eviction could have used.
			if sp := statePreservation(b.Policy, *ev); sp != nil {
				state, err := p.Health.state(sp, b.Works[cluster])
				if err != nil {
					// No look is scheduled: only a new status report of
					// the work can make the state readable, and that
					// report wakes the controller.
					p.Events.event(b.Set, corev1.EventTypeWarning, "StatePreservationFailed", "eviction from %s waits: %v", cluster, err)
					continue
				}
				ev.PreservedLabelState = state
			}
			if !admitted[cluster] && !p.Pacer.TryAccept("") {
				// Out of budget, or stopped in a full disruption: look
				// again when a token is due; a stopped pacer is woken by
				// the next change of a cluster's taints.
				if at, ok := p.Pacer.When(""); ok {
					next = earliest(next, at)
				}
				break
			}
			admitted[cluster] = true
			nt, ok, err := evict(targets, st, *ev)
			if err != nil {
				p.Events.event(b.Set, corev1.EventTypeWarning, "EvictionRejected", "%v", err)
				continue
			}
			if ok {
				targets, changed = nt, true
				evicted = append(evicted, *ev)
			}
		}
		if lost := eviction.Unreplaced(targets, st.Tasks); len(lost) > 0 {
			r, err := replace(key, targets, lost, fleet, tolerations, predicates, st, b.Policy, now)
			if err != nil {
				return nil, false, err
			}
			next = earliest(next, r.RetryAt)
			if r.Changed {
				targets, changed = r.Targets, true
			} else {
				reason = r.Reason
			}
		}
		return targets, changed, nil
	})
	if err != nil {
		return reconcile.Result{}, ignoreNotFound(err)
	}
	for _, ev := range evicted {
		p.Events.event(b.Set, corev1.EventTypeWarning, ev.Reason, "evicted from cluster %s: %s", ev.Cluster, ev.Message)
	}
	if reason != "" {
		p.Events.event(b.Set, corev1.EventTypeWarning, reason, "no replacement cluster yet")
	}
	p.Recheck.Replace(req.NamespacedName, next)
	return reconcile.Result{}, nil
}

// settledOn reports whether the workload's copy on the work's cluster
// became healthy at least once, as far as the hub knows: the application
// failover detector's record says so, or the work reports it Healthy now.
// Evict then lets the state read from that copy replace the state it was
// started from; a copy that never settled keeps the older state.
func settledOn(st *FailoverState, wh *workHealth, mw *workv1.ManifestWork) bool {
	if mw == nil {
		return false
	}
	for _, r := range st.ApplicationHealth {
		if r.ClusterName == mw.Namespace && r.Settled {
			return true
		}
	}
	s, _ := wh.status(mw)
	return s == health.Healthy
}
