package controllers

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestEventNoteFitsTheAPI: a note over the API server's 1,024 bytes (a
// NoFeasibleCluster that names every cluster of a 30-cluster fleet was
// refused beside the real Karmada, and lost) is cut to fit, at a rune
// boundary, and says it was cut; a note that fits is kept whole.
func TestEventNoteFitsTheAPI(t *testing.T) {
	short := "no cluster can take the workload"
	if got := eventNote(short); got != short {
		t.Errorf("eventNote(%q) = %q, want it whole", short, got)
	}
	long := strings.Repeat("é", 600) // 1,200 bytes
	got := eventNote(long)
	if len(got) > maxEventNote || !strings.HasSuffix(got, "...") || !utf8.ValidString(got) {
		t.Errorf("eventNote of %d bytes = %d bytes, suffix %q, valid UTF-8 %t: want at most %d, ending in ..., valid", len(long), len(got), got[len(got)-3:], utf8.ValidString(got), maxEventNote)
	}
	exact := strings.Repeat("a", maxEventNote)
	if eventNote(exact) != exact {
		t.Error("a note of exactly the limit was cut")
	}
}
