package main

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
)

// OutageReport measures how the fleet handled one fault. Every figure is
// read from the timeline, relative to the fault; notYet means it never
// happened.
type OutageReport struct {
	Fault    string
	Label    string // the fault as the timeline names it
	Cluster  string
	Workload string // set for a workload failure (application failover)
	At       time.Duration
	// NotReady: the cluster's Ready condition left True.
	NotReady time.Duration
	// NoSchedule and NoExecute: the cluster got a taint of that effect.
	NoSchedule time.Duration
	NoExecute  time.Duration
	// NoScheduleBefore and NoExecuteBefore: the cluster carried a failure
	// taint (not-ready, unreachable) of that effect when the fault hit (from the start, or from an earlier
	// fault); the figure is then 0.
	NoScheduleBefore bool
	NoExecuteBefore  bool
	// FirstEviction: the first eviction from the cluster (of Workload,
	// for a workload failure).
	FirstEviction time.Duration
	// HealthyAgain: every workload in Affected is healthy on all its
	// targets again; 0 when none of them stopped being healthy.
	HealthyAgain time.Duration
	// Affected: the workloads with a copy on the cluster when the fault
	// hit (for a workload failure, that workload).
	Affected []string
	// Evicted: the workloads evicted from the cluster after the fault.
	Evicted []string
}

// StateReport says whether a stateful workload's preserved state arrived.
type StateReport struct {
	Workload  string
	Label     string
	Original  string // the job its first copy ran
	Injected  string // the label value on its newest copy
	Cluster   string // the cluster its newest copy runs on
	Resumed   bool   // the newest copy runs the original job
	Failovers int
}

// Activity counts the timeline's events by what they did.
type Activity struct {
	Evictions      int // evictions that happened (not the deferred ones)
	NewCopies      int // manifests applied to a cluster without a copy
	ReplicaChanges int // replica counts changed on an existing copy
	Deletions      int // copies deleted
	TasksClosed    int // eviction tasks removed
	Restarts       int // controller restarts
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
	Steps      int
	Outages    []OutageReport
	States     []StateReport
	Suspended  []string // "workload -> cluster" pairs that were never dispatched to
	Activity   Activity
	Violations []Violation
}

const notYet = time.Duration(-1)

// Summarize measures the run from its timeline.
func (e *Engine) Summarize() Summary {
	events := e.tl.Events
	s := Summary{
		Scenario: e.sc.Name, Seed: e.seed, Clusters: len(e.clusters), Workloads: len(e.workloads),
		Faults: len(e.sc.Faults), SimTime: e.Elapsed(), Step: e.sc.Step.D(), Steps: e.step,
		Activity: countActivity(events), Violations: e.Violations(),
	}
	initial := map[string][]TaintSpec{}
	for _, c := range e.sc.Clusters {
		initial[c.Name] = c.Taints
	}
	for _, f := range e.faults {
		for _, c := range faultSubjects(e, f) {
			s.Outages = append(s.Outages, measureOutage(events, f, c, initial[c]))
		}
	}
	for _, w := range e.workloads {
		if label := stateLabel(w.spec); label != "" {
			s.States = append(s.States, measureState(events, w.name(), label))
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

// countActivity counts the events of a timeline by what they did.
func countActivity(events []Event) Activity {
	var a Activity
	for _, ev := range events {
		switch ev.Kind {
		case EvEvict:
			if strings.HasPrefix(ev.Detail, detailEvicted) {
				a.Evictions++
			}
		case EvDispatch:
			if strings.HasPrefix(ev.Detail, detailDispatched) {
				a.NewCopies++
			} else {
				a.ReplicaChanges++
			}
		case EvDelete:
			a.Deletions++
		case EvTaskDone:
			a.TasksClosed++
		case EvRestart:
			a.Restarts++
		}
	}
	return a
}

// faultSubjects lists the clusters a fault measured in the summary hits:
// cluster faults (not fleet-wide ones, where nothing should move) and
// workload failures.
func faultSubjects(e *Engine, f timedFault) []string {
	switch f.kind {
	case FaultOutage, FaultPartition, FaultNotReady, FaultZoneOutage, FaultFlap, FaultFlapReady:
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

// measureOutage reads, from the timeline, how the fleet handled fault f on
// cluster, which carried the taints initial at the start. Every figure
// counts from the fault's row: the step that applied it, which for a fault
// due between two steps (at 0, say) is the next step.
func measureOutage(events []Event, f timedFault, cluster string, initial []TaintSpec) OutageReport {
	r := OutageReport{Fault: f.kind, Label: f.label, Cluster: cluster, Workload: f.spec.Workload, At: f.at,
		NotReady: notYet, NoSchedule: notYet, NoExecute: notYet, FirstEviction: notYet, HealthyAgain: notYet}
	// The fault's own event splits the timeline into before and after.
	from := slices.IndexFunc(events, func(ev Event) bool { return ev.Kind == EvFault && ev.At >= f.at && ev.Detail == f.label })
	if from < 0 {
		from = sort.Search(len(events), func(i int) bool { return events[i].At >= f.at })
	} else {
		r.At = events[from].At
	}
	at := r.At
	after := events[from:]
	firstAt := func(pred func(Event) bool) time.Duration {
		if i := slices.IndexFunc(after, pred); i >= 0 {
			return after[i].At - at
		}
		return notYet
	}
	// The taints the cluster carries when the fault hits.
	carried := map[string]bool{}
	for _, t := range initial {
		carried[t.Key+":"+t.Effect] = true
	}
	for _, ev := range events[:from] {
		switch {
		case ev.Cluster != cluster:
		case ev.Kind == EvTaint:
			carried[strings.TrimPrefix(ev.Detail, "+taint ")] = true
		case ev.Kind == EvUntaint:
			delete(carried, strings.TrimPrefix(ev.Detail, "-taint "))
		}
	}
	for t := range carried {
		// Only the failure taints count: a maintenance taint is not the
		// cluster's failure.
		if !strings.HasPrefix(t, failover.TaintKeyClusterNotReady+":") && !strings.HasPrefix(t, failover.TaintKeyClusterUnreachable+":") {
			continue
		}
		r.NoScheduleBefore = r.NoScheduleBefore || strings.HasSuffix(t, ":"+string(corev1.TaintEffectNoSchedule))
		r.NoExecuteBefore = r.NoExecuteBefore || strings.HasSuffix(t, ":"+string(corev1.TaintEffectNoExecute))
	}
	r.NotReady = firstAt(func(ev Event) bool {
		return ev.Kind == EvReady && ev.Cluster == cluster && strings.HasPrefix(ev.Detail, "Ready True -> ")
	})
	r.NoSchedule = firstAt(func(ev Event) bool {
		return ev.Kind == EvTaint && ev.Cluster == cluster && strings.HasSuffix(ev.Detail, ":"+string(corev1.TaintEffectNoSchedule))
	})
	r.NoExecute = firstAt(func(ev Event) bool {
		return ev.Kind == EvTaint && ev.Cluster == cluster && strings.HasSuffix(ev.Detail, ":"+string(corev1.TaintEffectNoExecute))
	})
	if r.NoScheduleBefore {
		r.NoSchedule = 0
	}
	if r.NoExecuteBefore {
		r.NoExecute = 0
	}
	isEviction := func(ev Event) bool {
		return ev.Kind == EvEvict && ev.Cluster == cluster && strings.HasPrefix(ev.Detail, detailEvicted) &&
			(f.spec.Workload == "" || ev.Workload == f.spec.Workload)
	}
	r.FirstEviction = firstAt(isEviction)
	for _, ev := range after {
		if isEviction(ev) && !slices.Contains(r.Evicted, ev.Workload) {
			r.Evicted = append(r.Evicted, ev.Workload)
		}
	}
	slices.Sort(r.Evicted)
	if f.spec.Workload != "" {
		r.Affected = []string{f.spec.Workload}
	} else {
		r.Affected = copiesOn(events[:from], cluster)
	}
	// The next fault, applied at a later step, bounds what this one is
	// blamed for.
	next := len(after)
	if i := slices.IndexFunc(after, func(ev Event) bool { return ev.Kind == EvFault && ev.At > at }); i >= 0 {
		next = i
	}
	r.HealthyAgain = 0
	for _, w := range r.Affected {
		d := healthyAgain(events[:from], after, next, w, at)
		if d == notYet {
			r.HealthyAgain = notYet
			break
		}
		r.HealthyAgain = max(r.HealthyAgain, d-at)
	}
	return r
}

// copiesOn lists the workloads with a copy on cluster at the end of events.
func copiesOn(events []Event, cluster string) []string {
	on := map[string]bool{}
	for _, ev := range events {
		switch {
		case ev.Cluster != cluster:
		case ev.Kind == EvDispatch && strings.HasPrefix(ev.Detail, detailDispatched):
			on[ev.Workload] = true
		case ev.Kind == EvDelete:
			delete(on, ev.Workload)
		}
	}
	out := make([]string, 0, len(on))
	for w := range on {
		out = append(out, w)
	}
	slices.Sort(out)
	return out
}

// healthyAgain returns when workload w is healthy on all its targets again
// after a fault: w's health events before the fault say whether it was
// healthy when the fault hit; a healthy w that stops being healthy before
// the next fault (after[:next]) is hurt by this one. It returns the fault's
// time at for a workload never hurt, and notYet for one never healthy
// again.
func healthyAgain(before, after []Event, next int, w string, at time.Duration) time.Duration {
	isHealth := func(ev Event) bool { return ev.Kind == EvHealth && ev.Workload == w }
	healthy := true
	if i := lastIndexFunc(before, isHealth); i >= 0 {
		healthy = before[i].Detail == detailHealthy
	}
	from := 0
	if healthy {
		i := slices.IndexFunc(after[:next], func(ev Event) bool { return isHealth(ev) && ev.Detail != detailHealthy })
		if i < 0 {
			return at
		}
		from = i
	}
	if i := slices.IndexFunc(after[from:], func(ev Event) bool { return isHealth(ev) && ev.Detail == detailHealthy }); i >= 0 {
		return after[from+i].At
	}
	return notYet
}

func lastIndexFunc[E any](s []E, f func(E) bool) int {
	for i := len(s) - 1; i >= 0; i-- {
		if f(s[i]) {
			return i
		}
	}
	return -1
}

// noteHealth puts on the timeline each change of a workload's health: is
// it healthy on every target (as the member clusters really are)?
func (e *Engine) noteHealth() {
	for _, w := range e.workloads {
		if w.deleted {
			continue
		}
		why := e.notHealthyBecause(w)
		if (why != "") == w.notHealthy {
			continue
		}
		w.notHealthy = why != ""
		detail := detailHealthy
		if why != "" {
			detail = detailNotHealthy + why
		}
		e.tl.add(e, EvHealth, "", w.name(), detail)
	}
}

// notHealthyBecause says why w is not healthy on every target, or "" when
// it is.
func (e *Engine) notHealthyBecause(w *workload) string {
	if len(w.targets) == 0 {
		return "no target"
	}
	for _, t := range w.targets {
		c := e.byName[t.Name]
		cp := w.copies[c.idx]
		switch {
		case cp == nil || cp.deleting:
			return "no copy on " + c.name
		case !c.reachable():
			return c.name + " unreachable"
		case cp.health != health.Healthy:
			return fmt.Sprintf("copy on %s %s", c.name, cp.health)
		}
	}
	return ""
}

// stateLabel is the label a stateful workload's preserved state travels
// in, or "" for a workload whose state is not preserved.
func stateLabel(spec *WorkloadSpec) string {
	fb := spec.Failover
	if fb == nil || spec.Kind != "FlinkDeployment" {
		return ""
	}
	switch {
	case fb.Cluster != nil && fb.Cluster.StatePreservation != nil && len(fb.Cluster.StatePreservation.Rules) > 0:
		return fb.Cluster.StatePreservation.Rules[0].AliasLabelName
	case fb.Application != nil && fb.Application.StatePreservation != nil && len(fb.Application.StatePreservation.Rules) > 0:
		return fb.Application.StatePreservation.Rules[0].AliasLabelName
	}
	return ""
}

// measureState reads, from the timeline, whether workload's state followed
// it: the job of its first copy against its newest copy's job and label.
func measureState(events []Event, workload, label string) StateReport {
	r := StateReport{Workload: workload, Label: label}
	first := true
	for _, ev := range events {
		if ev.Workload != workload {
			continue
		}
		switch {
		case ev.Kind == EvEvict && strings.HasPrefix(ev.Detail, detailEvicted):
			r.Failovers++
		case ev.Kind == EvDispatch && strings.HasPrefix(ev.Detail, detailDispatched):
			if first {
				r.Original, first = ev.Job, false
			}
			r.Cluster, r.Injected = ev.Cluster, ev.Labels[label]
			r.Resumed = ev.Job == r.Original
		case ev.Kind == EvDelete && ev.Cluster == r.Cluster:
			r.Cluster, r.Injected, r.Resumed = "", "", false
		}
	}
	return r
}

// maxOutageBlocks is the most clusters of one fault the summary shows one
// by one; more read as one block.
const maxOutageBlocks = 3

func renderOutage(b *strings.Builder, o OutageReport) {
	if o.Workload != "" {
		fmt.Fprintf(b, "  %s: %s on %s at %s\n", o.Fault, o.Workload, o.Cluster, formatSimTime(o.At))
	} else {
		fmt.Fprintf(b, "  %s of %s at %s\n", o.Fault, o.Cluster, formatSimTime(o.At))
		fmt.Fprintf(b, "    time to Ready not True            %s\n", fmtRel(o.NotReady))
		fmt.Fprintf(b, "    time to NoSchedule taint          %s\n", fmtTaint(o.NoSchedule, o.NoScheduleBefore))
		fmt.Fprintf(b, "    time to NoExecute taint           %s\n", fmtTaint(o.NoExecute, o.NoExecuteBefore))
	}
	evicted := ""
	if o.Workload == "" {
		evicted = listed(o.Evicted, "evicted")
	}
	fmt.Fprintf(b, "    time to first eviction            %s%s\n", fmtRel(o.FirstEviction), evicted)
	switch {
	case o.Workload != "":
		fmt.Fprintf(b, "    time to %-26s%s\n", o.Workload+" healthy again", fmtRel(o.HealthyAgain))
	case len(o.Affected) == 0:
		b.WriteString("    time to workloads healthy again   -  (no workload ran there)\n")
	case o.HealthyAgain == 0:
		fmt.Fprintf(b, "    time to workloads healthy again   +0s%s, never unhealthy\n", listed(o.Affected, "ran there"))
	default:
		fmt.Fprintf(b, "    time to workloads healthy again   %s%s\n", fmtRel(o.HealthyAgain), listed(o.Affected, "ran there"))
	}
}

// renderOutageGroup writes the clusters one fault hit as one block: for
// each figure, the first and the last cluster to reach it, and how many
// never did.
func renderOutageGroup(b *strings.Builder, os []OutageReport) {
	affected, evicted := map[string]bool{}, map[string]bool{}
	for _, o := range os {
		for _, w := range o.Affected {
			affected[w] = true
		}
		for _, w := range o.Evicted {
			evicted[w] = true
		}
	}
	fmt.Fprintf(b, "  %s (%d clusters) at %s\n", os[0].Label, len(os), formatSimTime(os[0].At))
	figure := func(label string, os []OutageReport, get func(OutageReport) time.Duration, note string) {
		first, last, never := notYet, notYet, 0
		for _, o := range os {
			d := get(o)
			switch {
			case d < 0:
				never++
			case first < 0:
				first, last = d, d
			default:
				first, last = min(first, d), max(last, d)
			}
		}
		var v string
		switch {
		case never == len(os):
			v = "never"
		case first == last:
			v = fmtRel(first)
		default:
			v = fmt.Sprintf("%s first, %s last", fmtRel(first), fmtRel(last))
		}
		switch {
		case never == 0 && first == last:
			v += fmt.Sprintf(" on all %d", len(os))
		case never > 0 && never < len(os):
			v += fmt.Sprintf(" on %d, never on %d", len(os)-never, never)
		}
		fmt.Fprintf(b, "    %-34s%s%s\n", label, v, note)
	}
	figure("time to Ready not True", os, func(o OutageReport) time.Duration { return o.NotReady }, "")
	figure("time to NoSchedule taint", os, func(o OutageReport) time.Duration { return o.NoSchedule }, "")
	figure("time to NoExecute taint", os, func(o OutageReport) time.Duration { return o.NoExecute }, "")
	figure("time to first eviction", os, func(o OutageReport) time.Duration { return o.FirstEviction }, fmt.Sprintf("  (%s evicted)", plural(len(evicted), "workload")))
	if len(affected) == 0 {
		b.WriteString("    time to workloads healthy again   -  (no workload ran there)\n")
		return
	}
	// Only the clusters that ran a workload have one to be healthy again.
	ran := slices.DeleteFunc(slices.Clone(os), func(o OutageReport) bool { return len(o.Affected) == 0 })
	figure("time to workloads healthy again", ran, func(o OutageReport) time.Duration { return o.HealthyAgain },
		fmt.Sprintf("  (%s ran on %d of the clusters)", plural(len(affected), "workload"), len(ran)))
}

// listed writes names as "  (a, b what)", or nothing for no names.
func listed(names []string, what string) string {
	if len(names) == 0 {
		return ""
	}
	return "  (" + strings.Join(names, ", ") + " " + what + ")"
}

// plural writes n and what, in the plural unless n is 1.
func plural(n int, what string) string {
	if n != 1 {
		switch {
		case strings.HasSuffix(what, "task closed"):
			what = strings.TrimSuffix(what, " closed") + "s closed"
		case strings.HasSuffix(what, "copy"):
			what = strings.TrimSuffix(what, "y") + "ies"
		case strings.HasSuffix(what, "ch"):
			what += "es"
		default:
			what += "s"
		}
	}
	return fmt.Sprintf("%d %s", n, what)
}

// fmtTaint writes a taint figure: +0s for a taint the cluster carried
// already when the fault hit.
func fmtTaint(d time.Duration, before bool) string {
	if before {
		return "+0s (carried already)"
	}
	return fmtRel(d)
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
	fmt.Fprintf(&b, "SUMMARY  scenario %q, seed %d: %s, %s, %s, %s of fleet time in %s steps\n",
		s.Scenario, s.Seed, plural(s.Clusters, "cluster"), plural(s.Workloads, "workload"), plural(s.Faults, "fault"), s.SimTime, s.Step)
	for i := 0; i < len(s.Outages); {
		// One fault over many clusters (a zone outage) reads as one block.
		j := i + 1
		for j < len(s.Outages) && s.Outages[i].Workload == "" && s.Outages[j].Workload == "" &&
			s.Outages[j].Fault == s.Outages[i].Fault && s.Outages[j].At == s.Outages[i].At {
			j++
		}
		if j-i > maxOutageBlocks {
			renderOutageGroup(&b, s.Outages[i:j])
		} else {
			for _, o := range s.Outages[i:j] {
				renderOutage(&b, o)
			}
		}
		i = j
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
	a := s.Activity
	fmt.Fprintf(&b, "  activity: %s, %s (%s, %s), %s, %s, %s\n",
		plural(a.Evictions, "eviction"), plural(a.NewCopies+a.ReplicaChanges, "dispatch"), plural(a.NewCopies, "new copy"),
		plural(a.ReplicaChanges, "replica change"), plural(a.Deletions, "deletion"), plural(a.TasksClosed, "eviction task closed"),
		plural(a.Restarts, "controller restart"))
	if len(s.Violations) == 0 {
		fmt.Fprintf(&b, "  invariants: all %d held after each of %d steps (0 violations)\n", len(invariantNames), s.Steps)
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
	InvDeletionNotBlocked, InvRestartCountdowns, InvLastCopyKept, InvNoPanic,
	InvSingleWriter, InvStateResumed, InvNotReadyTainted, InvEvictionNotLost, InvDirectlyAfterPlaced}
