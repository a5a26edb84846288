package health_test

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/failover/health/cel"
	"github.com/fleetover/fleetover/failover/health/lua"
)

// The examples of this file back docs/migrating.md: each shows the call that
// replaces one of 583b264's.

func migratingObject() *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "StatefulSet",
		"spec":   map[string]any{"replicas": int64(2)},
		"status": map[string]any{"readyReplicas": int64(2)},
	}}
}

// CEL rules moved to the subpackage failover/health/cel: NewCELInterpreter
// is cel.NewInterpreter, CELConfig is cel.Config, DefaultCELCostLimit is
// cel.DefaultCostLimit and CELVariable is cel.Variable.
func Example_celRuleMoved() {
	// Before: health.NewCELInterpreter(expr, health.CELConfig{CostLimit: health.DefaultCELCostLimit})
	rule, err := cel.NewInterpreter(
		cel.Variable+`.status.readyReplicas >= `+cel.Variable+`.spec.replicas`,
		cel.Config{CostLimit: cel.DefaultCostLimit})
	if err != nil {
		fmt.Println(err)
		return
	}
	var _ health.Interpreter = rule
	res, err := rule.Interpret(migratingObject())
	fmt.Println(res.Status, err)
	// Output:
	// Healthy <nil>
}

// Lua rules moved to the subpackage failover/health/lua: NewLuaInterpreter
// is lua.NewInterpreter, LuaConfig{Timeout} is lua.Config{Limits:
// lua.Limits{Timeout}}, DefaultLuaTimeout is lua.DefaultTimeout and
// LuaFunction is lua.Function.
func Example_luaRuleMoved() {
	script := `function ` + lua.Function + `(obj)
  return obj.status.readyReplicas >= obj.spec.replicas
end`
	// Before: health.NewLuaInterpreter(script, health.LuaConfig{Timeout: health.DefaultLuaTimeout})
	rule, err := lua.NewInterpreter(script, lua.Config{Limits: lua.Limits{Timeout: lua.DefaultTimeout}})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := rule.Interpret(migratingObject())
	fmt.Println(res.Status, err, lua.DefaultTimeout == time.Second)
	// Output:
	// Healthy <nil> true
}
