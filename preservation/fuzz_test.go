package preservation

import (
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// checkExtraction asserts what holds for any extraction: a result holds
// only valid label values under the rules' aliases, and an error wraps one
// of the package's sentinels.
func checkExtraction(t *testing.T, rules []StatePreservationRule, got map[string]string, err error) {
	t.Helper()
	if err != nil {
		if got != nil {
			t.Fatalf("error %v came with a result %v", err, got)
		}
		if kind := errorKind(err); kind != "invalid-status" && kind != "not-found" && kind != "invalid-label-value" && kind != "evaluation" && kind != "budget" {
			t.Fatalf("error wraps no sentinel: %v", err)
		}
		return
	}
	aliases := map[string]bool{}
	for _, r := range rules {
		aliases[r.AliasLabelName] = true
	}
	for k, v := range got {
		if !aliases[k] {
			t.Fatalf("result key %q is no rule's alias", k)
		}
		if msgs := validation.IsValidLabelValue(v); len(msgs) > 0 {
			t.Fatalf("result %q=%q is not a label value: %v", k, v, msgs)
		}
	}
}

var fuzzStatuses = [][]byte{
	[]byte(`{"a":{"b":[1,{"c":"d"}]},"replicas":3,"items":[{"name":"x","ready":true}]}`),
	[]byte(`{"jobStatus":{"jobId":"e6fd","state":"RUNNING"}}`),
	[]byte(`null`),
}

// FuzzCompile: any alias and template; Compile and ValidateStatePreservation
// agree, nothing panics, and an accepted template never panics at
// extraction on a few statuses.
func FuzzCompile(f *testing.F) {
	for _, seed := range [][2]string{
		{"failover.karmada.io/failover-jobid", "{ .jobStatus.jobId }"},
		{"a", "{range .items[*]}{.name}{end}"},
		{"a", `{.items[?(@.ready==true)].name}`},
		{"a", "{.a.b[1].c}"},
		{"a", "{.a[-1:]}"},
		{"a", "{..c}"},
		{"a", "{.a[*]['b','c']}"},
		{"a", "text only"},
		{"bad key!", "{.a"},
		{"a", `{.items[?(@.name=="x\")]}`},
	} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, alias, template string) {
		rules := []StatePreservationRule{{AliasLabelName: alias, JSONPath: template}}
		errs := ValidateStatePreservation(&StatePreservation{Rules: rules}, field.NewPath("sp"))
		compiled, err := Compile(rules)
		if (len(errs) == 0) != (err == nil) {
			t.Fatalf("Validate gave %v but Compile gave %v", errs, err)
		}
		if err != nil {
			if !errors.Is(err, ErrInvalidRules) {
				t.Fatalf("Compile error is not ErrInvalidRules: %v", err)
			}
			return
		}
		for _, status := range fuzzStatuses {
			got, err := compiled.ExtractFromJSON(status, EncodeInvalidValues())
			checkExtraction(t, rules, got, err)
			got, err = compiled.ExtractFromJSON(status, AllowMissing())
			checkExtraction(t, rules, got, err)
		}
	})
}

// FuzzExtractFromJSON: any status bytes through plain chains and jsonpath
// templates; no panic, and results obey checkExtraction.
func FuzzExtractFromJSON(f *testing.F) {
	for _, s := range fuzzStatuses {
		f.Add(s)
	}
	f.Add([]byte(`{"a":{"b":[1,{"c":"d"}]},"a":5}`))
	f.Add([]byte(`{"items":[{"name":"x","ready":true},{"name":"y"}],"a":{"b":"\u00e9"}}`))
	chains := []StatePreservationRule{
		{AliasLabelName: "ab", JSONPath: "{.a.b}"},
		{AliasLabelName: "a", JSONPath: "{.a}"},
		{AliasLabelName: "replicas", JSONPath: "{ .replicas }"},
	}
	mixed := append([]StatePreservationRule{
		{AliasLabelName: "first", JSONPath: "{.items[0].name}"},
		{AliasLabelName: "ready", JSONPath: `{.items[?(@.ready==true)].name}`},
		{AliasLabelName: "deep", JSONPath: "{..c}"},
	}, chains...)
	chainRules, err := Compile(chains)
	if err != nil {
		f.Fatal(err)
	}
	mixedRules, err := Compile(mixed)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, status []byte) {
		for _, opts := range [][]ExtractOption{nil, {AllowMissing()}, {EncodeInvalidValues(), AllowMissing()}} {
			got, err := chainRules.ExtractFromJSON(status, opts...)
			checkExtraction(t, chains, got, err)
			checkInto(t, chainRules, status, opts, got, err)
			got, err = mixedRules.ExtractFromJSON(status, opts...)
			checkExtraction(t, mixed, got, err)
			checkInto(t, mixedRules, status, opts, got, err)
		}
	})
}

// FuzzInject: any state key and value over any existing label; Inject
// either refuses without touching the object or writes exactly the state
// over the other labels.
func FuzzInject(f *testing.F) {
	f.Add("failover.karmada.io/replicas", "3", "failover.karmada.io/replicas", "1")
	f.Add("bad key", "v", "app", "web")
	f.Add("k", "s3://x", "app", "web")
	f.Fuzz(func(t *testing.T, key, value, existingKey, existingValue string) {
		obj := manifest(map[string]any{existingKey: existingValue})
		before := obj.DeepCopy()
		err := Inject(obj, map[string]string{key: value})
		if err != nil {
			if !errors.Is(err, ErrInvalidLabelKey) && !errors.Is(err, ErrInvalidLabelValue) {
				t.Fatalf("unexpected error %v", err)
			}
			if !equalObjects(before, obj) {
				t.Fatalf("object changed on error %v", err)
			}
			return
		}
		labels := obj.GetLabels()
		if labels[key] != value {
			t.Fatalf("labels %v miss %q=%q", labels, key, value)
		}
		if existingKey != key && labels[existingKey] != existingValue {
			t.Fatalf("labels %v lost %q=%q", labels, existingKey, existingValue)
		}
	})
}
