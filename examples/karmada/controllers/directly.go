package controllers

import (
	"context"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	workv1alpha1 "github.com/karmada-io/api/work/v1alpha1"

	"github.com/fleetover/fleetover/eviction"
)

// oldCopies answers eviction's "what of the copy on this cluster" from the
// binding's Works, the only record of a copy the control plane has: the
// copy is gone once its cluster's Work no longer exists, its deletion
// started at that Work's deletionTimestamp (persisted, so a restart
// neither resets nor skips the escape countdown), and it cannot be
// confirmed while the cluster carries the unreachable taint. The
// dispatcher's gate and the graceful eviction controller's assessment
// read the same view, so a Directly task stays on the binding, carrying
// the preserved state, until the old Work is gone.
func oldCopies(ctx context.Context, c client.Reader, works []workv1alpha1.Work) eviction.OldCopyLookup {
	return oldCopiesOf(works, func(cluster string) bool { return unreachable(ctx, c, cluster) })
}

// oldCopiesOf is the view of oldCopies with unreachable answering whether
// a cluster's deletions cannot be confirmed.
func oldCopiesOf(works []workv1alpha1.Work, unreachable func(cluster string) bool) eviction.OldCopyLookup {
	return eviction.OldCopyLookupFunc(func(cluster string) eviction.OldCopy {
		i := slices.IndexFunc(works, func(w workv1alpha1.Work) bool { return w.Namespace == ExecutionNamespace(cluster) })
		if i < 0 {
			return eviction.OldCopy{Gone: true}
		}
		var old eviction.OldCopy
		if ts := works[i].DeletionTimestamp; ts != nil {
			old.DeletingSince = ts.Time
		}
		old.Unreachable = unreachable(cluster)
		return old
	})
}

// bindingWorks lists the Works of a binding, by the permanent-id label
// Karmada puts on them.
func bindingWorks(ctx context.Context, c client.Reader, rb client.Object) ([]workv1alpha1.Work, error) {
	list := &workv1alpha1.WorkList{}
	if err := c.List(ctx, list, client.MatchingLabels{kindOf(rb).workLabel(): string(rb.GetUID())}); err != nil {
		return nil, err
	}
	return list.Items, nil
}

// unreachable reports whether the cluster carries the unreachable taint:
// its deletions cannot be confirmed. A cluster that cannot be read counts
// as reachable, so its old copy keeps holding dispatch.
func unreachable(ctx context.Context, c client.Reader, cluster string) bool {
	cl := &clusterv1alpha1.Cluster{}
	if err := c.Get(ctx, types.NamespacedName{Name: cluster}, cl); err != nil {
		return false
	}
	return hasUnreachableTaint(cl)
}

// hasUnreachableTaint reports whether cl carries the unreachable taint.
func hasUnreachableTaint(cl *clusterv1alpha1.Cluster) bool {
	return slices.ContainsFunc(cl.Spec.Taints, func(t corev1.Taint) bool { return t.Key == clusterv1alpha1.TaintClusterUnreachable })
}
