package health

import (
	"errors"
	"strings"
	"testing"
)

const celDeployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"generation":1},
	"spec":{"replicas":3},"status":{"observedGeneration":1,"readyReplicas":%READY%,"availableReplicas":3}}`

func TestCELBoolRule(t *testing.T) {
	rule, err := NewCELInterpreter(`object.status.readyReplicas == object.spec.replicas`, CELConfig{})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]Status{"3": Healthy, "2": Unhealthy}
	for ready, want := range cases {
		obj := decode(t, strings.ReplaceAll(celDeployment, "%READY%", ready))
		got, err := rule.Interpret(obj)
		if err != nil || got.Status != want {
			t.Errorf("readyReplicas %s: %+v, %v; want %s", ready, got, err, want)
		}
	}
}

func TestCELStringRule(t *testing.T) {
	rule, err := NewCELInterpreter(`!has(object.status.readyReplicas) ? "Unknown" :
		object.status.readyReplicas >= object.spec.replicas ? "Healthy" : "Unhealthy"`, CELConfig{})
	if err != nil {
		t.Fatal(err)
	}
	for doc, want := range map[string]Status{
		strings.ReplaceAll(celDeployment, "%READY%", "3"):                                Healthy,
		strings.ReplaceAll(celDeployment, "%READY%", "1"):                                Unhealthy,
		`{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":3},"status":{}}`: Unknown,
	} {
		got, err := rule.Interpret(decode(t, doc))
		if err != nil || got.Status != want {
			t.Errorf("%s: %+v, %v; want %s", doc, got, err, want)
		}
	}
}

func TestCELRuleThroughRegistry(t *testing.T) {
	rule, err := NewCELInterpreter(`object.status.readyReplicas == object.spec.replicas`, CELConfig{})
	if err != nil {
		t.Fatal(err)
	}
	r := NewRegistry(RegistryConfig{})
	// Overrides the built-in for apps/v1 only.
	gvk := builtinGVK(t, "apps", "v1", "Deployment")
	if err := r.Register(gvk, rule); err != nil {
		t.Fatal(err)
	}
	obj := decode(t, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"generation":2},
		"spec":{"replicas":3},"status":{"observedGeneration":1,"readyReplicas":3}}`)
	if got := r.Interpret(obj); got.Status != Healthy {
		t.Errorf("CEL rule for apps/v1: %+v, want Healthy (the built-in would say Unknown)", got)
	}
	// A missing field is an evaluation error: Unknown with the cause.
	obj = decode(t, `{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":3},"status":{}}`)
	if got := r.Interpret(obj); got.Status != Unknown || !strings.Contains(got.Reason, "readyReplicas") {
		t.Errorf("missing field: %+v, want Unknown naming readyReplicas", got)
	}
}

func TestCELCompileErrors(t *testing.T) {
	cases := map[string]string{
		"syntax":      `object.status.ready ==`,
		"unknown var": `obj.status.ready`,
		"result type": `size(object)`,
		"empty":       ``,
	}
	for name, expr := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := NewCELInterpreter(expr, CELConfig{})
			if !errors.Is(err, ErrCompile) {
				t.Fatalf("error %v, want ErrCompile", err)
			}
			var ce *CompileError
			if !errors.As(err, &ce) || ce.Language != "CEL" || ce.Source != expr {
				t.Fatalf("error %#v, want a *CompileError for the expression", err)
			}
			if !strings.Contains(err.Error(), "CEL health rule") {
				t.Errorf("message %q does not say which rule", err)
			}
		})
	}
}

func TestCELRuntimeErrorsAreUnknown(t *testing.T) {
	cases := map[string]string{
		"missing field":    `object.status.nothere == 1`,
		"no overload":      `object.spec.replicas + "x" == "3x"`,
		"bad status text":  `"Fine"`,
		"dyn not bool":     `object.spec.replicas`,
		"division by zero": `object.spec.replicas / (object.spec.replicas - 3) > 0`,
	}
	obj := decode(t, strings.ReplaceAll(celDeployment, "%READY%", "3"))
	for name, expr := range cases {
		t.Run(name, func(t *testing.T) {
			rule, err := NewCELInterpreter(expr, CELConfig{})
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			got, err := rule.Interpret(obj)
			if !errors.Is(err, ErrEvaluate) {
				t.Fatalf("error %v, want ErrEvaluate", err)
			}
			if got.Status != Unknown {
				t.Errorf("status %s, want Unknown", got.Status)
			}
		})
	}
}

func TestCELCostLimit(t *testing.T) {
	// Quadratic in the list length: cheap to write, expensive to run.
	expr := `object.spec.items.all(a, object.spec.items.all(b, a + b >= 0))`
	items := make([]any, 300)
	for n := range items {
		items[n] = int64(n)
	}
	obj := decode(t, `{"apiVersion":"v1","kind":"Thing"}`)
	obj.Object["spec"] = map[string]any{"items": items}

	limited, err := NewCELInterpreter(expr, CELConfig{CostLimit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := limited.Interpret(obj); !errors.Is(err, ErrEvaluate) || got.Status != Unknown ||
		!strings.Contains(err.Error(), "cost") {
		t.Errorf("over the limit: %+v, %v; want Unknown and a cost error", got, err)
	}
	generous, err := NewCELInterpreter(expr, CELConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := generous.Interpret(obj); err != nil || got.Status != Healthy {
		t.Errorf("within the default limit: %+v, %v; want Healthy", got, err)
	}
}
