package controllers

import (
	"fmt"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/recorder"
)

// Karmada's event reasons where fleetover's controllers do what Karmada's
// do, so that alerts and tools written for Karmada keep working.
const (
	// EventReasonEvictWorkloadFromClusterSucceed: a workload left a
	// cluster (cluster or application failover), on the binding and on
	// its resource template.
	EventReasonEvictWorkloadFromClusterSucceed = "EvictWorkloadFromClusterSucceed"
	// EventReasonWorkDispatching: a Work's dispatching was suspended or
	// resumed.
	EventReasonWorkDispatching = "WorkDispatching"
)

// EventSink records Kubernetes events through controller-runtime's event
// recorder. A nil *EventSink records nothing, so controllers work without
// one (unit tests, dry runs).
type EventSink struct {
	Recorder recorder.EventRecorder
}

// NewEventSink returns a sink writing to r.
func NewEventSink(r recorder.EventRecorder) *EventSink { return &EventSink{Recorder: r} }

func (s *EventSink) event(obj runtime.Object, eventType, reason, format string, args ...any) {
	s.eventWithAction(obj, eventType, reason, reason, format, args...)
}

// eventWithAction records an event whose action (events.k8s.io/v1's
// "what was done") differs from its reason.
func (s *EventSink) eventWithAction(obj runtime.Object, eventType, reason, action, format string, args ...any) {
	if s == nil || s.Recorder == nil {
		return
	}
	s.Recorder.Eventf(obj, nil, eventType, reason, action, "%s", eventNote(fmt.Sprintf(format, args...)))
}

// maxEventNote is the longest note the API server takes in an event
// (events.k8s.io/v1 validation); a longer one is refused and the event
// lost.
const maxEventNote = 1024

// eventNote cuts a note to maxEventNote bytes, at a rune boundary, ending
// in "..." so a reader sees it was cut. A note that lists every rejected
// cluster of a large fleet is the usual one.
func eventNote(note string) string {
	if len(note) <= maxEventNote {
		return note
	}
	const ellipsis = "..."
	cut := maxEventNote - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(note[cut]) {
		cut--
	}
	return note[:cut] + ellipsis
}

// evicted records Karmada's eviction event, in Karmada's words, on the
// binding and on the resource template it binds.
func (s *EventSink) evicted(binding client.Object, cluster string) {
	s.event(binding, corev1.EventTypeNormal, EventReasonEvictWorkloadFromClusterSucceed, "Evict from cluster %s succeed.", cluster)
	if spec := bindingSpec(binding); spec != nil {
		r := spec.Resource
		ref := &corev1.ObjectReference{APIVersion: r.APIVersion, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name, UID: r.UID}
		s.event(ref, corev1.EventTypeNormal, EventReasonEvictWorkloadFromClusterSucceed, "Evict from cluster %s succeed.", cluster)
	}
}
