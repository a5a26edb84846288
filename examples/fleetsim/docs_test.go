package main

import (
	"bytes"
	"flag"
	"os"
	"regexp"
	"strings"
	"testing"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/simulator.md's generated samples from the program's output")

// simulatorDoc is read from the repository's root, where the doc's
// commands run.
const simulatorDoc = "docs/simulator.md"

// sampleRE finds a generated sample: a marker naming the command line,
// then the fenced block that holds its output.
var sampleRE = regexp.MustCompile("(?s)<!-- sample: ([^\\n]*?) -->\\n```\\n(.*?)```\\n")

// TestDocSamples runs every command docs/simulator.md shows output of (a
// "<!-- sample: ARGS -->" marker before the block) and holds the block to
// the program's output, so the doc cannot drift from what the program
// prints. ARGS may end in "| rows FROM..TO" (only the timeline rows between
// those sim times, with the header row) or "| head N". Lines naming the
// wall time are left out. go test -run TestDocSamples -update-docs
// rewrites the blocks.
func TestDocSamples(t *testing.T) {
	t.Chdir("../..")
	doc, err := os.ReadFile(simulatorDoc)
	if err != nil {
		t.Fatal(err)
	}
	matches := sampleRE.FindAllSubmatchIndex(doc, -1)
	if len(matches) < 4 {
		t.Fatalf("%d generated samples in %s, want the summary, the timeline, -explain and -compare at least", len(matches), simulatorDoc)
	}
	var out bytes.Buffer
	last := 0
	for _, m := range matches {
		spec := string(doc[m[2]:m[3]])
		got := sampleOutput(t, spec)
		out.Write(doc[last:m[4]])
		out.WriteString(got)
		last = m[5]
		if want := string(doc[m[4]:m[5]]); want != got && !*updateDocs {
			t.Errorf("docs/simulator.md's sample of %q differs from the program's output (go test -run TestDocSamples -update-docs rewrites it):\n--- doc\n%s--- program\n%s", spec, want, got)
		}
	}
	out.Write(doc[last:])
	if *updateDocs {
		if err := os.WriteFile(simulatorDoc, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// sampleOutput runs spec's command line and cuts its output as spec says.
func sampleOutput(t *testing.T, spec string) string {
	t.Helper()
	cmd, filter, _ := strings.Cut(spec, "|")
	args, err := splitArgs(strings.TrimSpace(cmd))
	if err != nil {
		t.Fatalf("%q: %v", spec, err)
	}
	var stdout, stderr bytes.Buffer
	code := run(args, &stdout, &stderr)
	if code != 0 && code != 1 {
		t.Fatalf("%q: exit %d: %s", spec, code, stderr.String())
	}
	text := stdout.String() + stderr.String()
	var lines []string
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		if !strings.Contains(l, "of wall time") {
			lines = append(lines, strings.TrimRight(l, " "))
		}
	}
	f := strings.Fields(filter)
	switch {
	case len(f) == 2 && f[0] == "rows":
		from, to, _ := strings.Cut(f[1], "..")
		var kept []string
		for _, l := range lines {
			if strings.HasPrefix(l, "sim time") || (len(l) >= 9 && l[0] == '+' && l[:9] >= from && l[:9] <= to) {
				kept = append(kept, l)
			}
		}
		lines = kept
	case len(f) == 2 && f[0] == "head":
		n := 0
		for _, c := range f[1] {
			n = n*10 + int(c-'0')
		}
		lines = lines[:min(n, len(lines))]
	case len(f) != 0:
		t.Fatalf("%q: unknown filter %q", spec, filter)
	}
	return strings.Join(lines, "\n") + "\n"
}

// splitArgs splits a command line at spaces, with single quotes keeping a
// word together.
func splitArgs(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	quoted, inWord := false, false
	for _, c := range s {
		switch {
		case c == '\'':
			quoted, inWord = !quoted, true
		case c == ' ' && !quoted:
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(c)
			inWord = true
		}
	}
	if inWord {
		out = append(out, cur.String())
	}
	return out, nil
}
