package lua

import (
	"context"
	"fmt"
	"strconv"
	"time"
)

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// budget is the context a state runs under. gopher-lua asks the context's
// Done channel before every instruction; budget answers by counting the
// instruction and, every clockStride instructions, reading the clock. The
// string functions of this package charge their steps and the bytes they
// build to the same budget. Once a bound is crossed it stays crossed, so a
// script cannot catch the error with pcall and go on.
type budget struct {
	limits   Limits
	deadline time.Time
	steps    int64
	bytes    int64
	// exceeded is the bound crossed, or nil.
	exceeded error
	done     chan struct{}
}

// clockStride is how many steps pass between two reads of the clock.
const clockStride = 1024

func newBudget(l Limits) *budget {
	done := make(chan struct{})
	close(done)
	return &budget{limits: l, done: done}
}

// reset starts a new evaluation.
func (b *budget) reset(now time.Time) {
	b.deadline = now.Add(b.limits.Timeout)
	b.steps, b.bytes, b.exceeded = 0, 0, nil
}

// step counts n steps and reports whether the budget still holds.
func (b *budget) step(n int64) bool {
	if b.exceeded != nil {
		return false
	}
	before := b.steps
	b.steps += n
	if b.steps > b.limits.Instructions || b.steps < before {
		b.exceeded = fmt.Errorf("%w (%d)", ErrInstructionLimit, b.limits.Instructions)
		return false
	}
	if before/clockStride != b.steps/clockStride && !time.Now().Before(b.deadline) {
		b.exceeded = fmt.Errorf("%w (%s)", ErrTimeout, b.limits.Timeout)
		return false
	}
	return true
}

// alloc charges a string of n bytes about to be built, and reports whether
// the budget still holds.
func (b *budget) alloc(n int64) bool {
	if b.exceeded != nil {
		return false
	}
	if n > b.limits.MaxStringBytes || n < 0 {
		b.exceeded = fmt.Errorf("%w (%d bytes)", ErrStringTooLong, b.limits.MaxStringBytes)
		return false
	}
	b.bytes += n
	if b.bytes > b.limits.MemoryBytes {
		b.exceeded = fmt.Errorf("%w (%d bytes)", ErrMemoryLimit, b.limits.MemoryBytes)
		return false
	}
	// Copying n bytes is work too.
	return b.step(1 + n/64)
}

// The context.Context methods gopher-lua uses.

func (b *budget) Deadline() (time.Time, bool) { return b.deadline, true }

func (b *budget) Done() <-chan struct{} {
	if b.step(1) {
		return nil
	}
	return b.done
}

func (b *budget) Err() error { return b.exceeded }

func (b *budget) Value(any) any { return nil }

var _ context.Context = (*budget)(nil)
