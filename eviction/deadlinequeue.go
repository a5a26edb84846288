package eviction

import (
	"errors"
	"fmt"
	"math"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/clock"
)

// MaxDeadlineQueueInitialCapacity bounds DeadlineQueueConfig.InitialCapacity:
// 2^22 keys (a few hundred megabytes of heap and index up front) covers the
// millions of pending keys the queue is built for (it grows past its
// initial capacity anyway), and stays far below a size whose allocation
// panics or kills the process with an out-of-memory error that no recover
// catches.
const MaxDeadlineQueueInitialCapacity = 1 << 22

// ErrInvalidDeadlineQueueConfig is wrapped by NewDeadlineQueue for a
// configuration ValidateDeadlineQueueConfig rejects.
var ErrInvalidDeadlineQueueConfig = errors.New("invalid deadline queue configuration")

// DeadlineQueue holds keys until their deadline and hands each out once,
// earliest deadline first. Each key is pending at most once: adding it
// again updates its deadline instead of queueing a duplicate. It is safe
// for concurrent use.
//
// The queue keeps a min-heap of deadlines with an index by key, so Add, Set
// and Cancel cost O(log n) and a whole queue of any size runs on one timer;
// no goroutine or timer is started per key.
//
// It is kept rather than client-go's delaying workqueue, which also holds
// each key once on one timer, because it costs less and does more: 97.5
// bytes per pending key at 1,000,000 keys against the workqueue's 113
// (BenchmarkDeadlineQueueMemory beside BenchmarkDelayingWorkqueueMemory, in
// docs/performance.md), and it can Cancel a key, move its deadline later
// with Set and report it with Deadline, none of which the workqueue offers.
type DeadlineQueue[K comparable] interface {
	// Add makes key due at deadline. If key is already pending, the earlier
	// of the two deadlines wins: a later one is ignored, so repeated Adds
	// from different events never postpone a due look.
	Add(key K, deadline time.Time)
	// AddAfter is Add with a deadline d after the queue clock's now.
	AddAfter(key K, d time.Duration)
	// Set makes key due at deadline, replacing any pending deadline, earlier
	// or later. Use it when the new deadline supersedes the old one (a
	// countdown was reset by a persisted change).
	Set(key K, deadline time.Time)
	// Cancel forgets key and reports whether it was pending.
	Cancel(key K) bool
	// Deadline returns key's pending deadline.
	Deadline(key K) (deadline time.Time, pending bool)
	// Len is the number of pending keys.
	Len() int
	// Get blocks until the earliest pending key is due, removes it and
	// returns it. It returns shutdown=true once the queue is shut down (and,
	// after ShutDownWithDrain, emptied).
	Get() (key K, shutdown bool)
	// TryGet removes and returns the earliest key if it is due now, without
	// blocking.
	TryGet() (key K, ok bool)
	// ShutDown drops every pending key and makes every Get return
	// shutdown=true. Later Adds are ignored.
	ShutDown()
	// ShutDownWithDrain stops accepting keys and makes Get hand out the
	// pending keys at once, in deadline order, without waiting for their
	// deadlines, then return shutdown=true. It does not block. Callers use
	// it to persist or process outstanding work before exiting; a decision
	// taken early is harmless because decisions depend only on the
	// persisted state and the time.
	ShutDownWithDrain()
	// ShuttingDown reports whether a shutdown was requested.
	ShuttingDown() bool
}

// DeadlineQueueMetrics observes a deadline queue. Calls are made with the
// queue's lock held: implementations must be quick and must not call back
// into the queue.
type DeadlineQueueMetrics interface {
	// Depth is called with the number of pending keys after each change.
	Depth(n int)
	// Handed is called when Get or TryGet hands out a key, with how late it
	// was against its deadline.
	Handed(lateness time.Duration)
}

type noopDeadlineQueueMetrics struct{}

func (noopDeadlineQueueMetrics) Depth(int)            {}
func (noopDeadlineQueueMetrics) Handed(time.Duration) {}

// DeadlineQueueConfig configures NewDeadlineQueue; the zero value is ready
// to use.
type DeadlineQueueConfig struct {
	// Clock drives deadlines; nil means the real clock.
	Clock clock.Clock
	// Metrics observes the queue; nil means no metrics.
	Metrics DeadlineQueueMetrics
	// InitialCapacity sizes the heap and index up front for callers that
	// know their scale; 0 lets them grow. At most
	// MaxDeadlineQueueInitialCapacity.
	InitialCapacity int
}

// ValidateDeadlineQueueConfig checks cfg as NewDeadlineQueue does:
// InitialCapacity is between 0 and MaxDeadlineQueueInitialCapacity.
func ValidateDeadlineQueueConfig(cfg DeadlineQueueConfig, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if c := cfg.InitialCapacity; c < 0 || c > MaxDeadlineQueueInitialCapacity {
		errs = append(errs, field.Invalid(fldPath.Child("initialCapacity"), c,
			fmt.Sprintf("must be between 0 and %d", MaxDeadlineQueueInitialCapacity)))
	}
	return errs
}

// NewDeadlineQueue returns an empty DeadlineQueue. It refuses a cfg
// ValidateDeadlineQueueConfig rejects with an error wrapping
// ErrInvalidDeadlineQueueConfig, instead of trying an allocation that
// could take the process down.
func NewDeadlineQueue[K comparable](cfg DeadlineQueueConfig) (DeadlineQueue[K], error) {
	if errs := ValidateDeadlineQueueConfig(cfg, field.NewPath("deadlineQueue")); len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrInvalidDeadlineQueueConfig, errs.ToAggregate())
	}
	q := &deadlineQueue[K]{clock: cfg.Clock, metrics: cfg.Metrics}
	if q.clock == nil {
		q.clock = clock.RealClock{}
	}
	if q.metrics == nil {
		q.metrics = noopDeadlineQueueMetrics{}
	}
	if cfg.InitialCapacity > 0 {
		q.heap = make([]heapItem[K], 0, cfg.InitialCapacity)
		q.index = make(map[K]*deadlineEntry[K], cfg.InitialCapacity)
	} else {
		q.index = make(map[K]*deadlineEntry[K])
	}
	return q, nil
}

// deadlineEntry is one pending key and its position in the heap.
type deadlineEntry[K comparable] struct {
	key K
	pos int
}

// heapItem is one heap slot. The deadline lives in the slot, not behind the
// pointer, so comparisons read the heap array only; with 16-byte slots the
// four children of a node share one cache line. Deadlines are Unix
// nanoseconds to keep slots small at millions of pending keys.
type heapItem[K comparable] struct {
	at int64
	e  *deadlineEntry[K]
}

type deadlineQueue[K comparable] struct {
	clock   clock.Clock
	metrics DeadlineQueueMetrics

	mu    sync.Mutex
	heap  []heapItem[K] // a 4-ary min-heap on at
	index map[K]*deadlineEntry[K]

	// One timer serves the whole queue; it is armed by a waiting Get for
	// the earliest deadline only.
	timer      clock.Timer
	timerArmed bool
	timerAt    int64

	// wake is closed to make every waiting Get look again; it is created
	// only while someone waits.
	wake    chan struct{}
	waiters int

	shuttingDown bool
	drain        bool
}

// Time bounds that fit in int64 nanoseconds; deadlines beyond them are
// clamped, which only matters for deadlines centuries away.
var (
	minNanosTime = time.Unix(0, math.MinInt64)
	maxNanosTime = time.Unix(0, math.MaxInt64)
)

func toNanos(t time.Time) int64 {
	switch {
	case t.Before(minNanosTime):
		return math.MinInt64
	case t.After(maxNanosTime):
		return math.MaxInt64
	default:
		return t.UnixNano()
	}
}

func (q *deadlineQueue[K]) Add(key K, deadline time.Time) {
	q.upsert(key, toNanos(deadline), false)
}

func (q *deadlineQueue[K]) AddAfter(key K, d time.Duration) {
	q.upsert(key, toNanos(q.clock.Now().Add(d)), false)
}

func (q *deadlineQueue[K]) Set(key K, deadline time.Time) {
	q.upsert(key, toNanos(deadline), true)
}

func (q *deadlineQueue[K]) upsert(key K, at int64, replace bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.shuttingDown {
		return
	}
	top, topAt := q.peekLocked()
	if e, ok := q.index[key]; ok {
		cur := q.heap[e.pos].at
		switch {
		case at < cur:
			q.heap[e.pos].at = at
			q.up(e.pos)
		case at > cur && replace:
			q.heap[e.pos].at = at
			q.down(e.pos)
		default:
			return
		}
	} else {
		e := &deadlineEntry[K]{key: key, pos: len(q.heap)}
		q.heap = append(q.heap, heapItem[K]{at: at, e: e})
		q.index[key] = e
		q.up(e.pos)
		q.metrics.Depth(len(q.heap))
	}
	q.wakeIfTopChangedLocked(top, topAt)
}

func (q *deadlineQueue[K]) Cancel(key K) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	e, ok := q.index[key]
	if !ok {
		return false
	}
	top, topAt := q.peekLocked()
	q.removeLocked(e)
	q.metrics.Depth(len(q.heap))
	q.wakeIfTopChangedLocked(top, topAt)
	return true
}

func (q *deadlineQueue[K]) Deadline(key K) (time.Time, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if e, ok := q.index[key]; ok {
		return time.Unix(0, q.heap[e.pos].at), true
	}
	return time.Time{}, false
}

func (q *deadlineQueue[K]) Len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.heap)
}

func (q *deadlineQueue[K]) ShuttingDown() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.shuttingDown
}

func (q *deadlineQueue[K]) ShutDown() {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.shuttingDown, q.drain = true, false
	clear(q.heap)
	q.heap = q.heap[:0]
	clear(q.index)
	q.metrics.Depth(0)
	q.stopTimerLocked()
	q.broadcastLocked()
}

func (q *deadlineQueue[K]) ShutDownWithDrain() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if !q.shuttingDown {
		q.shuttingDown, q.drain = true, true
	}
	q.stopTimerLocked()
	q.broadcastLocked()
}

func (q *deadlineQueue[K]) TryGet() (key K, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.heap) == 0 {
		return key, false
	}
	now := toNanos(q.clock.Now())
	if !(q.shuttingDown && q.drain) && q.heap[0].at > now {
		return key, false
	}
	return q.popLocked(now), true
}

func (q *deadlineQueue[K]) Get() (key K, shutdown bool) {
	q.mu.Lock()
	for {
		if q.shuttingDown && (!q.drain || len(q.heap) == 0) {
			q.mu.Unlock()
			return key, true
		}
		var timerC <-chan time.Time
		if len(q.heap) > 0 {
			now := toNanos(q.clock.Now())
			if q.shuttingDown || q.heap[0].at <= now {
				key = q.popLocked(now)
				q.mu.Unlock()
				return key, false
			}
			at := q.heap[0].at
			q.armTimerLocked(at, now)
			if rearmWhileClockMoves(q.clock, at, now, func(now int64) {
				q.timerArmed = false // the same deadline, armed from a new time
				q.armTimerLocked(at, now)
			}) {
				q.timerArmed = false
				continue // due by now: handed out above
			}
			timerC = q.timer.C()
		}
		if q.wake == nil {
			q.wake = make(chan struct{})
		}
		wake := q.wake
		q.waiters++
		q.mu.Unlock()

		fired := false
		select {
		case <-wake:
		case <-timerC:
			fired = true
		}

		q.mu.Lock()
		q.waiters--
		if fired {
			q.timerArmed = false
		}
	}
}

// popLocked removes the earliest entry. Other waiters are woken so one of
// them re-arms the timer for the next deadline.
func (q *deadlineQueue[K]) popLocked(now int64) K {
	e, at := q.heap[0].e, q.heap[0].at
	q.removeLocked(e)
	q.metrics.Depth(len(q.heap))
	late := time.Duration(0)
	if now > at && at != math.MinInt64 {
		late = time.Duration(now - at)
	}
	q.metrics.Handed(late)
	if q.waiters > 0 {
		q.broadcastLocked()
	}
	return e.key
}

func (q *deadlineQueue[K]) armTimerLocked(at, now int64) {
	if q.timerArmed && q.timerAt == at {
		return
	}
	d := time.Duration(at - now)
	if at-now < 0 { // overflow on clamped deadlines
		d = time.Duration(math.MaxInt64)
	}
	if q.timer == nil {
		q.timer = q.clock.NewTimer(d)
	} else {
		q.timer.Stop()
		// Drop a fire nobody consumed, so the next one is not mistaken
		// for this deadline (and so a fake clock never blocks sending).
		select {
		case <-q.timer.C():
		default:
		}
		q.timer.Reset(d)
	}
	q.timerArmed, q.timerAt = true, at
}

// maxRearms bounds how often a timer is armed again because the clock
// moved while it was armed. A fake clock moves only when stepped, so the
// first arming it does not move across is exact; the real clock always
// moves a little, and the nanoseconds it moved by do not matter: once
// more is enough there, and a bound keeps a wait from spinning on it.
const maxRearms = 3

// rearmWhileClockMoves reads clk again after a timer was armed for at
// (nanoseconds, as toNanos gives them), read at now, and calls rearm with
// the new time while the clock moved in between, up to maxRearms times: a
// timer counts from its arming, so a clock step between the read and the
// arming would make it fire a step late, and under a fake clock that is
// not stepped again, never. It reports whether at came meanwhile: the
// caller then looks again instead of waiting on the timer. DeadlineQueue's
// Get and Pacer's Wait arm this way.
func rearmWhileClockMoves(clk clock.PassiveClock, at, now int64, rearm func(now int64)) (due bool) {
	for range maxRearms {
		after := toNanos(clk.Now())
		if after == now {
			return false
		}
		if at <= after {
			return true
		}
		now = after
		rearm(now)
	}
	return false
}

func (q *deadlineQueue[K]) stopTimerLocked() {
	if q.timer != nil && q.timerArmed {
		q.timer.Stop()
		q.timerArmed = false
	}
}

func (q *deadlineQueue[K]) broadcastLocked() {
	if q.wake != nil {
		close(q.wake)
		q.wake = nil
	}
}

func (q *deadlineQueue[K]) peekLocked() (*deadlineEntry[K], int64) {
	if len(q.heap) == 0 {
		return nil, 0
	}
	return q.heap[0].e, q.heap[0].at
}

// wakeIfTopChangedLocked wakes waiting Gets when the earliest deadline
// changed, so they wait for the right one.
func (q *deadlineQueue[K]) wakeIfTopChangedLocked(oldTop *deadlineEntry[K], oldAt int64) {
	if q.waiters == 0 {
		return
	}
	top, at := q.peekLocked()
	if top != oldTop || at != oldAt {
		q.broadcastLocked()
	}
}

func (q *deadlineQueue[K]) removeLocked(e *deadlineEntry[K]) {
	last := len(q.heap) - 1
	i := e.pos
	if i != last {
		q.heap[i] = q.heap[last]
		q.heap[i].e.pos = i
	}
	q.heap[last] = heapItem[K]{}
	q.heap = q.heap[:last]
	delete(q.index, e.key)
	if i != last {
		if !q.down(i) {
			q.up(i)
		}
	}
}

// heapArity is the heap's branching factor: four children per node halve
// the depth of a binary heap and fit one cache line.
const heapArity = 4

// up moves the item at i towards the root, shifting parents down instead
// of swapping.
func (q *deadlineQueue[K]) up(i int) {
	h := q.heap
	item := h[i]
	for i > 0 {
		parent := (i - 1) / heapArity
		if h[parent].at <= item.at {
			break
		}
		h[i] = h[parent]
		h[i].e.pos = i
		i = parent
	}
	h[i] = item
	h[i].e.pos = i
}

// down moves the item at i0 towards the leaves and reports whether it moved.
func (q *deadlineQueue[K]) down(i0 int) bool {
	h := q.heap
	n := len(h)
	item := h[i0]
	i := i0
	for {
		first := heapArity*i + 1
		if first >= n || first < 0 {
			break
		}
		m := first
		end := min(first+heapArity, n)
		for c := first + 1; c < end; c++ {
			if h[c].at < h[m].at {
				m = c
			}
		}
		if h[m].at >= item.at {
			break
		}
		h[i] = h[m]
		h[i].e.pos = i
		i = m
	}
	h[i] = item
	h[i].e.pos = i
	return i > i0
}
