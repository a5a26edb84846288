package lua_test

import (
	"errors"
	"fmt"
	"testing/fstest"

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

// Karmada's ResourceInterpreterCustomization objects load as they are: a
// directory of YAML files (here an in-memory one; os.DirFS reads a real
// one), with their health scripts registered for their target kinds.
// Objects without a health script are reported, not silently dropped.
func ExampleLoadCustomizations() {
	fsys := fstest.MapFS{
		"customizations/workflow.yaml": {Data: []byte(`apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: declarative-configuration-workflow
spec:
  target:
    apiVersion: argoproj.io/v1alpha1
    kind: Workflow
  customizations:
    healthInterpretation:
      luaScript: |
        function InterpretHealth(observedObj)
          if observedObj.status == nil then
            return false
          end
          local phase = observedObj.status.phase
          return phase ~= nil and phase ~= '' and phase ~= 'Error' and phase ~= 'Failed'
        end
---
apiVersion: config.karmada.io/v1alpha1
kind: ResourceInterpreterCustomization
metadata:
  name: workflow-replicas
spec:
  target:
    apiVersion: argoproj.io/v1alpha1
    kind: Workflow
  customizations:
    replicaResource:
      luaScript: |
        function GetReplicas(obj) return 1, nil end
`)},
	}
	customizations, err := lua.LoadCustomizations(fsys, "customizations")
	if err != nil {
		panic(err)
	}
	for _, s := range customizations.Skipped {
		fmt.Println("skipped:", s)
	}
	registry := health.NewRegistry(health.RegistryConfig{})
	registration, err := lua.RegisterCustomizations(registry, customizations, lua.Config{})
	if err != nil {
		panic(err)
	}
	for _, c := range registration.Registered {
		fmt.Println("registered:", c.Name, "for", c.Target.Kind)
	}
	for _, phase := range []string{"Running", "Failed"} {
		obj := mustDecode(`{"apiVersion": "argoproj.io/v1alpha1", "kind": "Workflow", "status": {"phase": "` + phase + `"}}`)
		fmt.Println(phase, registry.Interpret(obj).Status)
	}
	// Output:
	// skipped: customizations/workflow.yaml: document 2: ResourceInterpreterCustomization "workflow-replicas": no spec.customizations.healthInterpretation
	// registered: declarative-configuration-workflow for Workflow
	// Running Healthy
	// Failed Unhealthy
}
