package health

import (
	"errors"
	"math"
	"strconv"
)

// ErrMalformedObject is wrapped by every error a built-in interpreter returns
// for an object whose fields have the wrong shape (a string where a number
// belongs, a list where an object belongs). Callers test with errors.Is.
var ErrMalformedObject = errors.New("malformed object")

// FieldError names a field of the object that has the wrong type. It wraps
// ErrMalformedObject.
type FieldError struct {
	// Path is the dotted path of the field, e.g. "status.readyReplicas".
	Path string
	// Want is the JSON type the interpreter expected.
	Want string
	// Got is the JSON type it found.
	Got string
}

func (e *FieldError) Error() string {
	return "malformed object: field " + e.Path + ": want " + e.Want + ", got " + e.Got
}

// Unwrap lets errors.Is(err, ErrMalformedObject) match.
func (e *FieldError) Unwrap() error { return ErrMalformedObject }

// The accessors below read one level of an unstructured map. They take the
// full path for the error message as a constant string, rather than a
// variadic path, so that the path slice never escapes and a successful read
// allocates nothing.

// mapField returns obj[key] as an object; (nil, nil) when absent or null.
func mapField(obj map[string]any, key, path string) (map[string]any, error) {
	v, ok := obj[key]
	if !ok || v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &FieldError{Path: path, Want: "object", Got: jsonType(v)}
	}
	return m, nil
}

// listField returns obj[key] as a list; (nil, nil) when absent or null.
func listField(obj map[string]any, key, path string) ([]any, error) {
	v, ok := obj[key]
	if !ok || v == nil {
		return nil, nil
	}
	l, ok := v.([]any)
	if !ok {
		return nil, &FieldError{Path: path, Want: "list", Got: jsonType(v)}
	}
	return l, nil
}

// stringField returns obj[key] as a string; ("", false, nil) when absent or
// null.
func stringField(obj map[string]any, key, path string) (string, bool, error) {
	v, ok := obj[key]
	if !ok || v == nil {
		return "", false, nil
	}
	s, ok := v.(string)
	if !ok {
		return "", false, &FieldError{Path: path, Want: "string", Got: jsonType(v)}
	}
	return s, true, nil
}

// intField returns obj[key] as an integer; (0, false, nil) when absent or
// null. It accepts every number representation an unstructured map carries
// in practice: int64 from the apimachinery JSON decoder, float64 from
// encoding/json, and the other Go integer types from hand-built maps.
func intField(obj map[string]any, key, path string) (int64, bool, error) {
	v, ok := obj[key]
	if !ok || v == nil {
		return 0, false, nil
	}
	n, ok := toInt64(v)
	if !ok {
		return 0, false, &FieldError{Path: path, Want: "integer", Got: jsonType(v)}
	}
	return n, true, nil
}

func toInt64(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case int:
		return int64(n), true
	case int32:
		return int64(n), true
	case float64:
		// Only integral values in range; NaN and ±Inf fail the comparisons.
		if n >= -(1<<63) && n < (1<<63) && n == math.Trunc(n) {
			return int64(n), true
		}
		return 0, false
	case uint32:
		return int64(n), true
	case uint64:
		if n <= math.MaxInt64 {
			return int64(n), true
		}
		return 0, false
	default:
		return 0, false
	}
}

// jsonType names the JSON type of an unstructured value for error messages.
func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case map[string]any:
		return "object"
	case []any:
		return "list"
	case int64, int, int32, float64, uint32, uint64, float32:
		return "number"
	default:
		return "unsupported Go type"
	}
}

// reason joins text and integers into a reason string. It is only called on
// the unhealthy and unknown paths, where allocating is acceptable.
func reason(parts ...any) string {
	buf := make([]byte, 0, 64)
	for _, p := range parts {
		switch v := p.(type) {
		case string:
			buf = append(buf, v...)
		case int64:
			buf = strconv.AppendInt(buf, v, 10)
		}
	}
	return string(buf)
}
