package health

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestZeroValues holds every struct a caller fills in this package to its
// documented zero value: a safe default, or an error at the first call.
func TestZeroValues(t *testing.T) {
	cases := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"RegistryConfig: built-ins registered, an unknown kind is Unknown", func(t *testing.T) {
			r := NewRegistry(RegistryConfig{})
			deploy := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "apps/v1", "kind": "Deployment",
				"metadata": map[string]any{"generation": int64(1)},
				"spec":     map[string]any{"replicas": int64(1)},
				"status": map[string]any{"observedGeneration": int64(1), "replicas": int64(1),
					"updatedReplicas": int64(1), "availableReplicas": int64(1)},
			}}
			if got := r.Interpret(deploy).Status; got != Healthy {
				t.Fatalf("Deployment: %v", got)
			}
			other := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.io/v1", "kind": "Widget"}}
			if got := r.Interpret(other).Status; got != Unknown {
				t.Fatalf("unregistered kind: %v", got)
			}
		}},
		{"Status: the empty status is not a valid one", func(t *testing.T) {
			if Status("").IsValid() {
				t.Fatal("the empty status is valid")
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}
