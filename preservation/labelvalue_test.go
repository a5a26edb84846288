package preservation

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

func sha256Hex16(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:16]
}

var labelValueSamples = []string{
	"", "a", "A", "0", "-", "_", ".", "a-", "a.b", "a_b-c.D9", "-a", "a_", "ab cd", "é", "a/b",
	strings.Repeat("x", 63), strings.Repeat("x", 64), "1e+06", "null", "true", "3", "0.25",
}

func TestIsLabelValueMatchesApimachinery(t *testing.T) {
	for _, v := range labelValueSamples {
		if got, want := isLabelValue(v), len(validation.IsValidLabelValue(v)) == 0; got != want {
			t.Errorf("%q: isLabelValue %v, apimachinery %v", v, got, want)
		}
	}
}

func TestEncodeLabelValue(t *testing.T) {
	for _, v := range labelValueSamples {
		got := EncodeLabelValue(v)
		if msgs := validation.IsValidLabelValue(got); len(msgs) > 0 {
			t.Errorf("%q encodes to invalid %q: %v", v, got, msgs)
		}
		if isLabelValue(v) != (got == v) {
			t.Errorf("%q: encoded %q; valid values must pass unchanged and only they", v, got)
		}
	}
	if a, b := EncodeLabelValue(strings.Repeat("p", 50)+"1"), EncodeLabelValue(strings.Repeat("p", 50)+"2"); a == b {
		t.Fatalf("values sharing a long prefix collide: %q", a)
	}
	if got, want := EncodeLabelValue("s3://flink/savepoints/sp-1"), "s3---flink-savepoints-sp-1-"+sha256Hex16("s3://flink/savepoints/sp-1"); got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func FuzzEncodeLabelValue(f *testing.F) {
	for _, v := range labelValueSamples {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if got, want := isLabelValue(v), len(validation.IsValidLabelValue(v)) == 0; got != want {
			t.Fatalf("%q: isLabelValue %v, apimachinery %v", v, got, want)
		}
		got := EncodeLabelValue(v)
		if msgs := validation.IsValidLabelValue(got); len(msgs) > 0 {
			t.Fatalf("%q encodes to invalid %q: %v", v, got, msgs)
		}
		if got != EncodeLabelValue(v) {
			t.Fatalf("%q: encoding is not deterministic", v)
		}
	})
}
