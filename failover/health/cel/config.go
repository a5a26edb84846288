package cel

import (
	"errors"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// DefaultCostLimit bounds the work of one evaluation, in CEL's cost units;
// it is the per-expression limit Kubernetes applies to CEL in
// CustomResourceDefinition validation. CEL charges string and list
// operations by the size of what they build, so this also bounds what one
// evaluation can allocate.
const DefaultCostLimit = 1_000_000

// DefaultMemoryLimit bounds the values one evaluation builds, in CEL's
// memory units (elements of lists and maps, bytes of strings), at its peak.
const DefaultMemoryLimit = 1 << 20

// MaxMemoryLimit is the largest MemoryLimit a Config may ask for.
const MaxMemoryLimit = 1 << 28

// DefaultTimeout bounds the wall time of one evaluation. CEL's runtime
// charges a concatenation of dynamically typed strings a constant cost, so
// the cost limit alone lets a comprehension copy megabytes per step; the
// timeout stops it, checked every InterruptCheckFrequency comprehension
// steps.
const DefaultTimeout = time.Second

// MaxTimeout is the largest Timeout a Config may ask for.
const MaxTimeout = time.Minute

// interruptCheckFrequency is how many comprehension steps pass between two
// looks at the timeout.
const interruptCheckFrequency = 64

// MaxCostLimit is the largest CostLimit a Config may ask for.
const MaxCostLimit = 100_000_000

// DefaultMaxExpressionBytes bounds the length of an expression.
const DefaultMaxExpressionBytes = 16 << 10

// MaxExpressionBytesLimit is the largest MaxExpressionBytes a Config may ask
// for.
const MaxExpressionBytesLimit = 1 << 20

// ErrInvalidConfig is wrapped by the error NewInterpreter returns for a
// Config that ValidateConfig rejects.
var ErrInvalidConfig = errors.New("invalid CEL health rule configuration")

// Config configures NewInterpreter. Its zero value is a sane default.
type Config struct {
	// Name identifies the rule in evaluation errors; empty names it by the
	// start of its expression.
	Name string
	// CostLimit bounds one evaluation in CEL cost units; 0 means
	// DefaultCostLimit, at most MaxCostLimit. An evaluation that exceeds it
	// fails with ErrCostLimit, and the object is Unknown.
	CostLimit uint64
	// Timeout bounds the wall time of one evaluation; 0 means
	// DefaultTimeout, at most MaxTimeout. An evaluation that exceeds it
	// fails with ErrTimeout.
	Timeout time.Duration
	// MemoryLimit bounds the peak size of the values one evaluation builds
	// (list and map elements, string bytes); 0 means DefaultMemoryLimit, at
	// most MaxMemoryLimit. The cost limit alone does not bound allocation:
	// a comprehension may concatenate long strings at a small charge.
	// An evaluation that exceeds it fails with ErrMemoryLimit.
	MemoryLimit uint32
	// MaxExpressionBytes bounds the expression's length; 0 means
	// DefaultMaxExpressionBytes, at most MaxExpressionBytesLimit.
	MaxExpressionBytes int
}

func (c Config) withDefaults() Config {
	if c.CostLimit == 0 {
		c.CostLimit = DefaultCostLimit
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MemoryLimit == 0 {
		c.MemoryLimit = DefaultMemoryLimit
	}
	if c.MaxExpressionBytes == 0 {
		c.MaxExpressionBytes = DefaultMaxExpressionBytes
	}
	return c
}

// ValidateConfig checks cfg and returns one error per field out of range.
func ValidateConfig(cfg Config, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	if cfg.CostLimit > MaxCostLimit {
		errs = append(errs, field.Invalid(fldPath.Child("costLimit"), cfg.CostLimit, "must be at most 100000000"))
	}
	switch {
	case cfg.Timeout < 0:
		errs = append(errs, field.Invalid(fldPath.Child("timeout"), cfg.Timeout, "must not be negative"))
	case cfg.Timeout > MaxTimeout:
		errs = append(errs, field.Invalid(fldPath.Child("timeout"), cfg.Timeout, "must be at most 1m"))
	}
	if cfg.MemoryLimit > MaxMemoryLimit {
		errs = append(errs, field.Invalid(fldPath.Child("memoryLimit"), cfg.MemoryLimit, "must be at most 268435456"))
	}
	switch {
	case cfg.MaxExpressionBytes < 0:
		errs = append(errs, field.Invalid(fldPath.Child("maxExpressionBytes"), cfg.MaxExpressionBytes, "must not be negative"))
	case cfg.MaxExpressionBytes > MaxExpressionBytesLimit:
		errs = append(errs, field.Invalid(fldPath.Child("maxExpressionBytes"), cfg.MaxExpressionBytes, "must be at most 1048576"))
	}
	return errs
}
