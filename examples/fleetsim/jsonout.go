package main

import (
	"encoding/json"
	"io"
	"time"
)

// The -o json document. Times are seconds of simulated time since the start
// (or since the fault, for an outage's figures); a figure that never
// happened is null.

type jsonRun struct {
	Scenario   string  `json:"scenario"`
	Seed       int64   `json:"seed"`
	Clusters   int     `json:"clusters"`
	Workloads  int     `json:"workloads"`
	Faults     int     `json:"faults"`
	SimSeconds float64 `json:"simSeconds"`
	StepSecs   float64 `json:"stepSeconds"`
	Steps      int     `json:"steps"`
	// ClusterFaults are the faults of clusters (outage, notReady,
	// partition, flap, zone outage), one per cluster hit; WorkloadFailures
	// the workloadUnhealthy faults. Until 2026-11-28 both were in one
	// list under "outages".
	ClusterFaults    []jsonOutage          `json:"clusterFaults"`
	WorkloadFailures []jsonWorkloadFailure `json:"workloadFailures"`
	States           []jsonState           `json:"states"`
	Suspended        []string              `json:"suspendedNeverDispatched"`
	Activity         jsonActivity          `json:"activity"`
	Violations       []jsonViolation       `json:"violations"`
	Timeline         []jsonEvent           `json:"timeline,omitempty"`
}

type jsonOutage struct {
	Fault                string   `json:"fault"`
	Cluster              string   `json:"cluster"`
	AtSeconds            float64  `json:"atSeconds"`
	ReadyNotTrueAfter    *float64 `json:"readyNotTrueAfterSeconds"`
	NoScheduleTaintAfter *float64 `json:"noScheduleTaintAfterSeconds"`
	NoExecuteTaintAfter  *float64 `json:"noExecuteTaintAfterSeconds"`
	// The cluster carried that failure taint when the fault hit.
	NoScheduleCarried  bool     `json:"noScheduleTaintCarriedAlready"`
	NoExecuteCarried   bool     `json:"noExecuteTaintCarriedAlready"`
	FirstEvictionAfter *float64 `json:"firstEvictionAfterSeconds"`
	HealthyAgainAfter  *float64 `json:"workloadsHealthyAgainAfterSeconds"`
	Affected           []string `json:"workloadsThatRanThere"`
	Evicted            []string `json:"workloadsEvicted"`
}

// jsonWorkloadFailure is a workloadUnhealthy fault: the workload failing
// on one cluster.
type jsonWorkloadFailure struct {
	Workload           string   `json:"workload"`
	Cluster            string   `json:"cluster"`
	AtSeconds          float64  `json:"atSeconds"`
	FirstEvictionAfter *float64 `json:"firstEvictionAfterSeconds"`
	HealthyAgainAfter  *float64 `json:"healthyAgainAfterSeconds"`
}

type jsonState struct {
	Workload  string `json:"workload"`
	Label     string `json:"label"`
	Original  string `json:"originalJob"`
	Injected  string `json:"injectedValue"`
	Cluster   string `json:"cluster"`
	Resumed   bool   `json:"resumed"`
	Failovers int    `json:"failovers"`
}

type jsonActivity struct {
	Evictions      int `json:"evictions"`
	NewCopies      int `json:"newCopies"`
	ReplicaChanges int `json:"replicaChanges"`
	Deletions      int `json:"deletions"`
	TasksClosed    int `json:"evictionTasksClosed"`
	Restarts       int `json:"controllerRestarts"`
}

type jsonViolation struct {
	Invariant string  `json:"invariant"`
	Step      int     `json:"step"`
	AtSeconds float64 `json:"atSeconds"`
	Seed      int64   `json:"seed"`
	Cluster   string  `json:"cluster,omitempty"`
	Workload  string  `json:"workload,omitempty"`
	Detail    string  `json:"detail"`
}

type jsonEvent struct {
	Step      int               `json:"step"`
	AtSeconds float64           `json:"atSeconds"`
	Kind      EventKind         `json:"kind"`
	Cluster   string            `json:"cluster,omitempty"`
	Workload  string            `json:"workload,omitempty"`
	Detail    string            `json:"detail"`
	Labels    map[string]string `json:"labels,omitempty"`
	Job       string            `json:"job,omitempty"`
}

func seconds(d time.Duration) float64 { return d.Seconds() }

// secondsOrNull is nil for a figure that never happened.
func secondsOrNull(d time.Duration) *float64 {
	if d < 0 {
		return nil
	}
	s := d.Seconds()
	return &s
}

// writeJSON writes the summary and, unless withTimeline is false, the
// timeline as one JSON document.
func writeJSON(w io.Writer, s Summary, tl *Timeline, withTimeline bool) error {
	out := jsonRun{
		Scenario: s.Scenario, Seed: s.Seed, Clusters: s.Clusters, Workloads: s.Workloads, Faults: s.Faults,
		SimSeconds: seconds(s.SimTime), StepSecs: seconds(s.Step), Steps: s.Steps,
		ClusterFaults: []jsonOutage{}, WorkloadFailures: []jsonWorkloadFailure{}, States: []jsonState{}, Suspended: append([]string{}, s.Suspended...),
		Activity:   jsonActivity(s.Activity),
		Violations: []jsonViolation{},
	}
	for _, o := range s.Outages {
		if o.Workload != "" {
			out.WorkloadFailures = append(out.WorkloadFailures, jsonWorkloadFailure{Workload: o.Workload, Cluster: o.Cluster, AtSeconds: seconds(o.At),
				FirstEvictionAfter: secondsOrNull(o.FirstEviction), HealthyAgainAfter: secondsOrNull(o.HealthyAgain)})
			continue
		}
		out.ClusterFaults = append(out.ClusterFaults, jsonOutage{
			Fault: o.Fault, Cluster: o.Cluster, AtSeconds: seconds(o.At),
			ReadyNotTrueAfter: secondsOrNull(o.NotReady), NoScheduleTaintAfter: secondsOrNull(o.NoSchedule),
			NoExecuteTaintAfter: secondsOrNull(o.NoExecute), NoScheduleCarried: o.NoScheduleBefore, NoExecuteCarried: o.NoExecuteBefore,
			FirstEvictionAfter: secondsOrNull(o.FirstEviction),
			HealthyAgainAfter:  secondsOrNull(o.HealthyAgain),
			Affected:           append([]string{}, o.Affected...), Evicted: append([]string{}, o.Evicted...),
		})
	}
	for _, st := range s.States {
		out.States = append(out.States, jsonState(st))
	}
	for _, v := range s.Violations {
		out.Violations = append(out.Violations, jsonViolation{Invariant: v.Invariant, Step: v.Step, AtSeconds: seconds(v.At),
			Seed: v.Seed, Cluster: v.Cluster, Workload: v.Workload, Detail: v.Detail})
	}
	if withTimeline {
		out.Timeline = make([]jsonEvent, 0, len(tl.Events))
		for _, ev := range tl.Events {
			out.Timeline = append(out.Timeline, jsonEvent{Step: ev.Step, AtSeconds: seconds(ev.At), Kind: ev.Kind,
				Cluster: ev.Cluster, Workload: ev.Workload, Detail: ev.Detail, Labels: ev.Labels, Job: ev.Job})
		}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
