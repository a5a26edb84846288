package controllers

import (
	"sync"
	"time"

	"golang.org/x/time/rate"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Schedule turns the library's "look again at T" answers into
// controller-runtime's Result.RequeueAfter, and remembers the last answer
// per object so tests and diagnostics can see when an object is due. A nil
// *Schedule only computes the result.
type Schedule struct {
	mu      sync.Mutex
	pending map[types.NamespacedName]time.Time
}

// NewSchedule returns an empty Schedule.
func NewSchedule() *Schedule {
	return &Schedule{pending: map[types.NamespacedName]time.Time{}}
}

// Result asks for a look at key at at, seen from now: RequeueAfter is the
// wait, a look already due is requeued at once (the smallest positive
// wait), and a zero at asks for no look.
func (s *Schedule) Result(key types.NamespacedName, now, at time.Time) reconcile.Result {
	if s != nil {
		s.mu.Lock()
		if at.IsZero() {
			delete(s.pending, key)
		} else {
			s.pending[key] = at
		}
		s.mu.Unlock()
	}
	if at.IsZero() {
		return reconcile.Result{}
	}
	return reconcile.Result{RequeueAfter: max(at.Sub(now), dueNow)}
}

// Forget drops key's pending look (the object is gone).
func (s *Schedule) Forget(key types.NamespacedName) {
	if s == nil {
		return
	}
	s.mu.Lock()
	delete(s.pending, key)
	s.mu.Unlock()
}

// Pending returns when key is due, for tests and diagnostics.
func (s *Schedule) Pending(key types.NamespacedName) (time.Time, bool) {
	if s == nil {
		return time.Time{}, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	at, ok := s.pending[key]
	return at, ok
}

// dueNow is the RequeueAfter of a look that is already due.
const dueNow = time.Nanosecond

// QueueOptions tune a controller's work queue and workers. The zero value
// is controller-runtime's defaults.
type QueueOptions struct {
	// Activity, when set, follows the queue (see Activity); used only
	// with a fake clock.
	Activity *Activity
	// MaxConcurrentReconciles is how many objects the controller works on
	// at once; zero is one.
	MaxConcurrentReconciles int
	// RateLimiter paces the retries after errors; zero fields are
	// controller-runtime's default.
	RateLimiter RateLimiterOptions
}

// RateLimiterOptions configure the retry backoff of every controller's
// queue, as karmada-controller-manager's --rate-limiter-* flags do: an
// exponential per-object delay from BaseDelay up to MaxDelay, and no more
// than QPS retries a second after a burst of BucketSize. The zero value is
// controller-runtime's default limiter.
type RateLimiterOptions struct {
	BaseDelay  time.Duration
	MaxDelay   time.Duration
	QPS        int
	BucketSize int
}

// limiter returns a new rate limiter (each controller has its own), or
// nil for controller-runtime's default.
func (o RateLimiterOptions) limiter() workqueue.TypedRateLimiter[reconcile.Request] {
	if o == (RateLimiterOptions{}) {
		return nil
	}
	return workqueue.NewTypedMaxOfRateLimiter(
		workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](o.BaseDelay, o.MaxDelay),
		&workqueue.TypedBucketRateLimiter[reconcile.Request]{Limiter: rate.NewLimiter(rate.Limit(o.QPS), o.BucketSize)},
	)
}

// controllerOptions returns the options of every controller: its workers
// and retry backoff from q and, with a clock other than the real one (a
// test's fake clock), a queue whose RequeueAfter waits on that clock, so
// stepping it triggers the looks that fall due; retries after errors keep
// the real clock's backoff.
func controllerOptions(clk clock.PassiveClock, q QueueOptions) controller.Options {
	opts := controller.Options{MaxConcurrentReconciles: q.MaxConcurrentReconciles, RateLimiter: q.RateLimiter.limiter()}
	ticker, ok := fakeTicker(clk)
	if !ok {
		return opts
	}
	opts.UsePriorityQueue = ptr.To(false)
	opts.NewQueue = func(name string, rl workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
		return newClockQueue(name, ticker, rl, q.Activity)
	}
	return opts
}

// fakeTicker returns clk when the controllers' queues wait on it: a clock
// other than the real one, with timers.
func fakeTicker(clk clock.PassiveClock) (clock.WithTicker, bool) {
	if _, real := clk.(clock.RealClock); real {
		return nil, false
	}
	ticker, ok := clk.(clock.WithTicker)
	return ticker, ok
}

// clockQueue is a rate-limiting queue whose AddAfter (controller-runtime's
// RequeueAfter) waits on clk while AddRateLimited (error backoff) waits on
// the real clock; both feed one queue. It reports what it holds to
// activity, when set.
type clockQueue[T comparable] struct {
	workqueue.TypedRateLimitingInterface[T]
	scheduled workqueue.TypedDelayingInterface[T]
	clock     clock.PassiveClock
	base      workqueue.TypedInterface[T]
	activity  *Activity
}

func newClockQueue[T comparable](name string, clk clock.WithTicker, rl workqueue.TypedRateLimiter[T], activity *Activity) *clockQueue[T] {
	base := workqueue.NewTypedWithConfig(workqueue.TypedQueueConfig[T]{Name: name})
	activity.register(base)
	return &clockQueue[T]{
		TypedRateLimitingInterface: workqueue.NewTypedRateLimitingQueueWithConfig(rl, workqueue.TypedRateLimitingQueueConfig[T]{
			DelayingQueue: workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[T]{Queue: base}),
		}),
		scheduled: workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[T]{Clock: clk, Queue: base}),
		clock:     clk,
		base:      base,
		activity:  activity,
	}
}

func (q *clockQueue[T]) Add(item T) {
	q.TypedRateLimitingInterface.Add(item)
	q.activity.added()
}

func (q *clockQueue[T]) AddAfter(item T, d time.Duration) {
	if d <= dueNow {
		q.Add(item)
		return
	}
	q.activity.scheduled(q.base, item, q.clock.Now().Add(d), false, func() { q.base.Add(item) })
	q.scheduled.AddAfter(item, d)
}

func (q *clockQueue[T]) AddRateLimited(item T) {
	q.activity.scheduled(q.base, item, time.Time{}, true, nil)
	q.TypedRateLimitingInterface.AddRateLimited(item)
}

func (q *clockQueue[T]) Get() (T, bool) {
	// Workers ask for items only once the controller's sources synced.
	q.activity.serve(q.base)
	item, shutdown := q.TypedRateLimitingInterface.Get()
	if !shutdown {
		q.activity.took(q.base, item)
	}
	return item, shutdown
}

func (q *clockQueue[T]) Done(item T) {
	q.TypedRateLimitingInterface.Done(item)
	q.activity.done()
}

func (q *clockQueue[T]) ShutDown() {
	q.scheduled.ShutDown()
	q.TypedRateLimitingInterface.ShutDown()
}

func (q *clockQueue[T]) ShutDownWithDrain() {
	q.scheduled.ShutDown()
	q.TypedRateLimitingInterface.ShutDownWithDrain()
}

// setupController registers a reconciler of obj's kind with the options
// for clk.
func setupController(mgr manager.Manager, name string, obj client.Object, clk clock.PassiveClock, q QueueOptions, r reconcile.Reconciler) error {
	return builder.ControllerManagedBy(mgr).
		Named(name).
		For(obj).
		WithOptions(controllerOptions(clk, q)).
		Complete(r)
}
