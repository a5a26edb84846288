package cel_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/failover/health/cel"
)

func mustDecode(doc string) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON([]byte(doc)); err != nil {
		panic(err)
	}
	return obj
}

// A CEL rule, compiled once and registered with a health registry,
// replaces the built-in rule of one version of a kind.
func ExampleNewInterpreter() {
	rule, err := cel.NewInterpreter(
		`has(object.status.readyReplicas) && object.status.readyReplicas >= object.spec.replicas`,
		cel.Config{Name: "statefulset-ready"})
	if err != nil {
		panic(err)
	}
	registry := health.NewRegistry(health.RegistryConfig{})
	if err := registry.Register(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "StatefulSet"}, rule); err != nil {
		panic(err)
	}
	obj := mustDecode(`{"apiVersion": "apps/v1", "kind": "StatefulSet",
		"spec": {"replicas": 2}, "status": {"readyReplicas": 2}}`)
	fmt.Println(registry.Interpret(obj).Status)

	_, err = cel.NewInterpreter(`object.status.readyReplicas >=`, cel.Config{})
	fmt.Println(err != nil)
	// Output:
	// Healthy
	// true
}
