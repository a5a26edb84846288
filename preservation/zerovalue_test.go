package preservation

import (
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fleetover/fleetover/eviction"
)

// TestZeroValues holds every struct a caller fills in this package to its
// documented zero value: a safe default, or an error at the first call.
func TestZeroValues(t *testing.T) {
	directly := eviction.GracefulEvictionTask{
		FromCluster: "m1", PurgeMode: eviction.PurgeDirectly, ClustersBeforeFailover: []string{"m1"},
		PreservedLabelState: map[string]string{"example.io/job": "j-1"},
	}
	gracefully := directly
	gracefully.PurgeMode = eviction.PurgeGracefully
	targets := []eviction.TargetCluster{{Name: "m2"}}
	cases := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"StatePreservationRule: rejected", func(t *testing.T) {
			if _, err := Compile([]StatePreservationRule{{}}); !errors.Is(err, ErrInvalidRules) {
				t.Fatalf("err = %v", err)
			}
			errs := ValidateStatePreservation(&StatePreservation{Rules: []StatePreservationRule{{}}}, field.NewPath("sp"))
			if len(errs) == 0 {
				t.Fatal("a zero rule was accepted")
			}
		}},
		{"StatePreservation: no rules, nothing to carry", func(t *testing.T) {
			if errs := ValidateStatePreservation(&StatePreservation{}, field.NewPath("sp")); len(errs) != 0 {
				t.Fatal(errs)
			}
			r, err := Compile(nil)
			if err != nil {
				t.Fatal(err)
			}
			state, err := r.ExtractFromJSON([]byte(`{"a":1}`))
			if err != nil || len(state) != 0 {
				t.Fatalf("%v %v", state, err)
			}
		}},
		{"Budget: the default bounds", func(t *testing.T) {
			r, err := Compile([]StatePreservationRule{{AliasLabelName: "example.io/a", JSONPath: "{.a}"}})
			if err != nil {
				t.Fatal(err)
			}
			big := make([]byte, DefaultMaxStatusBytes+1)
			if _, err := r.ExtractFromJSON(big, WithBudget(Budget{})); !errors.Is(err, ErrBudgetExceeded) {
				t.Fatalf("over the default status size: %v", err)
			}
			if s, err := r.ExtractFromJSON([]byte(`{"a":"x"}`), WithBudget(Budget{})); err != nil || s["example.io/a"] != "x" {
				t.Fatalf("%v %v", s, err)
			}
		}},
		{"ExtractOption: the zero option changes nothing", func(t *testing.T) {
			r, err := Compile([]StatePreservationRule{{AliasLabelName: "example.io/a", JSONPath: "{.a}"}})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.ExtractFromJSON([]byte(`{}`), ExtractOption{}); err == nil {
				t.Fatal("a missing field passed without AllowMissing")
			}
		}},
		{"InjectionPolicy: only where a single writer is guaranteed", func(t *testing.T) {
			if _, ok := (InjectionPolicy{}).StateFor("m2", targets, []eviction.GracefulEvictionTask{directly}); !ok {
				t.Fatal("no state for a Directly task with one new target")
			}
			if _, ok := (InjectionPolicy{}).StateFor("m2", targets, []eviction.GracefulEvictionTask{gracefully}); ok {
				t.Fatal("state for a Gracefully task")
			}
			two := []eviction.TargetCluster{{Name: "m2"}, {Name: "m3"}}
			if _, ok := (InjectionPolicy{}).StateFor("m2", two, []eviction.GracefulEvictionTask{directly}); ok {
				t.Fatal("state for two new targets")
			}
		}},
		{"Injector: disabled, changes nothing", func(t *testing.T) {
			obj := &unstructured.Unstructured{Object: map[string]any{"kind": "FlinkDeployment"}}
			injected, err := Injector{}.InjectFor(obj, "m2", targets, []eviction.GracefulEvictionTask{directly})
			if err != nil || injected || len(obj.GetLabels()) != 0 {
				t.Fatalf("%v %v %v", injected, obj.GetLabels(), err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}
