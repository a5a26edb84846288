package preservation

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"strconv"
)

// skipJSON validates the value that starts at pos, as strictly as
// json.Unmarshal into interface{} would, and returns the position just
// after it. depth is how deep the value's container is nested.
//
// Most of a status lies off every rule's path, so this is where a scan
// spends its time. It works on local copies of the slice and position,
// which the compiler keeps in registers, and walks nested values with a
// loop and a bit stack instead of one call per level. Only strings that
// are object keys on a rule's path need decoding; here no string does,
// so bytes from 0x80 up pass unchecked (encoding/json accepts invalid
// UTF-8 and replaces it).
func skipJSON(data []byte, pos, depth int) (int, error) {
	// Bit i of kinds is set when the container at level i is an object.
	// A value nested deeper than the 64 levels the bits hold is skipped
	// by a call of its own.
	var kinds uint64
	levels := 0
	var err error
	for {
		// A value starts at pos.
		if pos >= len(data) {
			return pos, errUnexpectedEnd
		}
		switch c := data[pos]; c {
		case '"':
			if pos, err = skipStringBody(data, pos+1); err != nil {
				return pos, err
			}
		case '{', '[':
			if levels == 64 {
				if pos, err = skipJSON(data, pos, depth+levels); err != nil {
					return pos, err
				}
				break
			}
			if depth+levels+1 > maxNestingDepth {
				return pos, errors.New("exceeded max depth")
			}
			pos = skipSpaceAt(data, pos+1)
			if c == '{' {
				if pos < len(data) && data[pos] == '}' {
					pos++
					break
				}
				kinds |= 1 << levels
				levels++
				if pos, err = skipKey(data, pos); err != nil {
					return pos, err
				}
				continue
			}
			if pos < len(data) && data[pos] == ']' {
				pos++
				break
			}
			kinds &^= 1 << levels
			levels++
			continue
		case 't':
			if pos, err = skipLiteral(data, pos, "true"); err != nil {
				return pos, err
			}
		case 'f':
			if pos, err = skipLiteral(data, pos, "false"); err != nil {
				return pos, err
			}
		case 'n':
			if pos, err = skipLiteral(data, pos, "null"); err != nil {
				return pos, err
			}
		default:
			if c != '-' && (c < '0' || c > '9') {
				return pos, syntaxErrorAt(data, pos, "looking for beginning of value")
			}
			if pos, err = skipNumberAt(data, pos); err != nil {
				return pos, err
			}
		}
		// A value ended at pos: close the containers it ends, then move to
		// the next value.
		for {
			if levels == 0 {
				return pos, nil
			}
			pos = skipSpaceAt(data, pos)
			if pos >= len(data) {
				return pos, errUnexpectedEnd
			}
			inObject := kinds&(1<<(levels-1)) != 0
			c := data[pos]
			if c == ',' {
				pos = skipSpaceAt(data, pos+1)
				if inObject {
					if pos, err = skipKey(data, pos); err != nil {
						return pos, err
					}
				}
				break
			}
			if inObject && c == '}' || !inObject && c == ']' {
				pos++
				levels--
				continue
			}
			if inObject {
				return pos, syntaxErrorAt(data, pos, "after object key:value pair")
			}
			return pos, syntaxErrorAt(data, pos, "after array element")
		}
	}
}

// skipKey moves past an object key, its colon and the space around them,
// to the start of the key's value.
func skipKey(data []byte, pos int) (int, error) {
	if pos >= len(data) || data[pos] != '"' {
		return pos, syntaxErrorAt(data, pos, "looking for beginning of object key string")
	}
	pos, err := skipStringBody(data, pos+1)
	if err != nil {
		return pos, err
	}
	pos = skipSpaceAt(data, pos)
	if pos >= len(data) || data[pos] != ':' {
		return pos, syntaxErrorAt(data, pos, "after object key")
	}
	return skipSpaceAt(data, pos+1), nil
}

// skipStringBody moves past the rest of a string whose opening quote is
// just before pos. It reads eight bytes at a time while they hold nothing
// a string scan must stop at.
func skipStringBody(data []byte, pos int) (int, error) {
	for {
		for pos+8 <= len(data) {
			if stops := stringStops(binary.LittleEndian.Uint64(data[pos:])); stops != 0 {
				pos += bits.TrailingZeros64(stops) >> 3
				goto stop
			}
			pos += 8
		}
		for pos < len(data) && !isStringStop(data[pos]) {
			pos++
		}
	stop:
		if pos >= len(data) {
			return pos, errUnexpectedEnd
		}
		switch data[pos] {
		case '"':
			return pos + 1, nil
		case '\\':
			next, err := skipEscape(data, pos)
			if err != nil {
				return next, err
			}
			pos = next
		default:
			return pos, syntaxErrorAt(data, pos, "in string literal")
		}
	}
}

// isStringStop reports whether a string scan must stop at c: the closing
// quote, an escape or a control character, which JSON refuses in strings.
// Bytes from 0x80 up pass: encoding/json accepts invalid UTF-8 and
// replaces it.
func isStringStop(c byte) bool { return c < 0x20 || c == '"' || c == '\\' }

// Constants for stringStops, which tests eight bytes at once.
const (
	ones        = 0x0101010101010101
	highs       = 0x8080808080808080
	backslashes = '\\' * ones
	// Flipping bit 1 turns '"' (0x22) into 0x20 and moves the control
	// characters only among themselves, so after it "below 0x21" means
	// exactly "a control character or a quote".
	flipQuote  = 0x02 * ones
	belowQuote = 0x21 * ones
)

// stringStops marks, in the high bit of its byte, each byte of w (read
// little-endian) for which isStringStop holds. A mark above the lowest may
// be false, as a borrow carries upward, so only the lowest is to be used;
// the result is zero exactly when no byte is a stop. Quotes and control
// characters share one test (see flipQuote): two tests, not three.
func stringStops(w uint64) uint64 {
	q, b := w^flipQuote, w^backslashes
	return ((q-belowQuote)&^q | (b-ones)&^b) & highs
}

// skipEscape validates the escape whose backslash is at pos and returns
// the position after it.
func skipEscape(data []byte, pos int) (int, error) {
	pos++
	if pos >= len(data) {
		return pos, errUnexpectedEnd
	}
	switch data[pos] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return pos + 1, nil
	case 'u':
		pos++
		for range 4 {
			if pos >= len(data) || !isHex(data[pos]) {
				return pos, syntaxErrorAt(data, pos, "in \\u hexadecimal character escape")
			}
			pos++
		}
		return pos, nil
	default:
		return pos, syntaxErrorAt(data, pos, "in string escape code")
	}
}

func skipSpaceAt(data []byte, pos int) int {
	// Most documents are compact: one comparison sees there is no space.
	for pos < len(data) && data[pos] <= ' ' {
		switch data[pos] {
		case ' ', '\t', '\n', '\r':
			pos++
		default:
			return pos
		}
	}
	return pos
}

func skipLiteral(data []byte, pos int, word string) (int, error) {
	for i := 0; i < len(word); i++ {
		if pos >= len(data) || data[pos] != word[i] {
			return pos, syntaxErrorAt(data, pos, "in literal "+word)
		}
		pos++
	}
	return pos, nil
}

// skipNumberAt validates the JSON number grammar and, like json.Unmarshal
// into interface{}, refuses a number a float64 cannot hold. Only numbers
// that could be that large are parsed.
func skipNumberAt(data []byte, pos int) (int, error) {
	start := pos
	if data[pos] == '-' {
		pos++
	}
	if pos >= len(data) {
		return pos, errUnexpectedEnd
	}
	intDigits := 0
	switch c := data[pos]; {
	case c == '0':
		pos++
		intDigits = 1
	case c >= '1' && c <= '9':
		for pos < len(data) && isDigit(data[pos]) {
			pos++
			intDigits++
		}
	default:
		return pos, syntaxErrorAt(data, pos, "in numeric literal")
	}
	if pos < len(data) && data[pos] == '.' {
		pos++
		if pos >= len(data) || !isDigit(data[pos]) {
			return pos, syntaxErrorAt(data, pos, "after decimal point in numeric literal")
		}
		for pos < len(data) && isDigit(data[pos]) {
			pos++
		}
	}
	exponent := 0
	if pos < len(data) && (data[pos] == 'e' || data[pos] == 'E') {
		pos++
		negative := false
		if pos < len(data) && (data[pos] == '+' || data[pos] == '-') {
			negative = data[pos] == '-'
			pos++
		}
		if pos >= len(data) || !isDigit(data[pos]) {
			return pos, syntaxErrorAt(data, pos, "in exponent of numeric literal")
		}
		for pos < len(data) && isDigit(data[pos]) {
			if exponent < 1_000_000 {
				exponent = exponent*10 + int(data[pos]-'0')
			}
			pos++
		}
		if negative {
			exponent = -exponent
		}
	}
	// The magnitude is below 10^(intDigits+exponent); float64 overflows
	// only past 1.8e308.
	if intDigits+exponent >= 300 {
		if _, err := strconv.ParseFloat(string(data[start:pos]), 64); err != nil {
			return pos, fmt.Errorf("cannot unmarshal number %s into a float64", string(data[start:pos]))
		}
	}
	return pos, nil
}

func syntaxErrorAt(data []byte, pos int, what string) error {
	if pos >= len(data) {
		return errUnexpectedEnd
	}
	return fmt.Errorf("invalid character %q %s at offset %d", data[pos], what, pos)
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
