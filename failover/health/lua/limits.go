package lua

import (
	"errors"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Defaults of Limits. A Karmada-style health script reads a few fields and
// runs a few hundred instructions; these leave it a thousandfold margin and
// keep a hostile script to a fraction of a second and a few tens of MiB.
const (
	// DefaultTimeout bounds the wall time of one evaluation.
	DefaultTimeout = time.Second
	// DefaultInstructions bounds the Lua instructions of one evaluation,
	// with the steps of the string library's pattern matching counted as
	// instructions.
	DefaultInstructions = 1_000_000
	// DefaultMemoryBytes bounds the bytes of strings one evaluation builds.
	DefaultMemoryBytes = 16 << 20
	// DefaultMaxStringBytes bounds the length of any one string a script
	// builds.
	DefaultMaxStringBytes = 1 << 20
	// DefaultCallDepth bounds the depth of Lua calls (recursion).
	DefaultCallDepth = 200
)

// Ceilings of Limits: ValidateConfig refuses anything above them, so a
// typo cannot switch a bound off.
const (
	MaxTimeout        = time.Minute
	MaxInstructions   = 1_000_000_000
	MaxMemoryBytes    = 1 << 30
	MaxCallDepth      = 10_000
	MaxScriptBytes    = 1 << 20
	DefaultScriptSize = 64 << 10
)

// Limits bounds what one evaluation of a script may use. Each zero field
// takes its default; ValidateConfig refuses negative values and values
// above the ceilings. The same limits bound the script's top-level code,
// run once by NewInterpreter.
type Limits struct {
	// Timeout bounds wall time; 0 means DefaultTimeout. It is checked
	// between instructions and inside the string library's loops, so a
	// single library call cannot outlast it.
	Timeout time.Duration
	// Instructions bounds the Lua instructions executed (with the steps of
	// pattern matching and of building strings counted alike); 0 means
	// DefaultInstructions. Unlike Timeout it does not depend on the
	// machine's speed. Since every instruction allocates at most a small
	// constant in tables and closures, it also bounds that memory.
	Instructions int64
	// MemoryBytes bounds the total bytes of strings built (by .., the
	// string library, table.concat and tostring); 0 means
	// DefaultMemoryBytes.
	MemoryBytes int64
	// MaxStringBytes bounds any single string built; 0 means
	// DefaultMaxStringBytes, and it must not exceed MemoryBytes.
	MaxStringBytes int64
	// CallDepth bounds nested Lua calls; 0 means DefaultCallDepth.
	CallDepth int
}

// Config configures NewInterpreter. Its zero value is a sane default.
type Config struct {
	// Name identifies the rule in errors; empty names it by the start of
	// its script.
	Name string
	// Limits bounds each evaluation.
	Limits Limits
	// MaxScriptBytes bounds the script's length; 0 means DefaultScriptSize,
	// at most MaxScriptBytes.
	MaxScriptBytes int
}

// ErrInvalidConfig is wrapped by the error NewInterpreter returns for a
// Config that ValidateConfig rejects.
var ErrInvalidConfig = errors.New("invalid Lua health rule configuration")

// Errors wrapped by the error of an evaluation stopped by a limit.
var (
	ErrTimeout          = errors.New("Lua time limit exceeded")
	ErrInstructionLimit = errors.New("Lua instruction limit exceeded")
	ErrMemoryLimit      = errors.New("Lua memory limit exceeded")
	ErrStringTooLong    = errors.New("Lua string longer than the limit")
)

func (l Limits) withDefaults() Limits {
	if l.Timeout == 0 {
		l.Timeout = DefaultTimeout
	}
	if l.Instructions == 0 {
		l.Instructions = DefaultInstructions
	}
	if l.MemoryBytes == 0 {
		l.MemoryBytes = DefaultMemoryBytes
	}
	if l.MaxStringBytes == 0 {
		l.MaxStringBytes = min(DefaultMaxStringBytes, l.MemoryBytes)
	}
	if l.CallDepth == 0 {
		l.CallDepth = DefaultCallDepth
	}
	return l
}

func (c Config) withDefaults() Config {
	c.Limits = c.Limits.withDefaults()
	if c.MaxScriptBytes == 0 {
		c.MaxScriptBytes = DefaultScriptSize
	}
	return c
}

// ValidateConfig checks cfg and returns one error per field out of range.
func ValidateConfig(cfg Config, fldPath *field.Path) field.ErrorList {
	errs := ValidateLimits(cfg.Limits, fldPath.Child("limits"))
	errs = append(errs, checkRange(fldPath.Child("maxScriptBytes"), int64(cfg.MaxScriptBytes), MaxScriptBytes)...)
	return errs
}

// ValidateLimits checks l and returns one error per field out of range.
func ValidateLimits(l Limits, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, checkRange(fldPath.Child("timeout"), int64(l.Timeout), int64(MaxTimeout))...)
	errs = append(errs, checkRange(fldPath.Child("instructions"), l.Instructions, MaxInstructions)...)
	errs = append(errs, checkRange(fldPath.Child("memoryBytes"), l.MemoryBytes, MaxMemoryBytes)...)
	errs = append(errs, checkRange(fldPath.Child("maxStringBytes"), l.MaxStringBytes, MaxMemoryBytes)...)
	errs = append(errs, checkRange(fldPath.Child("callDepth"), int64(l.CallDepth), MaxCallDepth)...)
	if len(errs) == 0 {
		d := l.withDefaults()
		if d.MaxStringBytes > d.MemoryBytes {
			errs = append(errs, field.Invalid(fldPath.Child("maxStringBytes"), l.MaxStringBytes, "must not exceed memoryBytes"))
		}
	}
	return errs
}

func checkRange(p *field.Path, v, max int64) field.ErrorList {
	switch {
	case v < 0:
		return field.ErrorList{field.Invalid(p, v, "must not be negative")}
	case v > max:
		return field.ErrorList{field.Invalid(p, v, "must be at most "+itoa(max))}
	}
	return nil
}
