package eviction

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/utils/clock"
	clocktesting "k8s.io/utils/clock/testing"
)

func newTestQueue(t *testing.T) (DeadlineQueue[string], *clocktesting.FakeClock) {
	t.Helper()
	clk := clocktesting.NewFakeClock(t0)
	return mustOK(NewDeadlineQueue[string](DeadlineQueueConfig{Clock: clk})), clk
}

func mustDeadline(t *testing.T, q DeadlineQueue[string], key string, want time.Time) {
	t.Helper()
	got, ok := q.Deadline(key)
	if !ok || !got.Equal(want) {
		t.Fatalf("deadline of %s = %v, %v; want %v", key, got, ok, want)
	}
}

func TestDeadlineQueueAddIsIdempotentEarliestWins(t *testing.T) {
	q, _ := newTestQueue(t)
	q.Add("a", t0.Add(10*time.Second))
	q.Add("a", t0.Add(10*time.Second))
	q.AddAfter("a", 20*time.Second) // later: ignored
	if q.Len() != 1 {
		t.Fatalf("len %d", q.Len())
	}
	mustDeadline(t, q, "a", t0.Add(10*time.Second))
	q.Add("a", t0.Add(5*time.Second)) // earlier: moves
	mustDeadline(t, q, "a", t0.Add(5*time.Second))
	q.Set("a", t0.Add(30*time.Second)) // Set replaces, later too
	mustDeadline(t, q, "a", t0.Add(30*time.Second))
	q.Set("a", t0.Add(time.Second))
	mustDeadline(t, q, "a", t0.Add(time.Second))
	if q.Len() != 1 {
		t.Fatalf("len %d", q.Len())
	}
}

func TestDeadlineQueueCancel(t *testing.T) {
	q, clk := newTestQueue(t)
	q.Add("a", t0)
	q.Add("b", t0.Add(time.Second))
	if !q.Cancel("a") || q.Cancel("a") || q.Cancel("missing") {
		t.Fatal("cancel results wrong")
	}
	if _, ok := q.Deadline("a"); ok || q.Len() != 1 {
		t.Fatal("cancelled key still pending")
	}
	clk.Step(time.Hour)
	if k, ok := q.TryGet(); !ok || k != "b" {
		t.Fatalf("got %q %v", k, ok)
	}
	if _, ok := q.TryGet(); ok {
		t.Fatal("cancelled key handed out")
	}
}

func TestDeadlineQueueHandsOutInDeadlineOrder(t *testing.T) {
	q, clk := newTestQueue(t)
	r := rand.New(rand.NewPCG(3, 4))
	want := map[string]time.Time{}
	for i := range 5000 {
		k := fmt.Sprint("k", i)
		at := t0.Add(time.Duration(1+r.IntN(1_000_000)) * time.Millisecond)
		q.Add(k, at)
		want[k] = at
		if i%5 == 0 { // replace with a later or earlier one
			at = t0.Add(time.Duration(1+r.IntN(1_000_000)) * time.Millisecond)
			q.Set(k, at)
			want[k] = at
		}
		if i%11 == 0 {
			q.Cancel(k)
			delete(want, k)
		}
	}
	if _, ok := q.TryGet(); ok {
		t.Fatal("handed out a key before its deadline")
	}
	// Step in slices: each key must come out only once due, in order.
	var prev time.Time
	got := 0
	for step := 0; step < 1100; step++ {
		clk.Step(time.Second)
		now := clk.Now()
		for {
			k, ok := q.TryGet()
			if !ok {
				break
			}
			at := want[k]
			if at.After(now) || at.Before(prev) {
				t.Fatalf("%s due %v handed at %v after %v", k, at, now, prev)
			}
			prev = at
			delete(want, k)
			got++
		}
	}
	if len(want) != 0 || q.Len() != 0 {
		t.Fatalf("%d keys never handed out, len %d", len(want), q.Len())
	}
}

// waitForTimer lets a goroutine blocked in Get arm the queue's timer,
// without sleeping.
func waitForTimer(clk *clocktesting.FakeClock) {
	for !clk.HasWaiters() {
		runtime.Gosched()
	}
}

func TestDeadlineQueueGetBlocksUntilDue(t *testing.T) {
	q, clk := newTestQueue(t)
	q.Add("late", t0.Add(10*time.Second))
	got := make(chan string, 2)
	go func() {
		for range 2 {
			k, shutdown := q.Get()
			if shutdown {
				return
			}
			got <- k
		}
	}()
	waitForTimer(clk)
	// An earlier key arrives while Get waits: it comes out first.
	q.Add("early", t0.Add(5*time.Second))
	clk.SetTime(t0.Add(4 * time.Second))
	for range 100 {
		runtime.Gosched()
	}
	select {
	case k := <-got:
		t.Fatalf("%s handed out before its deadline", k)
	default:
	}
	clk.SetTime(t0.Add(5 * time.Second))
	if k := <-got; k != "early" {
		t.Fatalf("got %s first", k)
	}
	waitForTimer(clk)
	clk.SetTime(t0.Add(10 * time.Second))
	if k := <-got; k != "late" {
		t.Fatalf("got %s second", k)
	}
}

// steppingClock is a fake clock that another goroutine steps at the worst
// moment: between a waiting Get's reading of the time and its arming of
// the timer (the first NewTimer).
type steppingClock struct {
	*clocktesting.FakeClock
	step time.Duration
	once sync.Once
}

func (c *steppingClock) NewTimer(d time.Duration) clock.Timer {
	c.once.Do(func() { c.FakeClock.Step(c.step) })
	return c.FakeClock.NewTimer(d)
}

// A step between reading the time and arming the timer does not make the
// timer late: the key is handed out when the clock reaches its deadline,
// not a step after it (under a fake clock stepped no further, never).
func TestDeadlineQueueClockStepWhileArming(t *testing.T) {
	clk := &steppingClock{FakeClock: clocktesting.NewFakeClock(t0), step: 5 * time.Second}
	q := mustOK(NewDeadlineQueue[string](DeadlineQueueConfig{Clock: clk}))
	q.Add("due", t0.Add(10*time.Second))
	got := make(chan string, 1)
	go func() {
		if k, shutdown := q.Get(); !shutdown {
			got <- k
		}
	}()
	for clk.Now().Before(t0.Add(5*time.Second)) || !clk.HasWaiters() {
		runtime.Gosched()
	}
	clk.SetTime(t0.Add(10 * time.Second))
	select {
	case k := <-got:
		if k != "due" {
			t.Fatalf("got %s", k)
		}
	case <-time.After(10 * time.Second):
		q.ShutDown()
		t.Fatal("the key due at +10s was not handed out with the clock at +10s: the timer was armed a step late")
	}
}

// countingClock is the real clock, counting the reads of the time.
type countingClock struct {
	clock.RealClock
	reads atomic.Int64
}

func (c *countingClock) Now() time.Time {
	c.reads.Add(1)
	return c.RealClock.Now()
}

// On the real clock, which moves between any two reads, Get waits on its
// timer instead of arming it again and again: a wait of 50 ms reads the
// time a few times, not thousands.
func TestDeadlineQueueRealClockWaitsWithoutSpinning(t *testing.T) {
	clk := &countingClock{}
	q := mustOK(NewDeadlineQueue[string](DeadlineQueueConfig{Clock: clk}))
	q.AddAfter("due", 50*time.Millisecond)
	if k, shutdown := q.Get(); shutdown || k != "due" {
		t.Fatalf("got %q, shutdown %t", k, shutdown)
	}
	if n := clk.reads.Load(); n > 20 {
		t.Fatalf("%d reads of the time for one wait: Get spins", n)
	}
}

func TestDeadlineQueueUsesOneTimer(t *testing.T) {
	q, clk := newTestQueue(t)
	for i := range 1000 {
		q.AddAfter(fmt.Sprint(i), time.Duration(i+1)*time.Second)
	}
	if clk.Waiters() != 0 {
		t.Fatalf("timers armed with nobody waiting: %d", clk.Waiters())
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 3 {
			q.Get()
		}
	}()
	waitForTimer(clk)
	if w := clk.Waiters(); w != 1 {
		t.Fatalf("%d timers for 1000 keys", w)
	}
	for {
		select {
		case <-done:
			if q.Len() != 997 {
				t.Fatalf("len %d", q.Len())
			}
			return
		default:
			clk.Step(time.Second)
			runtime.Gosched()
		}
	}
}

func TestDeadlineQueueShutDownDropsPending(t *testing.T) {
	q, clk := newTestQueue(t)
	q.Add("a", t0.Add(time.Hour))
	res := make(chan bool)
	go func() {
		_, shutdown := q.Get()
		res <- shutdown
	}()
	waitForTimer(clk)
	q.ShutDown()
	if !<-res {
		t.Fatal("Get did not report shutdown")
	}
	if q.Len() != 0 || !q.ShuttingDown() {
		t.Fatal("pending keys kept")
	}
	q.Add("b", t0)
	if q.Len() != 0 {
		t.Fatal("Add accepted after shutdown")
	}
	if _, shutdown := q.Get(); !shutdown {
		t.Fatal("Get after shutdown")
	}
}

func TestDeadlineQueueShutDownWithDrain(t *testing.T) {
	q, _ := newTestQueue(t)
	q.Add("b", t0.Add(2*time.Hour))
	q.Add("a", t0.Add(time.Hour))
	q.ShutDownWithDrain()
	q.Add("c", t0)
	var got []string
	for {
		k, shutdown := q.Get()
		if shutdown {
			break
		}
		got = append(got, k)
	}
	if !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("drained %v", got)
	}
}

func TestDeadlineQueueExtremeDeadlines(t *testing.T) {
	q, clk := newTestQueue(t)
	q.Add("past", time.Time{})
	q.Add("future", time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC))
	if k, ok := q.TryGet(); !ok || k != "past" {
		t.Fatalf("%q %v", k, ok)
	}
	if _, ok := q.TryGet(); ok {
		t.Fatal("far-future key handed out")
	}
	go q.Get()
	waitForTimer(clk) // arming a timer for a clamped deadline must not panic
	q.ShutDown()
}

func TestDeadlineQueueConcurrent(t *testing.T) {
	q, clk := newTestQueue(t)
	const producers, perProducer, consumers = 4, 500, 4
	var delivered sync.Map // key -> *atomic.Int32
	var count, expected atomic.Int64

	var cwg sync.WaitGroup
	for range consumers {
		cwg.Add(1)
		go func() {
			defer cwg.Done()
			for {
				k, shutdown := q.Get()
				if shutdown {
					return
				}
				n, _ := delivered.LoadOrStore(k, new(atomic.Int32))
				n.(*atomic.Int32).Add(1)
				count.Add(1)
			}
		}()
	}
	var pwg sync.WaitGroup
	twice := make([]map[string]bool, producers)
	for p := range producers {
		twice[p] = map[string]bool{}
		pwg.Add(1)
		go func() {
			defer pwg.Done()
			r := rand.New(rand.NewPCG(uint64(p), 9))
			for i := range perProducer {
				k := fmt.Sprintf("p%d-%d", p, i)
				q.AddAfter(k, time.Duration(r.IntN(100))*time.Millisecond)
				expected.Add(1)
				if i%10 == 0 {
					if !q.Cancel(k) {
						// Already handed out: the re-add is a second,
						// legitimate delivery.
						twice[p][k] = true
						expected.Add(1)
					}
					q.AddAfter(k, time.Duration(r.IntN(100))*time.Millisecond)
				}
			}
		}()
	}
	pwg.Wait()
	for count.Load() < expected.Load() {
		clk.Step(10 * time.Millisecond)
		runtime.Gosched()
	}
	q.ShutDown()
	cwg.Wait()
	if count.Load() != expected.Load() {
		t.Fatalf("delivered %d, want %d", count.Load(), expected.Load())
	}
	delivered.Range(func(k, n any) bool {
		key := k.(string)
		var p int
		fmt.Sscanf(key, "p%d-", &p)
		want := int32(1)
		if twice[p][key] {
			want = 2
		}
		if got := n.(*atomic.Int32).Load(); got != want {
			t.Errorf("%s delivered %d times, want %d", key, got, want)
		}
		return true
	})
}

func TestDeadlineQueueMillionPendingKeys(t *testing.T) {
	const n = 1_000_000
	q := mustOK(NewDeadlineQueue[string](DeadlineQueueConfig{Clock: clocktesting.NewFakeClock(t0)}))
	keys := make([]string, n)
	for i := range keys {
		keys[i] = "ns-" + strconv.Itoa(i%100) + "/workload-" + strconv.Itoa(i)
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, k := range keys {
		q.Add(k, t0.Add(time.Duration(1+r.IntN(3600))*time.Second))
	}
	if q.Len() != n {
		t.Fatalf("len %d", q.Len())
	}
	for i := 0; i < n; i += 4 {
		q.Cancel(keys[i])
	}
	if q.Len() != n-n/4 {
		t.Fatalf("len after cancel %d", q.Len())
	}
	// The queue is still a valid heap: draining it gives ordered deadlines.
	impl := q.(*deadlineQueue[string])
	for i := 1; i < len(impl.heap); i++ {
		if impl.heap[(i-1)/heapArity].at > impl.heap[i].at || impl.heap[i].e.pos != i {
			t.Fatalf("heap invariant broken at %d", i)
		}
	}
}

type recordingQueueMetrics struct {
	depth  int
	handed []time.Duration
}

func (m *recordingQueueMetrics) Depth(n int)               { m.depth = n }
func (m *recordingQueueMetrics) Handed(late time.Duration) { m.handed = append(m.handed, late) }

func TestDeadlineQueueMetrics(t *testing.T) {
	clk := clocktesting.NewFakeClock(t0)
	m := &recordingQueueMetrics{}
	q := mustOK(NewDeadlineQueue[int](DeadlineQueueConfig{Clock: clk, Metrics: m, InitialCapacity: 4}))
	q.Add(1, t0.Add(time.Second))
	q.Add(2, t0.Add(time.Minute))
	if m.depth != 2 {
		t.Fatalf("depth %d", m.depth)
	}
	clk.Step(3 * time.Second)
	if k, ok := q.TryGet(); !ok || k != 1 {
		t.Fatal("key 1 not due")
	}
	if m.depth != 1 || len(m.handed) != 1 || m.handed[0] != 2*time.Second {
		t.Fatalf("depth %d handed %v", m.depth, m.handed)
	}
}
