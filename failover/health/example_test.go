package health_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fleetover/fleetover/failover/health"
)

func mustDecode(doc string) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON([]byte(doc)); err != nil {
		panic(err)
	}
	return obj
}

// A registry with the built-in rules tells the health of a Deployment from
// its unstructured form.
func ExampleRegistry_Interpret() {
	registry := health.NewRegistry(health.RegistryConfig{})

	rollingOut := mustDecode(`{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": {"name": "web", "generation": 7},
		"spec": {"replicas": 3},
		"status": {"observedGeneration": 7, "updatedReplicas": 2, "availableReplicas": 2}}`)
	stale := mustDecode(`{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": {"name": "web", "generation": 8},
		"spec": {"replicas": 3},
		"status": {"observedGeneration": 7, "updatedReplicas": 3, "availableReplicas": 3}}`)
	configMap := mustDecode(`{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "settings"}}`)

	for _, obj := range []*unstructured.Unstructured{rollingOut, stale, configMap} {
		r := registry.Interpret(obj)
		fmt.Printf("%s: %s (%s)\n", obj.GetKind(), r.Status, r.Reason)
	}
	// Output:
	// Deployment: Unhealthy (status.updatedReplicas 2 < spec.replicas 3)
	// Deployment: Unknown (status.observedGeneration 7 differs from metadata.generation 8: the status describes an older spec)
	// ConfigMap: Unknown (no health interpreter registered for the kind)
}

// A rule in Go serves every version of a custom kind.
func ExampleInterpreterFunc() {
	registry := health.NewRegistry(health.RegistryConfig{})
	err := registry.RegisterGroupKind(schema.GroupKind{Group: "example.com", Kind: "Widget"},
		health.InterpreterFunc(func(obj *unstructured.Unstructured) (health.Result, error) {
			phase, _, err := unstructured.NestedString(obj.Object, "status", "phase")
			if err != nil {
				return health.Result{}, err
			}
			if phase == "Ready" {
				return health.Result{Status: health.Healthy}, nil
			}
			return health.Result{Status: health.Unhealthy, Reason: "phase " + phase}, nil
		}))
	if err != nil {
		panic(err)
	}
	fmt.Println(registry.Interpret(mustDecode(`{"apiVersion": "example.com/v2", "kind": "Widget", "status": {"phase": "Ready"}}`)).Status)
	fmt.Println(registry.Interpret(mustDecode(`{"apiVersion": "example.com/v1", "kind": "Widget", "status": {"phase": 3}}`)).Status)
	// Output:
	// Healthy
	// Unknown
}
