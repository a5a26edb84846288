package suspension

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"
)

func TestUnmarshalBothSpellings(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Suspension
	}{
		{"empty", `{}`, Suspension{}},
		{"current all", `{"dispatching":true}`, Suspension{Dispatching: ptr.To(true)}},
		{"legacy all", `{"suspendDispatching":true}`, Suspension{Dispatching: ptr.To(true)}},
		{"legacy false", `{"suspendDispatching":false}`, Suspension{Dispatching: ptr.To(false)}},
		{"current clusters", `{"dispatchingOnClusters":{"clusterNames":["member2","member3"]}}`,
			Suspension{DispatchingOnClusters: &SuspendClusters{ClusterNames: []string{"member2", "member3"}}}},
		{"legacy clusters", `{"suspendDispatchingOnClusters":{"clusterNames":["member3"]}}`,
			Suspension{DispatchingOnClusters: &SuspendClusters{ClusterNames: []string{"member3"}}}},
		{"mixed spellings of different fields", `{"suspendDispatching":false,"dispatchingOnClusters":{"clusterNames":["a"]}}`,
			Suspension{Dispatching: ptr.To(false), DispatchingOnClusters: &SuspendClusters{ClusterNames: []string{"a"}}}},
		{"null counts as absent", `{"dispatching":null,"suspendDispatching":true}`, Suspension{Dispatching: ptr.To(true)}},
		{"unknown field ignored", `{"suspendScheduling":true}`, Suspension{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got Suspension
			if err := json.Unmarshal([]byte(tt.in), &got); err != nil {
				t.Fatalf("Unmarshal: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnmarshalConflictingSpellings(t *testing.T) {
	tests := []struct {
		in, field, legacy string
	}{
		{`{"dispatching":true,"suspendDispatching":true}`, "dispatching", "suspendDispatching"},
		{`{"dispatching":false,"suspendDispatching":true}`, "dispatching", "suspendDispatching"},
		{`{"dispatchingOnClusters":{},"suspendDispatchingOnClusters":{"clusterNames":["a"]}}`, "dispatchingOnClusters", "suspendDispatchingOnClusters"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got := Suspension{Dispatching: ptr.To(true)}
			err := json.Unmarshal([]byte(tt.in), &got)
			if !errors.Is(err, ErrConflictingSpellings) {
				t.Fatalf("err = %v, want ErrConflictingSpellings", err)
			}
			var conflict *SpellingConflictError
			if !errors.As(err, &conflict) || conflict.Field != tt.field || conflict.Legacy != tt.legacy {
				t.Fatalf("err = %#v, want field %q legacy %q", err, tt.field, tt.legacy)
			}
			if diff := cmp.Diff(Suspension{Dispatching: ptr.To(true)}, got); diff != "" {
				t.Errorf("a failed decode modified the target (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnmarshalNullLeavesValueAlone(t *testing.T) {
	s := Suspension{Dispatching: ptr.To(true)}
	if err := json.Unmarshal([]byte(" null "), &s); err != nil {
		t.Fatal(err)
	}
	if s.Dispatching == nil || !*s.Dispatching {
		t.Errorf("null reset the value: %+v", s)
	}
	var holder struct {
		S *Suspension `json:"suspension"`
	}
	if err := json.Unmarshal([]byte(`{"suspension":null}`), &holder); err != nil || holder.S != nil {
		t.Errorf("null pointer field: %+v, %v", holder.S, err)
	}
}

func TestUnmarshalMalformed(t *testing.T) {
	for _, in := range []string{`[]`, `{"dispatching":"yes"}`, `{"dispatchingOnClusters":{"clusterNames":"a"}}`, `{`} {
		var s Suspension
		err := json.Unmarshal([]byte(in), &s)
		if err == nil {
			t.Errorf("%s: want an error", in)
			continue
		}
		if errors.Is(err, ErrConflictingSpellings) {
			t.Errorf("%s: malformed input reported as a spelling conflict: %v", in, err)
		}
	}
}

func TestMarshalUsesCurrentSpelling(t *testing.T) {
	var s Suspension
	if err := json.Unmarshal([]byte(`{"suspendDispatching":false,"suspendDispatchingOnClusters":{"clusterNames":["member3"]}}`), &s); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(&s)
	if err != nil {
		t.Fatal(err)
	}
	const want = `{"dispatching":false,"dispatchingOnClusters":{"clusterNames":["member3"]}}`
	if string(out) != want {
		t.Errorf("Marshal = %s, want %s", out, want)
	}
	var back Suspension
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
}

func TestYAMLFromPolicy(t *testing.T) {
	// The suspension block of the dispatch-suspension design's second example, in both spellings.
	type spec struct {
		Suspension *Suspension `json:"suspension,omitempty"`
	}
	legacy := "suspension:\n  suspendDispatchingOnClusters:\n    clusterNames:\n      - member2\n      - member3\n"
	current := "suspension:\n  dispatchingOnClusters:\n    clusterNames:\n      - member2\n      - member3\n"
	want := &Suspension{DispatchingOnClusters: &SuspendClusters{ClusterNames: []string{"member2", "member3"}}}
	for _, doc := range []string{legacy, current} {
		var got spec
		if err := yaml.Unmarshal([]byte(doc), &got); err != nil {
			t.Fatalf("yaml.Unmarshal(%q): %v", doc, err)
		}
		if diff := cmp.Diff(want, got.Suspension); diff != "" {
			t.Errorf("(-want +got):\n%s", diff)
		}
	}
	var conflict spec
	err := yaml.Unmarshal([]byte("suspension:\n  dispatching: true\n  suspendDispatching: true\n"), &conflict)
	if !errors.Is(err, ErrConflictingSpellings) {
		t.Errorf("yaml conflict: err = %v, want ErrConflictingSpellings", err)
	}
	out, err := yaml.Marshal(spec{Suspension: want})
	if err != nil {
		t.Fatal(err)
	}
	const wantYAML = "suspension:\n  dispatchingOnClusters:\n    clusterNames:\n    - member2\n    - member3\n"
	if string(out) != wantYAML {
		t.Errorf("yaml.Marshal =\n%s\nwant\n%s", out, wantYAML)
	}
}

func TestDeepCopyIsIndependent(t *testing.T) {
	orig := &Suspension{Dispatching: ptr.To(false), DispatchingOnClusters: &SuspendClusters{ClusterNames: []string{"a"}}}
	cp := orig.DeepCopy()
	*cp.Dispatching = true
	cp.DispatchingOnClusters.ClusterNames[0] = "b"
	if *orig.Dispatching || orig.DispatchingOnClusters.ClusterNames[0] != "a" {
		t.Errorf("DeepCopy shares memory with the original: %+v", orig)
	}
}
