package lua_test

import (
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/failover/health/lua"
)

func mustDecode(doc string) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON([]byte(doc)); err != nil {
		panic(err)
	}
	return obj
}

// A Lua script written for Karmada's resource interpreter runs unchanged,
// registered with a health registry for every version of its kind.
func ExampleNewInterpreter() {
	rule, err := lua.NewInterpreter(`
		function InterpretHealth(observedObj)
		  return observedObj.status.readyReplicas == observedObj.spec.replicas
		end`, lua.Config{Name: "widget-ready"})
	if err != nil {
		panic(err)
	}
	registry := health.NewRegistry(health.RegistryConfig{})
	if err := registry.RegisterGroupKind(schema.GroupKind{Group: "example.com", Kind: "Widget"}, rule); err != nil {
		panic(err)
	}
	for _, ready := range []string{"3", "1"} {
		obj := mustDecode(`{"apiVersion": "example.com/v1", "kind": "Widget",
			"spec": {"replicas": 3}, "status": {"readyReplicas": ` + ready + `}}`)
		fmt.Println(registry.Interpret(obj).Status)
	}
	// Output:
	// Healthy
	// Unhealthy
}

// Tighter limits for rules from less trusted authors: a script that loops
// is stopped by its instruction budget, and the object is Unknown.
func ExampleLimits() {
	rule, err := lua.NewInterpreter(`function InterpretHealth(o) while true do end end`,
		lua.Config{Name: "spins", Limits: lua.Limits{Instructions: 10_000}})
	if err != nil {
		panic(err)
	}
	r, err := rule.Interpret(mustDecode(`{"apiVersion": "example.com/v1", "kind": "Widget"}`))
	fmt.Println(r.Status, errors.Is(err, lua.ErrInstructionLimit))
	// Output:
	// Unknown true
}
