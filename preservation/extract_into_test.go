package preservation

import (
	"errors"
	"maps"
	"testing"
)

// checkInto holds ExtractFromJSONInto to ExtractFromJSON's answer (want,
// wantErr) on the same input: the same values added next to an existing
// key on success, the same error and an untouched map on failure.
func checkInto(t *testing.T, rules *Rules, status []byte, opts []ExtractOption, want map[string]string, wantErr error) {
	t.Helper()
	out := map[string]string{"kept": "yes"}
	err := rules.ExtractFromJSONInto(out, status, opts...)
	if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
		t.Fatalf("ExtractFromJSONInto error %v, ExtractFromJSON error %v", err, wantErr)
	}
	if err != nil {
		if len(out) != 1 || out["kept"] != "yes" {
			t.Fatalf("a failed extraction changed the map: %v", out)
		}
		return
	}
	expect := map[string]string{"kept": "yes"}
	maps.Copy(expect, want)
	if !maps.Equal(out, expect) {
		t.Fatalf("ExtractFromJSONInto gave %v, want %v", out, expect)
	}
}

func TestExtractFromJSONIntoMatchesExtractFromJSON(t *testing.T) {
	status := compactFlinkStatus(t)
	chains, err := Compile(benchFlinkRules)
	if err != nil {
		t.Fatal(err)
	}
	mixed, err := Compile(append([]StatePreservationRule{{AliasLabelName: "first", JSONPath: "{.jobStatus.savepointInfo.savepointHistory[0]}"}}, benchFlinkRules...))
	if err != nil {
		t.Fatal(err)
	}
	for _, rules := range []*Rules{chains, mixed} {
		for _, doc := range [][]byte{status, nil, []byte(`null`), []byte(`{"jobStatus":{"state":"RUNNING"}}`), []byte(`{"jobStatus":`), []byte(`[1]`)} {
			for _, opts := range [][]ExtractOption{nil, {AllowMissing()}} {
				got, err := rules.ExtractFromJSON(doc, opts...)
				checkInto(t, rules, doc, opts, got, err)
			}
		}
	}
}

func TestExtractFromJSONIntoNilMap(t *testing.T) {
	rules, err := Compile(benchFlinkRules)
	if err != nil {
		t.Fatal(err)
	}
	if err := rules.ExtractFromJSONInto(nil, compactFlinkStatus(t)); err == nil {
		t.Fatal("a nil map was accepted")
	}
	var none Rules
	if err := none.ExtractFromJSONInto(nil, []byte(`{`)); err != nil {
		t.Fatalf("no rules: %v", err)
	}
}

func TestExtractFromJSONIntoBudget(t *testing.T) {
	rules, err := Compile(benchFlinkRules)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	err = rules.ExtractFromJSONInto(out, compactFlinkStatus(t), WithBudget(Budget{MaxStatusBytes: 100}))
	if !errors.Is(err, ErrBudgetExceeded) || len(out) != 0 {
		t.Fatalf("err %v, out %v", err, out)
	}
}

// TestExtractFromJSONIntoAllocatesOnce: two plain-string values into a
// reused map cost one allocation, the string both values share.
func TestExtractFromJSONIntoAllocatesOnce(t *testing.T) {
	status := compactFlinkStatus(t)
	rules, err := Compile(benchFlinkRules)
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string]string, 2)
	allocs := testing.AllocsPerRun(100, func() {
		clear(out)
		if err := rules.ExtractFromJSONInto(out, status); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 1 {
		t.Fatalf("%v allocations per extraction, want 1", allocs)
	}
	if out["flink.apache.org/job-state"] != "RUNNING" {
		t.Fatalf("got %v", out)
	}
}
