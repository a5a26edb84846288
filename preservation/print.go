package preservation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/client-go/util/jsonpath"
)

// The functions in this file print values exactly as client-go jsonpath
// prints them: strings bare, int64 in full, float64 with fmt's %v (1e+06
// for a million), booleans, null as "null", objects and arrays as compact
// JSON with sorted keys.

// unquote decodes a quoted JSON string as encoding/json does (invalid UTF-8
// becomes U+FFFD).
func unquote(quoted []byte) (string, bool) {
	var s string
	if err := json.Unmarshal(quoted, &s); err != nil {
		return "", false
	}
	return s, true
}

// decodeJSON decodes a JSON document as Kubernetes does (whole numbers as
// int64), or as encoding/json does (every number a float64).
func decodeJSON(data []byte, v any, float64Numbers bool) error {
	if float64Numbers {
		return json.Unmarshal(data, v)
	}
	return utiljson.Unmarshal(data, v)
}

// printRaw prints a raw JSON value the scanner already validated as jsonpath
// prints the value decodeJSON produces for it.
func printRaw(raw []byte, float64Numbers bool) (string, error) {
	switch raw[0] {
	case '"':
		if isPlainString(raw[1 : len(raw)-1]) {
			return string(raw[1 : len(raw)-1]), nil
		}
		s, ok := unquote(raw)
		if !ok {
			return "", fmt.Errorf("%w: cannot decode string %s", ErrInvalidStatus, raw)
		}
		return s, nil
	case 't':
		return "true", nil
	case 'f':
		return "false", nil
	case 'n':
		return "null", nil
	case '{', '[':
		var v any
		if err := decodeJSON(raw, &v, float64Numbers); err != nil {
			return "", fmt.Errorf("%w: %w", ErrInvalidStatus, err)
		}
		out, err := json.Marshal(v)
		if err != nil {
			return "", fmt.Errorf("%w: %w", ErrEvaluation, err)
		}
		return string(out), nil
	default:
		if !float64Numbers && bytes.IndexByte(raw, '.') < 0 {
			if i, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
				return strconv.FormatInt(i, 10), nil
			}
		}
		f, err := strconv.ParseFloat(string(raw), 64)
		if err != nil {
			return "", fmt.Errorf("%w: %w", ErrInvalidStatus, err)
		}
		return formatFloat(f), nil
	}
}

// isPlainString reports that the bytes between a string's quotes are the
// decoded string: no escapes, and valid UTF-8.
func isPlainString(b []byte) bool {
	high := false
	for _, c := range b {
		if c == '\\' {
			return false
		}
		if c >= 0x80 {
			high = true
		}
	}
	return !high || utf8.Valid(b)
}

func formatFloat(f float64) string {
	var buf [32]byte
	return string(strconv.AppendFloat(buf[:0], f, 'g', -1, 64))
}

// printValue prints a decoded value. ok is false for types outside what
// JSON decoding produces; the caller then asks jsonpath itself.
func printValue(v any) (s string, ok bool, err error) {
	switch v := v.(type) {
	case string:
		return v, true, nil
	case bool:
		return strconv.FormatBool(v), true, nil
	case float64:
		return formatFloat(v), true, nil
	case int64:
		return strconv.FormatInt(v, 10), true, nil
	case int:
		return strconv.Itoa(v), true, nil
	case nil:
		return "null", true, nil
	case map[string]any, []any:
		out, err := json.Marshal(v)
		if err != nil {
			return "", true, fmt.Errorf("%w: %w", ErrEvaluation, err)
		}
		return string(out), true, nil
	default:
		return "", false, nil
	}
}

// executeTemplate evaluates a template that is not a plain chain with
// client-go jsonpath, borrowing a parsed JSONPath from the rule's pool.
func (cr *compiledRule) executeTemplate(data any) (value string, err error) {
	jp := cr.parsed.Get().(*jsonpath.JSONPath)
	defer func() {
		if r := recover(); r != nil {
			// A panicking JSONPath may be left in any state: drop it.
			value, err = "", fmt.Errorf("%w: %v", ErrEvaluation, r)
			return
		}
		cr.parsed.Put(jp)
	}()
	var buf bytes.Buffer
	if err := jp.Execute(&buf, data); err != nil {
		return "", classifyJSONPathError(err)
	}
	return buf.String(), nil
}

// classifyJSONPathError maps client-go's untyped errors onto this package's
// sentinels. jsonpath reports a missing key as "<key> is not found" and an
// absent array element as "array index out of bounds: ...".
func classifyJSONPathError(err error) error {
	msg := err.Error()
	if strings.HasSuffix(msg, " is not found") || strings.HasPrefix(msg, "array index out of bounds") {
		return fmt.Errorf("%w: %s", ErrFieldNotFound, msg)
	}
	return fmt.Errorf("%w: %s", ErrEvaluation, msg)
}
