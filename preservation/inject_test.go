package preservation

import (
	"errors"
	"maps"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetover/fleetover/eviction"

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
	fromA := eviction.GracefulEvictionTask{FromCluster: "a", ClustersBeforeFailover: []string{"a"}, PreservedLabelState: map[string]string{"id": "from-a"}, CreationTimestamp: ts(t0)}
	fromB := eviction.GracefulEvictionTask{FromCluster: "b", ClustersBeforeFailover: []string{"a", "b"}, PreservedLabelState: map[string]string{"id": "from-b"}, CreationTimestamp: ts(t0.Add(time.Minute))}
	unstamped := eviction.GracefulEvictionTask{FromCluster: "c", PreservedLabelState: map[string]string{"id": "from-c"}}
	tieB := eviction.GracefulEvictionTask{FromCluster: "b", PreservedLabelState: map[string]string{"id": "tie-b"}, CreationTimestamp: ts(t0)}
	tieA := eviction.GracefulEvictionTask{FromCluster: "aa", PreservedLabelState: map[string]string{"id": "tie-aa"}, CreationTimestamp: ts(t0)}
	empty := eviction.GracefulEvictionTask{FromCluster: "e", CreationTimestamp: ts(t0.Add(time.Hour))}

	cases := []struct {
		name   string
		target string
		tasks  []eviction.GracefulEvictionTask
		want   string // "" means no state
	}{
		{"new cluster gets the state", "b", []eviction.GracefulEvictionTask{fromA}, "from-a"},
		{"never the cluster it came from", "a", []eviction.GracefulEvictionTask{fromA}, ""},
		{"never a cluster it ran on before", "a", []eviction.GracefulEvictionTask{fromB}, ""},
		{"newest qualifying wins", "c", []eviction.GracefulEvictionTask{fromA, fromB}, "from-b"},
		{"order does not matter", "c", []eviction.GracefulEvictionTask{fromB, fromA}, "from-b"},
		{"chained failover: older task still serves the middle cluster", "b", []eviction.GracefulEvictionTask{fromA, fromB}, "from-a"},
		{"unstamped counts as newest", "d", []eviction.GracefulEvictionTask{fromB, unstamped, fromA}, "from-c"},
		{"tie goes to the smaller cluster name", "z", []eviction.GracefulEvictionTask{tieB, tieA}, "tie-aa"},
		{"tie in the other order", "z", []eviction.GracefulEvictionTask{tieA, tieB}, "tie-aa"},
		{"empty state never wins", "z", []eviction.GracefulEvictionTask{fromA, empty}, "from-a"},
		{"no carriers", "z", nil, ""},
	}
	// The selection alone: a policy that allows every injection.
	permissive := InjectionPolicy{WhileOldCopyRuns: true, IntoSeveralTargets: true}
	for _, tc := range cases {
		got, ok := permissive.StateFor(tc.target, nil, tc.tasks)
		if ok != (tc.want != "") || got["id"] != tc.want {
			t.Errorf("%s: got %v, %v; want %q", tc.name, got, ok, tc.want)
		}
		if ok {
			got["id"] = "mutated"
			for _, c := range tc.tasks {
				if c.PreservedLabelState["id"] == "mutated" {
					t.Fatalf("%s: StateFor returned a carrier's own map", tc.name)
				}
			}
		}
	}
}

// The default policy injects only where a single writer is guaranteed:
// Directly, and one new target.
func TestStateForSingleWriter(t *testing.T) {
	task := func(mode eviction.PurgeMode) []eviction.GracefulEvictionTask {
		return []eviction.GracefulEvictionTask{{FromCluster: "a", PurgeMode: mode, ClustersBeforeFailover: []string{"a", "kept"}, PreservedLabelState: map[string]string{"id": "j"}}}
	}
	one := []eviction.TargetCluster{{Name: "kept"}, {Name: "b"}}
	two := []eviction.TargetCluster{{Name: "kept"}, {Name: "b"}, {Name: "c"}}
	cases := []struct {
		name    string
		policy  InjectionPolicy
		mode    eviction.PurgeMode
		targets []eviction.TargetCluster
		want    bool
	}{
		{"Directly, one new target", InjectionPolicy{}, eviction.PurgeDirectly, one, true},
		{"legacy Immediately is Directly", InjectionPolicy{}, eviction.LegacyPurgeImmediately, one, true},
		{"Gracefully: the old copy still runs", InjectionPolicy{}, eviction.PurgeGracefully, one, false},
		{"Never: the old copy still runs", InjectionPolicy{}, eviction.PurgeNever, one, false},
		{"empty mode is Gracefully", InjectionPolicy{}, "", one, false},
		{"Directly, two new targets", InjectionPolicy{}, eviction.PurgeDirectly, two, false},
		{"Gracefully opted in", InjectionPolicy{WhileOldCopyRuns: true}, eviction.PurgeGracefully, one, true},
		{"two targets opted in", InjectionPolicy{IntoSeveralTargets: true}, eviction.PurgeDirectly, two, true},
		{"two targets, Gracefully, only one opt-in", InjectionPolicy{IntoSeveralTargets: true}, eviction.PurgeGracefully, two, false},
	}
	for _, tc := range cases {
		_, ok := tc.policy.StateFor("b", tc.targets, task(tc.mode))
		if ok != tc.want {
			t.Errorf("%s: injected %v, want %v", tc.name, ok, tc.want)
		}
	}
}

func TestInjectorIsOffByDefault(t *testing.T) {
	carriers := []eviction.GracefulEvictionTask{{FromCluster: "a", PurgeMode: eviction.PurgeDirectly, ClustersBeforeFailover: []string{"a"}, PreservedLabelState: map[string]string{"k": "v"}}}
	obj := manifest(nil)
	var off Injector
	if injected, err := off.InjectFor(obj, "b", nil, carriers); injected || err != nil || obj.GetLabels() != nil {
		t.Fatalf("zero Injector: injected %v, err %v, labels %v", injected, err, obj.GetLabels())
	}
	on := Injector{Enabled: true}
	if injected, err := on.InjectFor(obj, "a", nil, carriers); injected || err != nil || obj.GetLabels() != nil {
		t.Fatalf("old cluster: injected %v, err %v, labels %v", injected, err, obj.GetLabels())
	}
	if injected, err := on.InjectFor(obj, "b", nil, carriers); !injected || err != nil || obj.GetLabels()["k"] != "v" {
		t.Fatalf("new cluster: injected %v, err %v, labels %v", injected, err, obj.GetLabels())
	}
	bad := []eviction.GracefulEvictionTask{{FromCluster: "a", PurgeMode: eviction.PurgeDirectly, PreservedLabelState: map[string]string{"k": "not valid!"}}}
	if injected, err := on.InjectFor(manifest(nil), "b", nil, bad); injected || !errors.Is(err, ErrInvalidLabelValue) {
		t.Fatalf("bad state: injected %v, err %v", injected, err)
	}
}

func ts(t time.Time) *metav1.Time { return &metav1.Time{Time: t} }
