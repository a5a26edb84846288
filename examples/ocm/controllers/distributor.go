package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/clock"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/fencing"
)

// WorkDistributor keeps one ManifestWork per cluster of a workload: its
// decided clusters, and the clusters an evicted old copy is still kept on
// by a task (Gracefully and Never; under Directly only the last copy of a
// workload with no target, eviction.DeleteOldCopy). It does the job OCM's
// ManifestWorkReplicaSet controller does, with failover's rules:
//
//   - A new copy is not dispatched while the old copy of a Directly
//     eviction still exists (eviction.DispatchBlocked, from the moment the
//     eviction is decided), except past the escape timeout, counted from
//     the old work's deletionTimestamp, for an unreachable old cluster.
//   - Preserved state is injected, as labels of the workload manifest, only
//     where preservation.StateFor allows it: into a work created after the
//     old work is gone, on the one new cluster of a Directly failover, so a
//     single writer is guaranteed. Nothing is injected past an escape.
//   - A work it already made keeps the state labels it was given; nothing
//     is injected into a running copy.
//
// It never creates a cluster's namespace: OCM's registration controller
// does, when the cluster joins.
type WorkDistributor struct {
	Client client.Client
	Clock  clock.PassiveClock
	// Taints are the health taint keys (an unreachable old cluster may
	// escape the dispatch gate).
	Taints failover.ClusterTaintConfig
	// Gate tunes the dispatch gate's escape (DirectlyEscapeTimeout).
	Gate eviction.AssessOptions
	// StatefulFailoverInjection turns state injection on.
	StatefulFailoverInjection bool
	Recheck                   *Rechecker
	Events                    *EventSink
}

// SetupWithManager registers the distributor and its Rechecker.
func (d *WorkDistributor) SetupWithManager(mgr manager.Manager, name string) error {
	return setupWorkloadController(mgr, name, d.Recheck, d)
}

// Reconcile brings the workload's ManifestWorks in line with it.
func (d *WorkDistributor) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	b, err := loadOrForget(ctx, d.Client, d.Recheck, req.NamespacedName)
	if err != nil || b == nil {
		return reconcile.Result{}, err
	}
	now := d.Clock.Now()
	targets := b.targets()
	desired := slices.Clone(targets)
	for i := range b.State.Tasks {
		t := &b.State.Tasks[i]
		if _, exists := b.Works[t.FromCluster]; exists && !deleteOldCopy(t, targets) && !slices.Contains(desired, t.FromCluster) {
			desired = append(desired, t.FromCluster)
		}
	}
	old := b.oldCopies(ctx, d.Client, d.Taints)

	// Old copies go first, so that a blocked dispatch can follow.
	for cluster, mw := range b.Works {
		if slices.Contains(desired, cluster) || !mw.DeletionTimestamp.IsZero() {
			continue
		}
		if err := d.Client.Delete(ctx, mw); client.IgnoreNotFound(err) != nil {
			return reconcile.Result{}, err
		}
	}

	var next time.Time
	for _, cluster := range desired {
		if mw, ok := b.Works[cluster]; ok {
			if err := d.refresh(ctx, b, mw); err != nil {
				return reconcile.Result{}, fmt.Errorf("manifest work for cluster %q: %w", cluster, err)
			}
			continue
		}
		gate := gateDispatch(cluster, b.State.Tasks, old, now, d.Gate)
		if gate.Blocked {
			next = earliest(next, gate.Until)
			continue
		}
		var state map[string]string
		if d.StatefulFailoverInjection && (!gate.Escaped || gate.Fenced) {
			state, _ = injectionState(cluster, targets, b.State.Tasks)
		}
		switch {
		case gate.Escaped && gate.Fenced:
			d.Events.event(b.Set, corev1.EventTypeNormal, "DispatchAfterFence",
				"cluster %s is dispatched: the unreachable old cluster fences itself, and its fence is over", cluster)
		case gate.Escaped:
			d.Events.event(b.Set, corev1.EventTypeWarning, "DispatchEscaped",
				"cluster %s is dispatched while the old copy on unreachable cluster %s may still run; no state is injected", cluster, gate.BlockedBy)
		}
		if err := d.create(ctx, b, cluster, state); err != nil {
			return reconcile.Result{}, fmt.Errorf("manifest work for cluster %q: %w", cluster, err)
		}
	}
	d.Recheck.Replace(req.NamespacedName, next)
	return reconcile.Result{}, nil
}

// manifests are the template's manifests as cluster should receive them,
// with state injected into the workload manifest, or the labels of keep
// (the work's current workload manifest) carried over for the state keys.
func (d *WorkDistributor) manifests(b *binding, state map[string]string, keep *unstructured.Unstructured) ([]workv1.Manifest, error) {
	tpl := b.Set.Spec.ManifestWorkTemplate.Workload.Manifests
	out := make([]workv1.Manifest, len(tpl))
	for i := range tpl {
		out[i] = *tpl[i].DeepCopy()
	}
	if len(out) <= WorkloadManifest {
		return out, nil
	}
	if keep != nil {
		state = carriedState(b, keep)
	}
	if len(state) == 0 {
		return out, nil
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(out[WorkloadManifest].Raw); err != nil {
		return nil, fmt.Errorf("workload manifest: %w", err)
	}
	if err := injectState(obj, state); err != nil {
		return nil, fmt.Errorf("inject preserved state: %w", err)
	}
	raw, err := json.Marshal(obj.Object)
	if err != nil {
		return nil, err
	}
	out[WorkloadManifest] = workv1.Manifest{RawExtension: runtime.RawExtension{Raw: raw}}
	return out, nil
}

// carriedState is the state a work was created with: its workload
// manifest's labels under the policy's state keys.
func carriedState(b *binding, manifest *unstructured.Unstructured) map[string]string {
	if b.Policy == nil {
		return nil
	}
	var keys []string
	if b.Policy.Cluster != nil && b.Policy.Cluster.StatePreservation != nil {
		for _, r := range b.Policy.Cluster.StatePreservation.Rules {
			keys = append(keys, r.AliasLabelName)
		}
	}
	if b.Policy.Application != nil && b.Policy.Application.StatePreservation != nil {
		for _, r := range b.Policy.Application.StatePreservation.Rules {
			keys = append(keys, r.AliasLabelName)
		}
	}
	// The fencing epoch travels with the state (preservation.StateFor).
	keys = append(keys, eviction.FencingEpochLabel)
	out := map[string]string{}
	have := manifest.GetLabels()
	for _, k := range keys {
		if v, ok := have[k]; ok {
			out[k] = v
		}
	}
	return out
}

func (d *WorkDistributor) create(ctx context.Context, b *binding, cluster string, state map[string]string) error {
	manifests, err := d.manifests(b, state, nil)
	if err != nil {
		return err
	}
	mw := &workv1.ManifestWork{ObjectMeta: metav1.ObjectMeta{
		Namespace:   cluster,
		Name:        WorkName(b.Set),
		Labels:      workLabels(b),
		Annotations: map[string]string{ReplicaSetNamespaceAnnotation: b.Set.Namespace, ReplicaSetNameAnnotation: b.Set.Name},
	}}
	mw.Spec = *b.Set.Spec.ManifestWorkTemplate.DeepCopy()
	mw.Spec.Workload.Manifests = manifests
	if err := d.Client.Create(ctx, mw); err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	if len(state) > 0 {
		d.Events.event(b.Set, corev1.EventTypeNormal, "StateInjected", "preserved state %v injected into the work for cluster %s", state, cluster)
	}
	return nil
}

// refresh brings an existing work's spec in line with the template, keeping
// the state it was created with.
func (d *WorkDistributor) refresh(ctx context.Context, b *binding, mw *workv1.ManifestWork) error {
	if !mw.DeletionTimestamp.IsZero() {
		return nil
	}
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur := &workv1.ManifestWork{}
		if err := d.Client.Get(ctx, client.ObjectKeyFromObject(mw), cur); err != nil {
			return client.IgnoreNotFound(err)
		}
		var keep *unstructured.Unstructured
		if len(cur.Spec.Workload.Manifests) > WorkloadManifest {
			keep = &unstructured.Unstructured{}
			if err := keep.UnmarshalJSON(cur.Spec.Workload.Manifests[WorkloadManifest].Raw); err != nil {
				keep = nil
			}
		}
		manifests, err := d.manifests(b, nil, keep)
		if err != nil {
			return err
		}
		want := *b.Set.Spec.ManifestWorkTemplate.DeepCopy()
		want.Workload.Manifests = manifests
		if specEqual(cur.Spec, want) {
			return nil
		}
		cur.Spec = want
		return d.Client.Update(ctx, cur)
	})
}

// workLabels are the labels of a work made from b: the replica set's UID,
// and fencing.SingleWriterLabel for a single writer (a stateful workload
// failed over Directly), which a fencing work agent stops when it loses
// the hub.
func workLabels(b *binding) map[string]string {
	labels := map[string]string{ReplicaSetUIDLabel: string(b.Set.UID)}
	if singleWriter(b.Policy) {
		labels[fencing.SingleWriterLabel] = "true"
	}
	return labels
}

// singleWriter reports whether policy fails its workload over as a single
// writer: state preservation rules, and every failover it has purges
// Directly.
func singleWriter(policy *failover.FailoverBehavior) bool {
	if policy == nil {
		return false
	}
	stateful := false
	if c := policy.Cluster; c != nil {
		if c.PurgeMode.Normalize() != eviction.PurgeDirectly {
			return false
		}
		stateful = c.StatePreservation != nil && len(c.StatePreservation.Rules) > 0
	}
	if a := policy.Application; a != nil {
		if a.PurgeMode.Normalize() != eviction.PurgeDirectly {
			return false
		}
		stateful = stateful || a.StatePreservation != nil && len(a.StatePreservation.Rules) > 0
	}
	return stateful
}

func specEqual(a, b workv1.ManifestWorkSpec) bool {
	ja, err1 := json.Marshal(normalizedSpec(a))
	jb, err2 := json.Marshal(normalizedSpec(b))
	return err1 == nil && err2 == nil && string(ja) == string(jb)
}

// normalizedSpec decodes the spec, raw manifests included, so that key
// order and spacing do not count as a difference.
func normalizedSpec(s workv1.ManifestWorkSpec) any {
	raw, _ := json.Marshal(s)
	var out any
	_ = json.Unmarshal(raw, &out)
	return out
}
