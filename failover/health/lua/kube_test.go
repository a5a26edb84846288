package lua

import (
	"errors"
	"strings"
	"testing"

	"github.com/fleetover/fleetover/failover/health"
)

func TestKubeModule(t *testing.T) {
	for name, tc := range map[string]struct {
		body string
		want health.Status
		err  string
	}{
		"resourceAdd sums":         {`return kube.resourceAdd("500m", "1500m", nil) == "2"`, health.Healthy, ""},
		"resourceAdd binary":       {`return kube.resourceAdd("1Gi", "512Mi") == "1536Mi"`, health.Healthy, ""},
		"resourceAdd nothing":      {`return kube.resourceAdd() == "0"`, health.Healthy, ""},
		"resourceAdd from object":  {`return kube.resourceAdd(o.spec.a, o.spec.b) == "3"`, health.Healthy, ""},
		"getResourceQuantity":      {`return kube.getResourceQuantity("1Gi") == 1073741824 and kube.getResourceQuantity("250m") == 0.25`, health.Healthy, ""},
		"getResourceQuantity nil":  {`return kube.getResourceQuantity(nil) == 0`, health.Healthy, ""},
		"same module twice":        {`return require("kube") == kube`, health.Healthy, ""},
		"invalid quantity":         {`return kube.resourceAdd("lots")`, health.Unknown, "kube.resourceAdd: argument 1"},
		"number is not a quantity": {`return kube.resourceAdd(1)`, health.Unknown, "string expected, got number"},
		"negative quantity":        {`return kube.getResourceQuantity("-1")`, health.Unknown, "negative"},
		"two arguments":            {`return kube.getResourceQuantity("1", "2")`, health.Unknown, "one argument"},
		"huge negative exponent":   {`return kube.resourceAdd("1e-99999999")`, health.Unknown, "exponent beyond"},
		"huge exponent":            {`return kube.getResourceQuantity("5E+401")`, health.Unknown, "exponent beyond"},
		"long quantity":            {`return kube.resourceAdd(string.rep("9", 257))`, health.Unknown, "more than 256"},
		"exponent within bounds":   {`return kube.getResourceQuantity("1e-400") >= 0 and kube.resourceAdd("2E3", "1Ei") ~= nil`, health.Healthy, ""},
		"pod requirements":         {`return kube.accuratePodRequirements({})`, health.Unknown, "not offered to health rules"},
		"pod dependencies":         {`return kube.getPodDependencies({}, "default")`, health.Unknown, "not offered to health rules"},
	} {
		t.Run(name, func(t *testing.T) {
			rule, err := NewInterpreter(`local kube = require("kube")
function InterpretHealth(o)
  `+tc.body+`
end`, Config{})
			if err != nil {
				t.Fatal(err)
			}
			got, err := rule.Interpret(decode(t, `{"kind":"Widget","spec":{"a":"1","b":"2"}}`))
			if got.Status != tc.want || (tc.err == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("%+v, %v; want %s with error %q", got, err, tc.want, tc.err)
			}
		})
	}
}

// A long quantity string is charged to the budget like any other work.
func TestKubeModuleIsBounded(t *testing.T) {
	rule, err := NewInterpreter(`local kube = require("kube")
function InterpretHealth(o)
  local q = string.rep("1", 256)
  for i = 1, 100 do kube.resourceAdd(q) end
  return true
end`, Config{Limits: Limits{Instructions: 20_000}})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := rule.Interpret(decode(t, `{"kind":"Widget"}`)); got.Status != health.Unknown || !errors.Is(err, ErrInstructionLimit) {
		t.Errorf("%+v, %v", got, err)
	}
}

// A null array element is left out, as Karmada's conversion does, so the
// elements after it move up and # counts only the others.
func TestLuaNullArrayElements(t *testing.T) {
	rule, err := NewInterpreter(`function InterpretHealth(o)
  local c = o.status.conditions
  return #c == 2 and c[1].type == "Ready" and c[2] == "x"
end`, Config{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := rule.Interpret(decode(t, `{"kind":"Widget","status":{"conditions":[null,{"type":"Ready"},null,"x"]}}`))
	if err != nil || got.Status != health.Healthy {
		t.Errorf("%+v, %v", got, err)
	}
}
