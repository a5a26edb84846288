package eviction

import (
	"runtime"
	"testing"
	"time"

	"k8s.io/client-go/util/workqueue"
	clocktesting "k8s.io/utils/clock/testing"
)

// BenchmarkDelayingWorkqueueMemory measures client-go's delaying workqueue
// the way BenchmarkDeadlineQueueMemory measures the deadline queue: heap
// bytes per pending key at 1,000,000 keys with distinct future deadlines,
// the keys' string data excluded. AddAfter hands each key to the queue's
// goroutine through a channel of 1,000, so up to 1,000 keys (0.1 %) may not
// have reached its heap and index yet when memory is read; their entries are
// allocated and counted already.
func BenchmarkDelayingWorkqueueMemory(b *testing.B) {
	keys := benchKeys(pendingKeys)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	clk := clocktesting.NewFakeClock(t0)
	q := workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[string]{Clock: clk})
	defer q.ShutDown()
	for i, k := range keys {
		q.AddAfter(k, time.Duration(i+1)*time.Millisecond)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	perKey := float64(after.HeapAlloc-before.HeapAlloc) / pendingKeys
	runtime.KeepAlive(keys)
	for b.Loop() {
		if q.Len() != 0 {
			b.Fatal("a key became ready before its deadline")
		}
	}
	b.ReportMetric(perKey, "B/key")
}
