package suspension

import (
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ConditionDispatching is the type of the condition a controller reports on
// each per-cluster work object.
const ConditionDispatching = "Dispatching"

// Reasons of the Dispatching condition.
const (
	// ReasonSuspendDispatching goes with Status False: changes are held.
	ReasonSuspendDispatching = "SuspendDispatching"
	// ReasonDispatching goes with Status True: changes reach the cluster.
	ReasonDispatching = "Dispatching"
)

// DispatchingCondition returns the Dispatching condition for the work object
// of cluster. Status False (reason SuspendDispatching, a message naming the
// scope) while dispatching to cluster is suspended; Status True (reason
// Dispatching) otherwise. True always means changes reach the cluster.
//
// LastTransitionTime is left zero: SetDispatchingCondition fills it.
func DispatchingCondition(s *Suspension, cluster string, observedGeneration int64) metav1.Condition {
	c := metav1.Condition{Type: ConditionDispatching, ObservedGeneration: observedGeneration}
	switch {
	case SuspendsAll(s):
		c.Status = metav1.ConditionFalse
		c.Reason = ReasonSuspendDispatching
		c.Message = "Dispatching is suspended for all clusters (suspension.dispatching is true)."
	case s.DispatchSuspended(cluster):
		c.Status = metav1.ConditionFalse
		c.Reason = ReasonSuspendDispatching
		c.Message = "Dispatching to cluster " + strconv.Quote(cluster) + " is suspended (listed in suspension.dispatchingOnClusters)."
	default:
		c.Status = metav1.ConditionTrue
		c.Reason = ReasonDispatching
		c.Message = "Changes are dispatched to cluster " + strconv.Quote(cluster) + "."
	}
	return c
}

// ConditionUpdate says what SetDispatchingCondition did.
type ConditionUpdate struct {
	// Changed: the conditions differ from before (status, reason, message or
	// observed generation, or the condition is new). Write the status.
	Changed bool
	// Transitioned: the condition is new or its Status flipped, and
	// LastTransitionTime was set to now. Emit an event.
	Transitioned bool
	// Suspended: dispatching to the cluster is suspended now.
	Suspended bool
}

// SetDispatchingCondition puts the Dispatching condition for cluster into
// conditions with meta.SetStatusCondition: LastTransitionTime is set to now
// only when the condition appears or its Status changes; a new reason,
// message or generation alone keeps it. The report says which of the two
// happened, which meta.SetStatusCondition's single bool does not. A zero now
// stays a zero LastTransitionTime instead of the wall clock's time that
// meta.SetStatusCondition would put there, so a caller's clock is the only
// source of time. A nil conditions pointer changes nothing.
func SetDispatchingCondition(conditions *[]metav1.Condition, s *Suspension, cluster string, observedGeneration int64, now time.Time) ConditionUpdate {
	return ApplyDispatchingCondition(conditions, DispatchingCondition(s, cluster, observedGeneration), now)
}

// ApplyDispatchingCondition puts want, a Dispatching condition as
// DispatchingCondition returns it (its message reworded if the caller
// speaks another system's words, say), into conditions by the rules of
// SetDispatchingCondition, and reports what changed. want's
// LastTransitionTime is ignored: now is used when the status flips.
func ApplyDispatchingCondition(conditions *[]metav1.Condition, want metav1.Condition, now time.Time) ConditionUpdate {
	want.LastTransitionTime = metav1.NewTime(now)
	update := ConditionUpdate{Suspended: want.Status == metav1.ConditionFalse}
	if conditions == nil {
		return update
	}
	prev := meta.FindStatusCondition(*conditions, ConditionDispatching)
	update.Transitioned = prev == nil || prev.Status != want.Status
	update.Changed = meta.SetStatusCondition(conditions, want)
	if update.Transitioned && now.IsZero() {
		meta.FindStatusCondition(*conditions, ConditionDispatching).LastTransitionTime = metav1.Time{}
	}
	return update
}
