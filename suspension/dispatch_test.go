package suspension

import (
	"testing"

	"k8s.io/utils/ptr"
)

// TestSeedWalkthrough follows the design's rollout story: a workload on
// member1..member3, an update while member2 and member3 are suspended, then
// while only member3 is, then a deletion while suspended.
func TestSeedWalkthrough(t *testing.T) {
	clusters := []string{"member1", "member2", "member3"}
	reached := func(s *Suspension) []string {
		var out []string
		for _, c := range clusters {
			if Decide(s, c, OperationApply) == ActionProceed {
				out = append(out, c)
			}
		}
		return out
	}
	steps := []struct {
		name string
		s    *Suspension
		want []string
	}{
		{"no suspension", nil, clusters},
		{"suspend all", &Suspension{Dispatching: ptr.To(true)}, nil},
		{"member2 and member3 suspended", &Suspension{DispatchingOnClusters: &SuspendClusters{ClusterNames: []string{"member2", "member3"}}}, []string{"member1"}},
		{"only member3 suspended", &Suspension{DispatchingOnClusters: &SuspendClusters{ClusterNames: []string{"member3"}}}, []string{"member1", "member2"}},
		{"resumed", &Suspension{DispatchingOnClusters: &SuspendClusters{}}, clusters},
		{"switch off explicitly", &Suspension{Dispatching: ptr.To(false)}, clusters},
	}
	for _, st := range steps {
		got := reached(st.s)
		if len(got) != len(st.want) {
			t.Fatalf("%s: update reaches %v, want %v", st.name, got, st.want)
		}
		for i := range got {
			if got[i] != st.want[i] {
				t.Fatalf("%s: update reaches %v, want %v", st.name, got, st.want)
			}
		}
		for _, c := range clusters {
			if Decide(st.s, c, OperationDelete) != ActionProceed {
				t.Errorf("%s: deletion on %s blocked", st.name, c)
			}
			if ShouldDispatch(st.s, c) == FailoverPaused(st.s, c) {
				t.Errorf("%s: failover on %s paused=%v while dispatch=%v", st.name, c, FailoverPaused(st.s, c), ShouldDispatch(st.s, c))
			}
		}
	}
}

func TestDecideUnknownOperationIsHeldLikeApply(t *testing.T) {
	s := &Suspension{Dispatching: ptr.To(true)}
	if got := Decide(s, "member1", Operation("Patch")); got != ActionHold {
		t.Errorf("Decide(Patch) = %s, want Hold", got)
	}
	if got := Decide(nil, "member1", Operation("Patch")); got != ActionProceed {
		t.Errorf("Decide(nil, Patch) = %s, want Proceed", got)
	}
}

func TestDispatchSuspendedNilReceiver(t *testing.T) {
	var s *Suspension
	if s.DispatchSuspended("member1") || SuspendsAll(s) {
		t.Error("a nil suspension suspends something")
	}
}
