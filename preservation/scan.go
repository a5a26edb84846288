package preservation

import (
	"bytes"
	"errors"
	"unicode/utf8"
)

// maxNestingDepth matches encoding/json, so the scanner refuses exactly the
// documents json.Unmarshal refuses for depth.
const maxNestingDepth = 10000

// chainResult is what one pass found for one plain-chain rule: the raw
// bytes of the value, or how many segments matched before the path ended.
type chainResult struct {
	start, end int
	matched    int
	found      bool
}

// scanner validates a whole JSON document in one pass, as strictly as
// encoding/json does, and records the raw span of the values that plain
// chains select. It decodes nothing it does not select.
type scanner struct {
	data    []byte
	pos     int
	depth   int
	results []chainResult
}

var errUnexpectedEnd = errors.New("unexpected end of JSON input")

func (s *scanner) syntaxError(what string) error {
	return syntaxErrorAt(s.data, s.pos, what)
}

// scanStatus scans a whole status document for the chains under root.
// Empty input counts as null. A document that is neither an object nor
// null is refused, as json.Unmarshal into a map refuses it.
func (s *scanner) scanStatus(root *chainNode) error {
	if len(s.data) == 0 {
		return nil
	}
	s.skipSpace()
	if s.pos >= len(s.data) {
		return errUnexpectedEnd
	}
	first := s.data[s.pos]
	var err error
	if first == '{' {
		err = s.object(root)
	} else {
		err = s.skipValue()
	}
	if err != nil {
		return err
	}
	s.skipSpace()
	if s.pos != len(s.data) {
		return s.syntaxError("after top-level value")
	}
	if first != '{' && first != 'n' {
		return errors.New("status must be a JSON object")
	}
	return nil
}

func (s *scanner) skipSpace() { s.pos = skipSpaceAt(s.data, s.pos) }

// skipValue validates the value at pos (no leading space) and moves past it.
func (s *scanner) skipValue() error {
	pos, err := skipJSON(s.data, s.pos, s.depth)
	s.pos = pos
	return err
}

func (s *scanner) enter() error {
	s.depth++
	if s.depth > maxNestingDepth {
		return errors.New("exceeded max depth")
	}
	s.pos++
	s.skipSpace()
	return nil
}

// object scans the object at pos, which node (the root or a segment with
// children) stands for. An object no chain goes through is skipJSON's.
func (s *scanner) object(node *chainNode) error {
	if err := s.enter(); err != nil {
		return err
	}
	if s.pos < len(s.data) && s.data[s.pos] == '}' {
		s.pos++
		s.depth--
		return nil
	}
	for {
		if s.pos >= len(s.data) || s.data[s.pos] != '"' {
			return s.syntaxError("looking for beginning of object key string")
		}
		keyStart := s.pos
		plain, err := s.skipString()
		if err != nil {
			return err
		}
		var child *chainNode
		if len(node.children) > 0 {
			child = node.lookup(s.data[keyStart:s.pos], plain)
		}
		s.skipSpace()
		if s.pos >= len(s.data) || s.data[s.pos] != ':' {
			return s.syntaxError("after object key")
		}
		s.pos++
		s.skipSpace()
		if child == nil {
			err = s.skipValue()
		} else {
			err = s.selected(child)
		}
		if err != nil {
			return err
		}
		s.skipSpace()
		if s.pos >= len(s.data) {
			return errUnexpectedEnd
		}
		switch s.data[s.pos] {
		case ',':
			s.pos++
			s.skipSpace()
		case '}':
			s.pos++
			s.depth--
			return nil
		default:
			return s.syntaxError("after object key:value pair")
		}
	}
}

// selected scans the value of a key some chain goes through. A later
// duplicate key replaces an earlier one, as in a decoded map, so every rule
// through this key forgets what the earlier occurrence gave it.
func (s *scanner) selected(node *chainNode) error {
	for _, rule := range node.passing {
		s.results[rule] = chainResult{matched: node.depth}
	}
	start := s.pos
	var err error
	if len(node.children) > 0 && s.pos < len(s.data) && s.data[s.pos] == '{' {
		err = s.object(node)
	} else {
		err = s.skipValue()
	}
	if err != nil {
		return err
	}
	for _, rule := range node.ending {
		s.results[rule] = chainResult{start: start, end: s.pos, matched: node.depth, found: true}
	}
	return nil
}

// lookup finds the child for a raw quoted key. Keys with escapes or invalid
// UTF-8 are decoded first, as encoding/json would decode them.
func (n *chainNode) lookup(quoted []byte, plain bool) *chainNode {
	raw := quoted[1 : len(quoted)-1]
	if plain {
		return n.childBytes(raw)
	}
	// Cloned so that the scanned document never escapes to the heap.
	key, ok := unquote(bytes.Clone(quoted))
	if !ok {
		return nil
	}
	return n.child(key)
}

// skipString moves past the string at pos, a key that may be on a rule's
// path. plain reports that its bytes are the decoded string: no escapes,
// and valid UTF-8. Strings off every path take skipStringBody, which need
// not look for bytes from 0x80 up.
func (s *scanner) skipString() (plain bool, err error) {
	s.pos++
	start := s.pos
	escaped, high := false, false
	for {
		s.pos = nextStringSpecial(s.data, s.pos)
		if s.pos >= len(s.data) {
			return false, errUnexpectedEnd
		}
		switch c := s.data[s.pos]; {
		case c == '"':
			plain = !escaped && (!high || utf8.Valid(s.data[start:s.pos]))
			s.pos++
			return plain, nil
		case c == '\\':
			escaped = true
			if s.pos, err = skipEscape(s.data, s.pos); err != nil {
				return false, err
			}
		case c < 0x20:
			return false, s.syntaxError("in string literal")
		default: // a byte from 0x80 up
			high = true
			s.pos++
		}
	}
}

// nextStringSpecial returns the position of the first byte at or after pos
// that needs a look inside a string, or len(data).
func nextStringSpecial(data []byte, pos int) int {
	for ; pos < len(data); pos++ {
		if stringSpecial[data[pos]] != 0 {
			return pos
		}
	}
	return pos
}

// stringSpecial marks, for every byte value, whether a string scan must stop
// there: control characters, '"' (0x22), '\\' (0x5c) and 0x80 up. A
// constant string rather than an array keeps the table immutable.
const stringSpecial = "" +
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" + // 0x00
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" + // 0x10
	"\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" + // 0x20
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" + // 0x30
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" + // 0x40
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00" + // 0x50
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" + // 0x60
	"\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00" + // 0x70
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" + // 0x80
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" + // 0x90
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" + // 0xa0
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" + // 0xb0
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" + // 0xc0
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" + // 0xd0
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" + // 0xe0
	"\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01\x01" // 0xf0
