package suspension

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"k8s.io/utils/ptr"
)

func TestGuardRedivision(t *testing.T) {
	onMember2 := &Suspension{DispatchingOnClusters: &SuspendClusters{ClusterNames: []string{"member2"}}}
	tests := []struct {
		name     string
		s        *Suspension
		old, pro map[string]int32
		want     map[string]int32
		held     []HeldReplicas
	}{
		{"no suspension passes through", nil,
			map[string]int32{"member1": 1, "member2": 2}, map[string]int32{"member1": 3},
			map[string]int32{"member1": 3}, nil},
		{"dropped suspended cluster is restored", onMember2,
			map[string]int32{"member1": 1, "member2": 2}, map[string]int32{"member1": 3},
			map[string]int32{"member1": 3, "member2": 2}, []HeldReplicas{{Cluster: "member2", Replicas: 2}}},
		{"zeroed suspended cluster is restored", onMember2,
			map[string]int32{"member1": 1, "member2": 2}, map[string]int32{"member1": 3, "member2": 0},
			map[string]int32{"member1": 3, "member2": 2}, []HeldReplicas{{Cluster: "member2", Replicas: 2}}},
		{"scale on suspended cluster passes", onMember2,
			map[string]int32{"member2": 3}, map[string]int32{"member2": 1, "member1": 2},
			map[string]int32{"member2": 1, "member1": 2}, nil},
		{"unsuspended cluster may be dropped", onMember2,
			map[string]int32{"member1": 1, "member2": 2}, map[string]int32{"member2": 3},
			map[string]int32{"member2": 3}, nil},
		{"suspend all protects every cluster, sorted", &Suspension{Dispatching: ptr.To(true)},
			map[string]int32{"b": 1, "a": 2, "c": 0}, map[string]int32{"d": 3},
			map[string]int32{"a": 2, "b": 1, "d": 3}, []HeldReplicas{{Cluster: "a", Replicas: 2}, {Cluster: "b", Replicas: 1}}},
		{"nil maps", onMember2, nil, nil, map[string]int32{}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			proposedBefore := make(map[string]int32, len(tt.pro))
			for k, v := range tt.pro {
				proposedBefore[k] = v
			}
			got, held := GuardRedivision(tt.s, tt.old, tt.pro)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("assignment (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.held, held); diff != "" {
				t.Errorf("held (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(proposedBefore, tt.pro, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("the proposed assignment was modified (-before +after):\n%s", diff)
			}
		})
	}
}

// FuzzGuardRedivision: no suspended cluster that had replicas ends with
// none, every other cluster keeps the proposed count, and nothing panics.
func FuzzGuardRedivision(f *testing.F) {
	f.Add([]byte{1, 2, 0, 3, 1, 0}, byte(1))
	f.Add([]byte{5, 0, 0, 5, 7, 7}, byte(0))
	f.Fuzz(func(t *testing.T, data []byte, mode byte) {
		old, proposed := map[string]int32{}, map[string]int32{}
		var listed []string
		for i := 0; i+2 < len(data); i += 3 {
			name := string(rune('a' + data[i]%8))
			old[name] = int32(int8(data[i+1]))
			proposed[name] = int32(int8(data[i+2]))
			if data[i]&8 != 0 {
				listed = append(listed, name)
			}
		}
		s := &Suspension{DispatchingOnClusters: &SuspendClusters{ClusterNames: listed}}
		if mode%2 == 1 {
			s.Dispatching = ptr.To(true)
		}
		got, held := GuardRedivision(s, old, proposed)
		for name, n := range got {
			_, wasHeld := old[name]
			wasHeld = wasHeld && s.DispatchSuspended(name) && old[name] > 0 && proposed[name] <= 0
			if !wasHeld && n != proposed[name] {
				t.Fatalf("%s: %d, proposed %d", name, n, proposed[name])
			}
			if wasHeld && n != old[name] {
				t.Fatalf("%s: held at %d, had %d", name, n, old[name])
			}
		}
		for name, was := range old {
			if was > 0 && s.DispatchSuspended(name) && got[name] <= 0 {
				t.Fatalf("suspended %s lost its %d replicas", name, was)
			}
		}
		for i := 1; i < len(held); i++ {
			if held[i-1].Cluster >= held[i].Cluster {
				t.Fatalf("held not sorted: %+v", held)
			}
		}
	})
}
