package karmadafleet

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ErrInvalidInput is wrapped by every error about the input's content.
var ErrInvalidInput = errors.New("invalid Karmada export")

// InputError is one problem in the input, located by file, document (1 for
// the first of a multi-document file; 0 when the file is not split),
// object and field.
type InputError struct {
	File     string
	Document int
	Object   Ref // empty when the object could not be named
	Err      *field.Error
}

func (e *InputError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Document > 0 {
		fmt.Fprintf(&b, " (document %d)", e.Document)
	}
	if e.Object.Kind != "" || e.Object.Name != "" {
		b.WriteString(": ")
		b.WriteString(e.Object.String())
	}
	b.WriteString(": ")
	if e.Err.Field != "" {
		b.WriteString(e.Err.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Err.ErrorBody())
	return b.String()
}

// Unwrap lets errors.Is(err, ErrInvalidInput) and errors.As(err,
// **field.Error) hold.
func (e *InputError) Unwrap() []error { return []error{ErrInvalidInput, e.Err} }

// InputErrors lists every problem found, in the order of the input.
type InputErrors []*InputError

func (l InputErrors) Error() string {
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = e.Error()
	}
	return strings.Join(parts, "\n")
}

// Unwrap exposes each error to errors.Is and errors.As.
func (l InputErrors) Unwrap() []error {
	out := make([]error, len(l))
	for i, e := range l {
		out[i] = e
	}
	return out
}
