package preservation

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"time"

	"k8s.io/client-go/util/jsonpath"
)

// flinkRules are the two rules the benchmark extracts.
var benchFlinkRules = []StatePreservationRule{
	{AliasLabelName: "flink.apache.org/job-id", JSONPath: "{ .jobStatus.jobId }"},
	{AliasLabelName: "flink.apache.org/job-state", JSONPath: "{ .jobStatus.state }"},
}

// compactFlinkStatus returns the FlinkDeployment status fixture as an API
// server stores it: compact JSON, about 1.2 KB.
func compactFlinkStatus(tb testing.TB) []byte {
	tb.Helper()
	raw, err := os.ReadFile("testdata/flinkdeployment-status.json")
	if err != nil {
		tb.Fatal(err)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// referenceBuildState is the reference way to extract state, kept here for
// comparison only: for every rule, parse the template and decode the whole
// status again, then execute.
func referenceBuildState(rules []StatePreservationRule, status []byte) (map[string]string, error) {
	out := make(map[string]string, len(rules))
	for _, rule := range rules {
		jp := jsonpath.New(rule.JSONPath)
		jp.AllowMissingKeys(false)
		if err := jp.Parse(rule.JSONPath); err != nil {
			return nil, err
		}
		decoded := make(map[string]any)
		if err := json.Unmarshal(status, &decoded); err != nil {
			return nil, err
		}
		var buf bytes.Buffer
		if err := jp.Execute(&buf, decoded); err != nil {
			return nil, err
		}
		out[rule.AliasLabelName] = buf.String()
	}
	return out, nil
}

func TestReferenceAndFastAgreeOnFlinkStatus(t *testing.T) {
	status := compactFlinkStatus(t)
	if n := len(status); n < 1100 || n > 1400 {
		t.Fatalf("fixture is %d bytes, want about 1.2 KB", n)
	}
	want, err := referenceBuildState(benchFlinkRules, status)
	if err != nil {
		t.Fatal(err)
	}
	rules, err := Compile(benchFlinkRules)
	if err != nil {
		t.Fatal(err)
	}
	got, err := rules.ExtractFromJSON(status)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got["flink.apache.org/job-id"] != want["flink.apache.org/job-id"] ||
		got["flink.apache.org/job-state"] != want["flink.apache.org/job-state"] {
		t.Fatalf("got %v, reference %v", got, want)
	}
}

// BenchmarkExtractFlinkStatus compares, in one run, the reference way with
// ExtractFromJSON (raw scan), ExtractFromUnstructured on an already decoded
// status, and ExtractFromJSON on a template set that forces decoding.
func BenchmarkExtractFlinkStatus(b *testing.B) {
	status := compactFlinkStatus(b)
	b.Run("reference", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(status)))
		for b.Loop() {
			if _, err := referenceBuildState(benchFlinkRules, status); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ExtractFromJSON", func(b *testing.B) {
		rules, err := Compile(benchFlinkRules)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.SetBytes(int64(len(status)))
		cpu := startCPU()
		for b.Loop() {
			if _, err := rules.ExtractFromJSON(status); err != nil {
				b.Fatal(err)
			}
		}
		cpu.report(b)
	})
	// A caller that extracts for many workloads reuses one result map.
	b.Run("ExtractFromJSONInto", func(b *testing.B) {
		rules, err := Compile(benchFlinkRules)
		if err != nil {
			b.Fatal(err)
		}
		out := make(map[string]string, len(benchFlinkRules))
		b.ReportAllocs()
		b.SetBytes(int64(len(status)))
		cpu := startCPU()
		for b.Loop() {
			clear(out)
			if err := rules.ExtractFromJSONInto(out, status); err != nil {
				b.Fatal(err)
			}
		}
		cpu.report(b)
		if len(out) != 2 {
			b.Fatalf("got %v", out)
		}
	})
	b.Run("ExtractFromUnstructured", func(b *testing.B) {
		rules, err := Compile(benchFlinkRules)
		if err != nil {
			b.Fatal(err)
		}
		var decoded map[string]any
		if err := json.Unmarshal(status, &decoded); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := rules.ExtractFromUnstructured(decoded); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ExtractFromJSON-jsonpath-fallback", func(b *testing.B) {
		rules, err := Compile([]StatePreservationRule{
			benchFlinkRules[0],
			{AliasLabelName: "flink.apache.org/job-state", JSONPath: "state-{ .jobStatus.state }"},
		})
		if err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.SetBytes(int64(len(status)))
		for b.Loop() {
			if _, err := rules.ExtractFromJSON(status); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkExtractFlinkStatusSpeedup interleaves the reference way and
// ExtractFromJSON in every iteration, so that both see the same machine
// load, and reports the ratio of their times as "x-faster". Each iteration
// times one reference extraction and a block of fast extractions (a block
// keeps the cost of reading the clock negligible).
func BenchmarkExtractFlinkStatusSpeedup(b *testing.B) {
	status := compactFlinkStatus(b)
	rules, err := Compile(benchFlinkRules)
	if err != nil {
		b.Fatal(err)
	}
	const block = 16
	var reference, fast time.Duration
	for b.Loop() {
		start := time.Now()
		if _, err := referenceBuildState(benchFlinkRules, status); err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		for range block {
			if _, err := rules.ExtractFromJSON(status); err != nil {
				b.Fatal(err)
			}
		}
		reference += mid.Sub(start)
		fast += time.Since(mid)
	}
	perFast := float64(fast) / float64(b.N*block)
	perReference := float64(reference) / float64(b.N)
	b.ReportMetric(perReference, "reference-ns/op")
	b.ReportMetric(perFast, "fast-ns/op")
	b.ReportMetric(perReference/perFast, "x-faster")
}
