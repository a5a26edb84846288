package eviction

import "time"

// tokenBucket is a token bucket driven entirely by the times it is given,
// so a fake clock controls it completely. It is not safe for concurrent use;
// the pacer guards it.
type tokenBucket struct {
	rate   float64 // tokens per second; <= 0 hands out nothing
	burst  float64
	tokens float64
	last   time.Time
}

func newTokenBucket(rate float64, burst int, now time.Time) *tokenBucket {
	b := float64(max(burst, 1))
	return &tokenBucket{rate: rate, burst: b, tokens: b, last: now}
}

// advance adds the tokens earned since the last call. Time going backwards
// earns nothing and does not move last back, so a clock step back never
// mints tokens twice.
func (b *tokenBucket) advance(now time.Time) {
	if !now.After(b.last) {
		return
	}
	if b.rate > 0 {
		b.tokens += b.rate * now.Sub(b.last).Seconds()
		if b.tokens > b.burst {
			b.tokens = b.burst
		}
	}
	b.last = now
}

func (b *tokenBucket) take(now time.Time) bool {
	b.advance(now)
	if b.rate <= 0 || b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// next is when a token will be available, or ok=false when none ever will at
// the current rate.
func (b *tokenBucket) next(now time.Time) (at time.Time, ok bool) {
	b.advance(now)
	if b.rate <= 0 {
		return time.Time{}, false
	}
	if b.tokens >= 1 {
		return now, true
	}
	wait := time.Duration((1 - b.tokens) / b.rate * float64(time.Second))
	return now.Add(wait + 1), true // +1ns: never wake a hair early
}

// setRate changes the rate from now on; tokens earned so far are kept.
func (b *tokenBucket) setRate(rate float64, now time.Time) {
	b.advance(now)
	b.rate = rate
}
