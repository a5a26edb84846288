package controllers

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover/health"

	workv1alpha2 "github.com/fleetover/fleetover/examples/karmada/apis/work/v1alpha2"
)

// GracefulEvictionController judges the graceful eviction tasks of each
// binding with eviction.Assess: it stamps new tasks, drops those whose old
// copy may go (replacement healthy, grace period over, deletion allowed)
// and keeps the last copy of a workload that has nowhere else to run. The
// next look is the assessment's NextAssessment, in its Rechecker.
type GracefulEvictionController struct {
	Client client.Client
	Clock  clock.PassiveClock
	// Options tune the assessment (global timeout, Karmada-compatible
	// switches).
	Options eviction.AssessOptions
	Recheck *Rechecker
	Events  *EventSink
}

// SetupWithManager registers the controller and its Rechecker.
func (g *GracefulEvictionController) SetupWithManager(mgr manager.Manager, name string) error {
	return setupWithRechecker(mgr, name, &workv1alpha2.ResourceBinding{}, g.Recheck, g)
}

// aggregatedHealth answers eviction's health question from the binding's
// aggregated status.
func aggregatedHealth(rb *workv1alpha2.ResourceBinding) eviction.HealthLookup {
	return eviction.HealthLookupFunc(func(cluster string) health.Status {
		for i := range rb.Status.AggregatedStatus {
			item := &rb.Status.AggregatedStatus[i]
			if item.ClusterName == cluster {
				switch health.Status(item.Health) {
				case health.Healthy, health.Unhealthy:
					return health.Status(item.Health)
				}
				return health.Unknown
			}
		}
		return health.Unknown
	})
}

// Reconcile assesses one binding's tasks.
func (g *GracefulEvictionController) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var assessment eviction.Assessment
	now := g.Clock.Now()
	err := updateBinding(ctx, g.Client, req.NamespacedName, func(rb *workv1alpha2.ResourceBinding) bool {
		if len(rb.Spec.GracefulEvictionTasks) == 0 || !rb.DeletionTimestamp.IsZero() {
			assessment = eviction.Assessment{}
			return false
		}
		targets := make([]eviction.TargetCluster, len(rb.Spec.Clusters))
		for i, tc := range rb.Spec.Clusters {
			targets[i] = eviction.TargetCluster{Name: tc.Name, Replicas: tc.Replicas}
		}
		assessment = eviction.Assess(eviction.AssessInput{
			Tasks:   rb.Spec.GracefulEvictionTasks,
			Targets: targets,
			// Tasks and targets live in spec, so every change to them
			// bumps the generation the scheduler must have observed.
			SchedulerBehind: rb.Status.SchedulerObservedGeneration != rb.Generation,
			Health:          aggregatedHealth(rb),
			Now:             now,
		}, g.Options)
		if !assessment.Changed() {
			return false
		}
		rb.Spec.GracefulEvictionTasks = assessment.Kept
		if len(rb.Spec.GracefulEvictionTasks) == 0 {
			rb.Spec.GracefulEvictionTasks = nil
		}
		return true
	})
	if err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	for _, r := range assessment.Removed {
		rb := &workv1alpha2.ResourceBinding{}
		rb.Namespace, rb.Name = req.Namespace, req.Name
		g.Events.event(rb, corev1.EventTypeNormal, string(r.Reason), "eviction task for cluster %s removed: %s", r.Task.FromCluster, r.Reason)
	}
	g.Recheck.Replace(req.NamespacedName, assessment.NextAssessment)
	return reconcile.Result{}, nil
}
