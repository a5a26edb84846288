package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/fleetover/fleetover/failover/health"
)

// OutageReport measures how the fleet handled one cluster fault.
type OutageReport struct {
	Fault         string
	Cluster       string
	Workload      string // set for a workload failure (application failover)
	At            time.Duration
	Detected      time.Duration // Ready left True; -1 when it never did
	Tainted       time.Duration // first taint
	NoExecute     time.Duration // NoExecute taint
	FirstEviction time.Duration
	HealthyAgain  time.Duration // every affected workload healthy on its targets
	Affected      []string
}

// StateReport says whether a stateful workload's preserved state arrived.
type StateReport struct {
	Workload  string
	Label     string
	Original  string // the state before the first failover
	Injected  string // the label value on the new copy
	Cluster   string // the cluster the new copy runs on
	Resumed   bool   // the new copy runs the original job
	Failovers int
}

// Summary is what the run amounted to.
type Summary struct {
	Scenario   string
	Seed       int64
	Clusters   int
	Workloads  int
	Faults     int
	SimTime    time.Duration
	Step       time.Duration
	Outages    []OutageReport
	States     []StateReport
	Suspended  []string // "workload: cluster" pairs that were never dispatched to
	Stats      Stats
	Violations []Violation
}

const notYet = time.Duration(-1)

// Summarize measures the outages of the run from its timeline and current
// state.
func (e *Engine) Summarize() Summary {
	s := Summary{
		Scenario: e.sc.Name, Seed: e.seed, Clusters: len(e.clusters), Workloads: len(e.workloads),
		Faults: len(e.sc.Faults), SimTime: e.Elapsed(), Step: e.sc.Step.D(), Stats: e.Stats(), Violations: e.Violations(),
	}
	for _, f := range e.faults {
		for _, c := range e.faultSubjects(f) {
			s.Outages = append(s.Outages, e.outageReport(f, c))
		}
	}
	for _, w := range e.workloads {
		if r, ok := e.stateReport(w); ok {
			s.States = append(s.States, r)
		}
		if w.susp == nil {
			continue
		}
		for _, c := range e.clusters {
			if suspendedFor(w, c.name) && !e.dispatchedTo(w.name(), c.name) {
				s.Suspended = append(s.Suspended, w.name()+" -> "+c.name)
			}
		}
	}
	return s
}

func (e *Engine) dispatchedTo(workload, cluster string) bool {
	for _, ev := range e.tl.Events {
		if ev.Kind == EvDispatch && ev.Workload == workload && ev.Cluster == cluster {
			return true
		}
	}
	return false
}

// faultSubjects lists the clusters a fault measured in the summary hits:
// cluster faults (not fleet-wide ones, where nothing should move) and
// workload failures.
func (e *Engine) faultSubjects(f timedFault) []string {
	switch f.kind {
	case FaultOutage, FaultPartition, FaultNotReady, FaultZoneOutage:
		var out []string
		for _, c := range e.clustersOf(f.spec) {
			out = append(out, c.name)
		}
		return out
	case FaultWorkloadUnhealthy:
		return []string{f.spec.Cluster}
	}
	return nil
}

// isEvictionFor: an eviction of the fault's workload (any, for a cluster
// fault) from cluster, at or after the fault.
func isEvictionFor(f timedFault, cluster string, ev Event) bool {
	return ev.At >= f.at && ev.Kind == EvEvict && ev.Cluster == cluster && strings.HasPrefix(ev.Detail, "evicted") &&
		(f.spec.Workload == "" || ev.Workload == f.spec.Workload)
}

func (e *Engine) outageReport(f timedFault, cluster string) OutageReport {
	r := OutageReport{Fault: f.kind, Cluster: cluster, Workload: f.spec.Workload, At: f.at, Detected: notYet, Tainted: notYet, NoExecute: notYet, FirstEviction: notYet, HealthyAgain: notYet}
	rel := func(ev Event, ok bool) time.Duration {
		if !ok {
			return notYet
		}
		return ev.At - f.at
	}
	r.Detected = rel(e.tl.first(f.at, func(ev Event) bool { return ev.Kind == EvReady && ev.Cluster == cluster }))
	r.Tainted = rel(e.tl.first(f.at, func(ev Event) bool { return ev.Kind == EvTaint && ev.Cluster == cluster }))
	r.NoExecute = rel(e.tl.first(f.at, func(ev Event) bool {
		return ev.Kind == EvTaint && ev.Cluster == cluster && strings.HasSuffix(ev.Detail, ":NoExecute")
	}))
	evict, ok := e.tl.first(f.at, func(ev Event) bool {
		return ev.Kind == EvEvict && ev.Cluster == cluster && strings.HasPrefix(ev.Detail, "evicted")
	})
	r.FirstEviction = rel(evict, ok)
	if !ok {
		return r
	}
	affected := map[string]bool{}
	for _, ev := range e.tl.Events {
		if ev.At >= f.at && ev.Kind == EvEvict && ev.Cluster == cluster && strings.HasPrefix(ev.Detail, "evicted") {
			affected[ev.Workload] = true
		}
	}
	for n := range affected {
		r.Affected = append(r.Affected, n)
	}
	slices.Sort(r.Affected)
	if at, ok := e.healthyAgain[cluster+"@"+f.label]; ok {
		r.HealthyAgain = at - f.at
	}
	return r
}

// trackRecovery notes, after each step, when every workload evicted from a
// faulted cluster is healthy on all its targets again.
func (e *Engine) trackRecovery() {
	if e.healthyAgain == nil {
		e.healthyAgain = map[string]time.Duration{}
	}
	for i := 0; i < e.nextFault; i++ {
		f := e.faults[i]
		for _, c := range e.faultSubjects(f) {
			key := c + "@" + f.label
			if _, done := e.healthyAgain[key]; done {
				continue
			}
			evicted := false
			allHealthy := true
			for _, ev := range e.tl.Events {
				if !isEvictionFor(f, c, ev) {
					continue
				}
				evicted = true
				if w := e.wByName[ev.Workload]; w != nil && !e.healthyOnTargets(w) {
					allHealthy = false
				}
			}
			if evicted && allHealthy {
				e.healthyAgain[key] = e.Elapsed()
			}
		}
	}
}

func (e *Engine) healthyOnTargets(w *workload) bool {
	if w.deleted || len(w.targets) == 0 {
		return false
	}
	for _, t := range w.targets {
		c := e.byName[t.Name]
		cp := w.copies[c.idx]
		if cp == nil || cp.deleting || !c.reachable() || cp.health != health.Healthy {
			return false
		}
	}
	return true
}

func (e *Engine) stateReport(w *workload) (StateReport, bool) {
	fb := w.spec.Failover
	if fb == nil || w.spec.Kind != "FlinkDeployment" {
		return StateReport{}, false
	}
	var label string
	switch {
	case fb.Cluster != nil && fb.Cluster.StatePreservation != nil && len(fb.Cluster.StatePreservation.Rules) > 0:
		label = fb.Cluster.StatePreservation.Rules[0].AliasLabelName
	case fb.Application != nil && fb.Application.StatePreservation != nil && len(fb.Application.StatePreservation.Rules) > 0:
		label = fb.Application.StatePreservation.Rules[0].AliasLabelName
	default:
		return StateReport{}, false
	}
	r := StateReport{Workload: w.name(), Label: label, Original: w.origJob}
	for _, ev := range e.tl.Events {
		if ev.Kind == EvEvict && ev.Workload == w.name() && strings.HasPrefix(ev.Detail, "evicted") {
			r.Failovers++
		}
	}
	for ci, cp := range w.copies {
		if cp == nil || cp.deleting || !w.isTarget(e.clusters[ci].name) {
			continue
		}
		if v, ok := cp.labels[label]; ok {
			r.Injected, r.Cluster = v, e.clusters[ci].name
			r.Resumed = cp.jobID == w.origJob
		}
	}
	return r, true
}

func fmtRel(d time.Duration) string {
	if d < 0 {
		return "never"
	}
	return "+" + d.String()
}

// Render writes the summary for people.
func (s Summary) Render(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "SUMMARY  scenario %q, seed %d: %d clusters, %d workloads, %d faults, %s of fleet time in %s steps\n",
		s.Scenario, s.Seed, s.Clusters, s.Workloads, s.Faults, s.SimTime, s.Step)
	for _, o := range s.Outages {
		if o.Workload != "" {
			fmt.Fprintf(&b, "  %s: %s on %s at %s\n", o.Fault, o.Workload, o.Cluster, formatSimTime(o.At))
		} else {
			fmt.Fprintf(&b, "  %s of %s at %s\n", o.Fault, o.Cluster, formatSimTime(o.At))
			fmt.Fprintf(&b, "    time to detect (Ready not True)   %s\n", fmtRel(o.Detected))
			fmt.Fprintf(&b, "    time to taint (NoSchedule)        %s\n", fmtRel(o.Tainted))
			fmt.Fprintf(&b, "    time to NoExecute                 %s\n", fmtRel(o.NoExecute))
		}
		fmt.Fprintf(&b, "    time to first eviction            %s\n", fmtRel(o.FirstEviction))
		fmt.Fprintf(&b, "    time to healthy again             %s", fmtRel(o.HealthyAgain))
		if len(o.Affected) > 0 {
			fmt.Fprintf(&b, "  (%s)", strings.Join(o.Affected, ", "))
		}
		b.WriteString("\n")
	}
	for _, st := range s.States {
		switch {
		case st.Failovers == 0:
			fmt.Fprintf(&b, "  state: %s did not move; job id %s\n", st.Workload, st.Original)
		case st.Resumed:
			fmt.Fprintf(&b, "  state carried: %s job id %s arrived on %s as label %s=%s; the job resumed (%d failover(s))\n",
				st.Workload, st.Original, st.Cluster, st.Label, st.Injected, st.Failovers)
		default:
			fmt.Fprintf(&b, "  state LOST: %s job id %s did not arrive on its new cluster (label %q = %q)\n",
				st.Workload, st.Original, st.Label, st.Injected)
		}
	}
	for _, p := range s.Suspended {
		fmt.Fprintf(&b, "  suspended: %s never dispatched to\n", p)
	}
	st := s.Stats
	fmt.Fprintf(&b, "  activity: %d evictions, %d dispatches, %d deletions, %d eviction tasks closed, %d controller restarts\n",
		st.Evictions, st.Dispatches, st.Deletions, st.TasksClosed, st.Restarts)
	if len(s.Violations) == 0 {
		fmt.Fprintf(&b, "  invariants: all %d held after each of %d steps (0 violations)\n", len(invariantNames), st.Steps)
	} else {
		fmt.Fprintf(&b, "  invariants: %d VIOLATION(S)\n", len(s.Violations))
		for _, v := range s.Violations {
			fmt.Fprintf(&b, "    %v\n", v)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

var invariantNames = []string{InvNoZeroCopies, InvNoFullOutageEvict, InvNoBlockedReturn, InvSuspendedNeverSent,
	InvDeletionNotBlocked, InvRestartCountdowns, InvLastCopyKept, InvNoPanic}
