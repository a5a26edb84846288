package controllers

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/eviction"
)

// GracefulEvictionController judges the graceful eviction tasks of each
// binding of its Kind with eviction.Assess: it stamps new tasks, drops those
// whose old copy may go (replacement healthy, grace period over, deletion
// allowed) and keeps the last copy of a workload that has nowhere else to
// run. The next look is the assessment's NextAssessment, as the result's
// RequeueAfter.
type GracefulEvictionController struct {
	Client client.Client
	Clock  clock.PassiveClock
	// Kind is the binding kind it reconciles.
	Kind BindingKind
	// Options tune the assessment (global timeout, Karmada-compatible
	// switches).
	Options eviction.AssessOptions
	// Schedule records when each object is due for its next look.
	Schedule *Schedule
	Events   *EventSink
}

// SetupWithManager registers the controller.
func (g *GracefulEvictionController) SetupWithManager(mgr manager.Manager, name string) error {
	return setupController(mgr, name, g.Kind.NewObject(), g.Clock, g)
}

// aggregatedHealth answers eviction's health question from the binding's
// aggregated status.
func aggregatedHealth(status *workv1alpha2.ResourceBindingStatus) eviction.HealthLookup {
	return eviction.HealthLookupFunc(func(cluster string) eviction.WorkloadHealth {
		for i := range status.AggregatedStatus {
			item := &status.AggregatedStatus[i]
			if item.ClusterName == cluster {
				switch h := eviction.WorkloadHealth(item.Health); h {
				case eviction.WorkloadHealthy, eviction.WorkloadUnhealthy:
					return h
				}
				return eviction.WorkloadHealthUnknown
			}
		}
		return eviction.WorkloadHealthUnknown
	})
}

// Reconcile assesses one binding's tasks.
func (g *GracefulEvictionController) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var assessment eviction.Assessment
	now := g.Clock.Now()
	rb := g.Kind.NewObject()
	rb.SetNamespace(req.Namespace)
	rb.SetName(req.Name)
	err := patchObject(ctx, g.Client, rb, func(client.Object) bool {
		assessment = eviction.Assessment{}
		spec := bindingSpec(rb)
		if len(spec.GracefulEvictionTasks) == 0 || !rb.GetDeletionTimestamp().IsZero() {
			return false
		}
		assessment = eviction.Assess(eviction.AssessInput{
			Tasks:   toTasks(spec.GracefulEvictionTasks),
			Targets: toTargets(spec.Clusters),
			// Tasks and targets live in spec, so every change to them
			// bumps the generation the scheduler must have observed.
			SchedulerObservedLatest: bindingStatus(rb).SchedulerObservedGeneration == rb.GetGeneration(),
			Health:                  aggregatedHealth(bindingStatus(rb)),
			Now:                     now,
		}, g.Options)
		if !assessment.Changed() {
			return false
		}
		spec.GracefulEvictionTasks = fromTasks(assessment.Kept)
		return true
	})
	if err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	for _, r := range assessment.Removed {
		g.Events.event(rb, corev1.EventTypeNormal, string(r.Reason), "eviction task for cluster %s removed: %s", r.Task.FromCluster, r.Reason)
	}
	return g.Schedule.Result(req.NamespacedName, now, assessment.NextAssessment), nil
}
