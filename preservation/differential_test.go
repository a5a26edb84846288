package preservation

import (
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"strings"
	"testing"
)

// docGen writes random JSON documents over a small key alphabet, so random
// chains often hit, and random corruptions of them.
type docGen struct {
	rnd *rand.Rand
	b   strings.Builder
}

var (
	genKeys = []string{`"a"`, `"b"`, `"c"`, `"a\u0062"`, `"\u00e9t\u00e9"`, `"été"`, `"a.b"`, `""`, `"\ud800"`, "\"\xff\""}
	// genChainKeys are the decoded forms of genKeys plus a key that never occurs.
	genChainKeys = []string{"a", "b", "c", "ab", "été", "a.b", "", "\ufffd", "zz"}
	genScalars   = []string{
		`0`, `-0`, `3`, `-17`, `1000000`, `123456789012345678901234`, `1e21`, `1E-7`, `0.1`, `2.50`,
		`1.7976931348623157e308`, `1e400`, `-1e400`, `0e999`, `1763723400000`, `true`, `false`, `null`,
		`""`, `"RUNNING"`, `"with space"`, `"a\"q"`, `"\u00e9"`, `"tab\t"`, `"<&>"`, "\"\xc3\x28\"",
		`"c7a3b1f0e4d24a5b9f8e6d7c5b4a3921"`, `"` + strings.Repeat("x", 70) + `"`,
	}
)

func (g *docGen) value(depth int) {
	switch n := g.rnd.IntN(10); {
	case depth < 4 && n < 4:
		g.object(depth + 1)
	case depth < 4 && n < 5:
		g.b.WriteByte('[')
		for i := range g.rnd.IntN(3) {
			if i > 0 {
				g.b.WriteByte(',')
			}
			g.value(depth + 1)
		}
		g.b.WriteByte(']')
	default:
		g.b.WriteString(genScalars[g.rnd.IntN(len(genScalars))])
	}
}

func (g *docGen) object(depth int) {
	g.b.WriteByte('{')
	for i := range g.rnd.IntN(5) {
		if i > 0 {
			g.b.WriteString(", ")
		}
		g.b.WriteString(genKeys[g.rnd.IntN(len(genKeys))])
		g.b.WriteString(" :")
		g.value(depth)
	}
	g.b.WriteByte('}')
}

func (g *docGen) document() []byte {
	g.b.Reset()
	switch g.rnd.IntN(20) {
	case 0:
		g.value(3) // often not an object
	case 1:
		return nil
	default:
		g.b.WriteString(" ")
		g.object(0)
		g.b.WriteString("\n")
	}
	doc := []byte(g.b.String())
	if g.rnd.IntN(8) == 0 && len(doc) > 0 { // corrupt it
		i := g.rnd.IntN(len(doc))
		switch g.rnd.IntN(3) {
		case 0:
			doc = doc[:i]
		case 1:
			doc[i] = "{}[],:\"\\x0 "[g.rnd.IntN(11)]
		default:
			doc = append(doc[:i:i], append([]byte{'}'}, doc[i:]...)...)
		}
	}
	return doc
}

func (g *docGen) chain() []string {
	chain := make([]string, 1+g.rnd.IntN(3))
	for i := range chain {
		chain[i] = genChainKeys[g.rnd.IntN(len(genChainKeys))]
	}
	return chain
}

// TestFastPathMatchesJSONPath runs the differential check over a fixed,
// seeded set of random documents and chains on every test run; the fuzz
// target below explores further.
func TestFastPathMatchesJSONPath(t *testing.T) {
	g := &docGen{rnd: rand.New(rand.NewPCG(1, 2))}
	compared, found := 0, 0
	for range 10000 {
		doc := g.document()
		chain := g.chain()
		if compareWithReference(t, doc, chain) {
			compared++
			if v, err := referenceValue(chainTemplate(chain), doc, false); err == nil && v != "" {
				found++
			}
		}
	}
	// The generator must actually exercise the comparison, hits included.
	if compared < 7500 || found < 250 {
		t.Fatalf("generator too weak: %d comparisons, %d with a value", compared, found)
	}
}

// TestSharedChainsMatchJSONPath compiles several chains together, so they
// share one pass and prefixes of one another ({.a} and {.a.b}), and checks
// each result against the reference.
func TestSharedChainsMatchJSONPath(t *testing.T) {
	g := &docGen{rnd: rand.New(rand.NewPCG(3, 4))}
	compared, withValues := 0, 0
	for range 10000 {
		doc := g.document()
		var rules []StatePreservationRule
		seen := map[string]bool{}
		for i := range 4 {
			template := chainTemplate(g.chain())
			if i == 1 { // often a prefix of the previous chain
				template = chainTemplate(g.chain()[:1])
			}
			if seen[template] {
				continue
			}
			seen[template] = true
			rules = append(rules, StatePreservationRule{AliasLabelName: fmt.Sprintf("r%d", i), JSONPath: template})
		}
		compiled, err := Compile(rules)
		if err != nil || !compiled.allChains {
			continue
		}
		got, gotErr := compiled.ExtractFromJSON(doc, EncodeInvalidValues(), AllowMissing())
		want := map[string]string{}
		var wantErr error
		for _, r := range rules {
			v, err := referenceValue(r.JSONPath, doc, false)
			switch {
			case errors.Is(err, errReferenceInvalidStatus):
				wantErr = err
			case err == nil:
				want[r.AliasLabelName] = EncodeLabelValue(v)
			}
		}
		if errorKind(gotErr) != errorKind(wantErr) {
			t.Fatalf("rules %v on %q: error %v, reference %v", rules, doc, gotErr, wantErr)
		}
		if wantErr == nil && !maps.Equal(got, want) {
			t.Fatalf("rules %v on %q: got %v, reference %v", rules, doc, got, want)
		}
		compared++
		if len(want) > 1 {
			withValues++
		}
	}
	if compared < 7000 || withValues < 100 {
		t.Fatalf("generator too weak: %d comparisons, %d with several values", compared, withValues)
	}
}

func TestFastPathMatchesJSONPathCases(t *testing.T) {
	cases := []struct {
		status string
		chain  []string
	}{
		{`{"a":{"b":1},"a":5}`, []string{"a", "b"}},
		{`{"a":{"b":1},"a":5}`, []string{"a"}},
		{`{"a":{"b":1,"b":2}}`, []string{"a", "b"}},
		{`{"a":{"b":1},"a":{"c":2}}`, []string{"a", "b"}},
		{`{"a":null}`, []string{"a", "b"}},
		{`{"a":null}`, []string{"a"}},
		{`{"a":[1,2]}`, []string{"a"}},
		{`{"a":{"z":1,"b":[true,null,"x<"]}}`, []string{"a"}},
		{`{"a":1e400}`, []string{"b"}},
		{`{"a":1}x`, []string{"a"}},
		{`[{"a":1}]`, []string{"a"}},
		{`"a"`, []string{"a"}},
		{`null`, []string{"a"}},
		{``, []string{"a"}},
		{` `, []string{"a"}},
		{`{"a\u0062":"v"}`, []string{"ab"}},
		{"{\"\xff\":\"v\"}", []string{"\ufffd"}},
		{`{"a":"\ud800"}`, []string{"a"}},
		{`{"a":1000000}`, []string{"a"}},
		{`{"a":-0}`, []string{"a"}},
		{`{"a":-0.0}`, []string{"a"}},
		{`{"a":9223372036854775807}`, []string{"a"}},
		{`{"a":9223372036854775808}`, []string{"a"}},
		{`{"a":1e2}`, []string{"a"}},
		{`{"a":{"n":12345678901234567890,"m":3}}`, []string{"a"}},
		{`{"a":1E-7}`, []string{"a"}},
		{`{"":{"a":"empty key"}}`, []string{""}},
		{`{"a.b":"dotted"}`, []string{"a.b"}},
		{`{"a":01}`, []string{"a"}},
		{`{"a":1.}`, []string{"a"}},
		{`{"a":"\x"}`, []string{"a"}},
		{"{\"a\":\"\x01\"}", []string{"a"}},
		{strings.Repeat("[", 10001) + strings.Repeat("]", 10001), []string{"a"}},
		{`{"a":` + strings.Repeat("[", 9999) + strings.Repeat("]", 9999) + `}`, []string{"a"}},
	}
	for _, tc := range cases {
		if !compareWithReference(t, []byte(tc.status), tc.chain) {
			t.Errorf("chain %q was not compiled as a plain chain", tc.chain)
		}
	}
}

// FuzzFastPathMatchesJSONPath is the differential fuzz target: any status
// bytes, any plain chain (segments separated by '/').
func FuzzFastPathMatchesJSONPath(f *testing.F) {
	f.Add([]byte(`{"jobStatus":{"jobId":"c7a3","state":"RUNNING"}}`), "jobStatus/jobId")
	f.Add([]byte(`{"a":{"b":1},"a":5}`), "a/b")
	f.Add([]byte(`{"a":1e21,"b":[1,{"c":null}]}`), "a")
	f.Add([]byte(`{"a\u0062":"\u00e9"}`), "ab")
	f.Add([]byte(`{"replicas":3,"readyReplicas":2}`), "readyReplicas")
	f.Fuzz(func(t *testing.T, status []byte, path string) {
		compareWithReference(t, status, strings.Split(path, "/"))
	})
}

func TestStringSpecialTable(t *testing.T) {
	if len(stringSpecial) != 256 {
		t.Fatalf("table has %d entries", len(stringSpecial))
	}
	for c := range 256 {
		want := c < 0x20 || c == '"' || c == '\\' || c >= 0x80
		if got := stringSpecial[c] != 0; got != want {
			t.Errorf("byte %#02x: table says %v", c, got)
		}
	}
}
