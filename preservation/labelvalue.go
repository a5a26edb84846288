package preservation

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// isLabelValue is validation.IsValidLabelValue without the regular
// expression and its allocations; a test holds the two equal.
func isLabelValue(v string) bool {
	if len(v) > validation.LabelValueMaxLength {
		return false
	}
	if v == "" {
		return true
	}
	if !isAlphanumeric(v[0]) || !isAlphanumeric(v[len(v)-1]) {
		return false
	}
	for i := 1; i < len(v)-1; i++ {
		if c := v[i]; !isAlphanumeric(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return true
}

func isAlphanumeric(c byte) bool {
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}

// labelValueError explains why v is not a label value.
func labelValueError(v string) error {
	return fmt.Errorf("%w: %q: %s", ErrInvalidLabelValue, truncate(v, 100),
		strings.Join(validation.IsValidLabelValue(v), "; "))
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// encodedPrefixMax leaves room for "-" and the 16-character hash.
const encodedPrefixMax = validation.LabelValueMaxLength - 1 - encodedHashLen

const encodedHashLen = 16

// EncodeLabelValue returns v unchanged when it is a valid label value, and
// otherwise a valid label value derived from it:
//
//  1. every byte other than A-Z, a-z, 0-9, '-', '_' and '.' becomes '-';
//  2. the result is cut to its first 46 bytes, then leading and trailing
//     bytes that are not letters or digits are trimmed;
//  3. "-" and the first 16 lowercase hex digits of the SHA-256 of the
//     original v are appended; when step 2 left nothing, the 16 hex digits
//     alone are the result.
//
// The result is deterministic and at most 63 bytes, so every controller
// computes the same label for the same value. Two different values that
// share a 46-byte prefix differ by their hash; a valid value that happens to
// look like an encoded one is not distinguishable from it. The original
// value cannot be recovered from the label: consumers that need it must read
// it elsewhere.
func EncodeLabelValue(v string) string {
	if isLabelValue(v) {
		return v
	}
	sum := sha256.Sum256([]byte(v))
	var hash [2 * sha256.Size]byte
	hex.Encode(hash[:], sum[:])

	prefix := make([]byte, 0, validation.LabelValueMaxLength)
	for i := 0; i < len(v) && len(prefix) < encodedPrefixMax; i++ {
		c := v[i]
		if !isAlphanumeric(c) && c != '-' && c != '_' && c != '.' {
			c = '-'
		}
		prefix = append(prefix, c)
	}
	start, end := 0, len(prefix)
	for start < end && !isAlphanumeric(prefix[start]) {
		start++
	}
	for end > start && !isAlphanumeric(prefix[end-1]) {
		end--
	}
	if start == end {
		return string(hash[:encodedHashLen])
	}
	out := append(prefix[start:end], '-')
	out = append(out, hash[:encodedHashLen]...)
	return string(out)
}
