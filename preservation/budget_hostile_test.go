package preservation

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// chainStatus is a chain-shaped status {"a":{"b":{"c":{"d":{"a":...}}}}}
// nested depth deep: the worst case of a recursive descent.
func chainStatus(depth int) []byte {
	keys := "abcd"
	var b strings.Builder
	for i := range depth {
		fmt.Fprintf(&b, `{"%c":`, keys[i%4])
	}
	b.WriteString(`"end"`)
	b.WriteString(strings.Repeat("}", depth))
	return []byte(b.String())
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Templates whose cost grows as a high power of the status size are
// refused at compile time, with the rule's jsonPath named.
func TestHostileJSONPathCompileRefusesUnboundedCost(t *testing.T) {
	for _, tc := range []struct{ name, template string }{
		{"four recursive descents", "{..a..b..c..d}"},
		{"two recursive descents", "{..a..b}"},
		{"descents in two actions", "{..a}{..b}"},
		{"descent inside a filter", "{.items[?(@..a == 1)]}"},
		{"five filters", "{.a[?(@.x==1)][?(@.x==1)][?(@.x==1)][?(@.x==1)][?(@.x==1)]}"},
		{"too many union branches", "{.a['a','b','c','d','e','f','g','h','i']['a','b','c','d','e','f','g','h','i']}"},
		{"too long", "{." + strings.Repeat("a", MaxJSONPathLength) + "}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rules := []StatePreservationRule{{AliasLabelName: "ok", JSONPath: tc.template}}
			_, err := Compile(rules)
			var invalid *InvalidRulesError
			if !errors.As(err, &invalid) || len(invalid.Errors) != 1 || invalid.Errors[0].Field != "rules[0].jsonPath" {
				t.Fatalf("Compile(%q) = %v, want one error on rules[0].jsonPath", tc.template, err)
			}
			errs := ValidateStatePreservation(&StatePreservation{Rules: rules}, field.NewPath("spec", "statePreservation"))
			if len(errs) != 1 || errs[0].Field != "spec.statePreservation.rules[0].jsonPath" {
				t.Fatalf("ValidateStatePreservation = %v, want one error on the rule's jsonPath", errs)
			}
		})
	}
	for _, ok := range []string{"{..a}", "{.a[?(@.x==1)][?(@.x==1)][?(@.x==1)][?(@.x==1)]}", "{.a['a','b','c','d','e','f','g','h']['a','b','c','d','e','f','g','h']}"} {
		if _, err := Compile([]StatePreservationRule{{AliasLabelName: "ok", JSONPath: ok}}); err != nil {
			t.Errorf("Compile(%q) refused a template within the limits: %v", ok, err)
		}
	}
	many := make([]StatePreservationRule, MaxRules+1)
	for i := range many {
		many[i] = StatePreservationRule{AliasLabelName: fmt.Sprintf("k%d", i), JSONPath: "{.a}"}
	}
	_, err := Compile(many)
	var invalid *InvalidRulesError
	if !errors.As(err, &invalid) || len(invalid.Errors) != 1 || invalid.Errors[0].Type != field.ErrorTypeTooMany || invalid.Errors[0].Field != "rules" {
		t.Fatalf("Compile of %d rules = %v, want one TooMany on rules", len(many), err)
	}
}

// The attack: "{..a..b..c..d}" on a chain-shaped status allocated
// gigabytes. It is refused before any status is seen, and a single
// recursive descent on a deep chain is refused by the evaluation budget
// before jsonpath runs, naming the rule.
func TestHostileJSONPathChainStatusFailsFast(t *testing.T) {
	status := chainStatus(190) // 1,161 bytes, as in the report
	if _, err := Compile([]StatePreservationRule{{AliasLabelName: "x", JSONPath: "{..a..b..c..d}"}}); !errors.Is(err, ErrInvalidRules) {
		t.Fatalf("Compile accepted {..a..b..c..d}: %v", err)
	}

	rules, err := Compile([]StatePreservationRule{{AliasLabelName: "deep", JSONPath: "{..a}"}})
	if err != nil {
		t.Fatal(err)
	}
	// Within the default budget the shallow chain evaluates (jsonpath
	// prints several values: not a label value).
	if _, err := rules.ExtractFromJSON(status); errors.Is(err, ErrBudgetExceeded) {
		t.Fatalf("a 1 KB chain exceeded the default budget: %v", err)
	}

	deep := chainStatus(5000)
	var got error
	bytes := allocated(func() { _, got = rules.ExtractFromJSON(deep) })
	var ruleErr *RuleError
	if !errors.Is(got, ErrBudgetExceeded) || !errors.As(got, &ruleErr) || ruleErr.AliasLabelName != "deep" {
		t.Fatalf("{..a} on a chain 5000 deep: %v, want a RuleError for deep wrapping ErrBudgetExceeded", got)
	}
	// Decoding the status is all it costs: about 2 KB per level of
	// nesting, against gigabytes for the evaluation it refused.
	if limit := uint64(64 * len(deep)); bytes > limit {
		t.Fatalf("refusing allocated %d bytes, more than %d", bytes, limit)
	}
}

// Every bound is a default the caller can tighten.
func TestHostileJSONPathBudgetCanBeTightened(t *testing.T) {
	rules, err := Compile([]StatePreservationRule{{AliasLabelName: "ready", JSONPath: `{.conditions[?(@.type=="Ready")].status}`}})
	if err != nil {
		t.Fatal(err)
	}
	status := []byte(`{"conditions":[{"type":"Progressing","status":"True"},{"type":"Ready","status":"False"}]}`)
	got, err := rules.ExtractFromJSON(status)
	if err != nil || got["ready"] != "False" {
		t.Fatalf("default budget: %v, %v", got, err)
	}
	if _, err := rules.ExtractFromJSON(status, WithBudget(Budget{MaxWork: 10})); !errors.Is(err, ErrBudgetExceeded) || !strings.Contains(err.Error(), `"ready"`) {
		t.Fatalf("MaxWork 10: %v, want ErrBudgetExceeded naming the rule", err)
	}
	if _, err := rules.ExtractFromJSON(status, WithBudget(Budget{MaxStatusBytes: 16})); !errors.Is(err, ErrBudgetExceeded) {
		t.Fatalf("MaxStatusBytes 16: %v, want ErrBudgetExceeded", err)
	}
	// The budget is shared by the rules of one extraction.
	two, err := Compile([]StatePreservationRule{
		{AliasLabelName: "a", JSONPath: `{.conditions[?(@.type=="Ready")].status}`},
		{AliasLabelName: "b", JSONPath: `{.conditions[?(@.type=="Ready")].type}`},
	})
	if err != nil {
		t.Fatal(err)
	}
	size, _ := measureStatus(mustDecode(t, status), DefaultMaxWork)
	one := int64(templateWork(two.rules[0].root, size))
	_, err = two.ExtractFromJSON(status, WithBudget(Budget{MaxWork: one + 1}))
	var ruleErr *RuleError
	if !errors.As(err, &ruleErr) || ruleErr.AliasLabelName != "b" || !errors.Is(err, ErrBudgetExceeded) {
		t.Fatalf("budget for one rule: %v, want rule b over budget", err)
	}
}

// A map that contains itself (only a caller's own map can) is refused by
// the walk that sizes it, instead of recursing for ever.
func TestHostileJSONPathSelfContainingMap(t *testing.T) {
	rules, err := Compile([]StatePreservationRule{{AliasLabelName: "x", JSONPath: "{.a[0]}"}})
	if err != nil {
		t.Fatal(err)
	}
	status := map[string]any{}
	status["a"] = []any{status}
	if _, err := rules.ExtractFromUnstructured(status); !errors.Is(err, ErrBudgetExceeded) {
		t.Fatalf("self-containing map: %v, want ErrBudgetExceeded", err)
	}
}

func mustDecode(t *testing.T, status []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := decodeJSON(status, &m, false); err != nil {
		t.Fatal(err)
	}
	return m
}

// fuzzBudget is the work budget FuzzExtractBudget evaluates under: small,
// so that exceeding it by the orders of magnitude an unbounded template
// reaches shows as an allocation far above the bound.
const fuzzBudget = 1 << 14

// bytesPerWorkUnit is what FuzzExtractBudget allows jsonpath to allocate
// per work unit of the budget, on top of decoding the status.
const bytesPerWorkUnit = 256

// FuzzExtractBudget compiles a fuzzed template and evaluates it on a fuzzed
// status under a budget, asserting the bound per evaluation: whatever the
// template and status, one extraction allocates at most a constant per
// byte of status (decoding) plus bytesPerWorkUnit per unit of the budget.
func FuzzExtractBudget(f *testing.F) {
	for _, seed := range []struct {
		template string
		status   []byte
	}{
		{"{..a}", chainStatus(40)},
		{"{..a..b..c..d}", chainStatus(40)},
		{"{..*}", []byte(`{"a":[[[[[[[[1]]]]]]]],"b":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}`)},
		{"{.a[*][*][*]}", []byte(`{"a":[[[1,2],[3]],[[4]]]}`)},
		{"{['a','a','a','a']['a','a','a','a']}", chainStatus(8)},
		{`{.items[?(@.name=="x")].name}`, []byte(`{"items":[{"name":"x"},{"name":"y"}]}`)},
		{"{.a}{..b}{.c}", chainStatus(60)},
		{"{..}", chainStatus(60)},
	} {
		f.Add(seed.template, seed.status)
	}
	f.Fuzz(func(t *testing.T, template string, status []byte) {
		rules, err := Compile([]StatePreservationRule{{AliasLabelName: "x", JSONPath: template}})
		if err != nil {
			return
		}
		var got map[string]string
		bytes := allocated(func() {
			got, err = rules.ExtractFromJSON(status, WithBudget(Budget{MaxWork: fuzzBudget}), EncodeInvalidValues())
		})
		checkExtraction(t, []StatePreservationRule{{AliasLabelName: "x", JSONPath: template}}, got, err)
		if limit := uint64(64*len(status) + bytesPerWorkUnit*fuzzBudget + 64<<10); bytes > limit {
			t.Fatalf("%q on %d bytes of status allocated %d bytes, more than %d (error %v)", template, len(status), bytes, limit, err)
		}
	})
}
