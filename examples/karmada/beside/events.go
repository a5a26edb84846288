package beside

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
)

// LoggedEvent is an event a component recorded, as its log shows it.
type LoggedEvent struct {
	Type    string `json:"type"`
	Reason  string `json:"reason"`
	Message string `json:"msg"`
	Object  struct {
		Kind      string `json:"kind"`
		Namespace string `json:"namespace"`
		Name      string `json:"name"`
	} `json:"object"`
}

// LoggedEvents returns the events component (one of the Karmada
// components the control plane runs) has recorded since it first started,
// as its log shows them. Karmada's components log every event they record
// (at --v=1 and above, which the harness runs them with), also those that
// never reach the API server: client-go's event recorder sends one
// component's events of one object to the API server 25 at a time, then
// one every five minutes (its spam filter), and drops events while its
// queue is full. An object Karmada's controllers look at often, such as a
// workload whose binding is synced at every change, can have had its 25
// before the event a scenario waits for.
func (cp *ControlPlane) LoggedEvents(component string) ([]LoggedEvent, error) {
	cp.eventLogsMu.Lock()
	l := cp.eventLogs[component]
	if l == nil {
		p := cp.process(component)
		if p == nil {
			cp.eventLogsMu.Unlock()
			return nil, fmt.Errorf("%s does not run in this control plane", component)
		}
		l = &eventLog{path: p.logPath}
		if cp.eventLogs == nil {
			cp.eventLogs = map[string]*eventLog{}
		}
		cp.eventLogs[component] = l
	}
	cp.eventLogsMu.Unlock()
	return l.read()
}

// eventLog reads a component's log as it grows, keeping the events it
// finds: each look reads only what the component wrote since the last.
// The log of a restarted component goes on in the same file.
type eventLog struct {
	mu      sync.Mutex
	path    string
	offset  int64
	partial []byte
	events  []LoggedEvent
}

// eventMarker is in every line of a Karmada component's JSON log that
// records an event.
var eventMarker = []byte(`"logger":"events"`)

func (l *eventLog) read() ([]LoggedEvent, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	f, err := os.Open(l.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if _, err := f.Seek(l.offset, io.SeekStart); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	l.offset += int64(len(data))
	data = append(l.partial, data...)
	end := bytes.LastIndexByte(data, '\n')
	// What follows the last newline is a line still being written.
	l.partial = bytes.Clone(data[end+1:])
	for line := range bytes.SplitSeq(data[:end+1], []byte("\n")) {
		if !bytes.Contains(line, eventMarker) {
			continue
		}
		var e LoggedEvent
		if json.Unmarshal(line, &e) == nil && e.Reason != "" {
			l.events = append(l.events, e)
		}
	}
	// The slice only grows: the caller's copy of its header stays valid.
	return l.events[:len(l.events):len(l.events)], nil
}
