package controllers

import (
	"context"
	"fmt"
	"slices"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/fencing"
)

// binding is one workload as the controllers see it: a
// ManifestWorkReplicaSet (the manifests and, in an annotation, the failover
// policy), the Placement it names (the tolerations and the cluster
// selector), that Placement's PlacementDecision (the clusters and, in an
// annotation, the failover state) and the ManifestWorks made from it, by
// cluster. The example supports one placementRef per replica set and one
// replica set per Placement: an eviction moves the Placement's decision.
type binding struct {
	Set       *workv1alpha1.ManifestWorkReplicaSet
	Policy    *failover.FailoverBehavior
	Placement *clusterv1beta1.Placement
	Decision  *clusterv1beta1.PlacementDecision
	State     FailoverState
	Works     map[string]*workv1.ManifestWork
}

// decisionKey is the PlacementDecision's key.
func (b *binding) decisionKey() client.ObjectKey {
	return client.ObjectKeyFromObject(b.Decision)
}

// targets are the decided clusters that no eviction task is moving the
// workload off: a task written before its decision (a crash between the
// two writes) still counts.
func (b *binding) targets() []string {
	return liveTargets(decidedClusters(b.Decision), b.State)
}

func liveTargets(decided []string, st FailoverState) []string {
	return slices.DeleteFunc(decided, func(n string) bool {
		return slices.ContainsFunc(st.Tasks, func(t evictionTask) bool { return t.FromCluster == n })
	})
}

// loadBinding reads a binding. It returns nil, nil when some part does not
// exist (yet): nothing to do until it does, and its creation wakes the
// controllers up.
func loadBinding(ctx context.Context, c client.Client, key client.ObjectKey) (*binding, error) {
	b := &binding{Set: &workv1alpha1.ManifestWorkReplicaSet{}}
	if err := c.Get(ctx, key, b.Set); err != nil {
		return nil, client.IgnoreNotFound(err)
	}
	if !b.Set.DeletionTimestamp.IsZero() || len(b.Set.Spec.PlacementRefs) == 0 {
		return nil, nil
	}
	var err error
	if b.Policy, err = decodePolicy(b.Set.Annotations); err != nil {
		return nil, err
	}
	name := b.Set.Spec.PlacementRefs[0].Name
	b.Placement = &clusterv1beta1.Placement{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: key.Namespace, Name: name}, b.Placement); err != nil {
		return nil, client.IgnoreNotFound(err)
	}
	b.Decision = &clusterv1beta1.PlacementDecision{}
	if err := c.Get(ctx, types.NamespacedName{Namespace: key.Namespace, Name: DecisionName(name)}, b.Decision); err != nil {
		return nil, client.IgnoreNotFound(err)
	}
	if b.State, err = decodeState(b.Decision.Annotations); err != nil {
		return nil, err
	}
	list := &workv1.ManifestWorkList{}
	if err := c.List(ctx, list, client.MatchingLabels{ReplicaSetUIDLabel: string(b.Set.UID)}); err != nil {
		return nil, err
	}
	b.Works = make(map[string]*workv1.ManifestWork, len(list.Items))
	for i := range list.Items {
		b.Works[list.Items[i].Namespace] = &list.Items[i]
	}
	return b, nil
}

// oldCopies tells the library what became of the workload's copy on a
// cluster: gone once its ManifestWork is, deleting since the work's
// deletionTimestamp, unreachable while the cluster carries the unreachable
// taint.
func (b *binding) oldCopies(ctx context.Context, c client.Client, taints failover.ClusterTaintConfig) eviction.OldCopyLookup {
	return oldCopies(func(cluster string) oldCopy {
		mw := b.Works[cluster]
		if mw == nil {
			return oldCopy{}
		}
		out := oldCopy{Work: &mw.ObjectMeta}
		// The deletion of a work a task evicts counts from the task's
		// stamp, on the controllers' own clock, as every other countdown:
		// the work's deletionTimestamp is the API server's clock, which
		// the controllers' need not share (a skewed host, a fake clock).
		for i := range b.State.Tasks {
			if t := &b.State.Tasks[i]; t.FromCluster == cluster && t.CreationTimestamp != nil {
				out.DeletingSince = t.CreationTimestamp.Time
			}
		}
		mc := &clusterv1.ManagedCluster{}
		if err := c.Get(ctx, types.NamespacedName{Name: cluster}, mc); err == nil {
			out.Unreachable = clusterUnreachable(taints, mc.Spec.Taints)
			if _, declared := mc.Annotations[fencing.FenceAfterAnnotation]; declared {
				lease := &coordinationv1.Lease{}
				if err := c.Get(ctx, types.NamespacedName{Namespace: cluster, Name: ClusterLeaseName}, lease); err != nil {
					lease = nil
				}
				out.FenceAfter, out.LastHeard = memberFence(mc.Annotations, lease)
			}
		}
		return out
	})
}

// predicates are the Placement's predicates, compiled.
func (b *binding) predicates() (clusterPredicates, error) {
	ps, err := compilePredicates(b.Placement.Spec.Predicates)
	if err != nil {
		return nil, fmt.Errorf("placement %s/%s: %w", b.Placement.Namespace, b.Placement.Name, err)
	}
	return ps, nil
}

// listFleet reads every ManagedCluster.
func listFleet(ctx context.Context, c client.Client) ([]fleetCluster, map[string]*clusterv1.ManagedCluster, error) {
	list := &clusterv1.ManagedClusterList{}
	if err := c.List(ctx, list); err != nil {
		return nil, nil, err
	}
	fleet := make([]fleetCluster, len(list.Items))
	byName := make(map[string]*clusterv1.ManagedCluster, len(list.Items))
	for i := range list.Items {
		mc := &list.Items[i]
		fleet[i] = fleetCluster{Name: mc.Name, Labels: mc.Labels, Claims: clusterClaims(mc.Status.ClusterClaims), Taints: mc.Spec.Taints}
		byName[mc.Name] = mc
	}
	return fleet, byName, nil
}

// writeDecision persists a binding's new failover state and clusters: the
// state first (an annotation of the PlacementDecision), then the decision
// (its status). A crash between the two leaves a task whose cluster is
// still decided; targets() reads that as evicted, so the next look
// finishes the move instead of losing it.
//
// mutate gets the fresh decision and its decoded state; it changes the
// state in place and returns the clusters to decide (set false: keep the
// decision as it is). It runs again on a conflict.
func writeDecision(ctx context.Context, c client.Client, key client.ObjectKey, mutate func(pd *clusterv1beta1.PlacementDecision, st *FailoverState) (targets []string, set bool, err error)) error {
	var want []string
	var set bool
	var failed error
	err := update(ctx, c, key, &clusterv1beta1.PlacementDecision{}, false, func(pd *clusterv1beta1.PlacementDecision) bool {
		want, set, failed = nil, false, nil
		st, err := decodeState(pd.Annotations)
		if err != nil {
			failed = err
			return false
		}
		if want, set, err = mutate(pd, &st); err != nil {
			failed = err
			return false
		}
		changed, err := encodeState(&pd.Annotations, st)
		if err != nil {
			failed, set = err, false
			return false
		}
		return changed
	})
	if err != nil {
		return err
	}
	if failed != nil {
		return failed
	}
	if !set {
		return nil
	}
	return update(ctx, c, key, &clusterv1beta1.PlacementDecision{}, true, func(pd *clusterv1beta1.PlacementDecision) bool {
		if slices.Equal(decidedClusters(pd), want) {
			return false
		}
		pd.Status.Decisions = make([]clusterv1beta1.ClusterDecision, len(want))
		for i, n := range want {
			pd.Status.Decisions[i] = clusterv1beta1.ClusterDecision{ClusterName: n, Reason: DecisionReason}
		}
		return true
	})
}

// bindingsOfDecision maps a PlacementDecision to the replica sets that use
// its Placement.
func bindingsOfDecision(c client.Client) func(context.Context, client.Object) []reconcile.Request {
	return func(ctx context.Context, o client.Object) []reconcile.Request {
		pd, ok := o.(*clusterv1beta1.PlacementDecision)
		if !ok {
			return nil
		}
		return bindingsOfPlacement(ctx, c, pd.Namespace, PlacementOfDecision(pd))
	}
}

func bindingsOfPlacement(ctx context.Context, c client.Client, ns, placement string) []reconcile.Request {
	list := &workv1alpha1.ManifestWorkReplicaSetList{}
	if err := c.List(ctx, list, client.InNamespace(ns)); err != nil {
		return nil
	}
	var out []reconcile.Request
	for i := range list.Items {
		s := &list.Items[i]
		if len(s.Spec.PlacementRefs) > 0 && s.Spec.PlacementRefs[0].Name == placement {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(s)})
		}
	}
	return out
}

// bindingOfWork maps a ManifestWork to its replica set.
func bindingOfWork(_ context.Context, o client.Object) []reconcile.Request {
	a := o.GetAnnotations()
	if a[ReplicaSetNameAnnotation] == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Namespace: a[ReplicaSetNamespaceAnnotation], Name: a[ReplicaSetNameAnnotation]}}}
}

// allBindings maps any change (a cluster's taints) to every replica set.
func allBindings(c client.Client) func(context.Context, client.Object) []reconcile.Request {
	return func(ctx context.Context, _ client.Object) []reconcile.Request {
		list := &workv1alpha1.ManifestWorkReplicaSetList{}
		if err := c.List(ctx, list); err != nil {
			return nil
		}
		out := make([]reconcile.Request, len(list.Items))
		for i := range list.Items {
			out[i] = reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])}
		}
		return out
	}
}

// ignoreNotFound is client.IgnoreNotFound for errors from a write chain.
func ignoreNotFound(err error) error {
	if apierrors.IsNotFound(err) {
		return nil
	}
	return err
}

// condition returns the condition of type t, or nil.
func condition(conds []metav1.Condition, t string) *metav1.Condition {
	return meta.FindStatusCondition(conds, t)
}

// loadOrForget loads the workload key names, as loadBinding does; when it is
// gone (or no longer placed) its pending re-checks are cancelled.
func loadOrForget(ctx context.Context, c client.Client, recheck *Rechecker, key client.ObjectKey) (*binding, error) {
	b, err := loadBinding(ctx, c, key)
	if err == nil && b == nil {
		recheck.Cancel(key)
	}
	return b, err
}

// setupWorkloadController registers r for ManifestWorkReplicaSets, looked
// at again when their PlacementDecision or one of their ManifestWorks
// changes, and when recheck says a deadline has come.
func setupWorkloadController(mgr manager.Manager, name string, recheck *Rechecker, r reconcile.Reconciler) error {
	if err := mgr.Add(recheck); err != nil {
		return err
	}
	c := mgr.GetClient()
	return builder.ControllerManagedBy(mgr).
		Named(name).
		For(&workv1alpha1.ManifestWorkReplicaSet{}).
		Watches(&clusterv1beta1.PlacementDecision{}, handler.EnqueueRequestsFromMapFunc(bindingsOfDecision(c))).
		Watches(&workv1.ManifestWork{}, handler.EnqueueRequestsFromMapFunc(bindingOfWork)).
		WatchesRawSource(recheck.Source()).
		Complete(r)
}

// clusterClaims are a cluster's claims as a map, for the claim selectors.
func clusterClaims(claims []clusterv1.ManagedClusterClaim) map[string]string {
	if len(claims) == 0 {
		return nil
	}
	out := make(map[string]string, len(claims))
	for _, c := range claims {
		out[c.Name] = c.Value
	}
	return out
}
