package controllers_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/api/policy/v1alpha1"
	workv1alpha1 "github.com/karmada-io/api/work/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"
)

// Tests run in parallel on one API server, each with its own controllers.
// A test's controllers see only its objects: the clusters, bindings and
// ClusterTaintPolicies that carry its scope label, which the test's client adds when it creates them.
// Works and Leases of other tests reach the controllers' informers, and map
// to bindings and clusters the controllers do not have (not found, so
// nothing to do). The bindings are selected by label, not by namespace: a
// cache limited to namespaces answers a read from another one with an
// error, which the controllers would retry.
const scopeLabel = "fleetover.test/scope"

// scopedCache limits a test's controllers to its objects.
func scopedCache(scope string) cache.Options {
	sel := labels.SelectorFromSet(labels.Set{scopeLabel: scope})
	return cache.Options{ByObject: map[client.Object]cache.ByObject{
		&clusterv1alpha1.Cluster{}:             {Label: sel},
		&workv1alpha2.ClusterResourceBinding{}: {Label: sel},
		&workv1alpha2.ResourceBinding{}:        {Label: sel},
		&policyv1alpha1.ClusterTaintPolicy{}:   {Label: sel},
	}}
}

// watchedKinds are the kinds the controllers watch: a write to one of them
// reaches the controllers through their informers.
func watchedKinds() []client.Object {
	return []client.Object{&clusterv1alpha1.Cluster{}, &workv1alpha2.ResourceBinding{}, &workv1alpha2.ClusterResourceBinding{},
		&workv1alpha1.Work{}, &coordinationv1.Lease{}}
}

// deliveries follows every write the test and its controllers make to a
// watched kind, and whether the controllers' informers have seen it yet.
// With the controllers' Activity it tells when a step of the test is done:
// every write seen, and nothing queued, running or due.
type deliveries struct {
	scheme *runtime.Scheme

	mu sync.Mutex
	// written and seen are the highest resourceVersion written and seen
	// per kind: one watch stream per kind delivers in resourceVersion
	// order, so seen >= written means every write of that kind arrived.
	written, seen map[schema.GroupVersionKind]uint64
	// deleting are the objects deleted and not yet seen going, each with
	// an empty object of its kind to read the informers' copy into.
	deleting map[deletionKey]client.Object
	changed  chan struct{}
	// reader reads the informers' copies (the controllers' cache).
	reader client.Reader
}

type deletionKey struct {
	gvk schema.GroupVersionKind
	key types.NamespacedName
}

func newDeliveries(scheme *runtime.Scheme) *deliveries {
	return &deliveries{
		scheme:   scheme,
		written:  map[schema.GroupVersionKind]uint64{},
		seen:     map[schema.GroupVersionKind]uint64{},
		deleting: map[deletionKey]client.Object{},
		changed:  make(chan struct{}),
	}
}

// watch registers a handler on the informer of every watched kind in c.
func (d *deliveries) watch(ctx context.Context, c cache.Cache) error {
	d.mu.Lock()
	d.reader = c
	d.mu.Unlock()
	for _, obj := range watchedKinds() {
		gvk, err := apiutil.GVKForObject(obj, d.scheme)
		if err != nil {
			return err
		}
		d.mu.Lock()
		d.seen[gvk] = max(d.seen[gvk], 0)
		d.mu.Unlock()
		inf, err := c.GetInformer(ctx, obj, cache.BlockUntilSynced(false))
		if err != nil {
			return fmt.Errorf("informer of %s: %w", gvk.Kind, err)
		}
		if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc:    func(o any) { d.saw(gvk, o, false) },
			UpdateFunc: func(_, o any) { d.saw(gvk, o, false) },
			DeleteFunc: func(o any) { d.saw(gvk, o, true) },
		}); err != nil {
			return err
		}
	}
	return nil
}

func (d *deliveries) saw(gvk schema.GroupVersionKind, o any, deleted bool) {
	if tomb, ok := o.(toolscache.DeletedFinalStateUnknown); ok {
		o = tomb.Obj
	}
	obj, ok := o.(client.Object)
	if !ok {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if rv, err := strconv.ParseUint(obj.GetResourceVersion(), 10, 64); err == nil && rv > d.seen[gvk] {
		d.seen[gvk] = rv
	}
	if deleted || obj.GetDeletionTimestamp() != nil {
		delete(d.deleting, deletionKey{gvk, client.ObjectKeyFromObject(obj)})
	}
	d.changeLocked()
}

// wrote records a write whose answer obj carries.
func (d *deliveries) wrote(obj client.Object) {
	gvk, ok := d.watchedKind(obj)
	if !ok {
		return
	}
	rv, err := strconv.ParseUint(obj.GetResourceVersion(), 10, 64)
	if err != nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if rv > d.written[gvk] {
		d.written[gvk] = rv
	}
	d.changeLocked()
}

// deleted records a deletion.
func (d *deliveries) deleted(obj client.Object) {
	gvk, ok := d.watchedKind(obj)
	if !ok {
		return
	}
	empty, ok := obj.DeepCopyObject().(client.Object)
	if !ok {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	d.deleting[deletionKey{gvk, client.ObjectKeyFromObject(obj)}] = empty
	d.changeLocked()
}

func (d *deliveries) watchedKind(obj client.Object) (schema.GroupVersionKind, bool) {
	gvk, err := apiutil.GVKForObject(obj, d.scheme)
	if err != nil {
		return gvk, false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	_, ok := d.seen[gvk]
	return gvk, ok
}

// String says which writes the informers have not seen yet.
func (d *deliveries) String() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	var behind []string
	for gvk, rv := range d.written {
		if d.seen[gvk] < rv {
			behind = append(behind, fmt.Sprintf("%s written at %d, seen up to %d", gvk.Kind, rv, d.seen[gvk]))
		}
	}
	for k := range d.deleting {
		behind = append(behind, fmt.Sprintf("%s %s deleted, not seen going", k.gvk.Kind, k.key))
	}
	if len(behind) == 0 {
		return "every write seen"
	}
	slices.Sort(behind)
	return strings.Join(behind, "; ")
}

// caughtUp reports whether the informers have seen every write. A deleted
// object counts as seen going once the informers hold no live copy of it:
// deleting an object that is already terminating (a controller that keeps
// deleting a copy held by a finalizer) makes no event.
func (d *deliveries) caughtUp() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for gvk, rv := range d.written {
		if d.seen[gvk] < rv {
			return false
		}
	}
	for k, obj := range d.deleting {
		if d.reader == nil {
			return false
		}
		err := d.reader.Get(context.Background(), k.key, obj)
		if err == nil && obj.GetDeletionTimestamp() == nil {
			return false
		}
		if err != nil && !apierrors.IsNotFound(err) {
			return false
		}
		delete(d.deleting, k)
	}
	return true
}

func (d *deliveries) Changed() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.changed
}

func (d *deliveries) changeLocked() {
	close(d.changed)
	d.changed = make(chan struct{})
}

// recordingClient wraps c so that every write is recorded in the
// fixture's current deliveries, and every cluster, binding and
// ClusterTaintPolicy the test creates carries its scope label.
func (f *fixture) recordingClient(c client.WithWatch, scope string) client.WithWatch {
	record := func(obj client.Object, err error) error {
		if err == nil {
			if d := f.currentDeliveries(); d != nil {
				d.wrote(obj)
			}
		}
		return err
	}
	return interceptor.NewClient(c, interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			if scope != "" && scoped(obj) {
				l := obj.GetLabels()
				if l == nil {
					l = map[string]string{}
				}
				l[scopeLabel] = scope
				obj.SetLabels(l)
			}
			return record(obj, c.Create(ctx, obj, opts...))
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			return record(obj, c.Update(ctx, obj, opts...))
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			return record(obj, c.Patch(ctx, obj, patch, opts...))
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			err := c.Delete(ctx, obj, opts...)
			if err == nil {
				if d := f.currentDeliveries(); d != nil {
					d.deleted(obj)
				}
			}
			return err
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			return record(obj, c.SubResource(sub).Update(ctx, obj, opts...))
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			return record(obj, c.SubResource(sub).Patch(ctx, obj, patch, opts...))
		},
	})
}

// scoped reports whether obj is of a kind the controllers see only with
// the scope label.
func scoped(obj client.Object) bool {
	switch obj.(type) {
	case *clusterv1alpha1.Cluster, *workv1alpha2.ClusterResourceBinding, *workv1alpha2.ResourceBinding, *policyv1alpha1.ClusterTaintPolicy:
		return true
	}
	return false
}

func (f *fixture) currentDeliveries() *deliveries {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.deliveries
}

// quiet is how long the controllers must stay idle, every write seen, for
// a step to count as done: it covers the hand-over between an informer's
// handlers, which run on goroutines of their own.
const quiet = 2 * time.Millisecond

// settle waits until the controllers have done what the last step asked of
// them: every write the test and they made has reached their informers,
// and nothing is queued, running or due on the fake clock. It gives up
// after a bound, so a busy machine delays a step rather than failing it;
// replays allow for a reaction seen a step late.
func (f *fixture) settle() {
	f.t.Helper()
	deadline := time.NewTimer(10 * time.Second)
	defer deadline.Stop()
	f.activity.ReleaseDue()
	for {
		if f.crashPending() {
			f.recoverCrash()
			deadline.Reset(10 * time.Second)
		}
		activity, d := f.activity, f.currentDeliveries()
		changedA, changedD := activity.Changed(), d.Changed()
		if activity.Idle() && d.caughtUp() {
			select {
			case <-time.After(quiet):
				if activity.Idle() && d.caughtUp() && !f.crashPending() {
					return
				}
				continue
			case <-changedA:
			case <-changedD:
			case <-f.crashed():
				f.recoverCrash()
				deadline.Reset(10 * time.Second)
			case <-deadline.C:
				f.t.Logf("settle: gave up waiting: %s; %s", activity, d)
				return
			case <-f.ctx.Done():
				f.t.Fatal("test ended")
			}
			continue
		}
		select {
		case <-changedA:
		case <-changedD:
		case <-f.crashed():
			f.recoverCrash()
			deadline.Reset(10 * time.Second)
		case <-deadline.C:
			f.t.Logf("settle: gave up waiting: %s; %s", activity, d)
			return
		case <-f.ctx.Done():
			f.t.Fatal("test ended")
		}
	}
}
