package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
)

// Invariant names (DESIGN.md section 6).
const (
	InvNoZeroCopies       = "no-zero-copies-while-feasible"
	InvNoFullOutageEvict  = "no-eviction-while-every-cluster-unhealthy"
	InvNoBlockedReturn    = "no-return-to-blocked-cluster"
	InvSuspendedNeverSent = "suspended-cluster-never-dispatched"
	InvDeletionNotBlocked = "deletion-never-blocked"
	InvRestartCountdowns  = "restart-keeps-countdowns"
	InvNoPanic            = "no-panic"
	InvLastCopyKept       = "last-copy-kept-without-replacement"
	// Stateful failover (single writer, state carried, decisions kept).
	InvSingleWriter        = "single-writer-never-two-copies"
	InvStateResumed        = "failover-resumes-last-healthy-state"
	InvNotReadyTainted     = "not-ready-cluster-tainted-within-timeout"
	InvEvictionNotLost     = "decided-eviction-never-lost"
	InvDirectlyAfterPlaced = "directly-old-copy-deleted-after-replacement-placed"
	invariantSlackDuration = 5 * time.Minute
)

// Violation is an invariant that did not hold, with what is needed to
// reproduce it: the step, the sim time and the seed.
type Violation struct {
	Invariant string
	Step      int
	At        time.Duration
	Seed      int64
	Scenario  string
	Cluster   string
	Workload  string
	Detail    string
}

func (v Violation) Error() string {
	subj := subject(Event{Cluster: v.Cluster, Workload: v.Workload})
	return fmt.Sprintf("invariant %s violated at step %d (sim time %s, scenario %q, seed %d): %s: %s",
		v.Invariant, v.Step, formatSimTime(v.At), v.Scenario, v.Seed, subj, v.Detail)
}

type blockRecord struct {
	cluster string
	at      time.Time
	until   time.Time
	forever bool
}

// invariants checks the rules of DESIGN.md section 6 with its own oracle:
// it reads the scenario's specs and the engine's ground truth, never the
// library's answers, so a wrong library decision cannot hide itself.
type invariants struct {
	e          *Engine
	violations []Violation
	blocks     [][]blockRecord // by workload
	zeroSince  []time.Time     // by workload: zero running copies since
	feasSince  []time.Time     // by workload: a feasible placement since
	// healthyTargets are, by workload, the indexes of its targets that
	// were healthy at the last check.
	healthyTargets [][]int

	lastHealthy []string // by workload: job id of the last copy that became Healthy
	twoCopies   []string // by workload: the pair of live copies last reported
	// appPending and taintPending: by workload, the evictions the
	// application failover detector and the taint manager decided and that
	// have not happened yet (the cluster is still a target).
	appPending   []map[string]decision
	taintPending []map[string]decision
	notReady     []time.Time // by cluster: not Ready since (zero while Ready)
	lateTaint    []bool      // by cluster: the missing NoExecute was reported
}

// decision is an eviction decided and not carried out yet, with the
// condition it was decided on (the taint manager's: the cluster's NoExecute
// taints).
type decision struct {
	at     time.Time
	taints string
}

func newInvariants(e *Engine) *invariants {
	n, m := len(e.sc.Workloads), len(e.sc.Clusters)
	iv := &invariants{e: e, blocks: make([][]blockRecord, n), zeroSince: make([]time.Time, n), feasSince: make([]time.Time, n), healthyTargets: make([][]int, n),
		lastHealthy: make([]string, n), twoCopies: make([]string, n),
		appPending: make([]map[string]decision, n), taintPending: make([]map[string]decision, n),
		notReady: make([]time.Time, m), lateTaint: make([]bool, m)}
	for i := range n {
		iv.appPending[i], iv.taintPending[i] = map[string]decision{}, map[string]decision{}
	}
	return iv
}

func (iv *invariants) violate(name, cluster, workload, detail string) {
	e := iv.e
	v := Violation{Invariant: name, Step: e.step, At: e.Elapsed(), Seed: e.seed, Scenario: e.sc.Name, Cluster: cluster, Workload: workload, Detail: detail}
	iv.violations = append(iv.violations, v)
	e.tl.add(e, EvViolation, cluster, workload, name+": "+detail)
}

// onRelease: a graceful eviction lets the old copy on c go. When the
// workload has no target at all and no other running copy, that copy is its
// last one and nothing replaces it (Karmada #7455).
func (iv *invariants) onRelease(w *workload, c *cluster) {
	if len(w.targets) > 0 {
		return
	}
	for ci, cp := range w.copies {
		if ci != c.idx && cp != nil && iv.e.clusters[ci].alive() {
			return
		}
	}
	iv.violate(InvLastCopyKept, c.name, w.name(), "the last copy was released with no target to replace it")
}

// onEvict: nothing is evicted while every cluster is unhealthy.
func (iv *invariants) onEvict(w *workload, c *cluster) {
	for _, o := range iv.e.clusters {
		if o.ready() {
			return
		}
	}
	iv.violate(InvNoFullOutageEvict, c.name, w.name(), fmt.Sprintf("evicted while all %d clusters are not Ready", len(iv.e.clusters)))
}

// recordBlock notes an application-failover eviction and the window the
// policy asks the workload to stay away for (BlockPredecessorSeconds:
// default 600 s, 0 = for good).
func (iv *invariants) recordBlock(w *workload, cluster string) {
	now := iv.e.Now()
	secs := int64(600)
	if fb := w.spec.Failover; fb != nil && fb.Application != nil && fb.Application.BlockPredecessorSeconds != nil {
		secs = int64(*fb.Application.BlockPredecessorSeconds)
	}
	r := blockRecord{cluster: cluster, at: now, until: now.Add(time.Duration(secs) * time.Second), forever: secs == 0}
	iv.blocks[w.idx] = append(iv.blocks[w.idx], r)
}

// onUndo: an eviction a held re-placement undid (scheduling.Plan.Held)
// blocks nothing: the workload never left the cluster.
func (iv *invariants) onUndo(w *workload, clusters []string) {
	iv.blocks[w.idx] = slices.DeleteFunc(iv.blocks[w.idx], func(r blockRecord) bool { return slices.Contains(clusters, r.cluster) })
}

func (iv *invariants) blocked(w *workload, cluster string) (blockRecord, bool) {
	now := iv.e.Now()
	for _, r := range iv.blocks[w.idx] {
		if r.cluster == cluster && (r.forever || now.Before(r.until)) {
			return r, true
		}
	}
	return blockRecord{}, false
}

func suspendedFor(w *workload, cluster string) bool {
	s := w.susp
	if s == nil {
		return false
	}
	if s.Dispatching != nil && *s.Dispatching {
		return true
	}
	return s.DispatchingOnClusters != nil && slices.Contains(s.DispatchingOnClusters.ClusterNames, cluster)
}

// onPlace: the scheduler never places a workload back on a blocked cluster.
func (iv *invariants) onPlace(w *workload, cluster string) {
	if r, ok := iv.blocked(w, cluster); ok {
		iv.violate(InvNoBlockedReturn, cluster, w.name(), fmt.Sprintf("placed back %s after its eviction at %s (window %s)",
			formatSimTime(iv.e.Now().Sub(simEpoch)), formatSimTime(r.at.Sub(simEpoch)), windowText(r)))
	}
}

// onDispatch: never to a suspended cluster, never back into a block window.
func (iv *invariants) onDispatch(w *workload, c *cluster) {
	if suspendedFor(w, c.name) {
		iv.violate(InvSuspendedNeverSent, c.name, w.name(), "dispatched while dispatching to this cluster is suspended")
	}
	if r, ok := iv.blocked(w, c.name); ok {
		iv.violate(InvNoBlockedReturn, c.name, w.name(), fmt.Sprintf("dispatched back after its eviction at %s (window %s)",
			formatSimTime(r.at.Sub(simEpoch)), windowText(r)))
	}
}

func windowText(r blockRecord) string {
	if r.forever {
		return "forever"
	}
	return r.until.Sub(r.at).String()
}

func (iv *invariants) endStep() {
	e := iv.e
	now := e.Now()
	for _, w := range e.workloads {
		if w.deleted {
			for ci, cp := range w.copies {
				if cp != nil && e.clusters[ci].reachable() {
					iv.violate(InvDeletionNotBlocked, e.clusters[ci].name, w.name(), "a deleted workload still has a copy on a reachable cluster")
				}
			}
			continue
		}
		iv.checkCopies(w, now)
		iv.checkSingleWriter(w)
	}
	iv.checkNoExecuteDeadline(now)
}

// checkCopies: no workload stays with zero running copies while a
// placement satisfying its policy was possible, for longer than detection,
// tolerations and start-up can explain.
func (iv *invariants) checkCopies(w *workload, now time.Time) {
	e := iv.e
	running := 0
	for ci, cp := range w.copies {
		if cp != nil && !cp.fenced && e.clusters[ci].alive() {
			running++
		}
	}
	if running > 0 || iv.exempt(w) {
		iv.zeroSince[w.idx] = time.Time{}
		iv.healthyTargets[w.idx] = iv.healthyTargets[w.idx][:0]
		return
	}
	if iv.zeroSince[w.idx].IsZero() || iv.targetFailed(w) {
		iv.zeroSince[w.idx] = now
	}
	if !iv.feasible(w, now) {
		iv.feasSince[w.idx] = time.Time{}
		return
	}
	if iv.feasSince[w.idx].IsZero() {
		iv.feasSince[w.idx] = now
	}
	since := iv.zeroSince[w.idx]
	if iv.feasSince[w.idx].After(since) {
		since = iv.feasSince[w.idx]
	}
	if bound := iv.bound(w); now.Sub(since) > bound {
		iv.violate(InvNoZeroCopies, "", w.name(), fmt.Sprintf("no running copy for %s while a feasible placement existed (bound %s)", now.Sub(since), bound))
		iv.zeroSince[w.idx] = time.Time{} // report once per episode
	}
}

// targetFailed reports whether a target of w that was healthy at an
// earlier check of this zero-copies episode is not healthy now: the
// cluster a failover chose failed before the copy ran there, which starts
// a failover of its own. The bound covers one failure's detection,
// toleration and escape, so the episode restarts from that failure. Only
// a target seen healthy counts: placing a workload on a cluster that is
// down restarts nothing.
func (iv *invariants) targetFailed(w *workload) bool {
	failed := false
	was := iv.healthyTargets[w.idx]
	n := len(was)
	for _, t := range w.targets {
		c := iv.e.byName[t.Name]
		switch {
		case c == nil:
		case c.healthy():
			was = append(was, c.idx) // after the last check's, which stay first
		case slices.Contains(was[:n], c.idx):
			failed = true
		}
	}
	iv.healthyTargets[w.idx] = append(was[:0], was[n:]...)
	return failed
}

// exempt: the policy itself keeps the workload where it is (it tolerates
// the failure taints forever, cluster failover is off, failover is paused
// because dispatching to its cluster is suspended, or its scheduling is).
func (iv *invariants) exempt(w *workload) bool {
	if !iv.e.clusterFailoverCanEvict() || w.schedulingSuspended {
		return true
	}
	for _, key := range []string{failover.TaintKeyClusterNotReady, failover.TaintKeyClusterUnreachable} {
		probe := corev1.Taint{Key: key, Effect: corev1.TaintEffectNoExecute}
		for i := range w.tolerations {
			if w.tolerations[i].ToleratesTaint(logr.Discard(), &probe, true) {
				if w.tolerations[i].TolerationSeconds == nil {
					return true
				}
				break
			}
		}
	}
	for ci, cp := range w.copies {
		if cp != nil && suspendedFor(w, iv.e.clusters[ci].name) {
			return true
		}
		if cp != nil && cp.sig.unreadable {
			// The last status collected from it lacks the state: its
			// eviction waits for a readable one rather than lose it.
			return true
		}
	}
	for _, t := range w.targets {
		if suspendedFor(w, t.Name) {
			return true
		}
	}
	return false
}

// feasible says whether a placement the workload's policy allows exists
// now: within the affinity (group) in use or, with ordered affinity
// groups, a later one, which the scheduler moves the workload to when the
// group in use has no room.
func (iv *invariants) feasible(w *workload, now time.Time) bool {
	if iv.placeableWithin(w, w.affinity) {
		return true
	}
	for g := w.group + 1; g < len(w.groups); g++ {
		if iv.placeableWithin(w, w.groups[g].clusters) {
			return true
		}
	}
	return false
}

// placeableWithin says whether the clusters affinity selects (nil: every
// cluster) that could take the workload now hold a placement within its
// spread bounds.
func (iv *invariants) placeableWithin(w *workload, affinity map[string]bool) bool {
	var names []string
	for _, c := range iv.e.clusters {
		// A cluster the workload is being evicted from is no target until
		// its task ends (the EvictionInProgress rule; a Never task ends only
		// when a person removes it).
		if !c.healthy() || (affinity != nil && !affinity[c.name]) || suspendedFor(w, c.name) || w.failing[c.idx] || w.hasTask(c.name) {
			continue
		}
		if _, blocked := iv.blocked(w, c.name); blocked {
			continue
		}
		names = append(names, c.name)
	}
	if w.zoneSpread.max == 0 && w.regionSpread.max == 0 && w.clusterSpread.max == 0 {
		// Only minimums: more clusters never hurt, so all of them decide.
		return w.spans(iv.e, names)
	}
	return spreadSubsetExists(iv.e, w, names)
}

// maxSpreadSearch bounds the candidates spreadSubsetExists tries every
// subset of (2^n of them).
const maxSpreadSearch = 14

// spreadSubsetExists says whether some of the clusters names make a
// placement within w's cluster, zone and region bounds. Whether a set fits
// depends only on how many of its clusters lie in each zone and region
// pair, and no pair needs more clusters than the cluster minimum, so the
// candidates are cut to that many per pair first; the subsets of what is
// left are then tried. A fleet with more pairs than that leaves is judged
// by each dimension alone, which may call a placement possible that the
// bounds together forbid.
func spreadSubsetExists(e *Engine, w *workload, names []string) bool {
	perPair := max(1, w.clusterSpread.min)
	kept := map[[2]string]int{}
	var cands []string
	for _, n := range names {
		c := e.byName[n]
		key := [2]string{c.zone, c.region}
		if kept[key] < perPair {
			kept[key]++
			cands = append(cands, n)
		}
	}
	if len(cands) > maxSpreadSearch {
		return fitsEachDimension(e, w, names)
	}
	minSize, maxSize := max(1, w.clusterSpread.min), w.clusterSpread.max
	set := make([]string, 0, len(cands))
	for mask := 1; mask < 1<<len(cands); mask++ {
		set = set[:0]
		for i, n := range cands {
			if mask&(1<<i) != 0 {
				set = append(set, n)
			}
		}
		if len(set) < minSize || maxSize > 0 && len(set) > maxSize {
			continue
		}
		if w.spans(e, set) {
			return true
		}
	}
	return false
}

// fitsEachDimension is spreadSubsetExists's judgment for large fleets:
// the fullest zones (regions) the maximum allows must hold enough
// clusters, and enough zones (regions) must have one, each dimension on
// its own.
func fitsEachDimension(e *Engine, w *workload, names []string) bool {
	fits := func(b groupBounds, group func(*cluster) string) bool {
		count := map[string]int{}
		for _, n := range names {
			count[group(e.byName[n])]++
		}
		sizes := slices.Collect(maps.Values(count))
		slices.Sort(sizes)
		slices.Reverse(sizes)
		if b.max > 0 {
			sizes = sizes[:min(len(sizes), b.max)]
		}
		total := 0
		for _, k := range sizes {
			total += k
		}
		return total >= max(1, w.clusterSpread.min) && len(sizes) >= b.min
	}
	return fits(w.zoneSpread, zoneOf) && fits(w.regionSpread, regionOf)
}

// clusterFailoverCanEvict reports whether a cluster failure can evict at
// all: the taint manager evicts, and something adds a NoExecute taint (the
// timed health taint, or a ClusterTaintPolicy).
func (e *Engine) clusterFailoverCanEvict() bool {
	st := e.sc.Settings
	if !*st.ClusterFailover {
		return false
	}
	if *st.NoExecuteTaints {
		return true
	}
	for _, p := range st.ClusterTaintPolicies {
		for _, t := range p.Taints {
			if t.Effect == string(corev1.TaintEffectNoExecute) {
				return true
			}
		}
	}
	return false
}

// bound is the longest a correct controller may take to bring a copy back:
// detection, NoExecute timeout, the workload's toleration, a Directly purge
// escape, application failover timers, start-up, plus slack for pacing.
func (iv *invariants) bound(w *workload) time.Duration {
	st := iv.e.sc.Settings
	b := st.MonitorGracePeriod.D() + st.FailureThreshold.D() + st.SuccessThreshold.D() + st.EvictionTimeout.D() +
		st.StartupDelay.D() + invariantSlackDuration + 2*iv.e.sc.Step.D()
	maxTol := time.Duration(0)
	for _, t := range w.tolerations {
		if t.Effect == corev1.TaintEffectNoExecute && t.TolerationSeconds != nil {
			maxTol = max(maxTol, time.Duration(*t.TolerationSeconds)*time.Second)
		}
	}
	b += maxTol
	// A pacer slower than one eviction per second may queue every
	// workload's evictions from every cluster before this one.
	if rate := st.EvictionsPerSecond; rate < 1 {
		b += time.Duration(float64(len(iv.e.workloads)*len(iv.e.clusters)) / rate * float64(time.Second))
	}
	if w.clusterFO.PurgeMode == eviction.PurgeDirectly || (w.appFO != nil && w.appFO.PurgeMode.Normalize() == eviction.PurgeDirectly) {
		b += iv.e.directlyEscape()
	}
	if a := w.appFO; a != nil {
		if a.DecisionConditions.TolerationSeconds != nil {
			b += time.Duration(*a.DecisionConditions.TolerationSeconds) * time.Second
		}
		if a.PreConditions != nil && a.PreConditions.DelaySeconds != nil {
			b += time.Duration(*a.PreConditions.DelaySeconds) * time.Second
		}
	}
	return b
}

// checkSingleWriter: a single-writer workload never has two live copies.
// Every copy that exists counts, even on a cluster that is down (it runs
// again when the cluster returns, until its deletion is confirmed) and
// behind a partition (it keeps running there), unless its cluster's agent
// stopped it (fenced). The one exception is the library's documented risk
// of a Push cluster, which nothing can fence: an old copy whose deletion
// started on an unreachable Push cluster no longer counts against a copy
// dispatched DirectlyEscapeTimeout or more after that deletion started. A
// Pull cluster's agent can fence (package fencing), so its copy counts
// until it is stopped: without fenceAfter, the escape off a partitioned
// Pull cluster is a double writer.
func (iv *invariants) checkSingleWriter(w *workload) {
	if !w.singleWriter() {
		return
	}
	e := iv.e
	pair := ""
	for i := 0; i < len(w.copies) && pair == ""; i++ {
		for j := i + 1; j < len(w.copies); j++ {
			a, b := w.copies[i], w.copies[j]
			if a == nil || b == nil || a.fenced || b.fenced || iv.escaped(i, a, b) || iv.escaped(j, b, a) {
				continue
			}
			pair = e.clusters[i].name + " and " + e.clusters[j].name
			break
		}
	}
	if pair != "" && pair != iv.twoCopies[w.idx] {
		iv.violate(InvSingleWriter, "", w.name(), "two live copies, on "+pair)
	}
	iv.twoCopies[w.idx] = pair
}

// escaped: the copy old, on cluster index oi, was given up on before the
// copy young was dispatched.
func (iv *invariants) escaped(oi int, old, young *copyState) bool {
	return old.deleting && !iv.e.clusters[oi].pull && !iv.e.clusters[oi].reachable() &&
		!young.created.Before(old.deletingSince.Add(iv.e.directlyEscape()))
}

// onSettled: cp became Healthy; its job is the state a failover carries.
func (iv *invariants) onSettled(w *workload, cp *copyState) {
	if cp.jobID != "" {
		iv.lastHealthy[w.idx] = cp.jobID
	}
}

// onNewCopy: a new copy of a single-writer stateful workload resumes the
// job of the last copy that became Healthy.
func (iv *invariants) onNewCopy(w *workload, c *cluster, cp *copyState) {
	want := iv.lastHealthy[w.idx]
	if !w.singleWriter() || !*iv.e.sc.Settings.StatefulInjection || want == "" || cp.jobID == want {
		return
	}
	iv.violate(InvStateResumed, c.name, w.name(), fmt.Sprintf("the new copy runs job %s, the last healthy copy ran %s (injected %s)",
		cp.jobID, want, formatLabels(cp.labels)))
}

// onDeleteOldCopy: a Directly old copy is deleted only once a replacement
// is placed.
func (iv *invariants) onDeleteOldCopy(w *workload, c *cluster, t *eviction.GracefulEvictionTask) {
	if t.PurgeMode.Normalize() != eviction.PurgeDirectly {
		return
	}
	for _, tc := range w.targets {
		if tc.Name != c.name {
			return
		}
	}
	iv.violate(InvDirectlyAfterPlaced, c.name, w.name(), "the old copy of a Directly eviction is deleted while no replacement is placed")
}

// checkNoExecuteDeadline: in the NoExecute-after-timeout mode, a cluster
// that stopped being Ready carries a NoExecute health taint once
// EvictionTimeout has passed since that moment, however often its Ready
// condition flips between False and Unknown meanwhile.
func (iv *invariants) checkNoExecuteDeadline(now time.Time) {
	st := iv.e.sc.Settings
	for _, c := range iv.e.clusters {
		if c.ready() {
			iv.notReady[c.idx], iv.lateTaint[c.idx] = time.Time{}, false
			continue
		}
		if iv.notReady[c.idx].IsZero() {
			iv.notReady[c.idx] = now
		}
		if !*st.NoExecuteTaints || iv.lateTaint[c.idx] || now.Before(iv.notReady[c.idx].Add(st.EvictionTimeout.D())) || healthNoExecute(c.taints) {
			continue
		}
		iv.lateTaint[c.idx] = true
		iv.violate(InvNotReadyTainted, c.name, "", fmt.Sprintf("not Ready since %s, no NoExecute taint %s later (Ready is %s)",
			formatSimTime(iv.notReady[c.idx].Sub(simEpoch)), st.EvictionTimeout.D(), c.cond.Status))
	}
}

func healthNoExecute(ts []corev1.Taint) bool {
	for i := range ts {
		if ts[i].Effect == corev1.TaintEffectNoExecute && (ts[i].Key == failover.TaintKeyClusterNotReady || ts[i].Key == failover.TaintKeyClusterUnreachable) {
			return true
		}
	}
	return false
}

// An eviction a controller decided is never lost, only delayed. Decisions
// are proposals the controller carries out when the pacer accepts and the
// state can be read; until the cluster leaves the targets, the decision is
// pending, and while the conditions it was decided on hold, the next look
// of the same controller must propose it again:
//   - application failover: the cluster is still judged (not paused) and
//     the workload's health there is still one the policy counts as
//     failing (Healthy ends the decision; Unknown neither ends it nor
//     requires a proposal at that look);
//   - taint manager: the cluster carries the same NoExecute taints and the
//     workload is still among its bindings (not paused).

// onDetect checks the detector's look at w against the pending decisions,
// then records its new proposals.
func (iv *invariants) onDetect(w *workload, clusters []string, hs []failover.ObservedHealth, det failover.Detection) {
	pend := iv.appPending[w.idx]
	proposed := map[string]bool{}
	for _, ev := range det.Evictions {
		proposed[ev.FromCluster] = true
	}
	for _, c := range slices.Sorted(maps.Keys(pend)) {
		i := slices.Index(clusters, c)
		if i < 0 || !w.isTarget(c) || hs[i].Status == health.Healthy {
			delete(pend, c)
			continue
		}
		if failingFor(w.appFO, hs[i].Status) && !proposed[c] {
			iv.violate(InvEvictionNotLost, c, w.name(), fmt.Sprintf("application failover decided the eviction at %s; it did not happen, the workload is still %s here, and the next look does not propose it",
				formatSimTime(pend[c].at.Sub(simEpoch)), hs[i].Status))
			delete(pend, c)
		}
	}
	for c := range proposed {
		if _, ok := pend[c]; !ok {
			pend[c] = decision{at: iv.e.Now()}
		}
	}
}

func failingFor(p *failover.ApplicationFailoverBehavior, s health.Status) bool {
	if p == nil || len(p.DecisionConditions.HealthyState) == 0 {
		return s == health.Unhealthy
	}
	return slices.Contains(p.DecisionConditions.HealthyState, s)
}

// onPlan checks the taint manager's plan for c against the pending
// decisions, then records its new proposals.
func (iv *invariants) onPlan(c *cluster, owners []*workload, plan failover.ClusterFailoverPlan) {
	taints := noExecuteKeys(c.taints)
	proposed := map[*workload]bool{}
	for _, ev := range plan.Evict {
		proposed[owners[ev.Index]] = true
	}
	for _, w := range iv.e.workloads {
		d, ok := iv.taintPending[w.idx][c.name]
		if !ok {
			continue
		}
		if !w.isTarget(c.name) || d.taints != taints || !slices.Contains(owners, w) {
			delete(iv.taintPending[w.idx], c.name)
			continue
		}
		if !proposed[w] {
			iv.violate(InvEvictionNotLost, c.name, w.name(), fmt.Sprintf("the taint manager decided the eviction at %s; it did not happen, the taints %s stay, and the next plan does not propose it",
				formatSimTime(d.at.Sub(simEpoch)), taints))
			delete(iv.taintPending[w.idx], c.name)
		}
	}
	for w := range proposed {
		if _, ok := iv.taintPending[w.idx][c.name]; !ok {
			iv.taintPending[w.idx][c.name] = decision{at: iv.e.Now(), taints: taints}
		}
	}
}

func noExecuteKeys(ts []corev1.Taint) string {
	var keys []string
	for i := range ts {
		if ts[i].Effect == corev1.TaintEffectNoExecute {
			k := ts[i].Key
			if ta := ts[i].TimeAdded; ta != nil {
				k += " since " + formatSimTime(ta.Sub(simEpoch))
			}
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return "[" + strings.Join(keys, ",") + "]"
}

// afterDecisions drops the decisions carried out: the cluster left w's
// targets.
func (iv *invariants) afterDecisions(w *workload, pending *[]map[string]decision) {
	for c := range (*pending)[w.idx] {
		if !w.isTarget(c) {
			delete((*pending)[w.idx], c)
		}
	}
}

// shadowHealth runs the restarted cluster health tracker side by side with
// the one that never restarted; any difference in their answers means the
// restart reset or skipped a countdown.
type shadowHealth struct {
	live, shadow clusterHealthSeam
	inv          *invariants
}

func (s *shadowHealth) Observe(cluster string, pull bool, p probeResult) readiness {
	got := s.live.Observe(cluster, pull, p)
	want := s.shadow.Observe(cluster, pull, p)
	if got != want {
		s.inv.violate(InvRestartCountdowns, cluster, "", fmt.Sprintf("after a restart the cluster is %s/%s, without the restart it would be %s/%s",
			got.Status, got.Reason, want.Status, want.Reason))
	}
	return got
}
func (s *shadowHealth) Export() ([]byte, error)  { return s.live.Export() }
func (s *shadowHealth) Import(data []byte) error { return s.live.Import(data) }

// shadowDetector does the same for the application failover detector.
type shadowDetector struct {
	live, shadow appDetectorSeam
	inv          *invariants
}

func (s *shadowDetector) Detect(binding string, p *failover.ApplicationFailoverBehavior, clusters []string, h []failover.ObservedHealth) (failover.Detection, error) {
	got, err := s.live.Detect(binding, p, clusters, h)
	want, _ := s.shadow.Detect(binding, p, clusters, h)
	if evictedClusters(got) != evictedClusters(want) || !got.NextCheck.Equal(want.NextCheck) {
		s.inv.violate(InvRestartCountdowns, "", binding, fmt.Sprintf("after a restart application failover evicts [%s] and looks again at %s; without the restart [%s] at %s",
			evictedClusters(got), got.NextCheck.Format(time.TimeOnly), evictedClusters(want), want.NextCheck.Format(time.TimeOnly)))
	}
	return got, err
}

func evictedClusters(d failover.Detection) string {
	out := ""
	for i, ev := range d.Evictions {
		if i > 0 {
			out += ","
		}
		out += ev.FromCluster
	}
	return out
}

func (s *shadowDetector) Export() ([]byte, error)  { return s.live.Export() }
func (s *shadowDetector) Import(data []byte) error { return s.live.Import(data) }
