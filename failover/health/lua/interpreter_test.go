package lua

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"

	"errors"
	"github.com/fleetover/fleetover/failover/health"
	"strings"
	"sync"
	"testing"
	"time"
)

// karmadaScript is the health script of Karmada's application failover
// proposal, unchanged.
const karmadaScript = `
function InterpretHealth(observedObj)
  return observedObj.status.readyReplicas == observedObj.spec.replicas
end`

func TestLuaKarmadaScript(t *testing.T) {
	rule, err := NewInterpreter(karmadaScript, Config{})
	if err != nil {
		t.Fatal(err)
	}
	for ready, want := range map[string]health.Status{"3": health.Healthy, "1": health.Unhealthy} {
		got, err := rule.Interpret(decode(t, strings.ReplaceAll(deploymentDoc, "%READY%", ready)))
		if err != nil || got.Status != want {
			t.Errorf("readyReplicas %s: %+v, %v; want %s", ready, got, err, want)
		}
	}
	// Float numbers (encoding/json) compare equal to the same integers.
	got, err := rule.Interpret(decodeFloats(t, strings.ReplaceAll(deploymentDoc, "%READY%", "3")))
	if err != nil || got.Status != health.Healthy {
		t.Errorf("float numbers: %+v, %v; want Healthy", got, err)
	}
}

func TestLuaStatusStringsListsAndNil(t *testing.T) {
	rule, err := NewInterpreter(`
function InterpretHealth(obj)
  if obj.status == nil then return "Unknown" end
  local conditions = obj.status.conditions or {}
  for i = 1, #conditions do
    if conditions[i].type == "Ready" and conditions[i].status == "True" then
      return "Healthy"
    end
  end
  return "Unhealthy"
end`, Config{})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]health.Status{
		`{"kind":"Widget","status":{"conditions":[{"type":"Synced","status":"True"},{"type":"Ready","status":"True"}]}}`: health.Healthy,
		`{"kind":"Widget","status":{"conditions":[{"type":"Ready","status":"False"}]}}`:                                  health.Unhealthy,
		`{"kind":"Widget","status":null}`: health.Unknown,
		`{"kind":"Widget"}`:               health.Unknown,
	}
	for doc, want := range cases {
		got, err := rule.Interpret(decode(t, doc))
		if err != nil || got.Status != want {
			t.Errorf("%s: %+v, %v; want %s", doc, got, err, want)
		}
	}
}

func TestLuaCompileErrors(t *testing.T) {
	cases := map[string]string{
		"syntax":          `function InterpretHealth(obj) return obj.status == end`,
		"no function":     `function Health(obj) return true end`,
		"not a function":  `InterpretHealth = true`,
		"top-level error": `error("broken") function InterpretHealth(o) return true end`,
		"top-level loop":  `while true do end`,
	}
	for name, script := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := NewInterpreter(script, Config{Limits: Limits{Timeout: 50 * time.Millisecond}})
			var ce *health.CompileError
			if !errors.Is(err, health.ErrCompile) || !errors.As(err, &ce) || ce.Language != "Lua" {
				t.Fatalf("error %v, want a Lua *health.CompileError", err)
			}
		})
	}
}

func TestLuaRuntimeErrorsAreUnknown(t *testing.T) {
	cases := map[string]string{
		"index nil":     `function InterpretHealth(o) return o.status.missing.deeper end`,
		"raised error":  `function InterpretHealth(o) error("cannot tell") end`,
		"number result": `function InterpretHealth(o) return 1 end`,
		"nil result":    `function InterpretHealth(o) end`,
		"bad status":    `function InterpretHealth(o) return "Fine" end`,
		"endless loop":  `function InterpretHealth(o) while true do end end`,
		"deep recursion": `local function f(n) return f(n + 1) + 1 end
			function InterpretHealth(o) return f(1) end`,
		"huge string": `function InterpretHealth(o) return string.rep("x", 1e9) == "" end`,
	}
	obj := decode(t, strings.ReplaceAll(deploymentDoc, "%READY%", "3"))
	for name, script := range cases {
		t.Run(name, func(t *testing.T) {
			rule, err := NewInterpreter(script, Config{Limits: Limits{Timeout: 50 * time.Millisecond}})
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			got, err := rule.Interpret(obj)
			if !errors.Is(err, health.ErrEvaluate) || got.Status != health.Unknown {
				t.Fatalf("%+v, %v; want health.Unknown and health.ErrEvaluate", got, err)
			}
			// A failed state is dropped, not reused: the next call still
			// works the same way.
			if got2, err2 := rule.Interpret(obj); got2.Status != health.Unknown || err2 == nil {
				t.Errorf("second call: %+v, %v", got2, err2)
			}
		})
	}
}

func TestLuaSandbox(t *testing.T) {
	for _, name := range []string{"os", "io", "dofile", "loadfile", "load", "loadstring", "print", "debug", "package"} {
		script := `function InterpretHealth(o) return ` + name + ` == nil end`
		rule, err := NewInterpreter(script, Config{})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := rule.Interpret(decode(t, `{"kind":"Widget"}`)); err != nil || got.Status != health.Healthy {
			t.Errorf("%s is reachable from a script: %+v, %v", name, got, err)
		}
	}
	// require loads Karmada's kube module and nothing else.
	for _, module := range []string{"os", "io", "string", "debug", "./kube", ""} {
		rule, err := NewInterpreter(`function InterpretHealth(o) return require("`+module+`") ~= nil end`, Config{})
		if err != nil {
			t.Fatal(err)
		}
		if got, err := rule.Interpret(decode(t, `{"kind":"Widget"}`)); err == nil || !strings.Contains(err.Error(), "not found") {
			t.Errorf("require(%q): %+v, %v", module, got, err)
		}
	}
	// The libraries health rules need are there.
	rule, err := NewInterpreter(`function InterpretHealth(o)
		return string.upper("a") == "A" and math.max(1, 2) == 2 and #table.concat({"a", "b"}) == 2
	end`, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := rule.Interpret(decode(t, `{"kind":"Widget"}`)); err != nil || got.Status != health.Healthy {
		t.Errorf("string, math and table libraries: %+v, %v", got, err)
	}
}

func TestLuaDoesNotModifyObject(t *testing.T) {
	rule, err := NewInterpreter(`function InterpretHealth(o) o.status.readyReplicas = 99; return true end`, Config{})
	if err != nil {
		t.Fatal(err)
	}
	obj := decode(t, strings.ReplaceAll(deploymentDoc, "%READY%", "3"))
	if _, err := rule.Interpret(obj); err != nil {
		t.Fatal(err)
	}
	if got := obj.Object["status"].(map[string]any)["readyReplicas"]; got != int64(3) {
		t.Errorf("readyReplicas became %v", got)
	}
}

// TestLuaConcurrentUse runs under -race: states come from a pool, one
// goroutine at a time.
func TestLuaConcurrentUse(t *testing.T) {
	rule, err := NewInterpreter(karmadaScript, Config{})
	if err != nil {
		t.Fatal(err)
	}
	healthyObj := decode(t, strings.ReplaceAll(deploymentDoc, "%READY%", "3"))
	sickObj := decode(t, strings.ReplaceAll(deploymentDoc, "%READY%", "0"))
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < 50; n++ {
				obj, want := healthyObj, health.Healthy
				if (n+w)%2 == 1 {
					obj, want = sickObj, health.Unhealthy
				}
				if got, err := rule.Interpret(obj); err != nil || got.Status != want {
					t.Errorf("got %+v, %v; want %s", got, err, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestLuaRejectsTooDeepObject(t *testing.T) {
	rule, err := NewInterpreter(`function InterpretHealth(o) return true end`, Config{})
	if err != nil {
		t.Fatal(err)
	}
	deep := map[string]any{}
	cur := deep
	for n := 0; n < maxObjectDepth+5; n++ {
		next := map[string]any{}
		cur["x"] = next
		cur = next
	}
	obj := decode(t, `{"kind":"Widget"}`)
	obj.Object["spec"] = deep
	if got, err := rule.Interpret(obj); !errors.Is(err, health.ErrMalformedObject) || got.Status != health.Unknown {
		t.Errorf("deep object: %+v, %v; want health.Unknown and health.ErrMalformedObject", got, err)
	}
}

const deploymentDoc = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"generation":1},
	"spec":{"replicas":3},"status":{"observedGeneration":1,"readyReplicas":%READY%,"availableReplicas":3}}`

func decode(t testing.TB, doc string) *unstructured.Unstructured {
	t.Helper()
	m := map[string]any{}
	if err := utiljson.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatalf("decoding test object: %v\n%s", err, doc)
	}
	return &unstructured.Unstructured{Object: m}
}

// decodeFloats builds the same object with encoding/json, whose numbers are
// float64.
func decodeFloats(t testing.TB, doc string) *unstructured.Unstructured {
	t.Helper()
	m := map[string]any{}
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatalf("decoding test object: %v", err)
	}
	return &unstructured.Unstructured{Object: m}
}
