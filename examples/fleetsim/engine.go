package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/suspension"
)

// simEpoch is the wall time the simulated fleet starts at; every run starts
// there so timelines of the same scenario and seed are identical.
var simEpoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// cluster is one member cluster: what is really happening to it (ground
// truth, set by the fault schedule) and what the control plane believes
// (its Ready condition and taints).
type cluster struct {
	idx      int
	name     string
	zone     string
	pull     bool
	down     bool // API server and workloads are down
	notReady bool // reachable, health endpoint fails
	parted   bool // alive, unreachable from the control plane
	flap     bool // alternates down/up every flapPeriod
	flapPer  time.Duration
	flapFrom time.Time

	cond   metav1.Condition
	taints []corev1.Taint
	// taintsDue: the taints must be computed again (the condition changed,
	// or the NoExecute timeout the last computation asked for has come).
	taintsDue  bool
	taintsNext time.Time
}

func (c *cluster) alive() bool     { return !c.down }
func (c *cluster) reachable() bool { return !c.down && !c.parted }
func (c *cluster) healthy() bool   { return !c.down && !c.parted && !c.notReady }
func (c *cluster) ready() bool     { return c.cond.Status == metav1.ConditionTrue }

// copyState is the workload's object on one member cluster.
type copyState struct {
	replicas       int32
	created        time.Time
	labels         map[string]string
	jobID          string
	collected      []byte        // last status the control plane collected (raw JSON)
	firstCollected time.Time     // when the control plane first collected it
	settled        bool          // the copy was Healthy at least once
	health         health.Status // the health interpreter's verdict on it
	sig            statusSig     // what the collected status was built from
	deleting       bool          // deletion requested, not yet confirmed
}

// statusSig identifies a generated status, so an unchanged copy is not
// re-encoded and re-interpreted at every step.
type statusSig struct {
	ready    int64
	replicas int32
	failing  bool
}

// workload is one workload and its binding: placement (targets), eviction
// tasks, eviction history and pending purges are the state a controller
// persists on the binding.
type workload struct {
	idx         int
	spec        *WorkloadSpec
	divided     bool
	tolerations []corev1.Toleration
	clusterFO   failover.ResolvedClusterFailover
	appFO       *failover.ApplicationFailoverBehavior
	blockSecs   *int32
	minGroups   int
	maxGroups   int
	byZone      bool
	weights     map[string]int64
	affinity    map[string]bool

	targets []eviction.TargetCluster
	tasks   []eviction.GracefulEvictionTask
	history eviction.EvictionHistory
	purges  []eviction.PendingPurge
	// carried are removed tasks whose preserved state has not reached a
	// new copy yet: a Directly purge drops its task before the new copy
	// may be dispatched, and the state must outlive it.
	carried []eviction.GracefulEvictionTask
	copies  []*copyState // by cluster index
	failing []bool       // by cluster index: the workload itself fails there
	deleted bool
	jobSeq  int
	origJob string // job id of the first copy (stateful workloads)

	appRecords []failover.WorkloadHealthRecord // the detector's records at its last look

	// susp is the policy's suspension as it is now (faults suspend and
	// resume dispatching during the run).
	susp      *suspension.Suspension
	workConds [][]metav1.Condition // by cluster index: the Work's conditions
	heldNoted map[string]bool      // dispatch holds already on the timeline
	lastPlace string
}

func (w *workload) name() string { return w.spec.Name }

func (w *workload) isTarget(cluster string) bool {
	for _, t := range w.targets {
		if t.Name == cluster {
			return true
		}
	}
	return false
}

func (w *workload) hasTask(cluster string) bool {
	for i := range w.tasks {
		if w.tasks[i].FromCluster == cluster {
			return true
		}
	}
	return false
}

// Options change how an Engine runs; the zero value is a normal run.
type Options struct {
	// Seed overrides the scenario's seed when non-zero.
	Seed int64
	// Library replaces some of the library adapters (tests use it to wire
	// a deliberately broken policy).
	Library func(*Library)
	// Progress, when set, is called after every step.
	Progress func(step, total int)
	// KeepGoing records violations and continues instead of stopping at
	// the first one.
	KeepGoing bool
}

// Engine runs one scenario step by step on a fake clock.
type Engine struct {
	sc        *Scenario
	seed      int64
	clock     *clocktesting.FakeClock
	rng       *rand.Rand
	lib       Library
	opts      Options
	clusters  []*cluster
	byName    map[string]*cluster
	workloads []*workload
	wByName   map[string]*workload
	faults    []timedFault
	nextFault int
	step      int
	steps     int
	tl        *Timeline
	inv       *invariants
	registry  *health.Registry
	stats     Stats
	// healthyAgain: when the workloads evicted by each fault were healthy
	// on their targets again (sim time), keyed cluster@fault.
	healthyAgain map[string]time.Duration
	// taintQueue: when the taint manager plans each cluster next (by index).
	taintQueue eviction.DeadlineQueue[int]
	// pacerStale: the pacer has not seen the current cluster health (at the
	// start and after a restart).
	pacerStale bool
}

// Stats counts what happened in a run.
type Stats struct {
	Steps       int
	Evictions   int
	Dispatches  int
	Deletions   int
	TasksClosed int
	Restarts    int
	Violations  int
}

// NewEngine prepares a scenario for running.
func NewEngine(sc *Scenario, opts Options) (*Engine, error) {
	seed := sc.Seed
	if opts.Seed != 0 {
		seed = opts.Seed
	}
	e := &Engine{
		sc:       sc,
		seed:     seed,
		clock:    clocktesting.NewFakeClock(simEpoch),
		rng:      rand.New(rand.NewPCG(uint64(seed), 0x5eed)),
		opts:     opts,
		byName:   map[string]*cluster{},
		wByName:  map[string]*workload{},
		tl:       &Timeline{start: simEpoch},
		registry: health.NewRegistry(health.RegistryConfig{}),
	}
	e.steps = int(sc.Duration.D() / sc.Step.D())
	e.pacerStale = true
	e.taintQueue = eviction.NewDeadlineQueue[int](eviction.DeadlineQueueConfig{Clock: e.clock})
	lib, err := newLibrary(e)
	if err != nil {
		return nil, err
	}
	e.lib = lib
	if opts.Library != nil {
		opts.Library(&e.lib)
	}
	e.inv = newInvariants(e)
	now := e.clock.Now()
	for i, cs := range sc.Clusters {
		c := &cluster{idx: i, name: cs.Name, zone: cs.Zone, pull: cs.SyncMode == "Pull"}
		c.cond = metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "ClusterReady", LastTransitionTime: metav1.NewTime(now)}
		e.clusters = append(e.clusters, c)
		e.byName[c.name] = c
	}
	for i := range sc.Workloads {
		w, err := e.newWorkload(i, &sc.Workloads[i])
		if err != nil {
			return nil, err
		}
		e.workloads = append(e.workloads, w)
		e.wByName[w.name()] = w
	}
	e.faults = expandFaults(sc)
	// Initial placement and dispatch: the fleet is healthy at time zero.
	for _, w := range e.workloads {
		e.schedule(w)
		e.dispatch(w)
		for ci, cp := range w.copies {
			if cp != nil {
				cp.created = now.Add(-sc.Settings.StartupDelay.D())
				e.collect(w, e.clusters[ci], cp)
			}
		}
	}
	return e, nil
}

func (e *Engine) newWorkload(i int, spec *WorkloadSpec) (*workload, error) {
	st := e.sc.Settings
	w := &workload{
		idx:       i,
		spec:      spec,
		divided:   spec.Placement.ReplicaScheduling.ReplicaSchedulingType == "Divided",
		copies:    make([]*copyState, len(e.sc.Clusters)),
		failing:   make([]bool, len(e.sc.Clusters)),
		workConds: make([][]metav1.Condition, len(e.sc.Clusters)),
		heldNoted: map[string]bool{},
		susp:      spec.Suspend.DeepCopy(),
	}
	w.tolerations = failover.AddDefaultClusterTolerations(spec.Tolerations, failover.DefaultTolerationsConfig{
		NotReadyTolerationSeconds:    st.DefaultTolerationSeconds,
		UnreachableTolerationSeconds: st.DefaultTolerationSeconds,
	})
	fb := spec.Failover
	if fb != nil {
		fb = fb.DeepCopy()
		failover.SetDefaultsFailoverBehavior(fb)
	}
	var cfo *failover.ClusterFailoverBehavior
	if fb != nil {
		cfo = fb.Cluster
		w.appFO = fb.Application
		if w.appFO != nil {
			w.blockSecs = w.appFO.BlockPredecessorSeconds
		}
	}
	w.clusterFO = failover.ClusterFailoverDefaults{
		PurgeMode:          st.ClusterPurgeMode,
		GracePeriodSeconds: int32(st.GracefulEvictionTimeout.D() / time.Second),
	}.Resolve(cfo)
	for _, sp := range spec.Placement.SpreadConstraints {
		w.minGroups, w.maxGroups = sp.MinGroups, sp.MaxGroups
		w.byZone = sp.SpreadByField == "zone"
	}
	if a := spec.Placement.ClusterAffinity; a != nil && (len(a.ClusterNames) > 0 || len(a.Zones) > 0) {
		w.affinity = map[string]bool{}
		for _, n := range a.ClusterNames {
			w.affinity[n] = true
		}
		for _, cs := range e.sc.Clusters {
			if slices.Contains(a.Zones, cs.Zone) {
				w.affinity[cs.Name] = true
			}
		}
	}
	if wp := spec.Placement.ReplicaScheduling.WeightPreference; wp != nil {
		w.weights = map[string]int64{}
		for _, sw := range wp.StaticWeightList {
			for _, n := range sw.TargetCluster.ClusterNames {
				w.weights[n] = sw.Weight
			}
		}
	}
	return w, nil
}

// Now returns the simulated time.
func (e *Engine) Now() time.Time { return e.clock.Now() }

// Elapsed returns the simulated time since the start.
func (e *Engine) Elapsed() time.Duration { return e.clock.Now().Sub(simEpoch) }

// Seed returns the seed of this run.
func (e *Engine) Seed() int64 { return e.seed }

// Timeline returns what happened so far.
func (e *Engine) Timeline() *Timeline { return e.tl }

// Violations returns the invariant violations found so far.
func (e *Engine) Violations() []Violation { return e.inv.violations }

// Stats returns the counters of the run.
func (e *Engine) Stats() Stats { s := e.stats; s.Violations = len(e.inv.violations); return s }

// Run steps through the whole scenario. It stops at the first invariant
// violation unless Options.KeepGoing is set, and returns the violations.
func (e *Engine) Run() []Violation {
	for e.step < e.steps {
		e.Step()
		if len(e.inv.violations) > 0 && !e.opts.KeepGoing {
			break
		}
	}
	return e.inv.violations
}

// Step advances the simulated clock by one step and runs every controller
// once. A panic anywhere in a step is reported as a violation.
func (e *Engine) Step() {
	defer func() {
		if r := recover(); r != nil {
			e.inv.violate(InvNoPanic, "", "", fmt.Sprintf("panic: %v", r))
		}
	}()
	e.step++
	e.stats.Steps++
	e.clock.Step(e.sc.Step.D())
	e.applyFaults()
	e.monitorClusters()
	e.taintClusters()
	e.failoverClusters()
	e.failoverApplications()
	for _, w := range e.workloads {
		if w.deleted {
			e.purgeDeleted(w)
			continue
		}
		if len(w.history) > 0 {
			// Expired blocks leave the binding's history, as a controller
			// trims it when it writes the binding.
			w.history.GC(w.blockSecs, e.Now())
		}
		e.schedule(w)
		e.dispatch(w)
		e.assess(w)
		e.syncCopies(w)
	}
	e.inv.endStep()
	if !e.tl.Quiet {
		e.trackRecovery()
	}
	if e.opts.Progress != nil {
		e.opts.Progress(e.step, e.steps)
	}
}

// monitorClusters feeds this step's heartbeats to the cluster health
// tracker and records Ready transitions.
func (e *Engine) monitorClusters() {
	now := e.Now()
	changed := false
	for _, c := range e.clusters {
		p := probeResult{Heard: c.reachable(), Reachable: c.reachable(), HealthOK: c.healthy()}
		r := e.lib.ClusterHealth.Observe(c.name, c.pull, p)
		if r.Status != c.cond.Status || r.Reason != c.cond.Reason {
			from := c.cond.Status
			if r.Status != c.cond.Status {
				c.cond.LastTransitionTime = metav1.NewTime(now)
			}
			c.cond.Status, c.cond.Reason = r.Status, r.Reason
			c.taintsDue = true
			changed = true
			e.tl.add(e, EvReady, c.name, "", fmt.Sprintf("Ready %s -> %s (%s)", from, r.Status, r.Reason))
		}
	}
	unhealthy := 0
	views := make([]eviction.ClusterHealthView, len(e.clusters))
	for i, c := range e.clusters {
		views[i] = eviction.ClusterHealthView{Name: c.name, Zone: c.zone, Healthy: c.ready()}
		if !c.ready() {
			unhealthy++
		}
	}
	if !changed && !e.pacerStale {
		return // the pacer's mode only depends on the clusters' readiness
	}
	e.pacerStale = false
	before := e.lib.Pacer.Mode()
	e.lib.Pacer.Observe(views)
	if m := e.lib.Pacer.Mode(); m != before {
		e.tl.add(e, EvPacer, "", "", fmt.Sprintf("disruption mode %s -> %s (%d of %d clusters not Ready)", before, m, unhealthy, len(e.clusters)))
	}
}

func (e *Engine) taintClusters() {
	now := e.Now()
	for _, c := range e.clusters {
		if !c.taintsDue && (c.taintsNext.IsZero() || now.Before(c.taintsNext)) {
			continue
		}
		next, at := e.lib.Taints(c.cond, c.taints, now)
		c.taintsDue, c.taintsNext = false, at
		for _, t := range next {
			if !hasTaint(c.taints, t) {
				e.tl.add(e, EvTaint, c.name, "", fmt.Sprintf("+taint %s:%s", t.Key, t.Effect))
			}
		}
		for _, t := range c.taints {
			if !hasTaint(next, t) {
				e.tl.add(e, EvUntaint, c.name, "", fmt.Sprintf("-taint %s:%s", t.Key, t.Effect))
			}
		}
		c.taints = next
		if hasNoExecute(next) {
			e.taintQueue.Add(c.idx, now)
		}
	}
}

func hasTaint(ts []corev1.Taint, t corev1.Taint) bool {
	for i := range ts {
		if ts[i].Key == t.Key && ts[i].Effect == t.Effect {
			return true
		}
	}
	return false
}

// failoverClusters is the taint manager. A deadline queue holds, per
// cluster, when to plan it next: at once when its taints change, then at
// the planner's NextCheck (the earliest toleration to run out). The planner
// lists the workloads that must leave each due cluster.
func (e *Engine) failoverClusters() {
	now := e.Now()
	var bindings []failover.ClusterBinding
	var owners []*workload
	for {
		ci, ok := e.taintQueue.TryGet()
		if !ok {
			break
		}
		c := e.clusters[ci]
		if !hasNoExecute(c.taints) {
			continue
		}
		bindings, owners = bindings[:0], owners[:0]
		for _, w := range e.workloads {
			if w.deleted || !w.isTarget(c.name) {
				continue
			}
			// Failover is paused while dispatching to the cluster is
			// suspended (seed 004).
			if suspension.FailoverPaused(w.susp, c.name) {
				continue
			}
			var cfo *failover.ClusterFailoverBehavior
			if w.spec.Failover != nil {
				cfo = w.spec.Failover.Cluster
			}
			bindings = append(bindings, failover.ClusterBinding{Key: w.name(), Tolerations: w.tolerations, Failover: cfo})
			owners = append(owners, w)
		}
		if len(bindings) == 0 {
			continue
		}
		plan := e.lib.Planner(c.taints, bindings, now)
		deferred := false
		for _, ev := range plan.Evict {
			w := owners[ev.Index]
			var grace *int32
			if ev.GracePeriodSeconds > 0 {
				g := ev.GracePeriodSeconds
				grace = &g
			}
			if !e.evict(w, c, eviction.Eviction{
				Producer:           eviction.ProducerTaintManager,
				Reason:             eviction.ReasonTaintUntolerated,
				PurgeMode:          ev.PurgeMode,
				GracePeriodSeconds: grace,
			}, false) && w.isTarget(c.name) {
				deferred = true
			}
		}
		if deferred {
			// Paced or waiting for a readable status: look again next step.
			e.taintQueue.Add(ci, now.Add(e.sc.Step.D()))
		}
		if !plan.NextCheck.IsZero() {
			e.taintQueue.Add(ci, plan.NextCheck)
		}
	}
}

func hasNoExecute(ts []corev1.Taint) bool {
	for i := range ts {
		if ts[i].Effect == corev1.TaintEffectNoExecute {
			return true
		}
	}
	return false
}

// failoverApplications is the application failover controller: the
// detector looks at the workload's health on each target cluster.
func (e *Engine) failoverApplications() {
	for _, w := range e.workloads {
		if w.deleted || w.appFO == nil || len(w.targets) == 0 {
			continue
		}
		clusters := make([]string, 0, len(w.targets))
		hs := make([]failover.WorkloadHealth, 0, len(w.targets))
		for _, t := range w.targets {
			c := e.byName[t.Name]
			// Failover is paused while dispatching to the cluster is
			// suspended (seed 004): such a cluster is not judged.
			if suspension.FailoverPaused(w.susp, c.name) {
				continue
			}
			clusters = append(clusters, c.name)
			wh := failover.WorkloadHealth{ClusterName: c.name, Health: health.Unknown}
			if cp := w.copies[c.idx]; cp != nil && !cp.deleting {
				wh.CollectedSince, wh.Settled = metav1.NewTime(cp.firstCollected), cp.settled
				if c.reachable() {
					wh.Health = cp.health
				}
			}
			hs = append(hs, wh)
		}
		det, err := e.lib.AppDetector.Detect(w.name(), w.appFO, clusters, hs)
		if err != nil {
			e.noteHold(w, "", "application failover cannot decide: "+err.Error())
			continue
		}
		for _, ev := range det.Evictions {
			c := e.byName[ev.FromCluster]
			ok := e.evict(w, c, eviction.Eviction{
				Producer:               eviction.ProducerApplicationFailover,
				Reason:                 ev.Reason,
				Message:                ev.Message,
				PurgeMode:              ev.PurgeMode,
				GracePeriodSeconds:     ev.GracePeriodSeconds,
				SuppressDeletion:       ev.SuppressDeletion,
				ClustersBeforeFailover: ev.ClustersBeforeFailover,
			}, true)
			if ok {
				w.history.Record(c.name, e.Now())
				e.inv.recordBlock(w, c.name)
				continue
			}
			// The eviction did not happen (paced): keep the countdown.
			rec := failover.WorkloadHealthRecord{ClusterName: c.name}
			for _, r := range w.appRecords {
				if r.ClusterName == c.name {
					rec = r
				}
			}
			if rec.FailingSince == nil {
				now := metav1.NewTime(e.Now())
				rec.FailingSince = &now
			}
			det.Records = append(det.Records, rec)
			e.lib.AppDetector.Restore(w.name(), det.Records)
		}
		w.appRecords = det.Records
	}
}

// evict removes cluster c from w's placement, records a graceful eviction
// task and asks the scheduler for a failover re-placement, if the fleet-wide
// pacer allows one more eviction now.
func (e *Engine) evict(w *workload, c *cluster, ev eviction.Eviction, app bool) bool {
	if w.hasTask(c.name) && !w.isTarget(c.name) {
		return false
	}
	if !e.lib.Pacer.TryAccept(c.zone) {
		if !w.heldNoted["pacer/"+c.name] {
			w.heldNoted["pacer/"+c.name] = true
			e.tl.add(e, EvPacer, c.name, w.name(), "eviction deferred by the pacer ("+e.lib.Pacer.Mode()+")")
		}
		return false
	}
	delete(w.heldNoted, "pacer/"+c.name)
	ev.Cluster = c.name
	if ev.Message == "" {
		ev.Message = fmt.Sprintf("%s on %s", ev.Reason, c.name)
	}
	if cp := w.copies[c.idx]; cp != nil && len(cp.collected) > 0 {
		state, err := e.lib.State.Extract(w, cp.collected, app)
		if err != nil {
			e.tl.add(e, EvState, c.name, w.name(), "state extraction failed, eviction waits: "+err.Error())
			return false
		}
		ev.PreservedLabelState = state
	}
	before := w.targets
	res, err := eviction.Evict(w.targets, w.tasks, ev)
	if err != nil {
		e.tl.add(e, EvEvict, c.name, w.name(), "eviction rejected: "+err.Error())
		return false
	}
	if res.Outcome != eviction.EvictTaskAdded {
		w.targets, w.tasks = res.Targets, res.Tasks
		return false
	}
	e.inv.onEvict(w, c)
	w.targets, w.tasks = res.Targets, res.Tasks
	e.stats.Evictions++
	detail := fmt.Sprintf("evicted (%s, purge %s)", ev.Reason, ev.PurgeMode.Normalize())
	if len(ev.PreservedLabelState) > 0 {
		detail += ", preserved " + formatLabels(ev.PreservedLabelState)
	}
	e.tl.add(e, EvEvict, c.name, w.name(), detail)
	e.replace(w, before, c.name)
	return true
}

// schedule runs the scheduler for w when its placement needs it.
func (e *Engine) schedule(w *workload) {
	next := e.lib.Placement.Place(e, w)
	if next == nil {
		return
	}
	e.setTargets(w, next)
}

// setTargets writes a new placement, checking the invariants on every
// cluster it adds.
func (e *Engine) setTargets(w *workload, next []eviction.TargetCluster) {
	key := placementKey(next)
	if key == placementKey(w.targets) {
		return
	}
	for _, t := range next {
		if !w.isTarget(t.Name) {
			e.inv.onPlace(w, t.Name)
		}
	}
	w.targets = next
	if key != w.lastPlace {
		w.lastPlace = key
		e.tl.add(e, EvPlace, "", w.name(), "placement "+key)
	}
}

func placementKey(ts []eviction.TargetCluster) string {
	names := make([]string, 0, len(ts))
	for _, t := range ts {
		if t.Replicas > 0 {
			names = append(names, t.Name+"="+strconv.Itoa(int(t.Replicas)))
		} else {
			names = append(names, t.Name)
		}
	}
	sort.Strings(names)
	return "[" + strings.Join(names, ", ") + "]"
}

// dispatch applies w's manifest to every target cluster that lacks it, as
// the binding and execution controllers would.
func (e *Engine) dispatch(w *workload) {
	now := e.Now()
	for _, t := range w.targets {
		c := e.byName[t.Name]
		want := w.spec.Replicas
		if w.divided {
			want = t.Replicas
		}
		// The Work's Dispatching condition, written only when it changes;
		// a suspension (or a resume) goes on the timeline.
		had := len(w.workConds[c.idx]) > 0
		if up := suspension.SetDispatchingCondition(&w.workConds[c.idx], w.susp, c.name, 1, now); up.Transitioned && (up.Suspended || had) {
			cond := w.workConds[c.idx][0]
			e.tl.add(e, EvHold, c.name, w.name(), fmt.Sprintf("Work condition Dispatching=%s (%s)", cond.Status, cond.Reason))
		}
		cp := w.copies[c.idx]
		if cp != nil && !cp.deleting && cp.replicas == want {
			continue
		}
		if suspension.Decide(w.susp, c.name, suspension.OperationApply) == suspension.ActionHold {
			continue
		}
		if cp == nil || cp.deleting {
			gate := eviction.DispatchBlocked(c.name, e.pendingPurges(w), now, e.assessOptions())
			if gate.Blocked {
				e.noteHold(w, c.name, "dispatch held: old copy on "+gate.BlockedBy+" is being purged directly")
				continue
			}
		}
		if !c.reachable() {
			continue
		}
		e.inv.onDispatch(w, c)
		delete(w.heldNoted, c.name)
		if cp != nil && !cp.deleting {
			cp.replicas = want
			e.tl.add(e, EvDispatch, c.name, w.name(), fmt.Sprintf("replicas -> %d", want))
			continue
		}
		// The manifest for the new cluster carries the preserved state.
		manifest := objectOf(w, &copyState{replicas: want}, nil)
		if _, err := e.lib.State.Inject(manifest, append(slices.Clone(w.tasks), w.carried...), c.name); err != nil {
			e.noteHold(w, c.name, "dispatch held: preserved state cannot be injected: "+err.Error())
			continue
		}
		labels := manifest.GetLabels()
		cp = &copyState{replicas: want, created: now, labels: labels}
		cp.jobID = e.jobIDFor(w, labels)
		w.copies[c.idx] = cp
		if len(labels) > 0 {
			w.carried = slices.DeleteFunc(w.carried, func(t eviction.GracefulEvictionTask) bool {
				return t.FromCluster != c.name && !slices.Contains(t.ClustersBeforeFailover, c.name)
			})
		}
		e.stats.Dispatches++
		detail := fmt.Sprintf("dispatched (%d replicas)", want)
		if len(labels) > 0 {
			detail += ", injected " + formatLabels(labels)
		}
		e.tl.add(e, EvDispatch, c.name, w.name(), detail)
	}
}

// pendingPurges lists the old copies a Directly purge still waits for: the
// purges whose task the assessment already removed, and the Directly tasks
// not judged yet (the old copy must go before the new one starts).
func (e *Engine) pendingPurges(w *workload) []eviction.PendingPurge {
	// A purge whose old copy is gone (or never existed) holds nothing back.
	w.purges = slices.DeleteFunc(w.purges, func(p eviction.PendingPurge) bool {
		c := e.byName[p.Cluster]
		return c == nil || w.copies[c.idx] == nil
	})
	out := slices.Clone(w.purges)
	for i := range w.tasks {
		t := &w.tasks[i]
		if t.PurgeMode.Normalize() != eviction.PurgeDirectly {
			continue
		}
		c := e.byName[t.FromCluster]
		if c == nil || w.copies[c.idx] == nil {
			continue
		}
		p := eviction.PendingPurge{Cluster: t.FromCluster, Since: e.Now(), Unreachable: !c.reachable(), ClustersBeforeFailover: t.ClustersBeforeFailover}
		if t.CreationTimestamp != nil {
			p.Since = t.CreationTimestamp.Time
		}
		out = append(out, p)
	}
	return out
}

func (e *Engine) noteHold(w *workload, cluster, msg string) {
	if w.heldNoted[cluster] {
		return
	}
	w.heldNoted[cluster] = true
	e.tl.add(e, EvHold, cluster, w.name(), msg)
}

// jobIDFor is the stateful workload's operator: a copy started with the
// preserved job id label resumes that job; otherwise it starts a new one.
func (e *Engine) jobIDFor(w *workload, labels map[string]string) string {
	if w.spec.Kind != "FlinkDeployment" {
		return ""
	}
	for _, v := range labels {
		if v != "" && v == w.origJob {
			return v
		}
	}
	if w.origJob == "" {
		if id := w.spec.State["jobId"]; id != "" {
			w.origJob = id
			return id
		}
	}
	w.jobSeq++
	id := fmt.Sprintf("%016x%016x", e.rng.Uint64(), uint64(w.jobSeq))
	if w.origJob == "" {
		w.origJob = id
	}
	return id
}

func (e *Engine) assessOptions() eviction.AssessOptions {
	return eviction.AssessOptions{
		Timeout:          e.sc.Settings.GracefulEvictionTimeout.D(),
		CancelOnRecovery: e.sc.Settings.CancelOnRecovery,
	}
}

// assess is the graceful eviction controller for w.
func (e *Engine) assess(w *workload) {
	if len(w.tasks) == 0 {
		return
	}
	now := e.Now()
	in := eviction.AssessInput{
		Tasks:                   w.tasks,
		Targets:                 w.targets,
		SchedulerObservedLatest: true,
		Health: eviction.HealthLookupFunc(func(cluster string) eviction.WorkloadHealth {
			c := e.byName[cluster]
			if c == nil || !c.reachable() {
				return eviction.WorkloadHealthUnknown
			}
			cp := w.copies[c.idx]
			if cp == nil || cp.deleting {
				return eviction.WorkloadHealthUnknown
			}
			return eviction.WorkloadHealth(cp.health)
		}),
		Now: now,
	}
	a := e.lib.Assess(in, e.assessOptions())
	if !a.Changed() {
		return
	}
	w.tasks = slices.Clone(a.Kept)
	for _, r := range a.Removed {
		e.stats.TasksClosed++
		c := e.byName[r.Task.FromCluster]
		e.tl.add(e, EvTaskDone, r.Task.FromCluster, w.name(), "eviction task removed: "+string(r.Reason))
		if p, ok := eviction.PendingPurgeFor(r, c != nil && !c.reachable()); ok {
			w.purges = append(w.purges, p)
			if len(r.Task.PreservedLabelState) > 0 {
				w.carried = append(w.carried, r.Task)
			}
		}
		if c != nil && !w.isTarget(c.name) {
			if cp := w.copies[c.idx]; cp != nil {
				if r.Reason != eviction.RemovedPurgedDirectly {
					e.inv.onRelease(w, c)
				}
				cp.deleting = true
			}
		}
	}
}

// syncCopies is the member side: copies start, become healthy, report
// status; deletions complete where the cluster can be reached.
func (e *Engine) syncCopies(w *workload) {
	for ci, cp := range w.copies {
		if cp == nil {
			continue
		}
		c := e.clusters[ci]
		if !cp.deleting && !w.isTarget(c.name) && !w.hasTask(c.name) {
			cp.deleting = true // orphan: neither placed nor being evicted
		}
		if cp.deleting {
			if suspension.Decide(w.susp, c.name, suspension.OperationDelete) != suspension.ActionProceed {
				e.inv.violate(InvDeletionNotBlocked, c.name, w.name(), "a deletion was held")
			}
			if c.reachable() {
				w.copies[ci] = nil
				e.stats.Deletions++
				e.tl.add(e, EvDelete, c.name, w.name(), "old copy deleted")
				w.purges = slices.DeleteFunc(w.purges, func(p eviction.PendingPurge) bool { return p.Cluster == c.name })
			} else {
				for i := range w.purges {
					if w.purges[i].Cluster == c.name {
						w.purges[i].Unreachable = true
					}
				}
			}
			continue
		}
		if c.reachable() {
			e.collect(w, c, cp)
		}
	}
}

// collect builds the status the control plane collects from cp and runs
// the health interpreter on the object, as the status controller does when
// a member cluster reports a change.
func (e *Engine) collect(w *workload, c *cluster, cp *copyState) {
	ready := int64(0)
	failing := w.failing[c.idx]
	if c.alive() && !failing && !e.Now().Before(cp.created.Add(e.sc.Settings.StartupDelay.D())) {
		ready = int64(cp.replicas)
	}
	sig := statusSig{ready: ready, replicas: cp.replicas, failing: failing}
	if cp.collected != nil && sig == cp.sig {
		return
	}
	cp.sig = sig
	var status map[string]any
	switch w.spec.Kind {
	case "FlinkDeployment":
		state := "RUNNING"
		if ready == 0 {
			state = "RECONCILING"
			if failing {
				state = "FAILED"
			}
		}
		status = map[string]any{
			"observedGeneration":         int64(1),
			"lifecycleState":             "STABLE",
			"jobManagerDeploymentStatus": "READY",
			"jobStatus": map[string]any{
				"jobId":     cp.jobID,
				"jobName":   w.name(),
				"state":     state,
				"startTime": strconv.FormatInt(cp.created.UnixMilli(), 10),
				"checkpointInfo": map[string]any{
					"lastPeriodicCheckpointTimestamp": cp.created.UnixMilli(),
					"formatType":                      "FULL",
				},
			},
		}
	case "StatefulSet":
		status = map[string]any{
			"observedGeneration": int64(1),
			"replicas":           int64(cp.replicas),
			"readyReplicas":      ready,
			"availableReplicas":  ready,
			"currentReplicas":    int64(cp.replicas),
			"updatedReplicas":    int64(cp.replicas),
		}
	default:
		status = map[string]any{
			"observedGeneration": int64(1),
			"replicas":           int64(cp.replicas),
			"updatedReplicas":    int64(cp.replicas),
			"readyReplicas":      ready,
			"availableReplicas":  ready,
		}
	}
	raw, err := json.Marshal(status)
	if err != nil {
		cp.collected, cp.health = nil, health.Unknown
		return
	}
	if cp.firstCollected.IsZero() {
		cp.firstCollected = e.Now()
	}
	cp.collected = raw
	cp.health = e.lib.Interpret(objectOf(w, cp, status))
	cp.settled = cp.settled || cp.health == health.Healthy
}

// objectOf builds the workload object as it exists on a member cluster.
func objectOf(w *workload, cp *copyState, status map[string]any) *unstructured.Unstructured {
	apiVersion := "apps/v1"
	if w.spec.Kind == "FlinkDeployment" {
		apiVersion = "flink.apache.org/v1beta1"
	}
	obj := map[string]any{
		"apiVersion": apiVersion,
		"kind":       w.spec.Kind,
		"metadata":   map[string]any{"name": w.name(), "generation": int64(1)},
		"spec":       map[string]any{"replicas": int64(cp.replicas)},
	}
	if status != nil {
		obj["status"] = status
	}
	return &unstructured.Unstructured{Object: obj}
}

// purgeDeleted removes a deleted workload's copies; deletion is never held.
func (e *Engine) purgeDeleted(w *workload) {
	for ci, cp := range w.copies {
		if cp == nil {
			continue
		}
		c := e.clusters[ci]
		if suspension.Decide(w.susp, c.name, suspension.OperationDelete) != suspension.ActionProceed {
			e.inv.violate(InvDeletionNotBlocked, c.name, w.name(), "deletion of a deleted workload was held")
			continue
		}
		if c.reachable() {
			w.copies[ci] = nil
			e.stats.Deletions++
			e.tl.add(e, EvDelete, c.name, w.name(), "copy deleted (workload deleted)")
		}
	}
}

// restart simulates a controller restart: every tracker exports its state,
// a new tracker is built and imports it.
func (e *Engine) restart() {
	e.stats.Restarts++
	fresh, err := newLibrary(e)
	if err != nil {
		e.inv.violate(InvRestartCountdowns, "", "", "restart: "+err.Error())
		return
	}
	if e.opts.Library != nil {
		e.opts.Library(&fresh)
	}
	move := func(name string, from interface{ Export() ([]byte, error) }, to interface{ Import([]byte) error }) {
		data, err := from.Export()
		if err == nil {
			err = to.Import(data)
		}
		if err != nil {
			e.inv.violate(InvRestartCountdowns, "", "", name+": "+err.Error())
		}
	}
	move("cluster health", e.lib.ClusterHealth, fresh.ClusterHealth)
	move("application failover", e.lib.AppDetector, fresh.AppDetector)
	if p, ok := e.lib.Pacer.(interface{ Export() ([]byte, error) }); ok {
		if q, ok := fresh.Pacer.(interface{ Import([]byte) error }); ok {
			move("pacer", p, q)
		}
	}
	e.lib.ClusterHealth = &shadowHealth{live: fresh.ClusterHealth, shadow: e.lib.ClusterHealth, inv: e.inv}
	e.lib.AppDetector = &shadowDetector{live: fresh.AppDetector, shadow: e.lib.AppDetector, inv: e.inv}
	e.lib.Pacer = fresh.Pacer
	e.pacerStale = true
	// The taint manager's queue lives in memory: a restarted controller
	// lists every cluster and plans the tainted ones again at once.
	e.taintQueue.ShutDown()
	e.taintQueue = eviction.NewDeadlineQueue[int](eviction.DeadlineQueueConfig{Clock: e.clock})
	for _, c := range e.clusters {
		if hasNoExecute(c.taints) {
			e.taintQueue.Add(c.idx, e.Now())
		}
	}
	e.tl.add(e, EvRestart, "", "", "controllers restarted; tracker state exported and imported")
}

func formatLabels(m map[string]string) string {
	parts := make([]string, 0, len(m))
	for k, v := range m {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}
