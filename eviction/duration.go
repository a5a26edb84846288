package eviction

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MaxDuration is the ceiling of every time.Duration in the library's
// configurations (AssessOptions here; failover's ClusterHealthConfig, whose
// MaxClusterHealthPeriod is this value, and ClusterTaintConfig). A day is
// far beyond any sensible timeout, grace period or debounce of a failover,
// and the bound keeps deadlines far from time arithmetic overflow, where a
// huge value turns into a deadline already past or centuries ahead.
const MaxDuration = 24 * time.Hour

// ValidateDuration checks a configured duration by the rule every
// configuration of the library follows: zero takes the field's default, a
// negative value is an error and a value above MaxDuration is an error. A
// field whose documentation gives a negative value a meaning of its own
// (an explicit "off") is checked against the ceiling only.
func ValidateDuration(d time.Duration, fldPath *field.Path) field.ErrorList {
	switch {
	case d < 0:
		return field.ErrorList{field.Invalid(fldPath, d.String(), "must not be negative (0 takes the default)")}
	case d > MaxDuration:
		return field.ErrorList{field.Invalid(fldPath, d.String(), fmt.Sprintf("must be at most %s", MaxDuration))}
	}
	return nil
}

// ValidateAssessOptions checks opts as Assess and DispatchBlocked read
// them: Timeout, MaxClockSkew and FenceMargin by ValidateDuration;
// DirectlyEscapeTimeout at most MaxDuration (a negative value is its
// documented "never escape"). Field
// paths are the Go field names under fldPath, in lowerCamelCase.
//
// Assess and DispatchBlocked return no error; on an invalid Timeout they
// take the safest bounded reading instead: a negative Timeout is the
// default (DefaultGracePeriodSeconds) and one above MaxDuration is
// MaxDuration, so no task waits longer than a day for want of a valid
// option. Run ValidateAssessOptions where the options are built.
func ValidateAssessOptions(opts AssessOptions, fldPath *field.Path) field.ErrorList {
	errs := ValidateDuration(opts.Timeout, fldPath.Child("timeout"))
	if opts.DirectlyEscapeTimeout > 0 {
		errs = append(errs, ValidateDuration(opts.DirectlyEscapeTimeout, fldPath.Child("directlyEscapeTimeout"))...)
	}
	errs = append(errs, ValidateDuration(opts.MaxClockSkew, fldPath.Child("maxClockSkew"))...)
	errs = append(errs, ValidateDuration(opts.FenceMargin, fldPath.Child("fenceMargin"))...)
	return errs
}

// ValidateFencedEscape checks opts for a control plane whose members fence
// themselves fenceAfter after their last lease renewal (Pull mode with a
// configured fence, or the FenceAfter a member declares): everything
// ValidateAssessOptions checks, fenceAfter by ValidateDuration and greater
// than zero (fldPath's sibling "fenceAfter"), and a DirectlyEscapeTimeout
// (its default when zero) no shorter than FencedEscapeWait(fenceAfter,
// opts). A shorter escape would mean something it cannot: DispatchBlocked
// never starts the new copy before the fence, whatever the timeout says. A
// negative DirectlyEscapeTimeout (never escape) is accepted.
func ValidateFencedEscape(opts AssessOptions, fenceAfter time.Duration, fldPath *field.Path) field.ErrorList {
	errs := ValidateAssessOptions(opts, fldPath)
	fa := fldPath.Child("fenceAfter")
	if fenceAfter == 0 {
		return append(errs, field.Required(fa, "the members' fence is required: how long after its last lease renewal an agent stops its single-writer copies"))
	}
	if fe := ValidateDuration(fenceAfter, fa); len(fe) > 0 {
		return append(errs, fe...)
	}
	if len(errs) > 0 {
		return errs
	}
	escape := opts.DirectlyEscapeTimeout
	if escape == 0 {
		escape = DefaultDirectlyEscapeTimeout
	}
	if wait := FencedEscapeWait(fenceAfter, opts); escape > 0 && escape < wait {
		errs = append(errs, field.Invalid(fldPath.Child("directlyEscapeTimeout"), escape.String(),
			fmt.Sprintf("must be at least fenceAfter + maxClockSkew + fenceMargin = %s + %s + %s = %s: a member stops its copy only then",
				fenceAfter, opts.maxClockSkew(), opts.fenceMargin(), wait)))
	}
	return errs
}
