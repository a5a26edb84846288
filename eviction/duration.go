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
// them: Timeout by ValidateDuration; DirectlyEscapeTimeout at most
// MaxDuration (a negative value is its documented "never escape"). Field
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
	return errs
}
