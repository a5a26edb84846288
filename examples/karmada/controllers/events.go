package controllers

import (
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/recorder"
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
	s.Recorder.Eventf(obj, nil, eventType, reason, action, format, args...)
}
