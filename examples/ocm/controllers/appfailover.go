package controllers

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/clock"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
)

// ApplicationFailoverController moves a workload off a cluster where it
// stays unhealthy. The health comes from each cluster's ManifestWork status
// feedback, read by the library's health interpreters; the decision from
// failover's detector (preconditions, toleration countdown, Unknown
// handling). Each eviction is applied with eviction.Evict, carrying the
// state the policy preserves, recorded in the eviction history (the
// re-placement keeps the workload away for BlockPredecessorSeconds) and
// followed by a re-placement. The detector's records live in the failover
// state on the PlacementDecision: a restart neither restarts nor skips a
// countdown.
type ApplicationFailoverController struct {
	Client client.Client
	Clock  clock.PassiveClock
	// Detector configures the detector.
	Detector failover.DetectorConfig
	Health   *workHealth
	Recheck  *Rechecker
	Events   *EventSink
}

// SetupWithManager registers the controller and its Rechecker.
func (a *ApplicationFailoverController) SetupWithManager(mgr manager.Manager, name string) error {
	return setupWorkloadController(mgr, name, a.Recheck, a)
}

// Reconcile decides for one workload.
func (a *ApplicationFailoverController) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	b, err := loadOrForget(ctx, a.Client, a.Recheck, req.NamespacedName)
	if err != nil || b == nil {
		return reconcile.Result{}, err
	}
	if b.Policy == nil || b.Policy.Application == nil {
		a.Recheck.Cancel(req.NamespacedName)
		return reconcile.Result{}, nil
	}
	fleet, _, err := listFleet(ctx, a.Client)
	if err != nil {
		return reconcile.Result{}, err
	}
	predicates, err := b.predicates()
	if err != nil {
		a.Events.event(b.Set, corev1.EventTypeWarning, "InvalidPlacement", "%v", err)
		return reconcile.Result{}, nil
	}
	tolerations := placementTolerations(b.Placement.Spec.Tolerations)
	policy := b.Policy.Application
	now := a.Clock.Now()

	var next time.Time
	var evicted []applicationEviction
	err = writeDecision(ctx, a.Client, b.decisionKey(), func(pd *clusterv1beta1.PlacementDecision, st *FailoverState) ([]string, bool, error) {
		next, evicted = time.Time{}, nil
		targets := liveTargets(decidedClusters(pd), *st)
		changed := len(targets) != len(decidedClusters(pd))
		observed := make([]workloadHealth, 0, len(targets))
		for _, cluster := range targets {
			w := workloadHealth{Cluster: cluster}
			w.Status, w.Reason = a.Health.status(b.Works[cluster])
			if mw := b.Works[cluster]; mw != nil {
				w.Since = mw.CreationTimestamp
			}
			observed = append(observed, w)
		}
		det, err := detectFailure(policy, targets, observed, st.ApplicationHealth, now, a.Detector)
		if err != nil {
			a.Events.event(b.Set, corev1.EventTypeWarning, "InvalidFailoverPolicy", "%v", err)
			return nil, false, nil
		}
		next = det.Next
		records := det.Records
		for _, e := range det.Evictions {
			var state map[string]string
			if policy.StatePreservation != nil {
				s, err := a.Health.state(policy.StatePreservation, b.Works[e.Cluster])
				if err != nil {
					// The eviction waits; the detector keeps its record (the
					// countdown ran out, so the next look proposes it again).
					// That look comes with the work's next status report,
					// the only thing that can make the state readable: a
					// timed retry would read the same status again.
					a.Events.event(b.Set, corev1.EventTypeWarning, "StatePreservationFailed", "eviction from %s waits: %v", e.Cluster, err)
					continue
				}
				state = s
			}
			nt, ok, err := evict(targets, st, e.Make(state))
			if err != nil {
				a.Events.event(b.Set, corev1.EventTypeWarning, "EvictionRejected", "%v", err)
				continue
			}
			if ok {
				recordEviction(st, e.Cluster, now)
				targets, changed = nt, true
				evicted = append(evicted, e)
			}
		}
		st.ApplicationHealth = records
		if lost := eviction.Unreplaced(targets, st.Tasks); len(lost) > 0 && len(evicted) > 0 {
			r, err := replace(req.String(), targets, lost, fleet, tolerations, predicates, st, b.Policy, now)
			if err != nil {
				return nil, false, err
			}
			if r.Changed {
				targets = r.Targets
			}
		}
		return targets, changed, nil
	})
	if err != nil {
		return reconcile.Result{}, ignoreNotFound(err)
	}
	for _, e := range evicted {
		a.Events.event(b.Set, corev1.EventTypeWarning, "ApplicationFailure", "evicted from cluster %s: %s", e.Cluster, e.Message)
	}
	a.Recheck.Replace(req.NamespacedName, next)
	return reconcile.Result{}, nil
}
