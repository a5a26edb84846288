package health

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func fixed(status Status, reason string) Interpreter {
	return InterpreterFunc(func(*unstructured.Unstructured) (Result, error) {
		return Result{Status: status, Reason: reason}, nil
	})
}

func TestRegistryUnregisteredKind(t *testing.T) {
	obj := decode(t, `{"apiVersion":"v1","kind":"ConfigMap"}`)

	if got := NewRegistry(RegistryConfig{}).Interpret(obj); got.Status != Unknown || got.Reason != ReasonNoInterpreter {
		t.Errorf("default registry: %+v, want Unknown / %q", got, ReasonNoInterpreter)
	}
	karmada := NewRegistry(RegistryConfig{UnregisteredKindsHealthy: true})
	if got := karmada.Interpret(obj); got.Status != Healthy || got.Reason != ReasonNoInterpreter {
		t.Errorf("UnregisteredKindsHealthy: %+v, want Healthy / %q", got, ReasonNoInterpreter)
	}
}

func TestRegistryWithoutBuiltins(t *testing.T) {
	r := NewRegistry(RegistryConfig{WithoutBuiltins: true})
	if _, ok := r.Lookup(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}); ok {
		t.Fatal("Lookup found a Deployment interpreter in a registry without built-ins")
	}
	full := NewRegistry(RegistryConfig{})
	for gk := range BuiltinInterpreters() {
		if _, ok := full.Lookup(gk.WithVersion("v9")); !ok {
			t.Errorf("default registry has no interpreter for %s", gk)
		}
	}
}

func TestRegistryVersionOverridesGroupKind(t *testing.T) {
	r := NewRegistry(RegistryConfig{WithoutBuiltins: true})
	gk := schema.GroupKind{Group: "example.com", Kind: "Widget"}
	if err := r.RegisterGroupKind(gk, fixed(Healthy, "any version")); err != nil {
		t.Fatal(err)
	}
	if err := r.Register(gk.WithVersion("v2"), fixed(Unhealthy, "v2 only")); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		`{"apiVersion":"example.com/v1","kind":"Widget"}`:   "any version",
		`{"apiVersion":"example.com/v2","kind":"Widget"}`:   "v2 only",
		`{"apiVersion":"other.com/v2","kind":"Widget"}`:     ReasonNoInterpreter,
		`{"apiVersion":"example.com/v2","kind":"Gadget"}`:   ReasonNoInterpreter,
		`{"apiVersion":"example.com/v2","kind":"widget"}`:   ReasonNoInterpreter,
		`{"apiVersion":"example.com/v2/x","kind":"Widget"}`: ReasonMalformedAPIVersion,
	}
	for doc, want := range cases {
		if got := r.Interpret(decode(t, doc)); got.Reason != want {
			t.Errorf("%s: reason %q, want %q", doc, got.Reason, want)
		}
	}
	// Re-registering replaces.
	if err := r.Register(gk.WithVersion("v2"), fixed(Unknown, "replaced")); err != nil {
		t.Fatal(err)
	}
	if got := r.Interpret(decode(t, `{"apiVersion":"example.com/v2","kind":"Widget"}`)); got.Reason != "replaced" {
		t.Errorf("after re-registering: %+v", got)
	}
}

func TestRegistryCoreGroup(t *testing.T) {
	r := NewRegistry(RegistryConfig{WithoutBuiltins: true})
	if err := r.RegisterGroupKind(schema.GroupKind{Kind: "ConfigMap"}, fixed(Healthy, "core")); err != nil {
		t.Fatal(err)
	}
	if got := r.Interpret(decode(t, `{"apiVersion":"v1","kind":"ConfigMap"}`)); got.Reason != "core" {
		t.Errorf("core group kind: %+v", got)
	}
}

func TestRegistryRejectsInvalidRegistrations(t *testing.T) {
	r := NewRegistry(RegistryConfig{})
	var nilFunc InterpreterFunc
	cases := []error{
		r.Register(schema.GroupVersionKind{Group: "apps", Version: "v1"}, fixed(Healthy, "")),
		r.Register(schema.GroupVersionKind{Group: "apps", Kind: "Deployment"}, fixed(Healthy, "")),
		r.Register(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, nil),
		r.RegisterGroupKind(schema.GroupKind{Group: "apps"}, fixed(Healthy, "")),
		r.RegisterGroupKind(schema.GroupKind{Group: "apps", Kind: "Deployment"}, nilFunc),
	}
	for n, err := range cases {
		if !errors.Is(err, ErrInvalidRegistration) {
			t.Errorf("case %d: error %v, want ErrInvalidRegistration", n, err)
		}
	}
}

func TestRegistryTurnsFailuresIntoUnknown(t *testing.T) {
	gvk := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	obj := decode(t, `{"apiVersion":"example.com/v1","kind":"Widget"}`)
	cases := []struct {
		name       string
		i          Interpreter
		wantReason string
	}{
		{"error", InterpreterFunc(func(*unstructured.Unstructured) (Result, error) {
			return Result{Status: Healthy}, errors.New("status.phase missing")
		}), "status.phase missing"},
		{"panic", InterpreterFunc(func(*unstructured.Unstructured) (Result, error) {
			panic("boom")
		}), "panicked: boom"},
		{"invalid status", fixed("Fine", "whatever"), `invalid status "Fine"`},
		{"empty status", fixed("", ""), `invalid status ""`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := NewRegistry(RegistryConfig{UnregisteredKindsHealthy: true})
			if err := r.Register(gvk, tc.i); err != nil {
				t.Fatal(err)
			}
			got := r.Interpret(obj)
			if got.Status != Unknown || !strings.Contains(got.Reason, tc.wantReason) {
				t.Errorf("got %+v, want Unknown with reason containing %q", got, tc.wantReason)
			}
		})
	}
}

func TestRegistryNilObject(t *testing.T) {
	r := NewRegistry(RegistryConfig{UnregisteredKindsHealthy: true})
	for _, obj := range []*unstructured.Unstructured{nil, {}} {
		if got := r.Interpret(obj); got.Status != Unknown || got.Reason != ReasonNoObject {
			t.Errorf("Interpret(%v) = %+v, want Unknown / %q", obj, got, ReasonNoObject)
		}
	}
}

// TestRegistryConcurrentRegisterAndInterpret runs under -race: lookups read
// published tables while registrations copy them.
func TestRegistryConcurrentRegisterAndInterpret(t *testing.T) {
	r := NewRegistry(RegistryConfig{})
	obj := decode(t, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"generation":1},
		"spec":{"replicas":1},"status":{"observedGeneration":1,"updatedReplicas":1,"availableReplicas":1}}`)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < 200; n++ {
				if got := r.Interpret(obj); got.Status != Healthy {
					t.Errorf("Interpret = %+v during registrations", got)
					return
				}
			}
		}()
	}
	for n := 0; n < 50; n++ {
		gk := schema.GroupKind{Group: "example.com", Kind: "Widget" + string(rune('A'+n%26))}
		if err := r.RegisterGroupKind(gk, fixed(Healthy, "")); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
}

func TestZeroRegistry(t *testing.T) {
	var r Registry
	obj := decode(t, `{"apiVersion":"apps/v1","kind":"Deployment"}`)
	if got := r.Interpret(obj); got.Status != Unknown || got.Reason != ReasonNoInterpreter {
		t.Errorf("zero registry: %+v", got)
	}
	if err := r.RegisterGroupKind(schema.GroupKind{Group: "apps", Kind: "Deployment"}, fixed(Healthy, "ok")); err != nil {
		t.Fatal(err)
	}
	if got := r.Interpret(obj); got.Status != Healthy {
		t.Errorf("zero registry after Register: %+v", got)
	}
}

// TestRegistryManyKinds: the kind table grows past its first size, and
// every kind, similar names included, finds its own interpreter while
// kinds never registered find none.
func TestRegistryManyKinds(t *testing.T) {
	r := NewRegistry(RegistryConfig{})
	kinds := []string{"A", "B", "AB", "BA", "Aa", "aA", "Deployments", "deployment", "Deploymenu"}
	for i := range 200 {
		kinds = append(kinds, "Kind"+strings.Repeat("x", i%7)+string(rune('a'+i%26))+strings.Repeat("y", i/26))
	}
	for i, kind := range kinds {
		reason := "kind-" + kind
		if err := r.RegisterGroupKind(schema.GroupKind{Group: "example.io", Kind: kind}, InterpreterFunc(func(*unstructured.Unstructured) (Result, error) {
			return Result{Status: Healthy, Reason: reason}, nil
		})); err != nil {
			t.Fatal(i, err)
		}
	}
	for _, kind := range kinds {
		obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.io/v1", "kind": kind}}
		if got := r.Interpret(obj); got.Reason != "kind-"+kind {
			t.Fatalf("kind %q: got %+v", kind, got)
		}
	}
	for _, kind := range []string{"", "C", "Kindz", "Deploymentt", "Kindxxxxxxxxa"} {
		if _, ok := r.Lookup(schema.GroupVersionKind{Group: "example.io", Version: "v1", Kind: kind}); ok {
			t.Fatalf("kind %q was never registered but has an interpreter", kind)
		}
	}
	// The built-ins are still there, under their own groups.
	if _, ok := r.Lookup(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}); !ok {
		t.Fatal("the built-in Deployment rule is gone")
	}
}
