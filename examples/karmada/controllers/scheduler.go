package controllers

import (
	"context"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/scheduling"

	clusterv1alpha1 "github.com/fleetover/fleetover/examples/karmada/apis/cluster/v1alpha1"
	workv1alpha2 "github.com/fleetover/fleetover/examples/karmada/apis/work/v1alpha2"
)

// FailoverScheduler is the scheduler's failover half, enough to close the
// loop in this example: when an eviction left a binding with fewer clusters
// than it had (a task's ClustersBeforeFailover), it asks
// scheduling.Replace for the new placement (filters: taints, evictions in
// progress, eviction history within BlockPredecessorSeconds, suspension).
// It also expires the eviction history (eviction.EvictionHistory.GC) and
// reports the generation it observed. Initial placement is not its job.
type FailoverScheduler struct {
	Client client.Client
	Clock  clock.PassiveClock
	// DefaultTolerations are added to each binding's tolerations, as the
	// taint manager does.
	DefaultTolerations failover.DefaultTolerationsConfig
	Recheck            *Rechecker
	Events             *EventSink
}

// SetupWithManager registers the scheduler and its Rechecker.
func (s *FailoverScheduler) SetupWithManager(mgr manager.Manager, name string) error {
	return setupWithRechecker(mgr, name, &workv1alpha2.ResourceBinding{}, s.Recheck, s)
}

func blockSeconds(rb *workv1alpha2.ResourceBinding) *int32 {
	if rb.Spec.Failover != nil && rb.Spec.Failover.Application != nil {
		return rb.Spec.Failover.Application.BlockPredecessorSeconds
	}
	return nil
}

// Reconcile re-places one binding when it lost clusters.
func (s *FailoverScheduler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	now := s.Clock.Now()
	clusters := &clusterv1alpha1.ClusterList{}
	if err := s.Client.List(ctx, clusters); err != nil {
		return reconcile.Result{}, err
	}
	fleet := make([]scheduling.Cluster, len(clusters.Items))
	for i := range clusters.Items {
		cl := &clusters.Items[i]
		fleet[i] = scheduling.Cluster{Name: cl.Name, Taints: cl.Spec.Taints, Labels: cl.Labels}
	}

	var next time.Time
	var plan scheduling.Plan
	err := updateBinding(ctx, s.Client, req.NamespacedName, func(rb *workv1alpha2.ResourceBinding) bool {
		next, plan = time.Time{}, scheduling.Plan{}
		if !rb.DeletionTimestamp.IsZero() {
			return false
		}
		removed, expiry := rb.Spec.ActiveEvictionHistory.GC(blockSeconds(rb), now)
		changed := removed > 0
		if len(rb.Spec.ActiveEvictionHistory) == 0 {
			rb.Spec.ActiveEvictionHistory = nil
		}
		next = expiry
		failed := s.lostClusters(rb)
		if len(failed) == 0 {
			return changed
		}
		var tolerations []corev1.Toleration
		req := &scheduling.Request{
			Type:     scheduling.Duplicated,
			Replicas: rb.Spec.Replicas,
			Clusters: fleet,
		}
		if p := rb.Spec.Placement; p != nil {
			tolerations = p.ClusterTolerations
			if p.ReplicaScheduling != nil && p.ReplicaScheduling.ReplicaSchedulingType == string(scheduling.Divided) {
				req.Type = scheduling.Divided
			}
			if p.ClusterAffinity != nil && len(p.ClusterAffinity.ClusterNames) > 0 {
				req.Filters = append(scheduling.DefaultFilters(), scheduling.ClusterNames(p.ClusterAffinity.ClusterNames...))
			}
			for _, sc := range p.SpreadConstraints {
				if sc.SpreadByField == "cluster" {
					req.Spread = &scheduling.SpreadConstraint{MinGroups: int32(sc.MinGroups), MaxGroups: int32(sc.MaxGroups)}
				}
			}
		}
		req.Workload = &scheduling.Workload{
			Name:                    client.ObjectKeyFromObject(rb).String(),
			Tolerations:             failover.AddDefaultClusterTolerations(tolerations, s.DefaultTolerations),
			EvictionTasks:           rb.Spec.GracefulEvictionTasks,
			History:                 rb.Spec.ActiveEvictionHistory,
			BlockPredecessorSeconds: blockSeconds(rb),
			Suspension:              rb.Spec.Suspension,
			Now:                     now,
		}
		for _, tc := range rb.Spec.Clusters {
			req.Targets = append(req.Targets, eviction.TargetCluster{Name: tc.Name, Replicas: tc.Replicas})
		}
		// The taint manager and the application-failover controller ran
		// eviction.Evict in their own reconciles; what they took out of
		// the placement is what their tasks recorded.
		for _, name := range failed {
			replicas := rb.Spec.Replicas
			for i := range rb.Spec.GracefulEvictionTasks {
				if t := &rb.Spec.GracefulEvictionTasks[i]; t.FromCluster == name && t.Replicas != nil {
					replicas = *t.Replicas
				}
			}
			req.Evicted = append(req.Evicted, eviction.TargetCluster{Name: name, Replicas: replicas})
		}
		p, err := scheduling.Replace(req)
		if err != nil {
			s.Events.event(rb, corev1.EventTypeWarning, "SchedulingFailed", "%v", err)
			return changed
		}
		plan = p
		next = earliest(next, p.Filtered.RetryAt)
		if !p.Changed {
			return changed
		}
		rb.Spec.Clusters = rb.Spec.Clusters[:0]
		for _, tc := range p.Targets {
			if slices.Contains(failed, tc.Name) {
				continue // a failed cluster kept only because its failover is paused
			}
			rb.Spec.Clusters = append(rb.Spec.Clusters, workv1alpha2.TargetCluster{Name: tc.Name, Replicas: tc.Replicas})
		}
		return true
	})
	if err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if !plan.Changed && plan.Reason != "" {
		rb := &workv1alpha2.ResourceBinding{}
		rb.Namespace, rb.Name = req.Namespace, req.Name
		s.Events.event(rb, corev1.EventTypeWarning, plan.Reason, "no new placement yet")
	}
	if err := updateBindingStatus(ctx, s.Client, req.NamespacedName, func(rb *workv1alpha2.ResourceBinding) bool {
		if rb.Status.SchedulerObservedGeneration == rb.Generation {
			return false
		}
		rb.Status.SchedulerObservedGeneration = rb.Generation
		return true
	}); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	s.Recheck.Replace(req.NamespacedName, next)
	return reconcile.Result{}, nil
}

// lostClusters lists the clusters an eviction took away and nothing has
// replaced yet: the binding has fewer targets than a task's
// ClustersBeforeFailover, and the task's cluster is no target.
func (s *FailoverScheduler) lostClusters(rb *workv1alpha2.ResourceBinding) []string {
	var out []string
	missing := 0
	for i := range rb.Spec.GracefulEvictionTasks {
		missing = max(missing, len(rb.Spec.GracefulEvictionTasks[i].ClustersBeforeFailover)-len(rb.Spec.Clusters))
	}
	for i := len(rb.Spec.GracefulEvictionTasks) - 1; i >= 0 && len(out) < missing; i-- {
		name := rb.Spec.GracefulEvictionTasks[i].FromCluster
		if !slices.ContainsFunc(rb.Spec.Clusters, func(tc workv1alpha2.TargetCluster) bool { return tc.Name == name }) {
			out = append(out, name)
		}
	}
	return out
}
