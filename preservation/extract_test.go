package preservation

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

func mustCompile(t testing.TB, rules ...StatePreservationRule) *Rules {
	t.Helper()
	compiled, err := Compile(rules)
	if err != nil {
		t.Fatal(err)
	}
	return compiled
}

func rule(alias, template string) StatePreservationRule {
	return StatePreservationRule{AliasLabelName: alias, JSONPath: template}
}

// extractAll runs the three entry points on the same status and checks they
// agree, returning the raw-JSON result.
func extractAll(t *testing.T, rules *Rules, status string, opts ...ExtractOption) (map[string]string, error) {
	t.Helper()
	fromJSON, errJSON := rules.ExtractFromJSON([]byte(status), opts...)
	// Decoded as an API client decodes an object's status.
	var decoded map[string]any
	if status != "" {
		if err := utiljson.Unmarshal([]byte(status), &decoded); err != nil {
			return fromJSON, errJSON
		}
	}
	fromMap, errMap := rules.ExtractFromUnstructured(decoded, opts...)
	obj := &unstructured.Unstructured{Object: map[string]any{"kind": "Test"}}
	if decoded != nil {
		obj.Object["status"] = decoded
	}
	fromObj, errObj := rules.ExtractFromObject(obj, opts...)
	if errorKind(errJSON) != errorKind(errMap) || errorKind(errJSON) != errorKind(errObj) {
		t.Fatalf("entry points disagree on errors: json %v, map %v, object %v", errJSON, errMap, errObj)
	}
	if !cmp.Equal(fromJSON, fromMap) || !cmp.Equal(fromJSON, fromObj) {
		t.Fatalf("entry points disagree: json %v, map %v, object %v", fromJSON, fromMap, fromObj)
	}
	return fromJSON, errJSON
}

func TestExtractValues(t *testing.T) {
	status := `{"replicas":3,"readyReplicas":2,"big":1000000,"ratio":0.25,"paused":false,
		"jobStatus":{"jobId":"e6fdb5c0997c11b0c62d796b3df25e86","state":"RUNNING"},
		"conditions":[{"type":"Available","status":"True"},{"type":"Progressing","status":"False"}],
		"nothing":null,"name":"caf\u00e9"}`
	cases := []struct {
		template, want string
	}{
		{"{ .replicas }", "3"},
		{"{.readyReplicas}", "2"},
		{"{.big}", "1000000"}, // a whole number decodes to an int64
		{"{.ratio}", "0.25"},
		{"{.paused}", "false"},
		{"{.nothing}", "null"},
		{"{ .jobStatus.jobId }", "e6fdb5c0997c11b0c62d796b3df25e86"},
		{"{.jobStatus['state']}", "RUNNING"},
		{`{.conditions[?(@.type=="Available")].status}`, "True"},
		{"{.conditions[1].type}", "Progressing"},
		{"job-{.jobStatus.state}", "job-RUNNING"},
		{"{.replicas}.{.readyReplicas}", "3.2"},
	}
	for _, tc := range cases {
		rules := mustCompile(t, rule("k", tc.template))
		// 1e+06 is not a label value: compare through the encoding, which
		// leaves valid values unchanged.
		got, err := extractAll(t, rules, status, EncodeInvalidValues())
		if err != nil {
			t.Errorf("%s: %v", tc.template, err)
			continue
		}
		if got["k"] != EncodeLabelValue(tc.want) {
			t.Errorf("%s: got %q, want %q", tc.template, got["k"], tc.want)
		}
		want, err := referenceValue(tc.template, []byte(status), false)
		if err != nil || want != tc.want {
			t.Errorf("%s: reference jsonpath prints %q (%v), test expects %q", tc.template, want, err, tc.want)
		}
	}
}

func TestExtractManyRulesOnePass(t *testing.T) {
	rules := mustCompile(t,
		rule("a", "{.x.a}"), rule("b", "{.x.b}"), rule("x", "{.x}"), rule("y", "{.y.z.w}"), rule("c", "{.c}"))
	const status = `{"x":{"a":"1","b":true},"y":{"z":{"w":7}},"c":"last"}`
	// {.x} prints JSON, which is not a label value.
	if _, err := extractAll(t, rules, status); !errors.Is(err, ErrInvalidLabelValue) {
		t.Fatalf("object value: want ErrInvalidLabelValue, got %v", err)
	}
	got, err := extractAll(t, rules, status, EncodeInvalidValues())
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"a": "1", "b": "true", "y": "7", "c": "last"}
	want["x"] = EncodeLabelValue(`{"a":"1","b":true}`)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got)\n%s", diff)
	}
}

func TestExtractNumbers(t *testing.T) {
	rules := mustCompile(t, rule("n", "{.n}"))
	cases := []struct {
		raw, kubernetes, float64s string
	}{
		{"3", "3", "3"},
		{"1763400000000", "1763400000000", "1.7634e+12"},
		{"1000000", "1000000", "1e+06"},
		{"-0", "0", "-0"},
		{"2.50", "2.5", "2.5"},
		{"1e2", "100", "100"},
		{"9223372036854775808", "9.223372036854776e+18", "9.223372036854776e+18"},
	}
	for _, tc := range cases {
		status := []byte(`{"n":` + tc.raw + `}`)
		got, err := rules.ExtractFromJSON(status, EncodeInvalidValues())
		if err != nil || got["n"] != EncodeLabelValue(tc.kubernetes) {
			t.Errorf("%s: got %v, %v; want %q", tc.raw, got, err, tc.kubernetes)
		}
		got, err = rules.ExtractFromJSON(status, EncodeInvalidValues(), Float64Numbers())
		if err != nil || got["n"] != EncodeLabelValue(tc.float64s) {
			t.Errorf("%s with Float64Numbers: got %v, %v; want %q", tc.raw, got, err, tc.float64s)
		}
	}
	// Rules that need decoding decode numbers the same way.
	mixed := mustCompile(t, rule("n", "{.n}"), rule("first", "{.f[0]}"))
	for _, tc := range []struct {
		opts []ExtractOption
		want string
	}{{nil, "1763400000000"}, {[]ExtractOption{Float64Numbers(), EncodeInvalidValues()}, EncodeLabelValue("1.7634e+12")}} {
		got, err := mixed.ExtractFromJSON([]byte(`{"n":1763400000000,"f":[1000000]}`), tc.opts...)
		if err != nil || got["n"] != tc.want {
			t.Errorf("decoded path %v: got %v, %v; want %q", tc.opts, got, err, tc.want)
		}
	}
	// Karmada v1.16's printing of a timestamp is not a label value.
	_, err := rules.ExtractFromJSON([]byte(`{"n":1763400000000}`), Float64Numbers())
	if !errors.Is(err, ErrInvalidLabelValue) || !strings.Contains(err.Error(), "1.7634e+12") {
		t.Fatalf("want ErrInvalidLabelValue naming 1.7634e+12, got %v", err)
	}
	// A decoded map prints its own types.
	got, err := rules.ExtractFromUnstructured(map[string]any{"n": int64(1763400000000)}, Float64Numbers())
	if err != nil || got["n"] != "1763400000000" {
		t.Fatalf("int64 in a map: got %v, %v", got, err)
	}
}

func TestExtractMissingField(t *testing.T) {
	rules := mustCompile(t,
		rule("failover.karmada.io/failover-jobid", "{ .jobStatus.jobID }"),
		rule("state", "{.jobStatus.state}"))
	status := `{"jobStatus":{"jobId":"e6fd","state":"RUNNING"}}`

	got, err := extractAll(t, rules, status)
	if got != nil {
		t.Fatalf("a failed extraction returned %v", got)
	}
	if !errors.Is(err, ErrFieldNotFound) {
		t.Fatalf("want ErrFieldNotFound, got %v", err)
	}
	var ruleErr *RuleError
	if !errors.As(err, &ruleErr) || ruleErr.AliasLabelName != "failover.karmada.io/failover-jobid" || ruleErr.JSONPath != "{ .jobStatus.jobID }" {
		t.Fatalf("errors.As(*RuleError) = %+v", ruleErr)
	}
	const wantMsg = `state preservation rule "failover.karmada.io/failover-jobid" (jsonPath "{ .jobStatus.jobID }"): field not found in status: .status.jobStatus has no field "jobID"`
	if err.Error() != wantMsg {
		t.Fatalf("message\n got %s\nwant %s", err, wantMsg)
	}

	got, err = extractAll(t, rules, status, AllowMissing())
	if err != nil || !cmp.Equal(got, map[string]string{"state": "RUNNING"}) {
		t.Fatalf("AllowMissing: got %v, %v", got, err)
	}
}

func TestExtractMissingFieldPaths(t *testing.T) {
	rules := mustCompile(t, rule("k", "{.a.b.c}"))
	cases := map[string]string{
		`{}`:                         `.status has no field "a"`,
		`{"a":"text"}`:               `.status.a has no field "b"`,
		`{"a":{"b":null}}`:           `.status.a.b has no field "c"`,
		`{"a":{"b":{"c":1}},"a":{}}`: `.status.a has no field "b"`, // the later duplicate wins
		`null`:                       `.status has no field "a"`,
		``:                           `.status has no field "a"`,
	}
	for status, want := range cases {
		_, err := rules.ExtractFromJSON([]byte(status))
		if !errors.Is(err, ErrFieldNotFound) || !strings.HasSuffix(err.Error(), want) {
			t.Errorf("%q: got %v, want ErrFieldNotFound ending %q", status, err, want)
		}
	}
	// A template jsonpath evaluates: missing keys are classified the same way.
	fallback := mustCompile(t, rule("k", "{.a[0].b}"))
	for _, status := range []string{`{}`, `{"a":[]}`, `{"a":[{}]}`} {
		if _, err := fallback.ExtractFromJSON([]byte(status)); !errors.Is(err, ErrFieldNotFound) {
			t.Errorf("fallback %q: want ErrFieldNotFound, got %v", status, err)
		}
		if got, err := fallback.ExtractFromJSON([]byte(status), AllowMissing()); err != nil || len(got) != 0 {
			t.Errorf("fallback %q with AllowMissing: got %v, %v", status, got, err)
		}
	}
}

func TestExtractEvaluationError(t *testing.T) {
	rules := mustCompile(t, rule("k", "{.a[1:0]}"))
	_, err := rules.ExtractFromJSON([]byte(`{"a":[1,2]}`))
	if !errors.Is(err, ErrEvaluation) {
		t.Fatalf("want ErrEvaluation, got %v", err)
	}
}

func TestExtractInvalidStatus(t *testing.T) {
	for _, rules := range []*Rules{
		mustCompile(t, rule("k", "{.a}")),
		mustCompile(t, rule("k", "{.a[0]}")),
	} {
		for _, status := range []string{`{"a":1`, `[1]`, `"a"`, `{"a":1}{}`, `{"a":1e999}`, ` `, `{"a":01}`} {
			got, err := rules.ExtractFromJSON([]byte(status))
			if !errors.Is(err, ErrInvalidStatus) || got != nil {
				t.Errorf("%q: want ErrInvalidStatus, got %v, %v", status, got, err)
			}
		}
	}
	rules := mustCompile(t, rule("k", "{.a}"))
	_, err := rules.ExtractFromObject(&unstructured.Unstructured{Object: map[string]any{"status": "broken"}})
	if !errors.Is(err, ErrInvalidStatus) {
		t.Fatalf("object with a string status: got %v", err)
	}
	if _, err := rules.ExtractFromObject(nil); !errors.Is(err, ErrFieldNotFound) {
		t.Fatalf("nil object: got %v", err)
	}
}

func TestExtractLabelValues(t *testing.T) {
	long := strings.Repeat("a", 64)
	rules := mustCompile(t, rule("k", "{.v}"))
	cases := []struct {
		value   string
		valid   bool
		encoded string
	}{
		{"RUNNING", true, "RUNNING"},
		{"", true, ""},
		{strings.Repeat("a", 63), true, strings.Repeat("a", 63)},
		{long, false, strings.Repeat("a", 46) + "-" + sha256Hex16(long)},
		{"s3://bucket/path", false, "s3---bucket-path-" + sha256Hex16("s3://bucket/path")},
		{"-lead", false, "lead-" + sha256Hex16("-lead")},
		{"///", false, sha256Hex16("///")},
	}
	for _, tc := range cases {
		status, _ := json.Marshal(map[string]string{"v": tc.value})
		got, err := extractAll(t, rules, string(status))
		if tc.valid {
			if err != nil || got["k"] != tc.value {
				t.Errorf("%q: got %v, %v", tc.value, got, err)
			}
		} else if !errors.Is(err, ErrInvalidLabelValue) || !strings.Contains(err.Error(), `"k"`) {
			t.Errorf("%q: want ErrInvalidLabelValue naming the rule, got %v", tc.value, err)
		}
		got, err = extractAll(t, rules, string(status), EncodeInvalidValues())
		if err != nil || got["k"] != tc.encoded {
			t.Errorf("%q encoded: got %v, %v, want %q", tc.value, got, err, tc.encoded)
		}
	}
}

func TestExtractNoRules(t *testing.T) {
	var nilRules *Rules
	empty := mustCompile(t)
	for _, rules := range []*Rules{nilRules, empty} {
		got, err := rules.ExtractFromJSON([]byte(`not even json`))
		if got != nil || err != nil {
			t.Fatalf("no rules: got %v, %v", got, err)
		}
		if got, err := rules.ExtractFromUnstructured(nil); got != nil || err != nil {
			t.Fatalf("no rules: got %v, %v", got, err)
		}
		if got, err := rules.ExtractFromObject(nil); got != nil || err != nil {
			t.Fatalf("no rules: got %v, %v", got, err)
		}
	}
}

func TestExtractForeignTypesFallBackToJSONPath(t *testing.T) {
	// Hand-built maps may hold types JSON decoding never produces; the
	// walker hands those to jsonpath rather than guessing.
	rules := mustCompile(t, rule("n", "{.spec.n}"), rule("s", "{.labels.team}"))
	status := map[string]any{
		"spec":   map[string]any{"n": int32(7)},
		"labels": map[string]string{"team": "data"},
	}
	got, err := rules.ExtractFromUnstructured(status)
	if err != nil || !cmp.Equal(got, map[string]string{"n": "7", "s": "data"}) {
		t.Fatalf("got %v, %v", got, err)
	}
	_, err = rules.ExtractFromUnstructured(map[string]any{"labels": map[string]string{}}, AllowMissing())
	if err != nil {
		t.Fatalf("missing key in a foreign map with AllowMissing: %v", err)
	}
}

// TestRulesConcurrentUse shares one compiled Rules, with plain chains and
// jsonpath templates, between many goroutines (run with -race).
func TestRulesConcurrentUse(t *testing.T) {
	rules := mustCompile(t,
		rule("id", "{.jobStatus.jobId}"),
		rule("ready", `{.conditions[?(@.type=="Ready")].status}`),
		rule("first", "{.conditions[0].type}"))
	status := compactFlinkStatus(t)
	var decoded map[string]any
	if err := json.Unmarshal(status, &decoded); err != nil {
		t.Fatal(err)
	}
	decoded["conditions"] = []any{map[string]any{"type": "Ready", "status": "True"}}
	withConditions, err := json.Marshal(decoded)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"id": "c7a3b1f0e4d24a5b9f8e6d7c5b4a3921", "ready": "True", "first": "Ready"}
	chainOnly := mustCompile(t, rule("id", "{.jobStatus.jobId}"))

	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 50 {
				var got map[string]string
				var err error
				if g%2 == 0 {
					got, err = rules.ExtractFromJSON(withConditions)
				} else {
					got, err = rules.ExtractFromUnstructured(decoded)
				}
				if err == nil && !cmp.Equal(got, want) {
					err = errors.New("unexpected result")
				}
				if err == nil {
					got, err = chainOnly.ExtractFromJSON(status)
					if err == nil && got["id"] != want["id"] {
						err = errors.New("unexpected chain result")
					}
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}
