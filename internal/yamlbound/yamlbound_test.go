package yamlbound

import (
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

type doc struct {
	n   int
	v   any
	err error
}

func decodeAll(data string, opts Options) []doc {
	var out []doc
	Decode([]byte(data), opts, func(n int, v any, err error) bool {
		out = append(out, doc{n, v, err})
		return true
	})
	return out
}

// aliasBomb is one anchored string of size bytes aliased n times.
func aliasBomb(size, n int) string {
	var b strings.Builder
	b.WriteString("a: &big " + strings.Repeat("x", size) + "\nlist:\n")
	for range n {
		b.WriteString("- *big\n")
	}
	return b.String()
}

func TestHostileYAMLAliasBytesBounded(t *testing.T) {
	docs := decodeAll(aliasBomb(64<<10, 3001), Options{MaxAliasBytes: 1 << 20})
	if len(docs) != 1 || !errors.Is(docs[0].err, ErrAliasLimit) {
		t.Fatalf("got %+v, want one document refused with ErrAliasLimit", docs)
	}
	var e *Error
	if !errors.As(docs[0].err, &e) || e.Document != 1 || !strings.HasPrefix(e.Field, "list[") || e.Line == 0 {
		t.Fatalf("error %#v does not name the document, field and line", docs[0].err)
	}
	if !strings.Contains(e.Error(), "*big") {
		t.Errorf("error %q does not name the alias", e)
	}
}

// TestHostileYAMLAliasBudgetSpansDocuments: the budget is the whole
// stream's, so many documents each under it cannot add up past it.
func TestHostileYAMLAliasBudgetSpansDocuments(t *testing.T) {
	var b strings.Builder
	for range 50 {
		b.WriteString("---\n- &s " + strings.Repeat("y", 1000) + "\n- *s\n- *s\n")
	}
	docs := decodeAll(b.String(), Options{MaxAliasBytes: 20_000})
	last := docs[len(docs)-1]
	if !errors.Is(last.err, ErrAliasLimit) || len(docs) > 12 {
		t.Fatalf("%d documents, last %+v; want the stream stopped at the budget", len(docs), last)
	}
}

// TestHostileYAMLNestedAliases: the nested "billion laughs" is measured
// without being expanded.
func TestHostileYAMLNestedAliases(t *testing.T) {
	var b strings.Builder
	b.WriteString("l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n")
	for i := 1; i < 30; i++ {
		prev := "*l" + strconv.Itoa(i-1)
		b.WriteString("l" + strconv.Itoa(i) + ": &l" + strconv.Itoa(i) + " [" + strings.Repeat(prev+", ", 9) + prev + "]\n")
	}
	docs := decodeAll(b.String(), Options{MaxAliasBytes: 1 << 20})
	if len(docs) != 1 || !errors.Is(docs[0].err, ErrAliasLimit) {
		t.Fatalf("got %+v", docs)
	}
}

func TestAliasesWithinBudget(t *testing.T) {
	docs := decodeAll("base: &b {x: 1, y: [a, b]}\ncopy: *b\nmerged:\n  <<: *b\n  x: 2\n", Options{MaxAliasBytes: 1 << 10})
	want := map[string]any{
		"base":   map[string]any{"x": 1.0, "y": []any{"a", "b"}},
		"copy":   map[string]any{"x": 1.0, "y": []any{"a", "b"}},
		"merged": map[string]any{"x": 2.0, "y": []any{"a", "b"}},
	}
	if len(docs) != 1 || docs[0].err != nil || !reflect.DeepEqual(docs[0].v, want) {
		t.Fatalf("got %+v, want %v", docs, want)
	}
	// No budget: the same document is refused at its first alias.
	docs = decodeAll("base: &b {x: 1}\ncopy: *b\n", Options{})
	if len(docs) != 1 || !errors.Is(docs[0].err, ErrAliasLimit) || !strings.Contains(docs[0].err.Error(), "copy") {
		t.Fatalf("got %+v, want copy refused", docs)
	}
}

func TestSelfAlias(t *testing.T) {
	docs := decodeAll("a: &a [1, *a]\n", Options{MaxAliasBytes: 1 << 20})
	if len(docs) != 1 || docs[0].err == nil || !strings.Contains(docs[0].err.Error(), "itself") {
		t.Fatalf("got %+v", docs)
	}
}

func TestScalars(t *testing.T) {
	docs := decodeAll(`a: yes
b: "yes"
c: off
d: 0x10
e: 1_000
f: 1.5
g: ~
h: 2024-01-02T03:04:05Z
i: !!str 12
j: .inf
`, Options{})
	if len(docs) != 1 || docs[0].err == nil || !strings.Contains(docs[0].err.Error(), "j: line 10") {
		t.Fatalf("got %+v, want .inf refused at j", docs)
	}
	docs = decodeAll(`a: yes
b: "yes"
c: off
d: 0x10
e: 1_000
f: 1.5
g: ~
h: 2024-01-02T03:04:05Z
i: !!str 12
1: one
`, Options{})
	want := map[string]any{"a": true, "b": "yes", "c": false, "d": 16.0, "e": 1000.0, "f": 1.5, "g": nil,
		"h": "2024-01-02T03:04:05Z", "i": "12", "1": "one"}
	if len(docs) != 1 || docs[0].err != nil || !reflect.DeepEqual(docs[0].v, want) {
		t.Fatalf("got %+v, want %v", docs, want)
	}
}

func TestStrictDuplicateKeys(t *testing.T) {
	in := "metadata:\n  name: a\n  name: b\n"
	if docs := decodeAll(in, Options{Strict: true}); len(docs) != 1 || docs[0].err == nil || !strings.Contains(docs[0].err.Error(), "metadata.name") {
		t.Fatalf("strict: got %+v", docs)
	}
	docs := decodeAll(in, Options{})
	if len(docs) != 1 || docs[0].err != nil || docs[0].v.(map[string]any)["metadata"].(map[string]any)["name"] != "b" {
		t.Fatalf("lenient: got %+v", docs)
	}
}

func TestDocuments(t *testing.T) {
	docs := decodeAll("---\na: 1\n---\n# only a comment\n---\n---\nb: 2\n", Options{})
	var got []string
	for _, d := range docs {
		if d.err != nil {
			t.Fatal(d.err)
		}
		if d.v != nil {
			got = append(got, strconv.Itoa(d.n))
		}
	}
	if strings.Join(got, ",") != "1,4" || len(docs) != 4 {
		t.Fatalf("documents %+v", docs)
	}
	// A syntax error ends the stream, naming the document.
	docs = decodeAll("a: 1\n---\nb: [\n---\nc: 3\n", Options{})
	if len(docs) != 2 || docs[1].err == nil || docs[1].n != 2 {
		t.Fatalf("got %+v", docs)
	}
}

func TestJSONStream(t *testing.T) {
	docs := decodeAll(`{"a":1} {"b":[true,null]}`, Options{JSON: true})
	if len(docs) != 2 || !reflect.DeepEqual(docs[1].v, map[string]any{"b": []any{true, nil}}) {
		t.Fatalf("got %+v", docs)
	}
	// A flow mapping that is not JSON is read as YAML.
	docs = decodeAll("{a: 1}\n", Options{JSON: true})
	if len(docs) != 1 || docs[0].err != nil || !reflect.DeepEqual(docs[0].v, map[string]any{"a": 1.0}) {
		t.Fatalf("got %+v", docs)
	}
}

func TestStopEarly(t *testing.T) {
	n := 0
	Decode([]byte("a: 1\n---\nb: 2\n---\nc: 3\n"), Options{}, func(int, any, error) bool { n++; return n < 2 })
	if n != 2 {
		t.Fatalf("called %d times, want 2", n)
	}
}

// BenchmarkEmptyDocuments: an 8 MiB stream of empty documents.
func BenchmarkEmptyDocuments(b *testing.B) {
	data := []byte(strings.Repeat("---\n", 2<<20))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		Decode(data, Options{}, func(int, any, error) bool { return true })
	}
}

// TestSyntaxErrorInNextDocument: the parser reads ahead into the next
// document; the document before the error is still read, and the error
// names the document it is in.
func TestSyntaxErrorInNextDocument(t *testing.T) {
	docs := decodeAll("a: 1\n---\n\tfoo: [\n", Options{})
	if len(docs) != 2 || docs[0].err != nil || !reflect.DeepEqual(docs[0].v, map[string]any{"a": 1.0}) ||
		docs[1].n != 2 || docs[1].err == nil || !strings.Contains(docs[1].err.Error(), "line 3") {
		t.Fatalf("got %+v", docs)
	}
}

// FuzzDecode: any input is read or refused without a panic, and the alias
// bytes Decode reports never pass the budget.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(aliasBomb(100, 20)), int64(1000), true)
	f.Add([]byte("a: &a {x: [1, 2]}\nb:\n  <<: [*a, {y: 2}]\n---\n{\"c\": 1}\n"), int64(1<<20), false)
	f.Add([]byte(`{"a":1}{"b":2}`), int64(0), true)
	f.Add([]byte("a: &a [*a]\n"), int64(100), false)
	f.Fuzz(func(t *testing.T, data []byte, budget int64, strict bool) {
		budget = budget % (1 << 20)
		used := Decode(data, Options{MaxAliasBytes: budget, JSON: strict, Strict: strict}, func(int, any, error) bool { return true })
		if used < 0 || used > max(budget, 0) {
			t.Fatalf("used %d of %d", used, budget)
		}
	})
}

// TestHostileYAMLAliasAcrossDocuments: an anchor belongs to its document,
// as YAML says (go.yaml.in/yaml/v3 would let a later document name it).
func TestHostileYAMLAliasAcrossDocuments(t *testing.T) {
	for _, in := range []string{"a: &s x\n---\nb: *s\n", "a: &m {x: 1}\n---\nb:\n  <<: *m\n", "a: &k x\n---\n*k : 1\n"} {
		docs := decodeAll(in, Options{MaxAliasBytes: 1 << 20})
		if len(docs) != 2 || docs[0].err != nil || docs[1].err == nil || !strings.Contains(docs[1].err.Error(), "unknown anchor") {
			t.Errorf("%q: got %+v, want the second document refused", in, docs)
		}
	}
}
