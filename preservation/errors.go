package preservation

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Sentinel errors. Every error returned by this package wraps one of them,
// so callers branch with errors.Is.
var (
	// ErrInvalidRules: Compile refused the rules; errors.As with
	// *InvalidRulesError gives the field errors.
	ErrInvalidRules = errors.New("invalid state preservation rules")
	// ErrInvalidStatus: the raw status is not a JSON object (or null).
	ErrInvalidStatus = errors.New("status is not a valid JSON object")
	// ErrFieldNotFound: a rule's path does not exist in the status. A
	// controller usually waits for the status to catch up, or opts into
	// AllowMissing.
	ErrFieldNotFound = errors.New("field not found in status")
	// ErrInvalidLabelValue: an extracted or injected value cannot be a label
	// value (more than 63 characters, or characters a label value refuses).
	ErrInvalidLabelValue = errors.New("not a valid label value")
	// ErrInvalidLabelKey: a preserved state key cannot be a label key.
	ErrInvalidLabelKey = errors.New("not a valid label key")
	// ErrEvaluation: a template that is not a plain field chain failed
	// against this status for a reason other than a missing field, such as
	// a filter comparing a number with a string.
	ErrEvaluation = errors.New("template cannot be evaluated against status")
	// ErrBudgetExceeded: the status or a rule's evaluation would exceed the
	// extraction's Budget. Wrapped in a *RuleError when one rule is to
	// blame.
	ErrBudgetExceeded = errors.New("state extraction budget exceeded")
	// ErrInvalidObject: the object to inject into has malformed metadata.
	ErrInvalidObject = errors.New("object cannot carry labels")
)

// InvalidRulesError is returned by Compile. It carries the same field errors
// ValidateStatePreservation reports.
type InvalidRulesError struct {
	Errors field.ErrorList
}

func (e *InvalidRulesError) Error() string {
	return ErrInvalidRules.Error() + ": " + e.Errors.ToAggregate().Error()
}

// Is makes errors.Is(err, ErrInvalidRules) hold.
func (e *InvalidRulesError) Is(target error) bool { return target == ErrInvalidRules }

// Unwrap exposes each *field.Error to errors.As.
func (e *InvalidRulesError) Unwrap() []error {
	errs := make([]error, len(e.Errors))
	for i, fe := range e.Errors {
		errs[i] = fe
	}
	return errs
}

// RuleError says which rule failed during extraction. Err wraps
// ErrFieldNotFound, ErrInvalidLabelValue, ErrEvaluation or
// ErrBudgetExceeded.
type RuleError struct {
	AliasLabelName string
	JSONPath       string
	Err            error
}

func (e *RuleError) Error() string {
	return fmt.Sprintf("state preservation rule %q (jsonPath %q): %v", e.AliasLabelName, e.JSONPath, e.Err)
}

func (e *RuleError) Unwrap() error { return e.Err }
