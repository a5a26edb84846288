package controllers

import (
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// FailoverConditionType is the condition on a binding's status that says
// where its failover stands, in the words of the library's explanation:
// Reason is the reason code of the step that holds the workload where it
// is, Message that step's sentence. Status is True while a step holds the
// workload (a failover is under way, waits, or cannot happen) and False
// once nothing does. A binding that never had anything to explain carries
// no condition: the condition appears with the first step that holds the
// workload and stays, False, once the failover is over.
const FailoverConditionType = "Failover"

// FailoverChangedAction is the action of the event that announces a new
// reason of the Failover condition (its reason is the condition's).
const FailoverChangedAction = "FailoverChanged"

// failoverCondition is the condition a binding should carry, and the event
// type of the event that announces a change of its reason.
type failoverCondition struct {
	Status    metav1.ConditionStatus
	Reason    string
	Message   string
	EventType string
	// Keep leaves the stored condition as it is.
	Keep bool
}

// conditionUpdate is what setFailoverCondition did.
type conditionUpdate struct {
	// Changed reports that the condition list changed: the status write
	// must carry it.
	Changed bool
	// ReasonChanged reports that the reason differs from the stored one:
	// one event announces it.
	ReasonChanged bool
	Condition     failoverCondition
}

// setFailoverCondition brings the binding's Failover condition in line with
// want. It changes nothing when the stored condition already says the same
// (so a reconcile that learns nothing new writes nothing), and adds no
// condition to a binding that has none while nothing holds it (so a fleet
// of healthy bindings gets no write at all). The transition time moves
// only when Status does (meta.SetStatusCondition).
func setFailoverCondition(conditions *[]metav1.Condition, want failoverCondition, now time.Time) conditionUpdate {
	if want.Keep {
		return conditionUpdate{Condition: want}
	}
	have := meta.FindStatusCondition(*conditions, FailoverConditionType)
	if have == nil && want.Status != metav1.ConditionTrue {
		return conditionUpdate{Condition: want}
	}
	if have != nil && have.Status == want.Status && have.Reason == want.Reason && have.Message == want.Message {
		return conditionUpdate{Condition: want}
	}
	reasonChanged := have == nil || have.Reason != want.Reason
	meta.SetStatusCondition(conditions, metav1.Condition{
		Type:               FailoverConditionType,
		Status:             want.Status,
		Reason:             want.Reason,
		Message:            want.Message,
		LastTransitionTime: metav1.NewTime(now),
	})
	return conditionUpdate{Changed: true, ReasonChanged: reasonChanged, Condition: want}
}

// record emits the one event of a change of reason; nothing otherwise.
// Callers call it after the write succeeded, outside the conflict retries.
func (u conditionUpdate) record(events *EventSink, obj runtime.Object) {
	if !u.ReasonChanged {
		return
	}
	events.eventWithAction(obj, u.Condition.EventType, u.Condition.Reason, FailoverChangedAction, "%s", u.Condition.Message)
}
