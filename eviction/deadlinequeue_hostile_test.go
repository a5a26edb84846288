package eviction

import (
	"errors"
	"math"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// mustOK unwraps a constructor given a configuration the test knows valid.
func mustOK[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// An initial capacity from configuration must never reach make: math.MaxInt
// panics there, and 1e8 or 2^30 are fatal out-of-memory errors that no
// recover catches.
func TestHostileDeadlineQueueInitialCapacity(t *testing.T) {
	for _, c := range []int{math.MaxInt, 1 << 30, 1e8, MaxDeadlineQueueInitialCapacity + 1, -1, math.MinInt} {
		cfg := DeadlineQueueConfig{InitialCapacity: c}
		errs := ValidateDeadlineQueueConfig(cfg, field.NewPath("deadlineQueue"))
		if len(errs) != 1 || errs[0].Field != "deadlineQueue.initialCapacity" {
			t.Errorf("capacity %d: errors %v, want one on deadlineQueue.initialCapacity", c, errs)
		}
		q, err := NewDeadlineQueue[string](cfg)
		if !errors.Is(err, ErrInvalidDeadlineQueueConfig) || q != nil || !strings.Contains(err.Error(), "initialCapacity") {
			t.Errorf("capacity %d: NewDeadlineQueue = %v, %v; want ErrInvalidDeadlineQueueConfig", c, q, err)
		}
	}
	for _, c := range []int{0, 1, 1024} {
		q, err := NewDeadlineQueue[string](DeadlineQueueConfig{InitialCapacity: c})
		if err != nil {
			t.Fatalf("capacity %d refused: %v", c, err)
		}
		q.ShutDown()
	}
}
