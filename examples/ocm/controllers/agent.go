package controllers

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/clock"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/fleetover/fleetover/fencing"
)

// WorkCleanupFinalizer is the finalizer OCM's work agent puts on a
// ManifestWork it applied: the work is gone only once the agent removed
// the applied resources from the managed cluster.
const WorkCleanupFinalizer = "cluster.open-cluster-management.io/manifest-work-cleanup"

// MemberCluster is the emulated managed cluster a WorkAgent applies
// manifests to: the objects that run there, by namespace/name. It is safe
// for concurrent use.
type MemberCluster struct {
	mu      sync.Mutex
	objects map[string]*unstructured.Unstructured
}

// NewMemberCluster returns an empty managed cluster.
func NewMemberCluster() *MemberCluster {
	return &MemberCluster{objects: map[string]*unstructured.Unstructured{}}
}

func objectKey(obj *unstructured.Unstructured) string {
	return obj.GetNamespace() + "/" + obj.GetName()
}

// Get returns a copy of the object namespace/name, or nil.
func (m *MemberCluster) Get(namespace, name string) *unstructured.Unstructured {
	m.mu.Lock()
	defer m.mu.Unlock()
	if o := m.objects[namespace+"/"+name]; o != nil {
		return o.DeepCopy()
	}
	return nil
}

func (m *MemberCluster) apply(obj *unstructured.Unstructured) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.objects[objectKey(obj)] = obj.DeepCopy()
}

func (m *MemberCluster) delete(obj *unstructured.Unstructured) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.objects, objectKey(obj))
}

// WorkAgent emulates OCM's work agent (and the klusterlet's lease
// renewal) on one managed cluster, with fencing: it renews the cluster's
// lease on the hub, declares its fence on its ManagedCluster, applies the
// ManifestWorks of its namespace to the MemberCluster and removes what a
// deleted work applied; and when its renewals fail for Fence.FenceAfter it
// stops the workloads of the works labelled fencing.SingleWriterLabel
// (fencing.Decide, fencing.Config.StopFor), keeps them stopped until a
// renewal succeeds, then resumes those whose work is still there and not
// being deleted. Sync runs one pass; a real agent runs it in a loop and on
// every watch event.
type WorkAgent struct {
	Cluster string
	// Hub is the hub's API, as the agent reaches it.
	Hub    client.Client
	Member *MemberCluster
	Clock  clock.PassiveClock
	Fence  fencing.Config
	// Reachable, when set and false, cuts the agent off the hub (an
	// emulated partition): it makes no call to the hub, so its lease is
	// not renewed, and the hub cannot reach it either.
	Reachable func() bool

	state    fencing.State
	declared bool
	// stopped are the member objects the fence stopped, by key.
	stopped map[string]fencing.Method
}

// Validate checks the agent's fence configuration (fencing.ValidateConfig).
func (a *WorkAgent) Validate() error {
	return fencing.ValidateConfig(a.Fence, nil).ToAggregate()
}

func (a *WorkAgent) reachable() bool { return a.Reachable == nil || a.Reachable() }

// State is the agent's lease record (for inspection).
func (a *WorkAgent) State() fencing.State { return a.state }

// Sync runs one pass of the agent and returns the fence decision it acted
// on. An unreachable hub is no error: it is what the fence is for.
func (a *WorkAgent) Sync(ctx context.Context) (fencing.Decision, error) {
	started := a.Clock.Now() // the renewal counts from when it was sent
	var works []workv1.ManifestWork
	if a.reachable() {
		if err := a.renew(ctx, started); err != nil {
			return fencing.Decision{}, err
		}
		a.state.LastRenewal = started
		if err := a.declare(ctx); err != nil {
			return fencing.Decision{}, err
		}
		list := &workv1.ManifestWorkList{}
		if err := a.Hub.List(ctx, list, client.InNamespace(a.Cluster)); err != nil {
			return fencing.Decision{}, err
		}
		works = list.Items
	}
	d := fencing.Decide(a.state, a.Clock.Now(), a.Fence)
	switch d.Action {
	case fencing.ActionFence:
		if err := a.fence(); err != nil {
			return d, err
		}
		a.state.FencedAt = a.Clock.Now()
	case fencing.ActionResume:
		a.state.FencedAt = time.Time{}
		clear(a.stopped)
	}
	if !a.reachable() {
		return d, nil
	}
	fenced := d.Action == fencing.ActionStayFenced || d.Action == fencing.ActionFence
	for i := range works {
		if err := a.syncWork(ctx, &works[i], fenced); err != nil {
			return d, fmt.Errorf("work %s/%s: %w", works[i].Namespace, works[i].Name, err)
		}
	}
	return d, nil
}

// renew renews the cluster's lease on the hub at now.
func (a *WorkAgent) renew(ctx context.Context, now time.Time) error {
	renew := metav1.NewMicroTime(now)
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: a.Cluster, Name: ClusterLeaseName}}
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		err := a.Hub.Get(ctx, client.ObjectKeyFromObject(lease), lease)
		if apierrors.IsNotFound(err) {
			lease.Spec.RenewTime = &renew
			return a.Hub.Create(ctx, lease)
		}
		if err != nil {
			return err
		}
		lease.Spec.RenewTime = &renew
		return a.Hub.Update(ctx, lease)
	})
}

// declare writes the agent's fence on its ManagedCluster (once per run).
func (a *WorkAgent) declare(ctx context.Context) error {
	if a.declared {
		return nil
	}
	key, value := fencing.Declare(a.Fence)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		mc := &clusterv1.ManagedCluster{}
		if err := a.Hub.Get(ctx, client.ObjectKey{Name: a.Cluster}, mc); err != nil {
			return err
		}
		if mc.Annotations[key] == value {
			return nil
		}
		if mc.Annotations == nil {
			mc.Annotations = map[string]string{}
		}
		mc.Annotations[key] = value
		return a.Hub.Update(ctx, mc)
	})
	a.declared = err == nil
	return err
}

// fence stops every single-writer object applied on the member cluster.
func (a *WorkAgent) fence() error {
	a.Member.mu.Lock()
	defer a.Member.mu.Unlock()
	if a.stopped == nil {
		a.stopped = map[string]fencing.Method{}
	}
	for _, key := range slices.Sorted(maps.Keys(a.Member.objects)) {
		obj := a.Member.objects[key]
		if obj.GetLabels()[fencing.SingleWriterLabel] != "true" {
			continue
		}
		stop, err := a.Fence.StopFor(obj)
		if err != nil {
			// A fence must stop the copy: delete what cannot be stopped
			// its kind's way.
			stop = fencing.Stop{Method: fencing.MethodDelete}
		}
		switch stop.Method {
		case fencing.MethodDelete:
			delete(a.Member.objects, key)
		case fencing.MethodNone:
		default:
			a.Member.objects[key] = stop.Object
		}
		a.stopped[key] = stop.Method
	}
	return nil
}

// syncWork applies a work's manifests, or removes them once it is being
// deleted and lets the work go. While fenced, single-writer manifests are
// not applied.
func (a *WorkAgent) syncWork(ctx context.Context, mw *workv1.ManifestWork, fenced bool) error {
	manifests := make([]*unstructured.Unstructured, 0, len(mw.Spec.Workload.Manifests))
	for _, m := range mw.Spec.Workload.Manifests {
		obj := &unstructured.Unstructured{}
		if err := obj.UnmarshalJSON(m.Raw); err != nil {
			return err
		}
		if mw.Labels[fencing.SingleWriterLabel] == "true" {
			labels := obj.GetLabels()
			if labels == nil {
				labels = map[string]string{}
			}
			labels[fencing.SingleWriterLabel] = "true"
			obj.SetLabels(labels)
		}
		manifests = append(manifests, obj)
	}
	if !mw.DeletionTimestamp.IsZero() {
		for _, obj := range manifests {
			a.Member.delete(obj)
			delete(a.stopped, objectKey(obj))
		}
		return a.updateWork(ctx, mw, func(w *workv1.ManifestWork) bool {
			return controllerutil.RemoveFinalizer(w, WorkCleanupFinalizer)
		})
	}
	if err := a.updateWork(ctx, mw, func(w *workv1.ManifestWork) bool {
		return controllerutil.AddFinalizer(w, WorkCleanupFinalizer)
	}); err != nil {
		return err
	}
	for _, obj := range manifests {
		if fenced && obj.GetLabels()[fencing.SingleWriterLabel] == "true" {
			continue
		}
		a.Member.apply(obj)
	}
	return nil
}

func (a *WorkAgent) updateWork(ctx context.Context, mw *workv1.ManifestWork, change func(*workv1.ManifestWork) bool) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur := &workv1.ManifestWork{}
		if err := a.Hub.Get(ctx, client.ObjectKeyFromObject(mw), cur); err != nil {
			return client.IgnoreNotFound(err)
		}
		if !change(cur) {
			return nil
		}
		return a.Hub.Update(ctx, cur)
	})
}
