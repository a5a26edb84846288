package controllers_test

import (
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"k8s.io/klog/v2"
)

// recordedEvent is one event a controller recorded.
type recordedEvent struct {
	Object, Type, Reason, Action, Note string
}

// eventLog is an event recorder that keeps every event in memory, in the
// order recorded, so a test can count them exactly (the API server's
// events arrive late and are merged into series).
type eventLog struct {
	mu     sync.Mutex
	events []recordedEvent
}

func (l *eventLog) Eventf(regarding, _ runtime.Object, eventtype, reason, action, note string, args ...any) {
	name := "?"
	if ref, ok := regarding.(*corev1.ObjectReference); ok {
		name = ref.Namespace + "/" + ref.Name
	} else if m, err := meta.Accessor(regarding); err == nil {
		name = m.GetNamespace() + "/" + m.GetName()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, recordedEvent{Object: name, Type: eventtype, Reason: reason, Action: action, Note: fmt.Sprintf(note, args...)})
}

func (l *eventLog) AnnotatedEventf(regarding, related runtime.Object, _ map[string]string, eventtype, reason, action, note string, args ...any) {
	l.Eventf(regarding, related, eventtype, reason, action, note, args...)
}

func (l *eventLog) WithLogger(klog.Logger) events.EventRecorderLogger { return l }

// of returns the events recorded on object (namespace/name) with action.
func (l *eventLog) of(object, action string) []recordedEvent {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []recordedEvent
	for _, e := range l.events {
		if e.Object == object && e.Action == action {
			out = append(out, e)
		}
	}
	return out
}

func reasonsOf(events []recordedEvent) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.Reason
	}
	return out
}
