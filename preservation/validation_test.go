package preservation

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestValidateStatePreservationNil(t *testing.T) {
	if errs := ValidateStatePreservation(nil, field.NewPath("statePreservation")); errs != nil {
		t.Fatalf("nil statePreservation: %v", errs)
	}
}

func TestValidateStatePreservation(t *testing.T) {
	type wantErr struct {
		typ   field.ErrorType
		field string
		// detail must appear in the error's Detail.
		detail string
	}
	cases := []struct {
		name  string
		rules []StatePreservationRule
		want  []wantErr
	}{
		{
			name: "valid rules",
			rules: []StatePreservationRule{
				{AliasLabelName: "failover.karmada.io/replicas", JSONPath: "{ .replicas }"},
				{AliasLabelName: "ready", JSONPath: "{.readyReplicas}"},
				{AliasLabelName: "cond", JSONPath: `{.conditions[?(@.type=="Ready")].status}`},
				{AliasLabelName: "first", JSONPath: "{.items[0].name}"},
				{AliasLabelName: "mixed", JSONPath: "job-{.jobStatus.jobId}"},
			},
		},
		{name: "no rules", rules: nil},
		{
			name:  "missing alias",
			rules: []StatePreservationRule{{JSONPath: "{.a}"}},
			want:  []wantErr{{field.ErrorTypeRequired, "sp.rules[0].aliasLabelName", "label key"}},
		},
		{
			name:  "alias not a label key",
			rules: []StatePreservationRule{{AliasLabelName: "bad key!", JSONPath: "{.a}"}},
			want:  []wantErr{{field.ErrorTypeInvalid, "sp.rules[0].aliasLabelName", "name part must consist of"}},
		},
		{
			name:  "alias prefix not a DNS subdomain",
			rules: []StatePreservationRule{{AliasLabelName: "Bad_Prefix/key", JSONPath: "{.a}"}},
			want:  []wantErr{{field.ErrorTypeInvalid, "sp.rules[0].aliasLabelName", "prefix part"}},
		},
		{
			name: "duplicate alias",
			rules: []StatePreservationRule{
				{AliasLabelName: "a", JSONPath: "{.a}"},
				{AliasLabelName: "b", JSONPath: "{.b}"},
				{AliasLabelName: "a", JSONPath: "{.c}"},
			},
			want: []wantErr{{field.ErrorTypeDuplicate, "sp.rules[2].aliasLabelName", ""}},
		},
		{
			name:  "missing template",
			rules: []StatePreservationRule{{AliasLabelName: "a", JSONPath: "  "}},
			want:  []wantErr{{field.ErrorTypeRequired, "sp.rules[0].jsonPath", "is required"}},
		},
		{
			name:  "template without braces",
			rules: []StatePreservationRule{{AliasLabelName: "a", JSONPath: ".jobStatus.jobId"}},
			want:  []wantErr{{field.ErrorTypeInvalid, "sp.rules[0].jsonPath", "without braces"}},
		},
		{
			name:  "unclosed action",
			rules: []StatePreservationRule{{AliasLabelName: "a", JSONPath: "{.jobStatus.jobId"}},
			want:  []wantErr{{field.ErrorTypeInvalid, "sp.rules[0].jsonPath", "unclosed action"}},
		},
		{
			name:  "range",
			rules: []StatePreservationRule{{AliasLabelName: "a", JSONPath: "{range .items[*]}{.name}{end}"}},
			want:  []wantErr{{field.ErrorTypeInvalid, "sp.rules[0].jsonPath", "{range} and {end} are not supported"}},
		},
		{
			name:  "end alone",
			rules: []StatePreservationRule{{AliasLabelName: "a", JSONPath: "{.a}{end}"}},
			want:  []wantErr{{field.ErrorTypeInvalid, "sp.rules[0].jsonPath", "{range} and {end}"}},
		},
		{
			name:  "range inside a union",
			rules: []StatePreservationRule{{AliasLabelName: "a", JSONPath: "{.a[range,1]}"}},
			want:  []wantErr{{field.ErrorTypeInvalid, "sp.rules[0].jsonPath", ""}},
		},
		{
			name:  "unknown identifier",
			rules: []StatePreservationRule{{AliasLabelName: "a", JSONPath: "{foo}"}},
			want:  []wantErr{{field.ErrorTypeInvalid, "sp.rules[0].jsonPath", `unknown identifier "foo"`}},
		},
		{
			name: "every rule is checked",
			rules: []StatePreservationRule{
				{AliasLabelName: "", JSONPath: "plain"},
				{AliasLabelName: "ok", JSONPath: "{.a}"},
				{AliasLabelName: "-bad", JSONPath: "{.a[}"},
			},
			want: []wantErr{
				{field.ErrorTypeRequired, "sp.rules[0].aliasLabelName", ""},
				{field.ErrorTypeInvalid, "sp.rules[0].jsonPath", "without braces"},
				{field.ErrorTypeInvalid, "sp.rules[2].aliasLabelName", ""},
				{field.ErrorTypeInvalid, "sp.rules[2].jsonPath", "cannot be parsed"},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			errs := ValidateStatePreservation(&StatePreservation{Rules: tc.rules}, field.NewPath("sp"))
			if len(errs) != len(tc.want) {
				t.Fatalf("got %d errors %v, want %d", len(errs), errs, len(tc.want))
			}
			for i, w := range tc.want {
				got := errs[i]
				if got.Type != w.typ || got.Field != w.field || !strings.Contains(got.Detail, w.detail) {
					t.Errorf("error %d = %v (type %s, field %s, detail %q), want type %s field %s detail containing %q",
						i, got, got.Type, got.Field, got.Detail, w.typ, w.field, w.detail)
				}
			}
		})
	}
}

func TestCompileReportsFieldErrors(t *testing.T) {
	_, err := Compile([]StatePreservationRule{{AliasLabelName: "a", JSONPath: "a"}})
	if !errors.Is(err, ErrInvalidRules) {
		t.Fatalf("errors.Is(ErrInvalidRules) = false for %v", err)
	}
	var invalid *InvalidRulesError
	if !errors.As(err, &invalid) || len(invalid.Errors) != 1 || invalid.Errors[0].Field != "rules[0].jsonPath" {
		t.Fatalf("errors.As(*InvalidRulesError) gave %+v", invalid)
	}
	var fe *field.Error
	if !errors.As(err, &fe) || fe.Type != field.ErrorTypeInvalid {
		t.Fatalf("errors.As(*field.Error) gave %v", fe)
	}
	if !strings.Contains(err.Error(), "rules[0].jsonPath") {
		t.Fatalf("message %q does not name the field", err)
	}
}

func TestCompileRecognisesPlainChains(t *testing.T) {
	cases := []struct {
		template string
		chain    []string
	}{
		{"{.a}", []string{"a"}},
		{"{ .jobStatus.jobId }", []string{"jobStatus", "jobId"}},
		{"{$.a.b}", []string{"a", "b"}},
		{"{.a['b']}", []string{"a", "b"}},
		{`{.a\.b.c}`, []string{"a.b", "c"}},
		{"{.a[0]}", nil},
		{"{.a[*].b}", nil},
		{"{.a.*}", nil},
		{"{..a}", nil},
		{"{.a[0,1]}", nil},
		{"x{.a}", nil},
		{"{.a}{.b}", nil},
		{"{.a}x", nil},
		{"{}", nil},
		{`{.a[?(@.b=="c")]}`, nil},
	}
	for _, tc := range cases {
		rules, err := Compile([]StatePreservationRule{{AliasLabelName: "k", JSONPath: tc.template}})
		if err != nil {
			t.Errorf("%q: %v", tc.template, err)
			continue
		}
		if got := rules.rules[0].chain; !equalChains(got, tc.chain) || (got == nil) != (tc.chain == nil) {
			t.Errorf("%q: chain %q, want %q", tc.template, got, tc.chain)
		}
		if rules.allChains != (tc.chain != nil) {
			t.Errorf("%q: allChains = %v", tc.template, rules.allChains)
		}
	}
}
