package eviction

import (
	"math"
	"time"

	"golang.org/x/time/rate"
)

// tokenBucket adapts a golang.org/x/time/rate Limiter to the pacer: every
// call passes the time, so a fake clock drives it completely, and it adds
// the three rules the pacer needs on top:
//   - a rate of 0 hands out nothing (a Limiter with limit 0 would still
//     spend what is left of its burst), and only a whole token is handed out;
//   - time never goes backwards: a clock stepped back earns nothing, and the
//     Limiter never sees the earlier time (it would count the same interval
//     again once the clock caught up);
//   - the content can be restored exactly, for Import.
//
// It is not safe for concurrent use on its own: the pacer's lock guards it.
type tokenBucket struct {
	limiter *rate.Limiter
	rate    float64 // tokens per second; 0 hands out nothing
	last    time.Time
}

func newTokenBucket(perSecond float64, burst int, now time.Time) *tokenBucket {
	return &tokenBucket{limiter: rate.NewLimiter(rate.Limit(perSecond), max(burst, 1)), rate: perSecond, last: now}
}

// at is the later of now and the last time seen: the bucket's time only
// moves forwards.
func (b *tokenBucket) at(now time.Time) time.Time {
	if now.After(b.last) {
		b.last = now
	}
	return b.last
}

// tokens is the bucket's content at now.
func (b *tokenBucket) tokens(now time.Time) float64 {
	return b.limiter.TokensAt(b.at(now))
}

func (b *tokenBucket) take(now time.Time) bool {
	t := b.at(now)
	// AllowN also admits when the missing fraction of a token would take
	// less than a nanosecond to earn; a whole token is required here.
	if b.rate <= 0 || b.limiter.TokensAt(t) < 1 {
		return false
	}
	return b.limiter.AllowN(t, 1)
}

// next is when a token will be available, or ok=false when none ever will at
// the current rate.
func (b *tokenBucket) next(now time.Time) (at time.Time, ok bool) {
	t := b.at(now)
	if b.rate <= 0 {
		return time.Time{}, false
	}
	tokens := b.limiter.TokensAt(t)
	if tokens >= 1 {
		return t, true
	}
	wait := time.Duration(math.Ceil((1 - tokens) / b.rate * float64(time.Second)))
	return t.Add(wait + 1), true // +1ns: never wake a hair early
}

// set changes the rate and the burst from now on. Tokens earned so far are
// kept up to the new burst: a smaller burst drops the excess at once.
func (b *tokenBucket) set(perSecond float64, burst int, now time.Time) {
	t := b.at(now)
	burst = max(burst, 1)
	if tokens := b.limiter.TokensAt(t); tokens > float64(burst) {
		b.restore(perSecond, burst, float64(burst), t)
		return
	}
	b.limiter.SetLimitAt(t, rate.Limit(perSecond))
	b.limiter.SetBurstAt(t, burst)
	b.rate = perSecond
}

// restore sets the rate, the burst and the content at countedAt (clamped to
// [0, burst]); later calls earn tokens from countedAt on. A Limiter has no
// setter for its content, so the bucket is rebuilt empty and filled at one
// token per second for exactly as long as it takes to hold tokens (rounded
// down to the nanosecond, so never more than asked).
func (b *tokenBucket) restore(perSecond float64, burst int, tokens float64, countedAt time.Time) {
	burst = max(burst, 1)
	tokens = min(max(tokens, 0), float64(burst))
	fill := time.Duration(tokens * float64(time.Second))
	lim := rate.NewLimiter(0, burst)
	emptyAt := countedAt.Add(-fill)
	lim.SetBurstAt(emptyAt, 0) // content clamped to 0 at emptyAt
	lim.SetBurstAt(emptyAt, burst)
	lim.SetLimitAt(emptyAt, 1)
	lim.SetLimitAt(countedAt, rate.Limit(perSecond))
	b.limiter, b.rate, b.last = lim, perSecond, countedAt
}
