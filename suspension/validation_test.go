package suspension

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
)

func TestValidateSuspension(t *testing.T) {
	root := field.NewPath("spec", "suspension")
	names := root.Child("dispatchingOnClusters", "clusterNames")
	long := strings.Repeat("a", ClusterNameMaxLength+1)
	tests := []struct {
		name string
		in   *Suspension
		want []string // "type field" per error
	}{
		{"nil", nil, nil},
		{"empty", &Suspension{}, nil},
		{"all", &Suspension{Dispatching: ptr.To(true)}, nil},
		{"all with empty list", &Suspension{Dispatching: ptr.To(true), DispatchingOnClusters: &SuspendClusters{}}, nil},
		{"list", &Suspension{DispatchingOnClusters: &SuspendClusters{ClusterNames: []string{"member2", "member3"}}}, nil},
		{"false with list", &Suspension{Dispatching: ptr.To(false), DispatchingOnClusters: &SuspendClusters{ClusterNames: []string{"member2"}}}, nil},
		{"longest name", &Suspension{DispatchingOnClusters: &SuspendClusters{ClusterNames: []string{long[1:]}}}, nil},
		{"true with list", &Suspension{Dispatching: ptr.To(true), DispatchingOnClusters: &SuspendClusters{ClusterNames: []string{"member2"}}},
			[]string{string(field.ErrorTypeForbidden) + " " + names.String()}},
		{"empty name", &Suspension{DispatchingOnClusters: &SuspendClusters{ClusterNames: []string{""}}},
			[]string{string(field.ErrorTypeRequired) + " " + names.Index(0).String()}},
		{"too long", &Suspension{DispatchingOnClusters: &SuspendClusters{ClusterNames: []string{long}}},
			[]string{string(field.ErrorTypeInvalid) + " " + names.Index(0).String()}},
		{"upper case", &Suspension{DispatchingOnClusters: &SuspendClusters{ClusterNames: []string{"ok", "Member1"}}},
			[]string{string(field.ErrorTypeInvalid) + " " + names.Index(1).String()}},
		{"dots are no label", &Suspension{DispatchingOnClusters: &SuspendClusters{ClusterNames: []string{"a.b"}}},
			[]string{string(field.ErrorTypeInvalid) + " " + names.Index(0).String()}},
		{"duplicate", &Suspension{DispatchingOnClusters: &SuspendClusters{ClusterNames: []string{"a", "b", "a"}}},
			[]string{string(field.ErrorTypeDuplicate) + " " + names.Index(2).String()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, e := range ValidateSuspension(tt.in, root) {
				got = append(got, string(e.Type)+" "+e.Field)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzDecodeAndValidate feeds arbitrary bytes through the decoder and, when
// they decode, the validator and every decision: nothing may panic, and a
// suspension that validates must behave as its fields say.
func FuzzDecodeAndValidate(f *testing.F) {
	for _, seed := range []string{
		`{}`, `null`, `{"dispatching":true}`, `{"suspendDispatching":true,"dispatching":false}`,
		`{"dispatchingOnClusters":{"clusterNames":["member1","member1"]}}`,
		`{"suspendDispatchingOnClusters":{"clusterNames":["member3"]}}`,
		`{"dispatching":true,"dispatchingOnClusters":{"clusterNames":["x"]}}`,
		`{"dispatchingOnClusters":null}`, `{"dispatchingOnClusters":{"clusterNames":[""]}}`,
	} {
		f.Add([]byte(seed), "member1")
	}
	f.Fuzz(func(t *testing.T, data []byte, cluster string) {
		var s Suspension
		if err := json.Unmarshal(data, &s); err != nil {
			return
		}
		errs := ValidateSuspension(&s, field.NewPath("suspension"))
		for _, e := range errs {
			if e.Field == "" || e.Error() == "" {
				t.Fatalf("error without a field or message: %#v", e)
			}
		}
		if Decide(&s, cluster, OperationDelete) != ActionProceed {
			t.Fatalf("deletion blocked by %s", data)
		}
		listed := false
		if s.DispatchingOnClusters != nil {
			for _, n := range s.DispatchingOnClusters.ClusterNames {
				listed = listed || n == cluster
			}
		}
		want := !(SuspendsAll(&s) || listed)
		if ShouldDispatch(&s, cluster) != want {
			t.Fatalf("ShouldDispatch(%s, %q) = %v, want %v", data, cluster, !want, want)
		}
		if FailoverPaused(&s, cluster) == want {
			t.Fatalf("FailoverPaused disagrees with ShouldDispatch for %s", data)
		}
		var conds []metav1.Condition
		update := SetDispatchingCondition(&conds, &s, cluster, 1, time.Unix(1, 0))
		if update.Suspended == want || (conds[0].Status == metav1.ConditionTrue) != want {
			t.Fatalf("condition %+v disagrees with ShouldDispatch = %v", conds[0], want)
		}
		out, err := json.Marshal(&s)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		var back Suspension
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("re-decoding our own output %s: %v", out, err)
		}
		if !cmp.Equal(s, back) {
			t.Fatalf("round trip changed %s into %s", data, out)
		}
	})
}

// FuzzValidateSuspension validates arbitrary cluster lists directly (bytes
// JSON would not carry, invalid UTF-8 included): no panic, every error
// names an index that exists, and a valid list only holds distinct DNS-1123
// labels of at most ClusterNameMaxLength characters.
func FuzzValidateSuspension(f *testing.F) {
	f.Add("member1\x00member2", byte(0))
	f.Add("member1\x00member1", byte(1))
	f.Add("\x00Member\xff", byte(2))
	f.Add(strings.Repeat("a", 64), byte(3))
	f.Fuzz(func(t *testing.T, joined string, mode byte) {
		names := strings.Split(joined, "\x00")
		s := &Suspension{DispatchingOnClusters: &SuspendClusters{ClusterNames: names}}
		switch mode % 3 {
		case 1:
			s.Dispatching = ptr.To(true)
		case 2:
			s.Dispatching = ptr.To(false)
		}
		errs := ValidateSuspension(s, field.NewPath("s"))
		if len(errs) > 0 {
			return
		}
		if SuspendsAll(s) && len(names) > 0 {
			t.Fatalf("dispatching true with %d names accepted", len(names))
		}
		seen := map[string]bool{}
		for _, n := range names {
			if seen[n] || len(n) == 0 || len(n) > ClusterNameMaxLength || len(ValidateClusterName(n)) > 0 {
				t.Fatalf("invalid or duplicate name %q accepted", n)
			}
			seen[n] = true
		}
	})
}
