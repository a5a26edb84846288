package conformance

import (
	"flag"
	"fmt"
	"math/rand"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// Every property runs this many generated cases. hack/test.sh runs the
// default; a longer run is `go test -count=1 . -cases=200000`.
var (
	cases = flag.Int("cases", 3000, "generated cases per property")
	seed  = flag.Int64("seed", 1, "seed of the generator; each property derives its own stream from it")
)

// documented are the differences from Karmada v1.18.1 that
// docs/karmada-compat.md lists (section "Found by the conformance test"),
// by identifier. A property reports each difference it finds under one of
// these identifiers, or as undocumented, which fails the test.
var documented = map[string]string{
	"untimed-noexecute-taint":       "a NoExecute taint without TimeAdded counts from now; Karmada tolerates it forever",
	"huge-toleration-seconds":       "tolerationSeconds beyond ~292 years saturate; Karmada's arithmetic overflows",
	"covered-default-toleration":    "a default toleration covered by an Exists toleration is not appended; decisions are unchanged",
	"policy-order":                  "ClusterTaint policies apply in name order; Karmada sorts by creation time",
	"noexecute-taint-stamped":       "a kept NoExecute taint without TimeAdded is stamped",
	"policy-readd-keeps-timeadded":  "a taint removed and added back unchanged by later policies keeps its TimeAdded",
	"health-taint-swap-timeadded":   "a swapped health taint keeps the first not-ready moment",
	"health-stale-generation":       "a stale observedGeneration is Unknown; Karmada says unhealthy",
	"health-no-status":              "an object without status is Unknown",
	"health-statefulset-partition":  "a StatefulSet rolling update with a partition is healthy once the pods it targets are updated",
	"preserved-invalid-label":       "a preserved value that is not a label value is an error",
	"preserved-number-printing":     "whole numbers print in full",
	"evict-state-merge":             "an eviction already in progress merges new state keys",
	"evict-chain-state":             "a copy that never settled does not replace the state it started from",
	"evict-default-clusters-before": "ClustersBeforeFailover defaults to the placement before the eviction",
	"ric-status-string":             "a customization's health script may return a status string; Karmada accepts only a boolean",
}

// tally counts outcomes of one property: agreements by label (so a
// generator that never reaches a branch is noticed) and differences by
// identifier.
type tally struct {
	t           *testing.T
	name        string
	agreed      map[string]int
	differences map[string]int
	failures    int
}

func newTally(t *testing.T) *tally {
	return &tally{t: t, name: t.Name(), agreed: map[string]int{}, differences: map[string]int{}}
}

func (ty *tally) agree(label string) { ty.agreed[label]++ }

// differ records a documented difference, or fails the test for an
// undocumented one (at most a few reports per property).
func (ty *tally) differ(id string, format string, args ...any) {
	ty.t.Helper()
	if _, ok := documented[id]; ok {
		ty.differences[id]++
		return
	}
	ty.failures++
	if ty.failures <= 5 {
		ty.t.Errorf("undocumented difference from Karmada (%s): %s", id, fmt.Sprintf(format, args...))
	}
}

// report logs the counts and fails when a label the property expects to
// reach was never reached.
func (ty *tally) report(wantAgreed ...string) {
	ty.t.Helper()
	for _, l := range wantAgreed {
		if ty.agreed[l] == 0 {
			ty.t.Errorf("generator never produced an agreeing %q case in %d cases", l, *cases)
		}
	}
	ty.t.Logf("%d cases; agreed %s; documented differences %s", *cases, fmtCounts(ty.agreed), fmtCounts(ty.differences))
}

func fmtCounts(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, m[k])
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// rng returns the property's own generator, so adding a property does not
// change the cases another one sees.
func rng(name string) *rand.Rand {
	h := int64(0)
	for _, c := range name {
		h = h*31 + int64(c)
	}
	return rand.New(rand.NewSource(*seed ^ h))
}

func pick[T any](r *rand.Rand, xs ...T) T { return xs[r.Intn(len(xs))] }

// TestDocumentedDifferencesAreOnTheCompatPage keeps the table above and
// the compat page in step: every identifier appears on the page, and every
// identifier the page's conformance section lists is known here.
func TestDocumentedDifferencesAreOnTheCompatPage(t *testing.T) {
	page, err := os.ReadFile("../../docs/karmada-compat.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(page)
	start := strings.Index(text, "## Found by the conformance test")
	if start < 0 {
		t.Fatal(`docs/karmada-compat.md has no "## Found by the conformance test" section`)
	}
	section := text[start:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	listed := map[string]bool{}
	for _, m := range regexp.MustCompile("(?m)^\\| `([a-z0-9-]+)` \\|").FindAllStringSubmatch(section, -1) {
		listed[m[1]] = true
	}
	for id := range documented {
		if !listed[id] {
			t.Errorf("difference %q is not in the compat page's conformance table", id)
		}
	}
	for id := range listed {
		if _, ok := documented[id]; !ok {
			t.Errorf("the compat page lists %q, which the conformance test does not know", id)
		}
	}
}
