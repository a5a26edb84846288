package health

import (
	"encoding/json"
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

var fuzzObjects = []string{
	`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"generation":2},"spec":{"replicas":3},"status":{"observedGeneration":2,"updatedReplicas":3,"availableReplicas":3}}`,
	`{"apiVersion":"v1","kind":"Pod","status":{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}`,
	`{"apiVersion":"v1","kind":"Service","spec":{"type":"LoadBalancer"},"status":{"loadBalancer":{"ingress":[{"ip":"1.2.3.4"}]}}}`,
	`{"apiVersion":"flink.apache.org/v1beta1","kind":"FlinkDeployment","status":{"lifecycleState":"STABLE","jobStatus":{"state":"RUNNING"}}}`,
	`{"apiVersion":"batch/v1","kind":"Job","status":{"conditions":[{"type":"Failed","status":"True"}]}}`,
	`{"status":{"conditions":[null,1,"x"],"loadBalancer":{"ingress":[null]}},"spec":{"replicas":1e300}}`,
	`{"status":[],"spec":null,"metadata":"x"}`,
}

// fuzzDecode returns the document as an object twice: with apimachinery's
// decoder (int64 numbers) and with encoding/json (float64 numbers).
func fuzzDecode(doc []byte) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	m1 := map[string]any{}
	if utiljson.Unmarshal(doc, &m1) == nil {
		out = append(out, &unstructured.Unstructured{Object: m1})
	}
	m2 := map[string]any{}
	if json.Unmarshal(doc, &m2) == nil {
		out = append(out, &unstructured.Unstructured{Object: m2})
	}
	return out
}

func checkResult(t *testing.T, who string, got Result, err error) {
	t.Helper()
	if !got.Status.IsValid() {
		t.Fatalf("%s: invalid status %q", who, got.Status)
	}
	if err != nil && got.Status != Unknown {
		t.Fatalf("%s: error %v with status %s, want Unknown", who, err, got.Status)
	}
}

// FuzzBuiltins feeds any JSON object to every built-in rule and to a
// registry under each built-in kind: no panic, always a valid status, and
// an error only with Unknown.
func FuzzBuiltins(f *testing.F) {
	for _, doc := range fuzzObjects {
		f.Add([]byte(doc))
	}
	builtins := BuiltinInterpreters()
	registry := NewRegistry(RegistryConfig{})
	f.Fuzz(func(t *testing.T, doc []byte) {
		for _, obj := range fuzzDecode(doc) {
			for gk, i := range builtins {
				got, err := i.Interpret(obj)
				checkResult(t, gk.String(), got, err)
				// JSON null decodes to an object without content, which
				// is ErrNoObject; every other error is a malformed object.
				switch {
				case err == nil:
				case obj.Object == nil:
					if !errors.Is(err, ErrNoObject) {
						t.Fatalf("%s: error %v for an object without content, want ErrNoObject", gk, err)
					}
				case !errors.Is(err, ErrMalformedObject):
					t.Fatalf("%s: error %v does not wrap ErrMalformedObject", gk, err)
				}
			}
			checkResult(t, "registry", registry.Interpret(obj), nil)
		}
	})
}
