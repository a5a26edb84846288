package eviction

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

// BenchmarkAssess: a binding with 3 tasks and 5 targets, result buffers
// reused across calls as a controller worker would.
func BenchmarkAssess(b *testing.B) {
	in := benchInput()
	opts := AssessOptions{}
	var dst Assessment
	b.ReportAllocs()
	for b.Loop() {
		AssessInto(&dst, &in, &opts)
	}
	if len(dst.Kept) != 3 {
		b.Fatalf("kept %d", len(dst.Kept))
	}
}

// benchKeys returns n keys shaped like namespace/name.
func benchKeys(n int) []string {
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("ns-%03d/workload-%07d", i%1000, i)
	}
	return keys
}

func filledQueue(keys []string) (DeadlineQueue[string], []time.Time) {
	q := mustOK(NewDeadlineQueue[string](DeadlineQueueConfig{Clock: clocktesting.NewFakeClock(t0)}))
	r := rand.New(rand.NewPCG(7, 8))
	ats := make([]time.Time, len(keys))
	for i, k := range keys {
		ats[i] = t0.Add(time.Duration(1+r.IntN(3600_000)) * time.Millisecond)
		q.Add(k, ats[i])
	}
	return q, ats
}

const pendingKeys = 1_000_000

// BenchmarkDeadlineQueueAdd adds fresh keys to a queue already holding
// 1,000,000 pending keys (it grows by one key per iteration; past 1,000,000
// iterations the keys repeat and Add updates them instead).
func BenchmarkDeadlineQueueAdd(b *testing.B) {
	keys := benchKeys(2 * pendingKeys)
	q, _ := filledQueue(keys[:pendingKeys])
	fresh := keys[pendingKeys:]
	r := rand.New(rand.NewPCG(1, 1))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		q.Add(fresh[i%len(fresh)], t0.Add(time.Duration(r.IntN(3600_000))*time.Millisecond))
		i++
	}
}

// BenchmarkDeadlineQueueCancelAndReAdd cancels a random key of a queue
// holding 1,000,000 pending keys and adds it back, so the size stays fixed.
// Cancel alone costs this minus an Add.
func BenchmarkDeadlineQueueCancelAndReAdd(b *testing.B) {
	keys := benchKeys(pendingKeys)
	q, ats := filledQueue(keys)
	r := rand.New(rand.NewPCG(2, 2))
	b.ReportAllocs()
	for b.Loop() {
		j := r.IntN(len(keys))
		q.Cancel(keys[j])
		q.Add(keys[j], ats[j])
	}
}

// BenchmarkDeadlineQueueSet moves a random pending key to a new deadline,
// earlier or later, in a queue holding 1,000,000 keys.
func BenchmarkDeadlineQueueSet(b *testing.B) {
	keys := benchKeys(pendingKeys)
	q, _ := filledQueue(keys)
	r := rand.New(rand.NewPCG(3, 3))
	b.ReportAllocs()
	for b.Loop() {
		q.Set(keys[r.IntN(len(keys))], t0.Add(time.Duration(r.IntN(3600_000))*time.Millisecond))
	}
}

// BenchmarkDeadlineQueueMemory reports, as B/key, the heap the queue holds
// per pending key at 1,000,000 keys of the form "ns-042/workload-0000042".
// The keys' string data is excluded: the caller holds it anyway and the
// queue shares it. The measurement is taken once; the loop only keeps the
// benchmark harness happy.
func BenchmarkDeadlineQueueMemory(b *testing.B) {
	keys := benchKeys(pendingKeys)
	deadlines := make([]time.Time, pendingKeys)
	for i := range deadlines {
		deadlines[i] = t0.Add(time.Duration(i) * time.Millisecond)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	q := mustOK(NewDeadlineQueue[string](DeadlineQueueConfig{Clock: clocktesting.NewFakeClock(t0)}))
	for i, k := range keys {
		q.Add(k, deadlines[i])
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	perKey := float64(after.HeapAlloc-before.HeapAlloc) / pendingKeys
	runtime.KeepAlive(keys)
	runtime.KeepAlive(deadlines)
	for b.Loop() {
		if q.Len() != pendingKeys {
			b.Fatal("wrong size")
		}
	}
	b.ReportMetric(perKey, "B/key")
}

func BenchmarkPacerTryAccept(b *testing.B) {
	clk := clocktesting.NewFakeClock(t0)
	p := mustNewPacer(b, PacerConfig{Clock: clk, Rate: MaxEvictionRate, Burst: MaxEvictionBurst})
	b.ReportAllocs()
	for b.Loop() {
		if !p.TryAccept("") {
			clk.Step(time.Second) // refills the whole burst: one refusal per million
		}
	}
}

// BenchmarkMapBaselineDeleteInsert is the floor the queue benchmarks stand
// on: deleting and re-inserting a random key of a plain map of 1,000,000
// keys, with the same cache misses and no heap.
func BenchmarkMapBaselineDeleteInsert(b *testing.B) {
	keys := benchKeys(pendingKeys)
	m := make(map[string]*deadlineEntry[string], pendingKeys)
	for i, k := range keys {
		m[k] = &deadlineEntry[string]{key: k, pos: i}
	}
	r := rand.New(rand.NewPCG(2, 2))
	b.ReportAllocs()
	for b.Loop() {
		j := r.IntN(len(keys))
		delete(m, keys[j])
		m[keys[j]] = &deadlineEntry[string]{key: keys[j], pos: j}
	}
}
