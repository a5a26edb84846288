package main

import (
	"fmt"
	"slices"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
)

// Invariant names (DESIGN.md section 6).
const (
	InvNoZeroCopies        = "no-zero-copies-while-feasible"
	InvNoFullOutageEvict   = "no-eviction-while-every-cluster-unhealthy"
	InvNoBlockedReturn     = "no-return-to-blocked-cluster"
	InvSuspendedNeverSent  = "suspended-cluster-never-dispatched"
	InvDeletionNotBlocked  = "deletion-never-blocked"
	InvRestartCountdowns   = "restart-keeps-countdowns"
	InvNoPanic             = "no-panic"
	InvLastCopyKept        = "last-copy-kept-without-replacement"
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
}

func newInvariants(e *Engine) *invariants {
	n := len(e.sc.Workloads)
	return &invariants{e: e, blocks: make([][]blockRecord, n), zeroSince: make([]time.Time, n), feasSince: make([]time.Time, n)}
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
	}
}

// checkCopies: no workload stays with zero running copies while a
// placement satisfying its policy was possible, for longer than detection,
// tolerations and start-up can explain.
func (iv *invariants) checkCopies(w *workload, now time.Time) {
	e := iv.e
	running := 0
	for ci, cp := range w.copies {
		if cp != nil && e.clusters[ci].alive() {
			running++
		}
	}
	if running > 0 || iv.exempt(w) {
		iv.zeroSince[w.idx] = time.Time{}
		return
	}
	if iv.zeroSince[w.idx].IsZero() {
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

// exempt: the policy itself keeps the workload where it is (it tolerates
// the failure taints forever, cluster failover is off, or failover is
// paused because dispatching to its cluster is suspended).
func (iv *invariants) exempt(w *workload) bool {
	if !*iv.e.sc.Settings.NoExecuteTaints {
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
	}
	for _, t := range w.targets {
		if suspendedFor(w, t.Name) {
			return true
		}
	}
	return false
}

func (iv *invariants) feasible(w *workload, now time.Time) bool {
	var names []string
	for _, c := range iv.e.clusters {
		// A cluster the workload is being evicted from is no target until
		// its task ends (the EvictionInProgress rule; a Never task ends only
		// when a person removes it).
		if !c.healthy() || (w.affinity != nil && !w.affinity[c.name]) || suspendedFor(w, c.name) || w.failing[c.idx] || w.hasTask(c.name) {
			continue
		}
		if _, blocked := iv.blocked(w, c.name); blocked {
			continue
		}
		names = append(names, c.name)
	}
	if w.zoneSpread.max > 0 {
		// The placement may pick any zones: the fullest ones allowed must
		// hold enough clusters, and enough zones must have one.
		count := map[string]int{}
		for _, n := range names {
			count[iv.e.byName[n].zone]++
		}
		sizes := make([]int, 0, len(count))
		for _, k := range count {
			sizes = append(sizes, k)
		}
		slices.Sort(sizes)
		slices.Reverse(sizes)
		sizes = sizes[:min(len(sizes), w.zoneSpread.max)]
		total := 0
		for _, k := range sizes {
			total += k
		}
		return total >= max(1, w.clusterSpread.min) && len(sizes) >= w.zoneSpread.min
	}
	return w.spans(iv.e, names)
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
	if w.clusterFO.PurgeMode == eviction.PurgeDirectly || (w.appFO != nil && w.appFO.PurgeMode.Normalize() == eviction.PurgeDirectly) {
		b += eviction.DefaultDirectlyEscapeTimeout
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

func (s *shadowDetector) Restore(binding string, records []failover.WorkloadHealthRecord) {
	s.live.Restore(binding, records)
	s.shadow.Restore(binding, records)
}
func (s *shadowDetector) Export() ([]byte, error)  { return s.live.Export() }
func (s *shadowDetector) Import(data []byte) error { return s.live.Import(data) }
