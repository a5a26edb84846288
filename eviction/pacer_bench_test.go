package eviction

import (
	"testing"
	"time"
)

// handwrittenBucket is the token bucket the pacer used before it moved to
// golang.org/x/time/rate, kept only as the baseline of
// BenchmarkTokenBucketTake.
type handwrittenBucket struct {
	rate, burst, tokens float64
	last                time.Time
}

func (b *handwrittenBucket) take(now time.Time) bool {
	if now.After(b.last) {
		b.tokens = min(b.tokens+b.rate*now.Sub(b.last).Seconds(), b.burst)
		b.last = now
	}
	if b.rate <= 0 || b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// BenchmarkTokenBucketTake compares one take, with the clock moving 1 us
// per call at 1e5 tokens per second (so every other take succeeds), on the
// hand-written bucket and on the x/time/rate one the pacer uses.
func BenchmarkTokenBucketTake(b *testing.B) {
	const rate, burst = 1e5, 100
	b.Run("handwritten", func(b *testing.B) {
		bucket := &handwrittenBucket{rate: rate, burst: burst, tokens: burst, last: t0}
		now := t0
		b.ReportAllocs()
		for b.Loop() {
			now = now.Add(time.Microsecond)
			bucket.take(now)
		}
	})
	b.Run("x-time-rate", func(b *testing.B) {
		bucket := newTokenBucket(rate, burst, t0)
		now := t0
		b.ReportAllocs()
		for b.Loop() {
			now = now.Add(time.Microsecond)
			bucket.take(now)
		}
	})
}
