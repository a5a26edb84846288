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
	"github.com/fleetover/fleetover/failover/health"
)

// GracefulEvictionController judges the graceful eviction tasks of each
// workload with eviction.Assess. The old ManifestWork of a Gracefully
// evicted cluster is kept (the WorkDistributor keeps a work for every
// task's cluster) until the new ManifestWorks report the workload healthy,
// or the grace period ends; then the task goes and with it the old work.
// The last copy of a workload that has nowhere else to run is kept.
//
// A Directly task's old work is deleted at once (the WorkDistributor, by
// eviction.DeleteOldCopy); the task itself, which carries the preserved
// state and holds the new copy's dispatch, stays until that work is gone
// and the new copy reports healthy (or its grace period passed), so the
// state is never lost on the way.
type GracefulEvictionController struct {
	Client client.Client
	Clock  clock.PassiveClock
	// Taints are the health taint keys.
	Taints failover.ClusterTaintConfig
	// Options tune the assessment.
	Options eviction.AssessOptions
	Health  *workHealth
	Recheck *Rechecker
	Events  *EventSink
}

// SetupWithManager registers the controller and its Rechecker.
func (g *GracefulEvictionController) SetupWithManager(mgr manager.Manager, name string) error {
	return setupWorkloadController(mgr, name, g.Recheck, g)
}

// Reconcile assesses one workload's tasks.
func (g *GracefulEvictionController) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	b, err := loadOrForget(ctx, g.Client, g.Recheck, req.NamespacedName)
	if err != nil || b == nil {
		return reconcile.Result{}, err
	}
	now := g.Clock.Now()
	healthOf := func(cluster string) health.Status {
		s, _ := g.Health.status(b.Works[cluster])
		return s
	}
	old := b.oldCopies(ctx, g.Client, g.Taints)
	var next time.Time
	var removed []removedTask
	err = writeDecision(ctx, g.Client, b.decisionKey(), func(pd *clusterv1beta1.PlacementDecision, st *FailoverState) ([]string, bool, error) {
		next, removed = time.Time{}, nil
		if len(st.Tasks) == 0 {
			return nil, false, nil
		}
		targets := liveTargets(decidedClusters(pd), *st)
		placed := len(eviction.Unreplaced(targets, st.Tasks)) == 0
		a := assess(st.Tasks, targets, placed, healthOf, old, now, g.Options)
		next = a.Next
		if !a.Changed {
			return nil, false, nil
		}
		removed = a.Removed
		st.Tasks = a.Kept
		if len(st.Tasks) == 0 {
			st.Tasks = nil
		}
		return nil, false, nil
	})
	if err != nil {
		return reconcile.Result{}, ignoreNotFound(err)
	}
	for _, r := range removed {
		g.Events.event(b.Set, corev1.EventTypeNormal, r.Reason, "eviction task for cluster %s removed", r.Task.FromCluster)
	}
	g.Recheck.Replace(req.NamespacedName, next)
	return reconcile.Result{}, nil
}
