package controllers

import (
	"context"
	"slices"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	workv1alpha1 "github.com/karmada-io/api/work/v1alpha1"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/fencing"
)

// oldCopies answers eviction's "what of the copy on this cluster" from the
// binding's Works, the only record of a copy the control plane has: the
// copy is gone once its cluster's Work no longer exists, and it cannot be
// confirmed gone while the control plane cannot reach the cluster. The
// dispatcher's gate and the graceful eviction controller's assessment
// read the same view, so a Directly task stays on the binding, carrying
// the preserved state, until the old Work is gone.
//
// A Pull-mode cluster whose agent declares a fence
// (fencing.FenceAfterAnnotation on its Cluster) is one that stops its
// single-writer copies itself: the lookup passes on its fence and the
// renewTime of its lease, so the dispatch gate gives up on it only once
// the fence is surely over (eviction.DispatchBlocked).
func oldCopies(ctx context.Context, c client.Reader, works []workv1alpha1.Work, tasks []eviction.GracefulEvictionTask) eviction.OldCopyLookup {
	base := oldCopiesOf(works, tasks, func(cluster string) bool { return unreachable(ctx, c, cluster) })
	return eviction.OldCopyLookupFunc(func(cluster string) eviction.OldCopy {
		old := base.OldCopy(cluster)
		if !old.Gone && old.Unreachable {
			old.FenceAfter, old.LastHeard = memberFence(ctx, c, cluster)
		}
		return old
	})
}

// memberFence is the fence a Pull-mode cluster's agent declares and when
// it last renewed its lease; zero for a Push cluster (nothing there can
// fence), a cluster that declares none or an invalid one, and a cluster
// that cannot be read.
func memberFence(ctx context.Context, c client.Reader, cluster string) (time.Duration, time.Time) {
	cl := &clusterv1alpha1.Cluster{}
	if err := c.Get(ctx, types.NamespacedName{Name: cluster}, cl); err != nil || cl.Spec.SyncMode != clusterv1alpha1.Pull {
		return 0, time.Time{}
	}
	fenceAfter, err := fencing.Declared(cl.Annotations)
	if err != nil || fenceAfter == 0 {
		return 0, time.Time{}
	}
	lease := &coordinationv1.Lease{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: ClusterLeaseNamespace, Name: cluster}, lease); err != nil || lease.Spec.RenewTime == nil {
		return fenceAfter, time.Time{}
	}
	return fenceAfter, lease.Spec.RenewTime.Time
}

// oldCopiesOf is the view of oldCopies with unreachable answering whether
// a cluster's deletions cannot be confirmed.
//
// A terminating Work's deletion counts (eviction.OldCopy.DeletingSince,
// where the escape for an unreachable cluster starts) from the stamp of
// the task that evicted the workload from its cluster: a time on the
// controllers' own clock, persisted on the binding, so a restart neither
// resets nor skips the countdown. The Work's deletionTimestamp is written
// by the API server's clock, which the controllers' clock need not share
// (a skewed host, or a fake clock in tests), and a countdown must not mix
// the two. It is used only for a Work no task names.
func oldCopiesOf(works []workv1alpha1.Work, tasks []eviction.GracefulEvictionTask, unreachable func(cluster string) bool) eviction.OldCopyLookup {
	return eviction.OldCopyLookupFunc(func(cluster string) eviction.OldCopy {
		i := slices.IndexFunc(works, func(w workv1alpha1.Work) bool { return w.Namespace == ExecutionNamespace(cluster) })
		if i < 0 {
			return eviction.OldCopy{Gone: true}
		}
		var old eviction.OldCopy
		if ts := works[i].DeletionTimestamp; ts != nil {
			old.DeletingSince = ts.Time
			if j := slices.IndexFunc(tasks, func(t eviction.GracefulEvictionTask) bool { return t.FromCluster == cluster }); j >= 0 {
				// Unstamped yet: the countdown has not started.
				old.DeletingSince = time.Time{}
				if stamp := tasks[j].CreationTimestamp; stamp != nil {
					old.DeletingSince = stamp.Time
				}
			}
		}
		old.Unreachable = unreachable(cluster)
		return old
	})
}

// bindingOldCopies is oldCopies over rb's Works, listed on the first
// question: a re-placement asks only about an evicted cluster whose
// dispatching is suspended (scheduling.Workload.OldCopies), which most
// never have. Works that cannot be listed leave every copy taken to run
// on, which keeps such a cluster held: the side that changes nothing.
func bindingOldCopies(ctx context.Context, c client.Reader, rb client.Object) eviction.OldCopyLookup {
	var known eviction.OldCopyLookup
	return eviction.OldCopyLookupFunc(func(cluster string) eviction.OldCopy {
		if known == nil {
			works, err := bindingWorks(ctx, c, rb)
			if err != nil {
				return eviction.OldCopy{}
			}
			known = oldCopies(ctx, c, works, toTasks(bindingSpec(rb).GracefulEvictionTasks))
		}
		return known.OldCopy(cluster)
	})
}

// bindingWorks lists the Works of a binding, by the permanent-id label
// Karmada puts on them.
func bindingWorks(ctx context.Context, c client.Reader, rb client.Object) ([]workv1alpha1.Work, error) {
	list := &workv1alpha1.WorkList{}
	if err := c.List(ctx, list, client.MatchingLabels{kindOf(rb).workLabel(): permanentID(rb)}); err != nil {
		return nil, err
	}
	return list.Items, nil
}

// unreachable reports whether the control plane cannot reach the cluster,
// so its deletions cannot be confirmed (unreachableCluster). A cluster
// that cannot be read counts as reachable, so its old copy keeps holding
// dispatch.
func unreachable(ctx context.Context, c client.Reader, cluster string) bool {
	cl := &clusterv1alpha1.Cluster{}
	if err := c.Get(ctx, types.NamespacedName{Name: cluster}, cl); err != nil {
		return false
	}
	return unreachableCluster(cl)
}

// unreachableCluster reports whether the control plane cannot reach cl:
// Ready is Unknown (the unreachable taint's condition: its agent or its
// API server went silent), or False because a probe could not reach it,
// which is how a push-mode cluster whose API server is down reports. A
// cluster that answers but reports itself unhealthy can still confirm a
// deletion.
func unreachableCluster(cl *clusterv1alpha1.Cluster) bool {
	if slices.ContainsFunc(cl.Spec.Taints, func(t corev1.Taint) bool { return t.Key == clusterv1alpha1.TaintClusterUnreachable }) {
		return true
	}
	ready := meta.FindStatusCondition(cl.Status.Conditions, clusterv1alpha1.ClusterConditionReady)
	return ready != nil && (ready.Status == metav1.ConditionUnknown ||
		ready.Status == metav1.ConditionFalse && ready.Reason == failover.ReasonClusterNotReachable)
}
