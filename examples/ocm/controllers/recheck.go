package controllers

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/fleetover/fleetover/eviction"
)

// Rechecker turns the library's "look again at T" answers into reconcile
// requests. It keeps the pending looks in one eviction.DeadlineQueue (one
// timer for the whole controller, however many objects wait) driven by the
// controller's clock, so a test that steps a fake clock triggers the looks
// that fall due: controller-runtime's RequeueAfter runs on the wall clock
// and could not be stepped.
//
// A Rechecker is a manager Runnable: add it to the manager and watch its
// Source.
type Rechecker struct {
	queue  eviction.DeadlineQueue[types.NamespacedName]
	events chan event.GenericEvent
}

// NewRechecker returns a Rechecker on clk, reporting its depth and lateness
// to metrics (nil for none).
func NewRechecker(clk clock.Clock, metrics eviction.DeadlineQueueMetrics) (*Rechecker, error) {
	queue, err := eviction.NewDeadlineQueue[types.NamespacedName](eviction.DeadlineQueueConfig{Clock: clk, Metrics: metrics})
	if err != nil {
		return nil, err
	}
	return &Rechecker{queue: queue, events: make(chan event.GenericEvent, 1024)}, nil
}

// At asks for a look at key no later than at; an earlier pending look
// wins. A zero at is ignored.
func (r *Rechecker) At(key types.NamespacedName, at time.Time) {
	if at.IsZero() {
		return
	}
	r.queue.Add(key, at)
}

// Replace asks for a look at key at exactly at, dropping any other pending
// look; a zero at cancels the pending look.
func (r *Rechecker) Replace(key types.NamespacedName, at time.Time) {
	if at.IsZero() {
		r.queue.Cancel(key)
		return
	}
	r.queue.Set(key, at)
}

// Cancel drops the pending look at key.
func (r *Rechecker) Cancel(key types.NamespacedName) { r.queue.Cancel(key) }

// Pending returns when key is due, for tests and diagnostics.
func (r *Rechecker) Pending(key types.NamespacedName) (time.Time, bool) {
	return r.queue.Deadline(key)
}

// Source feeds the due keys to a controller as generic events.
func (r *Rechecker) Source() source.Source {
	return source.Channel(r.events, &handler.EnqueueRequestForObject{})
}

// Start hands due keys to the controller until ctx ends.
func (r *Rechecker) Start(ctx context.Context) error {
	go func() {
		<-ctx.Done()
		r.queue.ShutDown()
	}()
	for {
		key, shutdown := r.queue.Get()
		if shutdown {
			return nil
		}
		obj := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}}
		select {
		case r.events <- event.GenericEvent{Object: obj}:
		case <-ctx.Done():
			return nil
		}
	}
}

// setupWithRechecker registers a reconciler of obj's kind that also wakes
// up when its Rechecker says a look is due, and adds the Rechecker to the
// manager.
func setupWithRechecker(mgr manager.Manager, name string, obj client.Object, recheck *Rechecker, r reconcile.Reconciler) error {
	if err := mgr.Add(recheck); err != nil {
		return err
	}
	return builder.ControllerManagedBy(mgr).
		Named(name).
		For(obj).
		WatchesRawSource(recheck.Source()).
		Complete(r)
}
