package lua

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/fleetover/fleetover/failover/health"
)

// FuzzParseCustomizations reads any bytes as customizations: no panic;
// every error is a *CustomizationError naming the source; every item has a
// name, a complete target and a script; reading is deterministic; and
// registering what was read either succeeds or fails with
// ErrInvalidCustomization.
func FuzzParseCustomizations(f *testing.F) {
	good := ric("widget", "example.com/v1", "Widget", phaseRunning)
	f.Add([]byte(good))
	f.Add([]byte(good + "---\n" + ric("gadget", "example.com/v2", "Gadget", "") + "---\napiVersion: v1\nkind: ConfigMap\n"))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems:\n" + indentItem(good) + indentItem(ric("other", "x/v1", "Y", "function InterpretHealth(o) return true end"))))
	f.Add([]byte(`{"apiVersion":"config.karmada.io/v1alpha1","kind":"ResourceInterpreterCustomization","metadata":{"name":"a"},"spec":{"target":{"apiVersion":"v1","kind":"Pod"},"customizations":{"healthInterpretation":{"luaScript":"function InterpretHealth(o) return true end"}}}}`))
	f.Add([]byte("apiVersion: v1\nkind: List\nitems:\n- kind: List\n  items:\n  - kind: List\n    items: [3]\n"))
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte("---\n---\n\t- [\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseCustomizations(data, "fuzz.yaml")
		if err != nil {
			checkCustomizationErrors(t, err)
		}
		for _, item := range c.Items {
			if item.Name == "" || item.Target.Kind == "" || item.Target.Version == "" || strings.TrimSpace(item.HealthScript) == "" ||
				item.Source != "fuzz.yaml" || item.Document < 1 {
				t.Fatalf("incomplete item %+v", item)
			}
		}
		for _, s := range c.Skipped {
			if s.Reason == "" || s.Document < 1 {
				t.Fatalf("skipped without reason or document: %+v", s)
			}
		}
		again, err2 := ParseCustomizations(data, "fuzz.yaml")
		if !reflect.DeepEqual(c, again) || (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) {
			t.Fatalf("not deterministic: %+v, %v; then %+v, %v", c, err, again, err2)
		}
		if len(c.Items) > 4 {
			return // compiling is FuzzLuaRule's job; keep iterations fast
		}
		reg := health.NewRegistry(health.RegistryConfig{})
		out, err := RegisterCustomizations(reg, c, Config{Limits: fuzzLimits})
		if err != nil {
			checkCustomizationErrors(t, err)
			return
		}
		if len(out.Registered)+len(out.Overridden) != len(c.Items) {
			t.Fatalf("%d items, %d registered, %d overridden", len(c.Items), len(out.Registered), len(out.Overridden))
		}
		for _, r := range out.Registered {
			if _, ok := reg.Lookup(r.Target); !ok {
				t.Fatalf("%s not registered", r.Target)
			}
		}
	})
}

// checkCustomizationErrors: a joined error of *CustomizationErrors, each
// naming the source.
func checkCustomizationErrors(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, ErrInvalidCustomization) {
		t.Fatalf("error %v does not wrap ErrInvalidCustomization", err)
	}
	errs := []error{err}
	if joined, ok := err.(interface{ Unwrap() []error }); ok {
		if _, single := err.(*CustomizationError); !single {
			errs = joined.Unwrap()
		}
	}
	for _, e := range errs {
		var ce *CustomizationError
		if !errors.As(e, &ce) || ce.Source != "fuzz.yaml" || !strings.HasPrefix(e.Error(), "fuzz.yaml") {
			t.Fatalf("error %q (%T) does not name its source", e, e)
		}
		if len(ce.Errs) == 0 && ce.Err == nil {
			t.Fatalf("error %q says nothing", e)
		}
	}
}
