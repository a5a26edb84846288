package cel

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fleetover/fleetover/failover/health"
)

// TestZeroValues holds the Config a caller fills to its documented zero
// value: every limit at its default.
func TestZeroValues(t *testing.T) {
	if errs := ValidateConfig(Config{}, field.NewPath("cel")); len(errs) != 0 {
		t.Fatal(errs)
	}
	rule, err := NewInterpreter(`object.status.ready == true`, Config{})
	if err != nil {
		t.Fatal(err)
	}
	obj := &unstructured.Unstructured{Object: map[string]any{"status": map[string]any{"ready": true}}}
	if res, err := rule.Interpret(obj); err != nil || res.Status != health.Healthy {
		t.Fatalf("%+v %v", res, err)
	}
}
