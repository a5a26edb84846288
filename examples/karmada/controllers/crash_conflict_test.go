package controllers_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	workv1alpha1 "github.com/karmada-io/api/work/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"
)

// secondWriterAnnotation is what the second writer changes on an object
// between the controllers' read and their write.
const secondWriterAnnotation = "fleetover.test/second-writer"

// TestCrashConflictAtEveryWrite replays a scenario with a second writer
// that changes the object between the controllers' read and their write,
// for every write that carries the resourceVersion it read (every patch
// and update of a binding, a cluster, a Work, their status included): the
// first attempt of each write meets a conflict, and the controllers take
// their decision again on the fresh object. The run must agree with the
// simulator as an undisturbed one does, and the second writer's last
// change must be on every object it touched: nothing it wrote was
// overwritten.
func TestCrashConflictAtEveryWrite(t *testing.T) {
	t.Parallel()
	fx := readReplayFixture(t, "observed-group")
	r := newReplayRun(t, fx)
	w := &secondWriter{f: r.fixture, pending: map[string]bool{}, last: map[string]string{}}
	r.newClient = w.wrap
	r.run()
	r.compare()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.conflicts == 0 {
		t.Fatal("no write met a conflict: the test provoked none")
	}
	t.Logf("%d writes met a conflict, on %d objects", w.conflicts, len(w.last))
	for key, want := range w.last {
		obj := w.objects[key]
		if err := r.c.Get(r.ctx, client.ObjectKeyFromObject(obj), obj); err != nil {
			if apierrors.IsNotFound(err) {
				continue // a Work the controllers deleted
			}
			t.Fatal(err)
		}
		if got := obj.GetAnnotations()[secondWriterAnnotation]; got != want {
			t.Errorf("%s: the second writer's change %q was overwritten (now %q)", key, want, got)
		}
	}
}

// secondWriter changes an object just before the controllers' first
// attempt to write it; their retry, on the object read again, goes through.
type secondWriter struct {
	f *fixture

	// patchMu orders the second writer's own changes with their record:
	// two workers writing one object at once must not leave last naming
	// the change that landed first.
	patchMu sync.Mutex

	mu        sync.Mutex
	pending   map[string]bool // objects whose next write is a retry after a conflict
	last      map[string]string
	objects   map[string]client.Object
	n         int
	conflicts int
}

func (w *secondWriter) wrap(c client.WithWatch) client.Client {
	return interceptor.NewClient(c, interceptor.Funcs{
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			return w.write(ctx, obj, func() error { return c.Update(ctx, obj, opts...) })
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			return w.write(ctx, obj, func() error { return c.Patch(ctx, obj, patch, opts...) })
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			return w.write(ctx, obj, func() error { return c.SubResource(sub).Update(ctx, obj, opts...) })
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			return w.write(ctx, obj, func() error { return c.SubResource(sub).Patch(ctx, obj, patch, opts...) })
		},
	})
}

// write sends the controllers' write; on its first attempt the second
// writer changes the object first.
func (w *secondWriter) write(ctx context.Context, obj client.Object, send func() error) error {
	var empty client.Object
	switch obj.(type) {
	case *workv1alpha2.ResourceBinding:
		empty = &workv1alpha2.ResourceBinding{}
	case *workv1alpha2.ClusterResourceBinding:
		empty = &workv1alpha2.ClusterResourceBinding{}
	case *clusterv1alpha1.Cluster:
		empty = &clusterv1alpha1.Cluster{}
	case *workv1alpha1.Work:
		empty = &workv1alpha1.Work{}
	default:
		return send()
	}
	key := fmt.Sprintf("%T %s", obj, client.ObjectKeyFromObject(obj))
	w.mu.Lock()
	retry := w.pending[key]
	w.n++
	value := strconv.Itoa(w.n)
	w.mu.Unlock()
	if !retry && obj.GetResourceVersion() != "" {
		empty.SetNamespace(obj.GetNamespace())
		empty.SetName(obj.GetName())
		patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q}}}`, secondWriterAnnotation, value)
		w.patchMu.Lock()
		err := w.f.c.Patch(ctx, empty, client.RawPatch(types.MergePatchType, []byte(patch)))
		if err == nil {
			w.mu.Lock()
			w.last[key] = value
			if w.objects == nil {
				w.objects = map[string]client.Object{}
			}
			w.objects[key] = empty
			w.mu.Unlock()
		}
		w.patchMu.Unlock()
		if err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	err := send()
	w.mu.Lock()
	// The controllers' next attempt at this object is their retry.
	w.pending[key] = apierrors.IsConflict(err)
	if apierrors.IsConflict(err) {
		w.conflicts++
	}
	w.mu.Unlock()
	return err
}
