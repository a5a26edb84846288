package health

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// ErrNoObject is returned by the interpreters of this package for a nil
// object or an object without content.
var ErrNoObject = errors.New("no object to interpret")

// Result is the interpreted health of one object.
type Result struct {
	// Status is Healthy, Unhealthy or Unknown.
	Status Status
	// Reason says briefly why, for events and conditions: which field fell
	// short, or which error made the status Unknown.
	Reason string
}

// Interpreter tells the health of an object of the kinds it is registered
// for. Implementations must be safe for concurrent use, must not modify the
// object, and should return an error (rather than guess) when the object is
// malformed; a Registry turns that error into Unknown.
type Interpreter interface {
	Interpret(obj *unstructured.Unstructured) (Result, error)
}

// InterpreterFunc adapts a plain function to an Interpreter.
type InterpreterFunc func(obj *unstructured.Unstructured) (Result, error)

// Interpret calls f(obj).
func (f InterpreterFunc) Interpret(obj *unstructured.Unstructured) (Result, error) {
	return f(obj)
}

// Reasons of the results that carry no detail. Results with detail (which
// field, how far short) build their reason from the object.
const (
	// ReasonHealthy is the reason of every Healthy result of a built-in
	// interpreter; a healthy object needs no explanation and this keeps the
	// healthy path free of allocations.
	ReasonHealthy = "healthy"
	// ReasonNoStatus: the object has no status yet.
	ReasonNoStatus = "status not reported yet"
	// ReasonNoInterpreter: no interpreter is registered for the kind.
	ReasonNoInterpreter = "no health interpreter registered for the kind"
	// ReasonMalformedAPIVersion: the object's apiVersion has more than one
	// slash, so no kind can be looked up.
	ReasonMalformedAPIVersion = "malformed apiVersion"
	// ReasonNoObject: the object or its content is nil.
	ReasonNoObject = "no object to interpret"
)

// unknown wraps err into the Result a failed interpretation stands for.
func unknown(err error) (Result, error) {
	return Result{Status: Unknown, Reason: err.Error()}, err
}

// RuleResult turns what a scripted rule (CEL, Lua) returned into a Result:
// a bool (true is Healthy) or one of the status strings. language names the
// rule's language in the reason ("CEL rule returned false"). Any other value
// is an error wrapping ErrEvaluate, with an Unknown result.
func RuleResult(value any, language string) (Result, error) {
	switch v := value.(type) {
	case bool:
		if v {
			return healthy, nil
		}
		return unhealthy(language + " rule returned false"), nil
	case string:
		switch st := Status(v); st {
		case Healthy:
			return healthy, nil
		case Unhealthy, Unknown:
			return Result{Status: st, Reason: language + " rule returned " + v}, nil
		default:
			return UnknownResult(fmt.Errorf("%w: %s rule returned %q, want Healthy, Unhealthy or Unknown", ErrEvaluate, language, v))
		}
	default:
		return UnknownResult(fmt.Errorf("%w: %s rule returned %T, want a boolean or a status string", ErrEvaluate, language, value))
	}
}

// UnknownResult returns the Unknown Result that err stands for, and err.
// Interpreters outside this package use it so that every failure reads the
// same way.
func UnknownResult(err error) (Result, error) {
	return unknown(err)
}

// ToInt64 converts a JSON number as decoded into an unstructured object
// (int64, float64 and the other Go number types of hand-built maps) into an
// int64; it fails for fractions, NaN and values out of range.
func ToInt64(v any) (int64, bool) { return toInt64(v) }
