// Package yamlbound reads streams of YAML (or JSON) documents into the
// values encoding/json would give (map[string]any, []any, string,
// float64, bool, nil), bounding what the input can make the reader build.
//
// A YAML document is small on disk and large in memory when it aliases
// one big node many times: a 64 KiB anchored string aliased three thousand
// times is a 200 MB value from a 200 KB file. go.yaml.in/yaml/v3 guards
// against nested aliases by counting nodes, not bytes, and sigs.k8s.io/yaml
// turns the expanded value into JSON text and back; neither bounds this.
// Decode parses each document into a yaml.Node tree (which holds every
// alias as a pointer, so the tree is as large as the text), measures the
// bytes each alias would add before it expands it, and refuses the input
// once the aliases of the whole stream would add more than
// Options.MaxAliasBytes. A document without aliases is never refused by
// this bound. The documents of a stream share one parser, so an empty
// document costs a few allocations, not a parser; an alias names an anchor
// of its own document only, as YAML says (the shared parser would let it
// name one of an earlier document).
//
// Scalars resolve as sigs.k8s.io/yaml resolves them for Kubernetes
// objects: plain true/false and the YAML 1.1 spellings yes/no/on/off/y/n
// are booleans, numbers are float64, null and ~ are nil, timestamps stay
// strings. Mapping keys are strings (a scalar key of another type becomes
// its text); merge keys (<<) are applied, the mapping's own keys winning.
//
// This package is internal: the library's loaders (failover/health/lua)
// and the examples' readers share it, and it adds no module dependency
// (go.yaml.in/yaml/v3 is already required).
package yamlbound

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode"

	"go.yaml.in/yaml/v3"
)

// ErrAliasLimit is wrapped by the error Decode returns when the aliases of
// the input would expand past Options.MaxAliasBytes.
var ErrAliasLimit = errors.New("YAML aliases expand past the limit")

// nodeBytes is what one node is charged beyond its text when an alias
// expands it: the map entry, slice element or interface value it becomes.
const nodeBytes = 16

// Options configures Decode.
type Options struct {
	// MaxAliasBytes bounds the bytes that alias expansion may add to the
	// values of the whole input: each time an alias is expanded, the text
	// of the node it names (scalars and keys, aliases inside it expanded)
	// plus 16 bytes per node is charged. 0 refuses every alias.
	MaxAliasBytes int64
	// JSON reads an input whose first non-space byte is '{' as a stream of
	// JSON values, as k8s.io/apimachinery's YAMLOrJSONDecoder does; when
	// its first value is not valid JSON the input is read as YAML.
	JSON bool
	// Strict makes a mapping key given twice an error, as
	// sigs.k8s.io/yaml's YAMLToJSONStrict does; otherwise the last wins.
	Strict bool
}

// Error is a problem of one document.
type Error struct {
	// Document counts the documents of the input from 1.
	Document int
	// Field is the path of the value in the document (spec.items[2].name),
	// empty for the document itself.
	Field string
	// Line is the line of the input, when known.
	Line int
	// Err is the problem.
	Err error
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	if e.Line > 0 {
		b.WriteString("line ")
		b.WriteString(strconv.Itoa(e.Line))
		b.WriteString(": ")
	}
	b.WriteString(e.Err.Error())
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Decode reads the documents of data in order and calls each with the
// number of the document (from 1) and its value; an empty document (only
// space, comments or a null) is passed as nil. A document that cannot be
// converted is passed to each as an *Error and reading goes on with the
// next; a syntax error ends the stream (a YAML parser cannot resynchronise)
// and so does crossing MaxAliasBytes, which is reported as an *Error
// wrapping ErrAliasLimit. each returns false to stop early.
//
// Decode returns the bytes alias expansion used of MaxAliasBytes, so that
// a caller reading several inputs can give the next one what is left.
func Decode(data []byte, opts Options, each func(doc int, v any, err error) bool) (aliasBytes int64) {
	if opts.JSON && looksLikeJSON(data) {
		if decodeJSON(data, each) {
			return 0
		}
	}
	return decodeYAML(data, opts, each)
}

func looksLikeJSON(data []byte) bool {
	return bytes.HasPrefix(bytes.TrimLeftFunc(data, unicode.IsSpace), []byte("{"))
}

// decodeJSON reads a stream of JSON values; it returns false, having read
// nothing, when the first value is not JSON (the caller reads YAML then).
func decodeJSON(data []byte, each func(int, any, error) bool) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	for doc := 1; ; doc++ {
		var v any
		err := dec.Decode(&v)
		if err == io.EOF {
			return true
		}
		if err != nil {
			if doc == 1 {
				return false
			}
			each(doc, nil, &Error{Document: doc, Err: fmt.Errorf("JSON: %w", err)})
			return true
		}
		if !each(doc, v, nil) {
			return true
		}
	}
}

func decodeYAML(data []byte, opts Options, each func(int, any, error) bool) (used int64) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	c := &converter{opts: opts, budget: max(opts.MaxAliasBytes, 0), size: map[*yaml.Node]int64{}}
	defer func() { used = max(opts.MaxAliasBytes, 0) - c.budget }()
	var n yaml.Node // reused: nothing keeps a document's tree
	lastLine := 0   // where the last document read starts
	for doc := 1; ; doc++ {
		n = yaml.Node{}
		err := dec.Decode(&n)
		if err == io.EOF {
			return
		}
		if err != nil {
			c.syntaxError(data, doc, lastLine, err, each)
			return
		}
		lastLine = n.Line
		if !c.deliver(doc, &n, each) {
			return
		}
	}
}

// deliver converts one document and passes it on; false stops the stream.
func (c *converter) deliver(doc int, n *yaml.Node, each func(int, any, error) bool) bool {
	c.doc, c.docLine = doc, n.Line
	v, err := c.document(n)
	if err != nil {
		return each(doc, nil, err) && !errors.Is(err, ErrAliasLimit)
	}
	return each(doc, v, nil)
}

// syntaxError reports err, which the stream's parser met while reading
// document doc. The parser reads a token ahead, so the error may lie in a
// later document than the one it was reading: the documents from the one
// after lastLine are parsed one by one, each alone, so that a valid
// document before the bad one is kept and the error names the document
// it is in.
func (c *converter) syntaxError(data []byte, doc, lastLine int, err error, each func(int, any, error) bool) {
	tried := 0
	for _, chunk := range splitDocuments(data) {
		if chunk.line <= lastLine {
			continue
		}
		if tried++; tried > maxLookahead {
			break
		}
		// Blank lines before the document keep the parser's line numbers
		// those of the input.
		text := append(bytes.Repeat([]byte("\n"), chunk.line-1), chunk.text...)
		var n yaml.Node
		cerr := yaml.NewDecoder(bytes.NewReader(text)).Decode(&n)
		switch {
		case cerr == io.EOF:
			continue // comments only: no document
		case cerr != nil:
			each(doc, nil, &Error{Document: doc, Err: cerr})
			return
		}
		if !c.deliver(doc, &n, each) {
			return
		}
		doc++
	}
	// Parsed alone, every document is valid: report the stream's error.
	each(doc, nil, &Error{Document: doc, Err: err})
}

// maxLookahead bounds the documents syntaxError parses alone: the
// parser's lookahead is one token, so the error is in the document it was
// reading or the next.
const maxLookahead = 3

type chunk struct {
	line int // first line, from 1
	text []byte
}

// splitDocuments cuts data at the lines that start a document ("---"
// alone or followed by a space), each chunk starting with its marker; text
// before the first marker is a chunk when it holds more than comments.
func splitDocuments(data []byte) []chunk {
	var out []chunk
	start, startLine, line := 0, 1, 1
	for i := 0; i <= len(data); {
		end := bytes.IndexByte(data[i:], '\n')
		if end < 0 {
			end = len(data)
		} else {
			end += i
		}
		l := data[i:end]
		if bytes.HasPrefix(l, []byte("---")) && (len(l) == 3 || l[3] == ' ' || l[3] == '\t' || l[3] == '\r') && i > start {
			if len(out) > 0 || !blank(data[start:i]) {
				out = append(out, chunk{line: startLine, text: data[start:i]})
			}
			start, startLine = i, line
		}
		i = end + 1
		line++
	}
	if start < len(data) && (len(out) > 0 || !blank(data[start:])) {
		out = append(out, chunk{line: startLine, text: data[start:]})
	}
	return out
}

// blank reports whether text holds only space and comments.
func blank(text []byte) bool {
	for _, l := range bytes.Split(text, []byte("\n")) {
		l = bytes.TrimSpace(l)
		if len(l) > 0 && l[0] != '#' {
			return false
		}
	}
	return true
}

type converter struct {
	opts Options
	doc  int
	// docLine is the line the document starts on: an anchor before it
	// belongs to an earlier document, which YAML does not let an alias
	// name (go.yaml.in/yaml/v3 keeps the anchors of a stream's earlier
	// documents, so this is checked here).
	docLine int
	// budget is what is left of MaxAliasBytes for the rest of the input.
	budget int64
	// size memoises the expanded size of anchored nodes, so that
	// measuring is linear in the nodes however they alias each other.
	size map[*yaml.Node]int64
	// expanding holds the aliases being expanded, to refuse a node that
	// contains an alias to itself.
	expanding map[*yaml.Node]bool
}

func (c *converter) fail(n *yaml.Node, path string, format string, args ...any) error {
	e := &Error{Document: c.doc, Field: path, Err: fmt.Errorf(format, args...)}
	if n != nil {
		e.Line = n.Line
	}
	return e
}

func (c *converter) document(n *yaml.Node) (any, error) {
	if n.Kind != yaml.DocumentNode {
		return c.value(n, "")
	}
	if len(n.Content) == 0 {
		return nil, nil
	}
	return c.value(n.Content[0], "")
}

// measure returns the bytes expanding n would build, counting at most up
// to limit (a larger value means "more than limit"), or an error for an
// alias that contains itself.
func (c *converter) measure(n *yaml.Node, limit int64, inProgress map[*yaml.Node]bool) (int64, error) {
	if s, ok := c.size[n]; ok {
		return s, nil
	}
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil {
			return 0, nil
		}
		return c.measure(n.Alias, limit, inProgress)
	}
	if inProgress[n] {
		return 0, fmt.Errorf("anchor %q contains an alias to itself", n.Anchor)
	}
	total := int64(len(n.Value)) + nodeBytes
	if len(n.Content) > 0 {
		inProgress[n] = true
		for _, child := range n.Content {
			s, err := c.measure(child, limit, inProgress)
			if err != nil {
				return 0, err
			}
			total += s
			if total > limit {
				break // enough to refuse; the exact size does not matter
			}
		}
		delete(inProgress, n)
	}
	if n.Anchor != "" && total <= limit {
		c.size[n] = total
	}
	return total, nil
}

// alias charges the expansion of alias n to the budget and converts its
// target.
func (c *converter) alias(n *yaml.Node, path string) (any, error) {
	if n.Alias == nil || n.Alias.Line < c.docLine {
		return nil, c.fail(n, path, "unknown anchor %q (an alias names an anchor of its own document)", n.Value)
	}
	s, err := c.measure(n.Alias, c.budget, map[*yaml.Node]bool{})
	if err != nil {
		return nil, c.fail(n, path, "%w", err)
	}
	if s > c.budget {
		return nil, c.fail(n, path, "%w: alias *%s would add %s to a stream that has %d of its %d bytes left",
			ErrAliasLimit, n.Value, sizeText(s, c.budget), c.budget, c.opts.MaxAliasBytes)
	}
	if c.expanding[n.Alias] {
		return nil, c.fail(n, path, "anchor %q contains an alias to itself", n.Value)
	}
	if c.expanding == nil {
		c.expanding = map[*yaml.Node]bool{}
	}
	c.budget -= s
	c.expanding[n.Alias] = true
	defer delete(c.expanding, n.Alias)
	return c.value(n.Alias, path)
}

func sizeText(s, limit int64) string {
	if s > limit {
		return fmt.Sprintf("more than %d bytes", limit)
	}
	return fmt.Sprintf("%d bytes", s)
}

func (c *converter) value(n *yaml.Node, path string) (any, error) {
	switch n.Kind {
	case yaml.AliasNode:
		return c.alias(n, path)
	case yaml.ScalarNode:
		return c.scalar(n, path)
	case yaml.SequenceNode:
		out := make([]any, len(n.Content))
		for i, item := range n.Content {
			v, err := c.value(item, path+"["+strconv.Itoa(i)+"]")
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case yaml.MappingNode:
		out := make(map[string]any, len(n.Content)/2)
		if err := c.mapping(n, path, out, false); err != nil {
			return nil, err
		}
		return out, nil
	case yaml.DocumentNode:
		return c.document(n)
	}
	return nil, c.fail(n, path, "unexpected YAML node")
}

// mapping adds the entries of n to out. Merged entries (merged is true, or
// those of a << key) do not replace keys already set; the mapping's own
// keys replace merged ones.
func (c *converter) mapping(n *yaml.Node, path string, out map[string]any, merged bool) error {
	var own map[string]bool
	if !merged {
		own = make(map[string]bool, len(n.Content)/2)
	}
	var merges []*yaml.Node
	for i := 0; i+1 < len(n.Content); i += 2 {
		keyNode, valNode := n.Content[i], n.Content[i+1]
		if keyNode.Kind == yaml.ScalarNode && keyNode.Tag == "!!merge" {
			merges = append(merges, valNode)
			continue
		}
		key, err := c.key(keyNode, path)
		if err != nil {
			return err
		}
		p := childPath(path, key)
		if merged {
			if _, set := out[key]; set {
				continue
			}
		} else if own[key] {
			if c.opts.Strict {
				return c.fail(keyNode, p, "key %q is already set in this mapping", key)
			}
		}
		v, err := c.value(valNode, p)
		if err != nil {
			return err
		}
		out[key] = v
		if own != nil {
			own[key] = true
		}
	}
	for _, m := range merges {
		if err := c.merge(m, path, out); err != nil {
			return err
		}
	}
	return nil
}

// merge applies the value of a << key: a mapping, an alias to one, or a
// sequence of those (the earlier ones winning).
func (c *converter) merge(n *yaml.Node, path string, out map[string]any) error {
	switch n.Kind {
	case yaml.MappingNode:
		return c.mapping(n, path, out, true)
	case yaml.AliasNode:
		if n.Alias == nil || n.Alias.Line < c.docLine {
			return c.fail(n, childPath(path, "<<"), "unknown anchor %q (an alias names an anchor of its own document)", n.Value)
		}
		if n.Alias.Kind != yaml.MappingNode {
			return c.fail(n, childPath(path, "<<"), "a merge key takes a mapping or a list of mappings")
		}
		s, err := c.measure(n.Alias, c.budget, map[*yaml.Node]bool{})
		if err != nil {
			return c.fail(n, path, "%w", err)
		}
		if s > c.budget {
			return c.fail(n, childPath(path, "<<"), "%w: alias *%s would add %s to a stream that has %d of its %d bytes left",
				ErrAliasLimit, n.Value, sizeText(s, c.budget), c.budget, c.opts.MaxAliasBytes)
		}
		if c.expanding[n.Alias] {
			return c.fail(n, path, "anchor %q contains an alias to itself", n.Value)
		}
		if c.expanding == nil {
			c.expanding = map[*yaml.Node]bool{}
		}
		c.budget -= s
		c.expanding[n.Alias] = true
		defer delete(c.expanding, n.Alias)
		return c.mapping(n.Alias, path, out, true)
	case yaml.SequenceNode:
		for _, item := range n.Content {
			if item.Kind == yaml.SequenceNode {
				return c.fail(item, childPath(path, "<<"), "a merge key takes a mapping or a list of mappings")
			}
			if err := c.merge(item, path, out); err != nil {
				return err
			}
		}
		return nil
	}
	return c.fail(n, childPath(path, "<<"), "a merge key takes a mapping or a list of mappings")
}

// key returns the text of a mapping key.
func (c *converter) key(n *yaml.Node, path string) (string, error) {
	if n.Kind == yaml.AliasNode {
		if n.Alias == nil || n.Alias.Line < c.docLine {
			return "", c.fail(n, path, "unknown anchor %q (an alias names an anchor of its own document)", n.Value)
		}
		n = n.Alias
	}
	if n.Kind != yaml.ScalarNode {
		return "", c.fail(n, path, "a mapping key must be a string, not a %s", kindText(n.Kind))
	}
	if n.Tag == "!!null" && (n.Value == "" || n.Value == "~") {
		return "null", nil
	}
	return n.Value, nil
}

func kindText(k yaml.Kind) string {
	switch k {
	case yaml.MappingNode:
		return "mapping"
	case yaml.SequenceNode:
		return "list"
	}
	return "node"
}

// yaml11Bools are the plain scalars YAML 1.1 (and so sigs.k8s.io/yaml)
// reads as booleans that YAML 1.2 reads as strings.
var yaml11Bools = map[string]bool{
	"y": true, "Y": true, "yes": true, "Yes": true, "YES": true, "on": true, "On": true, "ON": true,
	"n": false, "N": false, "no": false, "No": false, "NO": false, "off": false, "Off": false, "OFF": false,
}

func (c *converter) scalar(n *yaml.Node, path string) (any, error) {
	switch n.Tag {
	case "!!null":
		return nil, nil
	case "!!bool":
		switch strings.ToLower(n.Value) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		if b, ok := yaml11Bools[n.Value]; ok {
			return b, nil
		}
		return nil, c.fail(n, path, "%q is not a boolean", n.Value)
	case "!!int", "!!float":
		f, ok := number(n.Value)
		if !ok {
			return nil, c.fail(n, path, "%q is not a number", n.Value)
		}
		if math.IsInf(f, 0) || math.IsNaN(f) {
			return nil, c.fail(n, path, "%s has no JSON form", n.Value)
		}
		return f, nil
	case "!!str":
		if n.Style == 0 {
			if b, ok := yaml11Bools[n.Value]; ok {
				return b, nil
			}
		}
	}
	// Strings, timestamps, binary and unknown tags keep their text.
	return n.Value, nil
}

// number reads the YAML spellings of a number: decimal, 0x, 0o, 0b and
// a leading 0 for octal (YAML 1.1), with underscores, and floats.
func number(s string) (float64, bool) {
	plain := strings.ReplaceAll(s, "_", "")
	if i, err := strconv.ParseInt(plain, 0, 64); err == nil {
		return float64(i), true
	}
	if u, err := strconv.ParseUint(strings.TrimPrefix(plain, "+"), 0, 64); err == nil {
		return float64(u), true
	}
	switch strings.ToLower(strings.TrimLeft(plain, "+-")) {
	case ".inf":
		return math.Inf(1), true
	case ".nan":
		return math.NaN(), true
	}
	f, err := strconv.ParseFloat(plain, 64)
	return f, err == nil || errors.Is(err, strconv.ErrRange)
}

func childPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
