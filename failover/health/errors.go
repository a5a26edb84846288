package health

import (
	"errors"
	"strconv"
)

// ErrCompile is wrapped by every error the rule compilers (packages
// failover/health/cel and failover/health/lua) return for a rule that cannot
// be used.
var ErrCompile = errors.New("health rule does not compile")

// ErrEvaluate is wrapped by every error a CEL or Lua rule returns while
// interpreting an object (a missing field, a cost or time limit, a result
// of the wrong type). A Registry makes such an object Unknown.
var ErrEvaluate = errors.New("health rule failed")

// CompileError says which rule failed to compile and why. It wraps
// ErrCompile.
type CompileError struct {
	// Language is "CEL" or "Lua".
	Language string
	// Source is the rule's text.
	Source string
	// Detail is the compiler's message.
	Detail string
}

// maxQuotedSource bounds how much of a rule's text an error message quotes.
const maxQuotedSource = 120

func (e *CompileError) Error() string {
	src := e.Source
	if len(src) > maxQuotedSource {
		src = src[:maxQuotedSource] + "..."
	}
	return "compiling " + e.Language + " health rule " + strconv.Quote(src) + ": " + e.Detail
}

// Unwrap lets errors.Is(err, ErrCompile) match.
func (e *CompileError) Unwrap() error { return ErrCompile }
