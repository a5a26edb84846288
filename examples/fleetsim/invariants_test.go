package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
)

// Each stateful-failover invariant is shown twice on a schedule built to
// exercise it: the library as it is holds it, and a library seam that
// brings back the defect the invariant is about breaks it.

// runWith runs data to the end, keeping going after violations.
func runWith(t *testing.T, data string, lib func(*Library)) (*Engine, []Violation) {
	t.Helper()
	e, err := NewEngine(mustParse(t, data), Options{Library: lib, KeepGoing: true})
	if err != nil {
		t.Fatal(err)
	}
	return e, e.Run()
}

func violationsOf(vs []Violation, invariant string) []Violation {
	var out []Violation
	for _, v := range vs {
		if v.Invariant == invariant {
			out = append(out, v)
		}
	}
	return out
}

// holdsAndBreaks checks that data runs clean with the library and that
// broken makes it violate invariant (and only that one).
func holdsAndBreaks(t *testing.T, data, invariant string, broken func(*Library)) *Engine {
	t.Helper()
	e, v := runWith(t, data, nil)
	if len(v) > 0 {
		t.Fatalf("with the library: %v", v)
	}
	_, v = runWith(t, data, broken)
	if len(violationsOf(v, invariant)) == 0 {
		t.Fatalf("the broken library is not caught: want a %s violation, got %v", invariant, v)
	}
	if len(violationsOf(v, invariant)) != len(v) {
		t.Errorf("other invariants too: %v", v)
	}
	t.Log(violationsOf(v, invariant)[0])
	return e
}

// flinkOnA: a single-writer job on a, with b and c to fail over to.
const flinkOnA = `name: flink-on-a
duration: 60m
settings: {evictionTimeout: 1m, defaultTolerationSeconds: 0}
clusters: [{name: a, zone: z1}, {name: b, zone: z2}, {name: c, zone: z3}, {name: d, zone: z4}]
workloads:
  - name: flink
    kind: FlinkDeployment
    replicas: 1
    state: {jobId: 0123456789abcdef0123456789abcdef}
    placement:
      clusterAffinity: {clusterNames: [a, b, c]}
      spreadConstraints: [{spreadByField: cluster, minGroups: 1, maxGroups: 1}]
    failover:
      cluster:
        purgeMode: Directly
        statePreservation: {rules: [{aliasLabelName: failover.fleetover.io/jobid, jsonPath: "{ .jobStatus.jobId }"}]}
      application:
        decisionConditions: {tolerationSeconds: 30}
        purgeMode: Directly
        statePreservation: {rules: [{aliasLabelName: failover.fleetover.io/jobid, jsonPath: "{ .jobStatus.jobId }"}]}
`

// Invariant (a): the gate that holds a Directly replacement back until the
// old copy is gone (or the escape of an unreachable cluster).
func TestTwoWritersAreCaught(t *testing.T) {
	data := flinkOnA + `faults:
  - {at: 2m, type: outage, cluster: a, for: 30m}
`
	e := holdsAndBreaks(t, data, InvSingleWriter, func(l *Library) {
		// Before the fix: nothing holds the new copy while the old one
		// still exists.
		l.DispatchGate = func(string, []eviction.GracefulEvictionTask, eviction.OldCopyLookup, time.Time, eviction.AssessOptions) eviction.DispatchGate {
			return eviction.DispatchGate{}
		}
	})
	// With the library the job waits out the escape, then resumes.
	w := e.wByName["flink"]
	if e.Stats().Evictions != 1 || w.copies[1] == nil || w.copies[1].jobID != "0123456789abcdef0123456789abcdef" {
		t.Errorf("evictions %d, copy on b %+v", e.Stats().Evictions, w.copies[1])
	}
}

// Invariant (b): along a chain a -> b -> c where the copy on b never became
// healthy, c resumes a's job, not the fresh job b reported.
func TestChainThatTakesAnUnsettledStateIsCaught(t *testing.T) {
	data := flinkOnA + `faults:
  - {at: 0s, type: workloadUnhealthy, workload: flink, cluster: b}
  - {at: 2m, type: outage, cluster: a}
`
	e := holdsAndBreaks(t, data, InvStateResumed, func(l *Library) {
		// Before the fix: the state read on the copy being left always
		// wins, settled or not.
		l.Evict = func(targets []eviction.TargetCluster, tasks []eviction.GracefulEvictionTask, ev eviction.Eviction) (eviction.EvictResult, error) {
			ev.Settled = true
			return eviction.Evict(targets, tasks, ev)
		}
	})
	w := e.wByName["flink"]
	if w.copies[2] == nil || w.copies[2].jobID != "0123456789abcdef0123456789abcdef" {
		t.Errorf("the copy on c is %+v, want the job of a", w.copies[2])
	}
}

// Invariant (c): a Pull cluster whose agent reports unhealthy, then lets
// its lease lapse, flips between False and Unknown every minute; it still
// gets its NoExecute taint 3 minutes after it stopped being Ready.
func TestFlappingReadyThatNeverTaintsIsCaught(t *testing.T) {
	data := `name: flap-ready
duration: 40m
settings: {evictionTimeout: 3m}
clusters: [{name: a, zone: z1, syncMode: Pull}, {name: b, zone: z2}]
workloads:
  - {name: w, kind: Deployment, replicas: 1, placement: {spreadConstraints: [{spreadByField: cluster, minGroups: 1, maxGroups: 1}]}}
faults:
  - {at: 1m, type: flapReady, cluster: a, period: 60s, for: 20m}
`
	e := holdsAndBreaks(t, data, InvNotReadyTainted, func(l *Library) {
		// Before the fix: the timeout counts from the Ready condition's
		// lastTransitionTime, which every flip moves.
		taints := l.Taints
		l.Taints = func(cond metav1.Condition, existing []corev1.Taint, now time.Time) ([]corev1.Taint, time.Time) {
			existing = slices.Clone(existing)
			for i := range existing {
				if existing[i].Effect == corev1.TaintEffectNoSchedule {
					existing[i].TimeAdded = nil
				}
			}
			return taints(cond, existing, now)
		}
	})
	flips := 0
	for _, ev := range e.tl.Events {
		if ev.Kind == EvReady && ev.Cluster == "a" && (ev.Detail == "Ready False -> Unknown (ClusterStatusUnknown)" || ev.Detail == "Ready Unknown -> False (ClusterNotReady)") {
			flips++
		}
	}
	if flips < 10 {
		t.Errorf("Ready flipped between False and Unknown %d times, want at least 10", flips)
	}
}

// forgetfulDetector drops an evicted cluster's record as soon as it
// proposes the eviction, as the detector did before the fix: a refused
// eviction restarts its countdown.
type forgetfulDetector struct {
	appDetectorSeam
	d failover.Detector
}

func (f forgetfulDetector) Detect(binding string, p *failover.ApplicationFailoverBehavior, clusters []string, h []failover.ObservedHealth) (failover.Detection, error) {
	det, err := f.appDetectorSeam.Detect(binding, p, clusters, h)
	if err != nil || len(det.Evictions) == 0 {
		return det, err
	}
	det.Records = slices.DeleteFunc(slices.Clone(det.Records), func(r failover.WorkloadHealthRecord) bool {
		return slices.ContainsFunc(det.Evictions, func(ev failover.ApplicationEviction) bool { return ev.FromCluster == r.ClusterName })
	})
	f.d.Forget(binding)
	recs := make([]failover.DetectorRecord, len(det.Records))
	for i, r := range det.Records {
		recs[i] = failover.DetectorRecord{Binding: binding, WorkloadHealthRecord: r}
	}
	f.d.Import(recs)
	return det, nil
}

func forget(l *Library) {
	l.AppDetector = forgetfulDetector{appDetectorSeam: l.AppDetector, d: l.AppDetector.(*detectorAdapter).d}
}

// Invariant (d), refusal: two workloads fail on a at once; the pacer lets
// one eviction through every 200 s, so the second is refused at first.
func TestEvictionLostToThePacerIsCaught(t *testing.T) {
	data := `name: paced
duration: 30m
settings: {evictionsPerSecond: 0.005}
clusters: [{name: a, zone: z1}, {name: b, zone: z2}]
workloads:
  - name: w1
    kind: Deployment
    replicas: 1
    placement: {clusterAffinity: {clusterNames: [a, b]}, spreadConstraints: [{spreadByField: cluster, minGroups: 1, maxGroups: 1}]}
    failover: {application: {decisionConditions: {tolerationSeconds: 60}, purgeMode: Directly}}
  - name: w2
    kind: Deployment
    replicas: 1
    placement: {clusterAffinity: {clusterNames: [a, b]}, spreadConstraints: [{spreadByField: cluster, minGroups: 1, maxGroups: 1}]}
    failover: {application: {decisionConditions: {tolerationSeconds: 60}, purgeMode: Directly}}
faults:
  - {at: 2m, type: workloadUnhealthy, workload: w1, cluster: a}
  - {at: 2m, type: workloadUnhealthy, workload: w2, cluster: a}
`
	e := holdsAndBreaks(t, data, InvEvictionNotLost, forget)
	if e.Stats().Evictions != 2 {
		t.Errorf("evictions %d, want both workloads moved", e.Stats().Evictions)
	}
	if _, ok := e.tl.first(0, func(ev Event) bool { return ev.Kind == EvPacer && ev.Cluster == "a" }); !ok {
		t.Error("the pacer refused nothing: the schedule does not exercise a refusal")
	}
}

// Invariant (d), failed step: the job fails on a while its status lacks
// the job id, so the eviction waits for a readable state.
func TestEvictionLostToAnUnreadableStateIsCaught(t *testing.T) {
	data := flinkOnA + `faults:
  - {at: 2m, type: workloadUnhealthy, workload: flink, cluster: a}
  - {at: 2m, type: stateUnreadable, workload: flink, for: 3m}
`
	e := holdsAndBreaks(t, data, InvEvictionNotLost, forget)
	w := e.wByName["flink"]
	if e.Stats().Evictions != 1 || w.copies[0] != nil || (w.copies[1] == nil && w.copies[2] == nil) {
		t.Errorf("evictions %d, copies %v", e.Stats().Evictions, w.copies)
	}
	if ev, ok := e.tl.first(0, func(ev Event) bool { return ev.Kind == EvEvict }); !ok || ev.At < 5*time.Minute {
		t.Errorf("evicted at %v while the state was unreadable", ev.At)
	}
}

// Invariant (e): a's copy is the last one while b is down; deleting it
// before a replacement is placed leaves the job nowhere.
func TestDirectlyDeleteWithoutReplacementIsCaught(t *testing.T) {
	data := flinkOnA + `faults:
  - {at: 1m, type: outage, cluster: b}
  - {at: 1m, type: outage, cluster: c, for: 20m}
  - {at: 3m, type: outage, cluster: a, for: 10m}
`
	holdsAndBreaks(t, data, InvDirectlyAfterPlaced, func(l *Library) {
		// Karmada #7455: Directly deletes at once, replacement or not.
		l.DeleteOldCopy = func(t *eviction.GracefulEvictionTask, _ []eviction.TargetCluster) bool {
			return t.PurgeMode.Normalize() == eviction.PurgeDirectly
		}
	})
}

// The partition during a Directly purge: a is cut off the moment its old
// copy starts being deleted; the replacement waits for the escape, and the
// old copy goes when a returns.
func TestPartitionDuringDirectlyPurge(t *testing.T) {
	data := flinkOnA + `faults:
  - {at: 2m, type: workloadUnhealthy, workload: flink, cluster: a, for: 30m}
  - {at: 2m, type: partitionOnPurge, cluster: a, for: 15m}
`
	e, v := runWith(t, data, nil)
	if len(v) > 0 {
		t.Fatalf("violations: %v", v)
	}
	part, ok := e.tl.first(0, func(ev Event) bool { return ev.Kind == EvFault && ev.Detail == "partition during purge starts" })
	if !ok {
		t.Fatal("the partition never started")
	}
	disp, ok := e.tl.first(0, func(ev Event) bool { return ev.Kind == EvDispatch && ev.Cluster != "a" })
	if !ok || disp.At < part.At+eviction.DefaultDirectlyEscapeTimeout {
		t.Errorf("replacement dispatched at %v, the partition started at %v", disp.At, part.At)
	}
	del, ok := e.tl.first(0, func(ev Event) bool { return ev.Kind == EvDelete && ev.Cluster == "a" })
	if !ok || del.At != part.At+15*time.Minute {
		t.Errorf("old copy deleted at %v, want when the partition ends", del.At)
	}
	_, v = runWith(t, data, func(l *Library) {
		l.DispatchGate = func(target string, tasks []eviction.GracefulEvictionTask, old eviction.OldCopyLookup, now time.Time, opts eviction.AssessOptions) eviction.DispatchGate {
			// An escape that does not wait DirectlyEscapeTimeout after the
			// deletion started: here it gives up 4 minutes into the run.
			g := eviction.DispatchBlocked(target, tasks, old, now, opts)
			if g.Blocked && now.Sub(simEpoch) > 4*time.Minute {
				return eviction.DispatchGate{}
			}
			return g
		}
	})
	if len(violationsOf(v, InvSingleWriter)) == 0 {
		t.Fatalf("an early escape is not caught: %v", v)
	}
}

// Every copy failing: nothing to move to, so nothing is lost or doubled.
func TestEveryCopyFailing(t *testing.T) {
	data := flinkOnA + `faults:
  - {at: 2m, type: workloadUnhealthy, workload: flink, for: 20m}
`
	e, v := runWith(t, data, nil)
	if len(v) > 0 {
		t.Fatalf("violations: %v", v)
	}
	if e.Stats().Evictions == 0 {
		t.Error("no eviction: the schedule exercises nothing")
	}
}

// The oracle does not call a workload placeable that no placement can
// satisfy: a region minimum of two on a fleet of one region, beside a
// zone maximum (which once made it skip the region bounds). The workload
// is never placed, and that breaks nothing.
func TestInfeasibleRegionSpreadIsNoViolation(t *testing.T) {
	e := mustEngine(t, `name: one-region
duration: 30m
clusters:
  - {name: a, zone: z1, region: r0}
  - {name: b, zone: z2, region: r0}
workloads:
  - name: w
    kind: Deployment
    replicas: 1
    placement:
      spreadConstraints:
        - {spreadByField: cluster, minGroups: 1, maxGroups: 2}
        - {spreadByField: zone, minGroups: 1, maxGroups: 2}
        - {spreadByField: region, minGroups: 2, maxGroups: 2}
`)
	if v := e.Run(); len(v) > 0 {
		t.Fatalf("violations: %v", v)
	}
	if got := placementOf(e, "w"); got != "[]" {
		t.Fatalf("placed on %s, which spans one region", got)
	}
	if e.inv.placeableWithin(e.wByName["w"], nil) {
		t.Error("the oracle calls a placement over one region placeable under a region minimum of 2")
	}
}

// heldRun runs the schedule the held re-placement tests share: a
// Deployment on clusters (of a, b and c) whose application failover purges
// Directly and blocks for good, its scheduling suspended from 1m to 21m,
// failing on a from 2m, and dispatching to a suspended from 10m to 30m;
// settings and extra faults vary. It fails the test on any violation.
func heldRun(t *testing.T, settings, clusters string, spread int, faults ...string) *Engine {
	t.Helper()
	doc := fmt.Sprintf(`name: held
duration: 40m
settings: {%s}
clusters:
  - {name: a, zone: z1}
  - {name: b, zone: z2}
  - {name: c, zone: z3}
workloads:
  - name: w
    kind: Deployment
    replicas: 1
    clusters: [%s]
    placement: {spreadConstraints: [{spreadByField: cluster, minGroups: %d, maxGroups: %d}]}
    failover:
      application:
        decisionConditions: {tolerationSeconds: 60}
        purgeMode: Directly
        blockPredecessorSeconds: 0
faults:
  - {at: 1m, type: suspendScheduling, workload: w, for: 20m}
  - {at: 2m, type: workloadUnhealthy, workload: w, cluster: a, for: 30m}
  - {at: 10m, type: suspend, workload: w, cluster: a, for: 20m}
`, settings, clusters, spread, spread)
	for _, f := range faults {
		doc += "  - " + f + "\n"
	}
	e := mustEngine(t, doc)
	if v := e.Run(); len(v) > 0 {
		t.Fatalf("violations: %v", v)
	}
	return e
}

// A cluster the re-placement keeps because dispatching there became
// suspended (scheduling.Plan.Held) is not a return into a block window:
// the old copy never left. The workload fails on a and b and is evicted
// from both while its scheduling is suspended (so the Directly old copies
// stay, nothing replacing them); dispatching to a is then suspended; when
// scheduling resumes, failover is paused at a, which is kept, and b is
// replaced by c.
func TestHeldClusterIsNoReturn(t *testing.T) {
	e := heldRun(t, "evictionTimeout: 1m, defaultTolerationSeconds: 30", "{name: a}, {name: b}", 2,
		"{at: 2m, type: workloadUnhealthy, workload: w, cluster: b, for: 30m}")
	if _, ok := e.tl.first(0, func(ev Event) bool {
		return ev.Kind == EvEvict && ev.Workload == "w" && ev.Cluster == "a" && ev.Reason != ""
	}); !ok {
		t.Fatal("w was never evicted from a: the test proves nothing")
	}
	if _, ok := e.tl.first(21*time.Minute, func(ev Event) bool { return ev.Kind == EvPlace && ev.Detail == "placement [a, c]" }); !ok {
		t.Fatal("a was not kept when scheduling resumed: the test proves nothing")
	}
	// a's eviction is undone with its task: the task would hold c's copy
	// back until a's copy was purged, which the suspension forbids.
	if ev, ok := e.tl.first(0, func(ev Event) bool { return ev.Kind == EvDispatch && ev.Cluster == "c" }); !ok || ev.At > 22*time.Minute {
		t.Fatalf("c's copy dispatched at %v (found %v), want right after scheduling resumed at 21m", ev.At, ok)
	}
}

// A suspension holds only a cluster whose copy still runs: here a's copy
// was deleted at the eviction (Directly, another copy ran on b), and its
// task waits for the re-placement. When scheduling resumes, a is replaced
// by c; writing a back would be a return into its block window, with a
// copy dispatched there at the resume (campaign seed 1009511).
func TestHeldClusterWithoutItsCopyIsReplaced(t *testing.T) {
	e := heldRun(t, "evictionTimeout: 1m, defaultTolerationSeconds: 30, gracefulEvictionTimeout: 30m", "{name: a}, {name: b}", 2)
	if ev, ok := e.tl.first(0, func(ev Event) bool { return ev.Kind == EvDelete && ev.Cluster == "a" }); !ok || ev.At > 10*time.Minute {
		t.Fatal("a's copy was not deleted before the suspension: the test proves nothing")
	}
	if ev, ok := e.tl.first(21*time.Minute, func(ev Event) bool { return ev.Kind == EvPlace && ev.Detail == "placement [b, c]" }); !ok || ev.At != 21*time.Minute {
		t.Fatalf("w placed on [b, c] at %v (found %v), want when scheduling resumed at 21m", ev.At, ok)
	}
}

// A single-cluster workload whose only cluster is held gets that cluster
// back, with the copy it runs: failover is paused there, so it neither
// moves nor loses its copy while dispatching is suspended. With the resume
// the failover is decided again, and the workload moves.
func TestHeldOnlyClusterKeepsTheWorkload(t *testing.T) {
	e := heldRun(t, "evictionTimeout: 1m, defaultTolerationSeconds: 30", "{name: a}", 1)
	if _, ok := e.tl.first(0, func(ev Event) bool { return ev.Kind == EvEvict && ev.Cluster == "a" && ev.At < 10*time.Minute }); !ok {
		t.Fatal("w was not evicted from a before the suspension: the test proves nothing")
	}
	if _, ok := e.tl.first(21*time.Minute, func(ev Event) bool {
		return ev.Kind == EvPlace && strings.HasPrefix(ev.Detail, "eviction undone") && ev.At == 21*time.Minute
	}); !ok {
		t.Fatal("the eviction from a was not undone when scheduling resumed")
	}
	// While dispatching to a is suspended (10m to 30m), w stays on a.
	if ev, ok := e.tl.first(0, func(ev Event) bool {
		return ev.At < 30*time.Minute && (ev.Kind == EvPlace && strings.HasPrefix(ev.Detail, "placement") || ev.Kind == EvDelete)
	}); ok && ev.At > 0 {
		t.Fatalf("at %v, while failover was paused: %s %s", ev.At, ev.Kind, ev.Detail)
	}
	if ev, ok := e.tl.first(30*time.Minute, func(ev Event) bool { return ev.Kind == EvPlace && ev.Detail == "placement [b]" }); !ok || ev.At > 32*time.Minute {
		t.Fatalf("w moved to b at %v (found %v), want soon after the resume at 30m", ev.At, ok)
	}
}

// A failover whose chosen cluster fails before the copy runs there is a
// failover of its own: the job leaves a (down at 16m) for b, its copy held
// there until the Directly escape (a is unreachable), and b is cut off at
// 33m, just before that; the job then goes to c. The oracle's bound
// restarts from b's failure and does not report the second failover's
// detection as an overrun of the first (campaign seed 540185).
func TestFailedReplacementStartsAFailoverOfItsOwn(t *testing.T) {
	e := mustEngine(t, `name: cascade
duration: 60m
settings: {evictionTimeout: 2m, defaultTolerationSeconds: 300}
clusters:
  - {name: a, zone: east, syncMode: Pull}
  - {name: b, zone: west, syncMode: Pull}
  - {name: c, zone: south, syncMode: Pull}
workloads:
  - name: job
    kind: FlinkDeployment
    replicas: 1
    state: {jobId: 1935dcfbde4b048a}
    clusters: [{name: a}]
    placement: {spreadConstraints: [{spreadByField: cluster, minGroups: 1, maxGroups: 1}]}
`+directlyJobFailover+`faults:
  - {at: 16m, type: outage, cluster: a, for: 24m}
  - {at: 33m, type: partition, cluster: b, for: 19m}
`)
	if v := e.Run(); len(v) > 0 {
		t.Fatalf("violations: %v", v)
	}
	for _, cluster := range []string{"a", "b"} {
		if _, ok := e.tl.first(0, func(ev Event) bool { return ev.Kind == EvEvict && ev.Cluster == cluster && ev.Reason != "" }); !ok {
			t.Fatalf("the job never left %s: the test proves nothing", cluster)
		}
	}
}
