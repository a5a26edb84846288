package suspension

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
)

func TestDispatchingConditionTable(t *testing.T) {
	tests := []struct {
		name    string
		s       *Suspension
		status  metav1.ConditionStatus
		reason  string
		message string
	}{
		{"none", nil, metav1.ConditionTrue, ReasonDispatching, `Changes are dispatched to cluster "member1".`},
		{"all", &Suspension{Dispatching: ptr.To(true)}, metav1.ConditionFalse, ReasonSuspendDispatching,
			"Dispatching is suspended for all clusters (suspension.dispatching is true)."},
		{"this cluster", &Suspension{DispatchingOnClusters: &SuspendClusters{ClusterNames: []string{"member1"}}}, metav1.ConditionFalse, ReasonSuspendDispatching,
			`Dispatching to cluster "member1" is suspended (listed in suspension.dispatchingOnClusters).`},
		{"other cluster", &Suspension{DispatchingOnClusters: &SuspendClusters{ClusterNames: []string{"member2"}}}, metav1.ConditionTrue, ReasonDispatching,
			`Changes are dispatched to cluster "member1".`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := DispatchingCondition(tt.s, "member1", 7)
			if c.Type != ConditionDispatching || c.Status != tt.status || c.Reason != tt.reason || c.Message != tt.message || c.ObservedGeneration != 7 {
				t.Errorf("got %+v, want status %s reason %s message %q", c, tt.status, tt.reason, tt.message)
			}
		})
	}
}

func TestSetDispatchingConditionTransitions(t *testing.T) {
	clk := clocktesting.NewFakeClock(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	suspended := &Suspension{DispatchingOnClusters: &SuspendClusters{ClusterNames: []string{"member2"}}}
	all := &Suspension{Dispatching: ptr.To(true)}
	var conds []metav1.Condition
	start := clk.Now()

	type want struct{ changed, transitioned, suspended bool }
	check := func(step string, got ConditionUpdate, w want, lastTransition time.Time) {
		t.Helper()
		if got.Changed != w.changed || got.Transitioned != w.transitioned || got.Suspended != w.suspended {
			t.Errorf("%s: update = %+v, want %+v", step, got, w)
		}
		if len(conds) != 1 {
			t.Fatalf("%s: %d conditions, want 1", step, len(conds))
		}
		if !conds[0].LastTransitionTime.Time.Equal(lastTransition) {
			t.Errorf("%s: LastTransitionTime = %v, want %v", step, conds[0].LastTransitionTime, lastTransition)
		}
	}

	got := SetDispatchingCondition(&conds, nil, "member2", 1, clk.Now())
	check("first report", got, want{true, true, false}, start)

	clk.Step(time.Minute)
	got = SetDispatchingCondition(&conds, nil, "member2", 1, clk.Now())
	check("same again", got, want{false, false, false}, start)

	clk.Step(time.Minute)
	got = SetDispatchingCondition(&conds, suspended, "member2", 1, clk.Now())
	suspendedAt := clk.Now()
	check("suspend member2", got, want{true, true, true}, suspendedAt)

	clk.Step(time.Minute)
	got = SetDispatchingCondition(&conds, all, "member2", 1, clk.Now())
	check("scope widens: message only", got, want{true, false, true}, suspendedAt)

	clk.Step(time.Minute)
	got = SetDispatchingCondition(&conds, all, "member2", 2, clk.Now())
	check("new generation", got, want{true, false, true}, suspendedAt)
	if conds[0].ObservedGeneration != 2 {
		t.Errorf("ObservedGeneration = %d, want 2", conds[0].ObservedGeneration)
	}

	clk.Step(time.Minute)
	got = SetDispatchingCondition(&conds, nil, "member2", 2, clk.Now())
	check("resume", got, want{true, true, false}, clk.Now())
	if conds[0].Status != metav1.ConditionTrue || conds[0].Reason != ReasonDispatching {
		t.Errorf("after resume: %+v", conds[0])
	}
}

func TestSetDispatchingConditionKeepsOtherConditions(t *testing.T) {
	conds := []metav1.Condition{{Type: "Applied", Status: metav1.ConditionTrue, Reason: "AppliedSuccessful"}}
	SetDispatchingCondition(&conds, &Suspension{Dispatching: ptr.To(true)}, "m", 0, time.Unix(100, 0))
	if len(conds) != 2 || conds[0].Type != "Applied" || conds[1].Type != ConditionDispatching {
		t.Errorf("conditions = %+v", conds)
	}
}

func TestSetDispatchingConditionNilSliceAndZeroNow(t *testing.T) {
	got := SetDispatchingCondition(nil, &Suspension{Dispatching: ptr.To(true)}, "m", 0, time.Now())
	if got.Changed || got.Transitioned || !got.Suspended {
		t.Errorf("nil conditions: %+v", got)
	}
	var conds []metav1.Condition
	SetDispatchingCondition(&conds, nil, "m", 0, time.Time{})
	if !conds[0].LastTransitionTime.IsZero() {
		t.Errorf("zero now was replaced by %v: the wall clock was read", conds[0].LastTransitionTime)
	}
}
