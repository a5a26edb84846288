package main

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/fleetover/fleetover/eviction"
)

// EventKind classifies a timeline event.
type EventKind string

// Event kinds, in the words the timeline prints.
const (
	EvFault     EventKind = "fault"
	EvReady     EventKind = "ready"
	EvTaint     EventKind = "taint"
	EvUntaint   EventKind = "untaint"
	EvPacer     EventKind = "pacer"
	EvEvict     EventKind = "evict"
	EvPlace     EventKind = "place"
	EvDispatch  EventKind = "dispatch"
	EvHold      EventKind = "hold"
	EvDelete    EventKind = "delete"
	EvTaskDone  EventKind = "task-done"
	EvState     EventKind = "state"
	EvRestart   EventKind = "restart"
	EvHealth    EventKind = "health"
	EvFence     EventKind = "fence"
	EvResume    EventKind = "resume"
	EvViolation EventKind = "VIOLATION"
)

// Event is one line of the timeline.
type Event struct {
	Step     int
	At       time.Duration // since the start of the simulation
	Kind     EventKind
	Cluster  string
	Workload string
	Detail   string
	// Labels are the preserved state an eviction extracted or a new copy
	// was started with.
	Labels map[string]string
	// Job is the job a new copy of a stateful workload runs.
	Job string
	// Reason and PurgeMode are an eviction's.
	Reason    string
	PurgeMode eviction.PurgeMode
}

// Details the summary reads back from the timeline.
const (
	detailEvicted    = "evicted"    // prefix of an eviction that happened
	detailDispatched = "dispatched" // prefix of a new copy's dispatch
	detailHealthy    = "healthy on every target"
	detailNotHealthy = "not healthy: " // prefix, then why
)

// Timeline is the ordered record of a run.
type Timeline struct {
	start  time.Time
	Events []Event
	// Quiet drops events (campaign runs keep only violations).
	Quiet bool
}

func (t *Timeline) add(e *Engine, kind EventKind, cluster, workload, detail string) {
	t.addEvent(e, Event{Kind: kind, Cluster: cluster, Workload: workload, Detail: detail})
}

// addEvent records ev at the engine's current step and time.
func (t *Timeline) addEvent(e *Engine, ev Event) {
	if t.Quiet && ev.Kind != EvViolation {
		return
	}
	ev.Step, ev.At = e.step, e.Elapsed()
	t.Events = append(t.Events, ev)
}

// formatSimTime prints a sim time as +hh:mm:ss.
func formatSimTime(d time.Duration) string {
	d = d.Round(time.Second)
	h := int(d / time.Hour)
	m := int(d % time.Hour / time.Minute)
	s := int(d % time.Minute / time.Second)
	return fmt.Sprintf("+%02d:%02d:%02d", h, m, s)
}

// Render writes the timeline as aligned columns: sim time, event, subject,
// detail.
func (t *Timeline) Render(w io.Writer) error {
	subjW := 0
	for _, ev := range t.Events {
		subjW = max(subjW, len(subject(ev)))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-9s  %-9s  %-*s  %s\n", "sim time", "event", subjW, "subject", "detail")
	for _, ev := range t.Events {
		fmt.Fprintf(&b, "%-9s  %-9s  %-*s  %s\n", formatSimTime(ev.At), ev.Kind, subjW, subject(ev), ev.Detail)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func subject(ev Event) string {
	switch {
	case ev.Workload != "" && ev.Cluster != "":
		return ev.Workload + "@" + ev.Cluster
	case ev.Workload != "":
		return ev.Workload
	case ev.Cluster != "":
		return ev.Cluster
	}
	return "fleet"
}

// first returns the first event at or after from matching pred.
func (t *Timeline) first(from time.Duration, pred func(Event) bool) (Event, bool) {
	for _, ev := range t.Events {
		if ev.At >= from && pred(ev) {
			return ev, true
		}
	}
	return Event{}, false
}
