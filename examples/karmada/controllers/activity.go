package controllers

import (
	"fmt"
	"sync"
	"time"

	"k8s.io/utils/clock"
)

// Activity follows the work the controllers' queues hold, so that a caller
// that drives them with a fake clock (a test, a replay) can wait until they
// are idle instead of sleeping: no item queued, no reconcile running, no
// error retry waiting, and no requested look due on the clock. Set it in
// Config.Activity; it is used only with a fake clock, since with the real
// one the controllers run on controller-runtime's own queues.
//
// Idle says nothing of events still on their way from the API server to
// the controllers' informers: a caller that wrote an object waits for the
// informers to see it first.
type Activity struct {
	clock clock.PassiveClock

	mu       sync.Mutex
	queues   []lengther
	expected int // queues Setup registers controllers for
	// serving are the queues whose workers have asked for an item: a
	// controller starts them once its informers have handed it every
	// object they listed, so before that an empty queue means nothing.
	serving  map[lengther]bool
	inFlight int
	// waiting are the items a queue will hand out later: the looks
	// requested on the clock (due) and the error retries, which wait on
	// the real clock's backoff (retry).
	waiting map[activityKey]waitingItem
	changed chan struct{}
}

type lengther interface{ Len() int }

type activityKey struct {
	queue lengther
	item  any
}

type waitingItem struct {
	due   time.Time
	retry bool
	// release hands the item to its queue now.
	release func()
}

// NewActivity returns an Activity that reads due times from clk, the fake
// clock the controllers run on.
func NewActivity(clk clock.PassiveClock) *Activity {
	return &Activity{clock: clk, waiting: map[activityKey]waitingItem{}, serving: map[lengther]bool{}, changed: make(chan struct{})}
}

// Idle reports whether the controllers have nothing to do now.
func (a *Activity) Idle() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.inFlight > 0 || len(a.queues) < a.expected || len(a.serving) < a.expected {
		// A controller whose queue does not exist yet, or whose workers
		// have not started, has not seen the objects it starts from (a
		// restarted process lists them first).
		return false
	}
	for _, q := range a.queues {
		if q.Len() > 0 {
			return false
		}
	}
	now := a.clock.Now()
	for _, w := range a.waiting {
		if w.retry || !w.due.After(now) {
			return false
		}
	}
	return true
}

// String says what keeps the controllers busy, for diagnostics.
func (a *Activity) String() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	queued := 0
	for _, q := range a.queues {
		queued += q.Len()
	}
	due, retries := 0, 0
	now := a.clock.Now()
	for _, w := range a.waiting {
		switch {
		case w.retry:
			retries++
		case !w.due.After(now):
			due++
		}
	}
	return fmt.Sprintf("%d of %d queues started (%d serving), %d queued, %d running, %d due, %d retrying", len(a.queues), a.expected, len(a.serving), queued, a.inFlight, due, retries)
}

// Changed returns a channel that is closed at the next change: an item
// queued, taken, finished or scheduled.
func (a *Activity) Changed() <-chan struct{} {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.changed
}

// changeLocked wakes the waiters of Changed.
func (a *Activity) changeLocked() {
	close(a.changed)
	a.changed = make(chan struct{})
}

// expect records that n more controllers will register their queues.
func (a *Activity) expect(n int) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.expected += n
}

func (a *Activity) register(q lengther) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.queues = append(a.queues, q)
	a.changeLocked()
}

// serve records that q's workers run: its controller has synced.
func (a *Activity) serve(q lengther) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.serving[q] {
		a.serving[q] = true
		a.changeLocked()
	}
}

func (a *Activity) added() {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.changeLocked()
}

// ReleaseDue hands every queue the looks that are due on the clock and
// not delivered yet. The delaying queue under a fake clock can miss a
// step: it arms its timer from the time it last read, and a step between
// that read and the arming puts the timer a step late. A caller that
// steps the clock and waits for the controllers calls it after each
// step; a look it hands over early is delivered again later, which a
// reconcile takes as one more look.
func (a *Activity) ReleaseDue() {
	a.mu.Lock()
	now := a.clock.Now()
	var due []func()
	for _, w := range a.waiting {
		if !w.retry && !w.due.IsZero() && !w.due.After(now) && w.release != nil {
			due = append(due, w.release)
		}
	}
	a.mu.Unlock()
	for _, release := range due {
		release()
	}
}

// scheduled records a look at item due at due (the earliest request wins,
// as in the delaying queue), or an error retry; release hands the item to
// its queue at once.
func (a *Activity) scheduled(q lengther, item any, due time.Time, retry bool, release func()) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	k := activityKey{q, item}
	w, ok := a.waiting[k]
	switch {
	case retry:
		w.retry = true
	case !ok || w.due.IsZero() || due.Before(w.due):
		w.due = due
	}
	w.release = release
	a.waiting[k] = w
	a.changeLocked()
}

// took records a reconcile starting on item: a retry or a due look of
// it is served by this one.
func (a *Activity) took(q lengther, item any) {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.inFlight++
	k := activityKey{q, item}
	if w, ok := a.waiting[k]; ok {
		w.retry = false
		if !w.due.After(a.clock.Now()) {
			w.due = time.Time{}
		}
		if w.due.IsZero() {
			delete(a.waiting, k)
		} else {
			a.waiting[k] = w
		}
	}
	a.changeLocked()
}

func (a *Activity) done() {
	if a == nil {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.inFlight--
	a.changeLocked()
}
