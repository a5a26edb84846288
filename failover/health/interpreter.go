package health

import (
	"errors"

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
