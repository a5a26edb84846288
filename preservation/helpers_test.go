package preservation

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/client-go/util/jsonpath"
)

// referenceValue evaluates one template the reference way: decode the whole
// status into a map (empty input counts as null) with Kubernetes' JSON
// decoding, or encoding/json when float64Numbers is set, then let a freshly
// parsed client-go JSONPath print the result.
func referenceValue(template string, status []byte, float64Numbers bool) (string, error) {
	jp := jsonpath.New("reference")
	if err := jp.Parse(template); err != nil {
		return "", err
	}
	var decoded map[string]any
	if len(status) > 0 {
		var err error
		if float64Numbers {
			err = json.Unmarshal(status, &decoded)
		} else {
			err = utiljson.Unmarshal(status, &decoded)
		}
		if err != nil {
			return "", errReferenceInvalidStatus
		}
	}
	var buf bytes.Buffer
	if err := jp.Execute(&buf, decoded); err != nil {
		return "", classifyJSONPathError(err)
	}
	return buf.String(), nil
}

var errReferenceInvalidStatus = errors.New("reference: status does not decode")

// errorKind names the class of an extraction error so the fast path and
// the reference can be compared.
func errorKind(err error) string {
	switch {
	case err == nil:
		return "none"
	case errors.Is(err, ErrInvalidStatus), errors.Is(err, errReferenceInvalidStatus):
		return "invalid-status"
	case errors.Is(err, ErrFieldNotFound):
		return "not-found"
	case errors.Is(err, ErrInvalidLabelValue):
		return "invalid-label-value"
	case errors.Is(err, ErrEvaluation):
		return "evaluation"
	case errors.Is(err, ErrBudgetExceeded):
		return "budget"
	default:
		return "other: " + err.Error()
	}
}

// chainTemplate writes a plain field chain as a template, escaping the
// characters jsonpath treats as the end of a field name.
func chainTemplate(chain []string) string {
	var b strings.Builder
	b.WriteString("{")
	for _, key := range chain {
		b.WriteByte('.')
		for _, r := range key {
			switch r {
			case ' ', '\t', '\r', '\n', '.', ',', '[', ']', '$', '@', '{', '}':
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
	}
	b.WriteString("}")
	return b.String()
}

// compareWithReference extracts one plain chain through the raw scanner and
// through the decoded walker, and checks both against the reference: same
// printed value (compared through EncodeLabelValue, which is the identity on
// valid label values and a hash otherwise), or errors of the same kind.
// It reports false when the chain is not a plain chain the package accepts.
func compareWithReference(t *testing.T, status []byte, chain []string) bool {
	t.Helper()
	template := chainTemplate(chain)
	rules, err := Compile([]StatePreservationRule{{AliasLabelName: "k", JSONPath: template}})
	if err != nil || !rules.allChains || !equalChains(rules.rules[0].chain, chain) {
		return false
	}
	for _, float64Numbers := range []bool{false, true} {
		want, wantErr := referenceValue(template, status, float64Numbers)
		check := func(path string, got map[string]string, gotErr error) {
			t.Helper()
			if errorKind(gotErr) != errorKind(wantErr) {
				t.Fatalf("%s (float64Numbers %v): template %q on %q: error kind %q (%v), reference %q (%v)",
					path, float64Numbers, template, status, errorKind(gotErr), gotErr, errorKind(wantErr), wantErr)
			}
			if wantErr == nil && got["k"] != EncodeLabelValue(want) {
				t.Fatalf("%s (float64Numbers %v): template %q on %q: got %q, reference prints %q (encoded %q)",
					path, float64Numbers, template, status, got["k"], want, EncodeLabelValue(want))
			}
		}
		opts := []ExtractOption{EncodeInvalidValues()}
		if float64Numbers {
			opts = append(opts, Float64Numbers())
		}
		got, gotErr := rules.ExtractFromJSON(status, opts...)
		check("raw scan", got, gotErr)

		// The decoded walker sees what the same decoding produced.
		var decoded map[string]any
		var err error
		if len(status) > 0 {
			if float64Numbers {
				err = json.Unmarshal(status, &decoded)
			} else {
				err = utiljson.Unmarshal(status, &decoded)
			}
		}
		if err == nil {
			got, gotErr = rules.ExtractFromUnstructured(decoded, opts...)
			check("decoded walk", got, gotErr)
		}
	}
	return true
}

func equalChains(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
