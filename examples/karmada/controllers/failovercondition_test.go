package controllers

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The condition is written only when it changes, appears only when a step
// holds the workload, and a new reason (not a new message) is what an
// event announces.
func TestSetFailoverCondition(t *testing.T) {
	t0 := time.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC)
	held := failoverCondition{Status: metav1.ConditionTrue, Reason: ReasonTolerationNotExpired, Message: "until 12:01"}
	settled := failoverCondition{Status: metav1.ConditionFalse, Reason: ReasonSettled, Message: "runs on b"}
	var conds []metav1.Condition

	if u := setFailoverCondition(&conds, settled, t0); u.Changed || u.ReasonChanged || len(conds) != 0 {
		t.Fatalf("settled on a binding without the condition: %+v, conditions %v; want nothing written", u, conds)
	}
	if u := setFailoverCondition(&conds, held, t0); !u.Changed || !u.ReasonChanged {
		t.Fatalf("first holding step: %+v, want a write and an event", u)
	}
	if u := setFailoverCondition(&conds, held, t0.Add(time.Minute)); u.Changed || u.ReasonChanged {
		t.Fatalf("the same step again: %+v, want neither write nor event", u)
	}
	if u := setFailoverCondition(&conds, failoverCondition{Keep: true}, t0.Add(time.Minute)); u.Changed || u.ReasonChanged {
		t.Fatalf("a passing step: %+v, want the condition kept", u)
	}
	moved := held
	moved.Message = "until 12:02"
	if u := setFailoverCondition(&conds, moved, t0.Add(time.Minute)); !u.Changed || u.ReasonChanged {
		t.Fatalf("a new message under the same reason: %+v, want a write and no event", u)
	}
	c := meta.FindStatusCondition(conds, FailoverConditionType)
	if c.Message != "until 12:02" || !c.LastTransitionTime.Time.Equal(t0) {
		t.Fatalf("condition %+v, want the new message and the first transition time %v", c, t0)
	}
	if u := setFailoverCondition(&conds, settled, t0.Add(2*time.Minute)); !u.Changed || !u.ReasonChanged {
		t.Fatalf("failover over: %+v, want a write and an event", u)
	}
	c = meta.FindStatusCondition(conds, FailoverConditionType)
	if c.Status != metav1.ConditionFalse || c.Reason != ReasonSettled || !c.LastTransitionTime.Time.Equal(t0.Add(2*time.Minute)) || len(conds) != 1 {
		t.Fatalf("conditions %+v, want one Failover=False Settled that transitioned at %v", conds, t0.Add(2*time.Minute))
	}
}
