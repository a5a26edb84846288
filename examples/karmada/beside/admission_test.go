package beside_test

import (
	"container/heap"
	"flag"
	"sync"
	"testing"
	"time"
)

// The scenarios mostly wait on Karmada's real clock (tolerations, grace
// periods, observation windows), from a few seconds to more than a
// minute, and share two control planes and three members: how many run
// at a time is bounded by the two cores the control planes share, not by
// the waits. go test would start them in the order they are declared;
// the harness starts them longest first instead (go test's -parallel
// only has to let them all wait for it), so that the long ones do not
// start last and end the run alone.
var besideParallel = flag.Int("beside.parallel", 8, "how many scenarios run at a time (go test's -parallel must be as large, or the smaller of the two limits)")

// expectedDuration is about how long a scenario takes, on Karmada and
// beside it alike, on a 2-core machine with the others beside it: the
// order the harness starts them in. A scenario left out counts as short.
var expectedDuration = map[string]time.Duration{
	"TestE2EApplicationFailoverGracePeriodRunsOut":     75 * time.Second,
	"TestBugLongDisconnect":                            70 * time.Second,
	"TestBugCountdownAcrossRestart":                    65 * time.Second,
	"TestBugLastCopyWhenNothingFits":                   55 * time.Second,
	"TestBugDirectlyFromAnUnreachableCluster":          50 * time.Second,
	"TestPullClusterSilentAgentDirectly":               50 * time.Second,
	"TestBugUnknownHealthDuringTheCountdown":           45 * time.Second,
	"TestE2EApplicationFailoverDirectly":               35 * time.Second,
	"TestE2EApplicationFailoverGracefullyHealthyAgain": 35 * time.Second,
	"TestE2EApplicationFailoverNever":                  35 * time.Second,
	"TestPluginEvictionHistory":                        10 * time.Second,
	"TestE2EClusterFailoverDirectly":                   10 * time.Second,
	"TestE2EClusterFailoverNilBehavior":                10 * time.Second,
}

// gather is how long the first scenario to ask for a place waits for the
// others before any starts: go test resumes the parallel subtests all at
// once, in no set order, so that without it the first few to ask would
// start whatever their length.
const gather = 250 * time.Millisecond

// admission lets scenarios run at most limit at a time, the one expected
// to take longest first among those waiting when a place frees.
type admission struct {
	mu      sync.Mutex
	limit   int
	running int
	waiting waitQueue
	// open is set once the first scenarios have gathered.
	open     bool
	gathered *time.Timer
}

var scenarios = &admission{}

// enter waits for a place for the scenario t (a K or F subtest of a
// scenario test) and returns the function that gives the place back.
func (a *admission) enter(t *testing.T, scenario string) (leave func()) {
	t.Helper()
	w := &waiter{expected: expectedDuration[scenario], admit: make(chan struct{})}
	a.mu.Lock()
	a.limit = *besideParallel
	heap.Push(&a.waiting, w)
	if a.gathered == nil {
		a.gathered = time.AfterFunc(gather, func() {
			a.mu.Lock()
			a.open = true
			a.next()
			a.mu.Unlock()
		})
	}
	a.next()
	a.mu.Unlock()
	arrived := time.Now()
	select {
	case <-w.admit:
	case <-t.Context().Done():
		t.Fatal("the test ended while waiting for its turn")
	}
	t.Logf("admission: %s started after waiting %s for its turn", t.Name(), time.Since(arrived).Round(time.Millisecond))
	return func() {
		a.mu.Lock()
		a.running--
		a.next()
		a.mu.Unlock()
	}
}

// next admits waiting scenarios, longest first, while there is room.
func (a *admission) next() {
	for a.open && a.running < max(a.limit, 1) && a.waiting.Len() > 0 {
		w := heap.Pop(&a.waiting).(*waiter)
		a.running++
		close(w.admit)
	}
}

type waiter struct {
	expected time.Duration
	admit    chan struct{}
	// seq keeps arrival order among scenarios expected to take as long.
	seq int
}

// waitQueue is a max-heap of waiters by expected duration.
type waitQueue struct {
	items []*waiter
	seq   int
}

func (q *waitQueue) Len() int { return len(q.items) }
func (q *waitQueue) Less(i, j int) bool {
	a, b := q.items[i], q.items[j]
	if a.expected != b.expected {
		return a.expected > b.expected
	}
	return a.seq < b.seq
}
func (q *waitQueue) Swap(i, j int) { q.items[i], q.items[j] = q.items[j], q.items[i] }
func (q *waitQueue) Push(x any) {
	w := x.(*waiter)
	w.seq = q.seq
	q.seq++
	q.items = append(q.items, w)
}
func (q *waitQueue) Pop() any {
	w := q.items[len(q.items)-1]
	q.items = q.items[:len(q.items)-1]
	return w
}
