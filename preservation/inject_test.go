package preservation

import (
	"errors"
	"maps"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func manifest(labels map[string]any) *unstructured.Unstructured {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1",
		"kind":       "Deployment",
		"metadata":   map[string]any{"name": "web", "namespace": "default"},
	}}
	if labels != nil {
		obj.Object["metadata"].(map[string]any)["labels"] = labels
	}
	return obj
}

func equalObjects(a, b *unstructured.Unstructured) bool {
	return cmp.Equal(a.Object, b.Object)
}

func TestInjectMergesAndStateWins(t *testing.T) {
	obj := manifest(map[string]any{"app": "web", "failover.karmada.io/replicas": "1"})
	state := map[string]string{"failover.karmada.io/replicas": "3", "failover.karmada.io/readyReplicas": "2"}
	before := maps.Clone(state)
	if err := Inject(obj, state); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"app": "web", "failover.karmada.io/replicas": "3", "failover.karmada.io/readyReplicas": "2"}
	if diff := cmp.Diff(want, obj.GetLabels()); diff != "" {
		t.Fatalf("labels (-want +got)\n%s", diff)
	}
	if !maps.Equal(state, before) {
		t.Fatalf("Inject modified its state argument: %v", state)
	}
}

func TestInjectCreatesLabels(t *testing.T) {
	for name, obj := range map[string]*unstructured.Unstructured{
		"no labels":   manifest(nil),
		"no metadata": {Object: map[string]any{"kind": "Deployment"}},
		"nil object":  {},
	} {
		if err := Inject(obj, map[string]string{"k": "v"}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := obj.GetLabels(); !cmp.Equal(got, map[string]string{"k": "v"}) {
			t.Fatalf("%s: labels %v", name, got)
		}
	}
}

func TestInjectRefusesBadInputUntouched(t *testing.T) {
	cases := []struct {
		name  string
		obj   *unstructured.Unstructured
		state map[string]string
		want  error
	}{
		{"bad key", manifest(map[string]any{"app": "web"}), map[string]string{"ok": "v", "bad key": "v"}, ErrInvalidLabelKey},
		{"bad value", manifest(map[string]any{"app": "web"}), map[string]string{"ok": "v", "k": "s3://x"}, ErrInvalidLabelValue},
		{"labels not strings", manifest(map[string]any{"app": int64(3)}), map[string]string{"k": "v"}, ErrInvalidObject},
		{"metadata not a map", &unstructured.Unstructured{Object: map[string]any{"metadata": "x"}}, map[string]string{"k": "v"}, ErrInvalidObject},
		{"nil object", nil, map[string]string{"k": "v"}, ErrInvalidObject},
	}
	for _, tc := range cases {
		var before *unstructured.Unstructured
		if tc.obj != nil {
			before = tc.obj.DeepCopy()
		}
		err := Inject(tc.obj, tc.state)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: want %v, got %v", tc.name, tc.want, err)
		}
		if tc.obj != nil && !equalObjects(before, tc.obj) {
			t.Errorf("%s: object changed on error", tc.name)
		}
	}
	obj := manifest(nil)
	if err := Inject(obj, nil); err != nil || obj.GetLabels() != nil {
		t.Fatalf("empty state: %v, labels %v", err, obj.GetLabels())
	}
}

func TestStateFor(t *testing.T) {
	t0 := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	fromA := Carrier{FromCluster: "a", ClustersBeforeFailover: []string{"a"}, State: map[string]string{"id": "from-a"}, CreatedAt: t0}
	fromB := Carrier{FromCluster: "b", ClustersBeforeFailover: []string{"a", "b"}, State: map[string]string{"id": "from-b"}, CreatedAt: t0.Add(time.Minute)}
	unstamped := Carrier{FromCluster: "c", State: map[string]string{"id": "from-c"}}
	tieB := Carrier{FromCluster: "b", State: map[string]string{"id": "tie-b"}, CreatedAt: t0}
	tieA := Carrier{FromCluster: "aa", State: map[string]string{"id": "tie-aa"}, CreatedAt: t0}
	empty := Carrier{FromCluster: "e", CreatedAt: t0.Add(time.Hour)}

	cases := []struct {
		name     string
		target   string
		carriers []Carrier
		want     string // "" means no state
	}{
		{"new cluster gets the state", "b", []Carrier{fromA}, "from-a"},
		{"never the cluster it came from", "a", []Carrier{fromA}, ""},
		{"never a cluster it ran on before", "a", []Carrier{fromB}, ""},
		{"newest qualifying wins", "c", []Carrier{fromA, fromB}, "from-b"},
		{"order does not matter", "c", []Carrier{fromB, fromA}, "from-b"},
		{"chained failover: older task still serves the middle cluster", "b", []Carrier{fromA, fromB}, "from-a"},
		{"unstamped counts as newest", "d", []Carrier{fromB, unstamped, fromA}, "from-c"},
		{"tie goes to the smaller cluster name", "z", []Carrier{tieB, tieA}, "tie-aa"},
		{"tie in the other order", "z", []Carrier{tieA, tieB}, "tie-aa"},
		{"empty state never wins", "z", []Carrier{fromA, empty}, "from-a"},
		{"no carriers", "z", nil, ""},
	}
	for _, tc := range cases {
		got, ok := StateFor(tc.target, tc.carriers)
		if ok != (tc.want != "") || got["id"] != tc.want {
			t.Errorf("%s: got %v, %v; want %q", tc.name, got, ok, tc.want)
		}
		if ok {
			got["id"] = "mutated"
			for _, c := range tc.carriers {
				if c.State["id"] == "mutated" {
					t.Fatalf("%s: StateFor returned a carrier's own map", tc.name)
				}
			}
		}
	}
}

func TestInjectorIsOffByDefault(t *testing.T) {
	carriers := []Carrier{{FromCluster: "a", ClustersBeforeFailover: []string{"a"}, State: map[string]string{"k": "v"}}}
	obj := manifest(nil)
	var off Injector
	if injected, err := off.InjectFor(obj, "b", carriers); injected || err != nil || obj.GetLabels() != nil {
		t.Fatalf("zero Injector: injected %v, err %v, labels %v", injected, err, obj.GetLabels())
	}
	on := Injector{Enabled: true}
	if injected, err := on.InjectFor(obj, "a", carriers); injected || err != nil || obj.GetLabels() != nil {
		t.Fatalf("old cluster: injected %v, err %v, labels %v", injected, err, obj.GetLabels())
	}
	if injected, err := on.InjectFor(obj, "b", carriers); !injected || err != nil || obj.GetLabels()["k"] != "v" {
		t.Fatalf("new cluster: injected %v, err %v, labels %v", injected, err, obj.GetLabels())
	}
	bad := []Carrier{{FromCluster: "a", State: map[string]string{"k": "not valid!"}}}
	if injected, err := on.InjectFor(manifest(nil), "b", bad); injected || !errors.Is(err, ErrInvalidLabelValue) {
		t.Fatalf("bad state: injected %v, err %v", injected, err)
	}
}
