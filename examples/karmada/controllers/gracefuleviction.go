package controllers

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	workv1alpha1 "github.com/karmada-io/api/work/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover/health"
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
	// Queue tunes this controller's work queue and workers.
	Queue QueueOptions
	// Kind is the binding kind it reconciles.
	Kind BindingKind
	// Options tune the assessment (global timeout, Karmada-compatible
	// switches).
	Options eviction.AssessOptions
	// Schedule records when each object is due for its next look.
	Schedule *Schedule
	Events   *EventSink
	// InlineScheduling reports the failover scheduler's observation of the
	// generation a task removal makes (status.schedulerObservedGeneration)
	// in this controller's own status write, when the binding has no lost
	// cluster left to place: the scheduler would only report it. Set it
	// only where this process's FailoverScheduler is the scheduler (Setup
	// does, when failoverScheduler is enabled).
	InlineScheduling bool
	// Conditions, with InlineScheduling, keeps the binding's Failover
	// condition in the status write that follows a task's removal.
	Conditions *FailoverConditions
}

// SetupWithManager registers the controller.
func (g *GracefulEvictionController) SetupWithManager(mgr manager.Manager, name string) error {
	// A Directly task waits for its old Work to be gone: its deletion
	// is an event for the binding.
	return builder.ControllerManagedBy(mgr).
		Named(name).
		For(g.Kind.NewObject()).
		Watches(&workv1alpha1.Work{}, handler.EnqueueRequestsFromMapFunc(bindingOfWork(g.Kind))).
		WithOptions(controllerOptions(g.Clock, g.Queue)).
		Complete(g)
}

// aggregatedHealth answers eviction's health question from the binding's
// aggregated status.
func aggregatedHealth(status *workv1alpha2.ResourceBindingStatus) eviction.HealthLookup {
	return eviction.HealthLookupFunc(func(cluster string) health.Status {
		for i := range status.AggregatedStatus {
			item := &status.AggregatedStatus[i]
			if item.ClusterName == cluster {
				switch h := health.Status(item.Health); h {
				case health.Healthy, health.Unhealthy:
					return h
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
	rb := g.Kind.NewObject()
	rb.SetNamespace(req.Namespace)
	rb.SetName(req.Name)
	if err := g.Client.Get(ctx, req.NamespacedName, rb); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	works, err := bindingWorks(ctx, g.Client, rb)
	if err != nil {
		return reconcile.Result{}, err
	}
	old := oldCopies(ctx, g.Client, works, toTasks(bindingSpec(rb).GracefulEvictionTasks))
	wrote := false
	err = patchObject(ctx, g.Client, rb, func(client.Object) bool {
		assessment, wrote = eviction.Assessment{}, false
		spec := bindingSpec(rb)
		if len(spec.GracefulEvictionTasks) == 0 || !rb.GetDeletionTimestamp().IsZero() {
			return false
		}
		assessment = eviction.Assess(eviction.AssessInput{
			Tasks:   toTasks(spec.GracefulEvictionTasks),
			Targets: toTargets(spec.Clusters),
			// Tasks and targets live in spec, so every change to them
			// bumps the generation the scheduler must have observed.
			SchedulerBehind: bindingStatus(rb).SchedulerObservedGeneration != rb.GetGeneration(),
			Health:          aggregatedHealth(bindingStatus(rb)),
			OldCopies:       old,
			Now:             now,
		}, g.Options)
		if !assessment.Changed() {
			return false
		}
		spec.GracefulEvictionTasks = fromTasks(assessment.Kept)
		wrote = true
		return true
	})
	if err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if wrote && g.InlineScheduling {
		// rb is what the spec patch returned.
		var status statusUpdate
		recordSchedulerObservation(&status)
		var condition conditionUpdate
		if g.Conditions != nil {
			clusters := &clusterv1alpha1.ClusterList{}
			if err := g.Client.List(ctx, clusters); err != nil {
				return reconcile.Result{}, err
			}
			g.Conditions.addTo(ctx, &status, clusters.Items, works, now, &condition)
		}
		if err := status.apply(ctx, g.Client, rb); err != nil {
			return reconcile.Result{}, client.IgnoreNotFound(err)
		}
		condition.record(g.Events, rb)
	}
	for _, r := range assessment.Removed {
		g.Events.event(rb, corev1.EventTypeNormal, string(r.Reason), "eviction task for cluster %s removed: %s", r.Task.FromCluster, r.Reason)
	}
	return g.Schedule.Result(req.NamespacedName, now, assessment.NextAssessment), nil
}
