package cel

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"time"

	"errors"
	"github.com/fleetover/fleetover/failover/health"
	"strings"
	"testing"
)

const celDeployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"generation":1},
	"spec":{"replicas":3},"status":{"observedGeneration":1,"readyReplicas":%READY%,"availableReplicas":3}}`

func TestCELBoolRule(t *testing.T) {
	rule, err := NewInterpreter(`object.status.readyReplicas == object.spec.replicas`, Config{})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]health.Status{"3": health.Healthy, "2": health.Unhealthy}
	for ready, want := range cases {
		obj := decode(t, strings.ReplaceAll(celDeployment, "%READY%", ready))
		got, err := rule.Interpret(obj)
		if err != nil || got.Status != want {
			t.Errorf("readyReplicas %s: %+v, %v; want %s", ready, got, err, want)
		}
	}
}

func TestCELStringRule(t *testing.T) {
	rule, err := NewInterpreter(`!has(object.status.readyReplicas) ? "Unknown" :
		object.status.readyReplicas >= object.spec.replicas ? "Healthy" : "Unhealthy"`, Config{})
	if err != nil {
		t.Fatal(err)
	}
	for doc, want := range map[string]health.Status{
		strings.ReplaceAll(celDeployment, "%READY%", "3"):                                health.Healthy,
		strings.ReplaceAll(celDeployment, "%READY%", "1"):                                health.Unhealthy,
		`{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":3},"status":{}}`: health.Unknown,
	} {
		got, err := rule.Interpret(decode(t, doc))
		if err != nil || got.Status != want {
			t.Errorf("%s: %+v, %v; want %s", doc, got, err, want)
		}
	}
}

func TestCELRuleThroughRegistry(t *testing.T) {
	rule, err := NewInterpreter(`object.status.readyReplicas == object.spec.replicas`, Config{})
	if err != nil {
		t.Fatal(err)
	}
	r := health.NewRegistry(health.RegistryConfig{})
	// Overrides the built-in for apps/v1 only.
	gvk := schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	if err := r.Register(gvk, rule); err != nil {
		t.Fatal(err)
	}
	obj := decode(t, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"generation":2},
		"spec":{"replicas":3},"status":{"observedGeneration":1,"readyReplicas":3}}`)
	if got := r.Interpret(obj); got.Status != health.Healthy {
		t.Errorf("CEL rule for apps/v1: %+v, want health.Healthy (the built-in would say health.Unknown)", got)
	}
	// A missing field is an evaluation error: health.Unknown with the cause.
	obj = decode(t, `{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":3},"status":{}}`)
	if got := r.Interpret(obj); got.Status != health.Unknown || !strings.Contains(got.Reason, "readyReplicas") {
		t.Errorf("missing field: %+v, want health.Unknown naming readyReplicas", got)
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
			_, err := NewInterpreter(expr, Config{})
			if !errors.Is(err, health.ErrCompile) {
				t.Fatalf("error %v, want health.ErrCompile", err)
			}
			var ce *health.CompileError
			if !errors.As(err, &ce) || ce.Language != "CEL" || ce.Source != expr {
				t.Fatalf("error %#v, want a *health.CompileError for the expression", err)
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
			rule, err := NewInterpreter(expr, Config{})
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			got, err := rule.Interpret(obj)
			if !errors.Is(err, health.ErrEvaluate) {
				t.Fatalf("error %v, want health.ErrEvaluate", err)
			}
			if got.Status != health.Unknown {
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

	limited, err := NewInterpreter(expr, Config{CostLimit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := limited.Interpret(obj); !errors.Is(err, health.ErrEvaluate) || got.Status != health.Unknown ||
		!errors.Is(err, ErrCostLimit) {
		t.Errorf("over the limit: %+v, %v; want health.Unknown and a cost error", got, err)
	}
	// No wall-clock bound here: only the cost limit is under test.
	generous, err := NewInterpreter(expr, Config{Timeout: MaxTimeout})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := generous.Interpret(obj); err != nil || got.Status != health.Healthy {
		t.Errorf("within the default limit: %+v, %v; want Healthy", got, err)
	}
}

func decode(t testing.TB, doc string) *unstructured.Unstructured {
	t.Helper()
	m := map[string]any{}
	if err := utiljson.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatalf("decoding test object: %v\n%s", err, doc)
	}
	return &unstructured.Unstructured{Object: m}
}

// Hostile expressions are stopped by the cost limit, which CEL charges by
// the size of what an operation builds: a string doubled again and again, a
// list built by nested comprehensions.
func TestHostileExpressions(t *testing.T) {
	big := strings.Repeat("x", 1<<16)
	obj := decode(t, `{"apiVersion":"v1","kind":"Thing","spec":{"s":"`+big+`","n":[0,1,2,3,4,5,6,7,8,9]}}`)
	for name, expr := range map[string]string{
		"nested map":  `object.spec.n.map(a, object.spec.n.map(b, object.spec.n.map(c, object.spec.n.map(d, object.spec.n.map(e, [a, b, c, d, e]))))).size() > 0`,
		"list growth": `object.spec.n.map(a, object.spec.n.map(b, object.spec.n.map(c, object.spec.n.map(d, object.spec.s + object.spec.s)))).size() > 0`,
		"quadratic":   `object.spec.n.all(a, object.spec.n.all(b, object.spec.n.all(c, object.spec.n.all(d, object.spec.n.all(e, object.spec.n.all(f, a + b + c + d + e + f >= 0))))))`,
	} {
		t.Run(name, func(t *testing.T) {
			rule, err := NewInterpreter(expr, Config{Name: "hostile", CostLimit: 100_000, MemoryLimit: 1 << 18, Timeout: MaxTimeout}) // only cost and memory under test
			if err != nil {
				t.Fatal(err)
			}
			got, err := rule.Interpret(obj)
			if got.Status != health.Unknown || !(errors.Is(err, ErrCostLimit) || errors.Is(err, ErrMemoryLimit)) ||
				!strings.Contains(err.Error(), `"hostile"`) {
				t.Fatalf("%+v, %v; want Unknown, a cost or memory limit and the rule's name", got, err)
			}
		})
	}
}

// TestHostileCopying: a comprehension that copies long strings at every
// step is charged little by CEL's cost model and builds nothing large at
// once; the timeout stops it.
func TestHostileCopying(t *testing.T) {
	obj := decode(t, `{"apiVersion":"v1","kind":"Thing","spec":{"s":"`+strings.Repeat("x", 1<<16)+`","n":[0,1,2,3,4,5,6,7,8,9]}}`)
	rule, err := NewInterpreter(`object.spec.n.all(a, object.spec.n.all(b, object.spec.n.all(c, object.spec.n.all(d,
		(object.spec.s + object.spec.s).size() > 0))))`, Config{Name: "hostile", Timeout: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	got, err := rule.Interpret(obj)
	if got.Status != health.Unknown || !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), `"hostile"`) {
		t.Fatalf("%+v, %v; want Unknown, ErrTimeout and the rule's name", got, err)
	}
}

func TestHostileExpressionLength(t *testing.T) {
	expr := strings.Repeat("1 + ", 10_000) + "1 > 0"
	_, err := NewInterpreter(expr, Config{})
	if !errors.Is(err, health.ErrCompile) || !strings.Contains(err.Error(), "limit") {
		t.Fatalf("error %v, want a compile error about the length limit", err)
	}
}

func TestValidateConfig(t *testing.T) {
	cases := map[string]struct {
		cfg   Config
		field string
	}{
		"huge cost limit":      {Config{CostLimit: 1 << 62}, "costLimit"},
		"negative timeout":     {Config{Timeout: -1}, "timeout"},
		"huge memory limit":    {Config{MemoryLimit: 1 << 31}, "memoryLimit"},
		"negative expression":  {Config{MaxExpressionBytes: -1}, "maxExpressionBytes"},
		"huge expression size": {Config{MaxExpressionBytes: 1 << 30}, "maxExpressionBytes"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			errs := ValidateConfig(c.cfg, nil)
			if len(errs) != 1 || errs[0].Field != c.field {
				t.Fatalf("errors %v, want one for %s", errs, c.field)
			}
			_, err := NewInterpreter(`true`, c.cfg)
			if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), c.field) {
				t.Errorf("NewInterpreter: %v, want ErrInvalidConfig naming %s", err, c.field)
			}
		})
	}
	if errs := ValidateConfig(Config{}, nil); len(errs) != 0 {
		t.Errorf("zero Config: %v", errs)
	}
}
