package controllers

// Every call into the fleetover library lives in this file, so that the
// controllers read as OCM glue and a change of the library's API touches
// one place.

import (
	"slices"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/fencing"
	"github.com/fleetover/fleetover/preservation"
	"github.com/fleetover/fleetover/scheduling"
)

// evictionTask is the library's graceful eviction task.
type evictionTask = eviction.GracefulEvictionTask

// --- cluster health ---------------------------------------------------------

// DefaultClusterTaintConfig is the health taint configuration the
// controllers use when Config.ClusterTaints is left zero: OCM's own keys
// (unavailable for Available=False, unreachable for Unknown), NoSelectIfNew
// at once, and NoSelect once the cluster has been unavailable or
// unreachable for failover.DefaultEvictionTimeout.
func DefaultClusterTaintConfig() failover.ClusterTaintConfig {
	return failover.ClusterTaintConfig{
		NotReadyTaintKey:      clusterv1.ManagedClusterTaintUnavailable,
		UnreachableTaintKey:   clusterv1.ManagedClusterTaintUnreachable,
		NoExecuteAfterTimeout: true,
		EvictionTimeout:       failover.DefaultEvictionTimeout,
	}
}

// withOCMKeys fills the taint keys the configuration leaves empty with
// OCM's (the library's own defaults are Karmada's).
func withOCMKeys(cfg failover.ClusterTaintConfig) failover.ClusterTaintConfig {
	if cfg.NotReadyTaintKey == "" {
		cfg.NotReadyTaintKey = clusterv1.ManagedClusterTaintUnavailable
	}
	if cfg.UnreachableTaintKey == "" {
		cfg.UnreachableTaintKey = clusterv1.ManagedClusterTaintUnreachable
	}
	return cfg
}

// agentReport turns the klusterlet's ManagedClusterConditionAvailable into
// a health report; ok is false when the condition says nothing about the
// agent's view (missing, or Unknown, which only the hub writes).
func agentReport(available *metav1.Condition) (failover.ProbeResult, bool) {
	if available == nil {
		return failover.ProbeResult{}, false
	}
	switch available.Status {
	case metav1.ConditionTrue:
		return failover.ProbeResult{Reachable: true, Healthy: true, Message: "klusterlet reports the cluster available"}, true
	case metav1.ConditionFalse:
		return failover.ProbeResult{Reachable: true, Message: "klusterlet reports the cluster unavailable: " + available.Message}, true
	}
	return failover.ProbeResult{}, false
}

// taintUpdate is a cluster's new taint list in OCM's vocabulary.
type taintUpdate struct {
	Taints  []clusterv1.Taint
	Changed bool
	// Next is when the taints change next without new input.
	Next time.Time
}

// healthTaints asks failover.ComputeClusterTaints for the cluster's taints
// given the tracker's Ready condition. Taints under other keys are kept as
// they are; existing timeAdded values are kept.
func healthTaints(cfg failover.ClusterTaintConfig, ready *metav1.Condition, current []clusterv1.Taint, now time.Time) (taintUpdate, error) {
	var conds []metav1.Condition
	if ready != nil {
		conds = []metav1.Condition{*ready}
	}
	diff, err := failover.ComputeClusterTaints(cfg, conds, coreTaints(current), now)
	out := taintUpdate{Next: diff.NextCheck, Changed: diff.Changed}
	if diff.Changed {
		out.Taints = ocmTaints(diff.Result, metav1.NewTime(now))
	}
	return out, err
}

// clusterHealthy is the pacer's view of a cluster: healthy unless it
// carries one of the health taints.
func clusterHealthy(cfg failover.ClusterTaintConfig, taints []clusterv1.Taint) bool {
	for _, t := range taints {
		if t.Key == cfg.NotReadyTaintKey || t.Key == cfg.UnreachableTaintKey {
			return false
		}
	}
	return true
}

// clusterUnreachable reports whether the cluster carries the unreachable
// taint: its klusterlet cannot confirm that a deleted copy is gone.
func clusterUnreachable(cfg failover.ClusterTaintConfig, taints []clusterv1.Taint) bool {
	for _, t := range taints {
		if t.Key == cfg.UnreachableTaintKey {
			return true
		}
	}
	return false
}

// --- placement failover -----------------------------------------------------

// tolerationEviction asks the cluster-failover planner whether a workload
// with tolerations must leave a cluster with taints now, and when to look
// again otherwise. The answer is the eviction to apply (nil for none).
func tolerationEviction(planner failover.ClusterFailoverPlanner, key, cluster string, taints []clusterv1.Taint, tolerations []corev1.Toleration, policy *failover.FailoverBehavior, now time.Time) (*eviction.Eviction, time.Time) {
	var behaviour *failover.ClusterFailoverBehavior
	if policy != nil {
		behaviour = policy.Cluster
	}
	plan := planner.Plan(coreTaints(taints), []failover.ClusterBinding{{Key: key, Tolerations: tolerations, Failover: behaviour}}, now)
	if len(plan.Evict) == 0 {
		return nil, plan.NextCheck
	}
	ev := plan.Evict[0].Eviction(cluster)
	ev.CreatedAt = now
	return &ev, plan.NextCheck
}

// placementTolerations converts a Placement's tolerations for the library.
func placementTolerations(in []clusterv1beta1.Toleration) []corev1.Toleration {
	return coreTolerations(in)
}

// evict applies one eviction to the workload's targets and tasks
// (eviction.Evict): the cluster leaves the targets and one task tracks its
// old copy. It reports whether anything changed.
//
// An eviction that carries preserved state (a stateful workload) gives
// the new copy the next fencing epoch (eviction.NextFencingEpoch), which
// the state remembers once the task is gone.
func evict(targets []string, st *FailoverState, ev eviction.Eviction) (newTargets []string, changed bool, err error) {
	if len(ev.PreservedLabelState) > 0 {
		ev.FencingEpoch = eviction.NextFencingEpoch(st.FencingEpoch, st.Tasks)
	}
	res, err := eviction.Evict(targetClusters(targets), st.Tasks, ev)
	if err != nil || !res.Changed() {
		return targets, false, err
	}
	for i := range res.Tasks {
		st.FencingEpoch = max(st.FencingEpoch, res.Tasks[i].FencingEpoch)
	}
	newTargets = make([]string, len(res.Targets))
	for i, tc := range res.Targets {
		newTargets[i] = tc.Name
	}
	st.Tasks = res.Tasks
	return newTargets, true, nil
}

// fleetCluster is a ManagedCluster as the re-placement sees it.
type fleetCluster struct {
	Name   string
	Labels map[string]string
	// Claims are the cluster's claims (status.clusterClaims) by name.
	Claims map[string]string
	Taints []clusterv1.Taint
}

// replacement is the re-placement's answer.
type replacement struct {
	Targets []string
	Changed bool
	// Reason says why nothing changed.
	Reason string
	// RetryAt is when a rejected cluster may become feasible.
	RetryAt time.Time
}

func blockSeconds(policy *failover.FailoverBehavior) *int32 {
	if policy != nil && policy.Application != nil {
		return policy.Application.BlockPredecessorSeconds
	}
	return nil
}

// replace asks scheduling.Replace for a cluster to take the place of each
// lost cluster (a Placement's clusters are duplicates of one workload):
// untolerated NoSelect / NoSelectIfNew taints, clusters being left,
// clusters the workload was evicted from within BlockPredecessorSeconds and
// clusters the Placement's predicates do not select are no candidates.
func replace(name string, targets, lost []string, fleet []fleetCluster, tolerations []corev1.Toleration, predicates clusterPredicates, st *FailoverState, policy *failover.FailoverBehavior, now time.Time) (replacement, error) {
	clusters := make([]scheduling.Cluster, len(fleet))
	for i, c := range fleet {
		clusters[i] = scheduling.Cluster{Name: c.Name, Labels: c.Labels, Taints: coreTaints(c.Taints)}
	}
	req := &scheduling.Request{
		Type:     scheduling.Duplicated,
		Clusters: clusters,
		Workload: &scheduling.Workload{
			Name:                    name,
			Tolerations:             tolerations,
			EvictionTasks:           st.Tasks,
			History:                 st.History,
			BlockPredecessorSeconds: blockSeconds(policy),
			Now:                     now,
		},
	}
	if selected := predicates.selected(fleet); selected != nil {
		req.Filters = append(scheduling.DefaultFilters(), scheduling.SelectedClusters(selected))
	}
	req.Targets = targetClusters(targets)
	req.Evicted = targetClusters(lost)
	plan, err := scheduling.Replace(req)
	if err != nil {
		return replacement{}, err
	}
	out := replacement{Changed: plan.Changed, Reason: plan.Reason, RetryAt: plan.Filtered.RetryAt}
	for _, tc := range plan.Targets {
		if !slices.Contains(lost, tc.Name) {
			out.Targets = append(out.Targets, tc.Name)
		}
	}
	return out, nil
}

// gcHistory drops the history entries whose block has ended and returns
// when the next one ends.
func gcHistory(st *FailoverState, policy *failover.FailoverBehavior, now time.Time) (changed bool, next time.Time) {
	removed, next := st.History.GC(blockSeconds(policy), now)
	if len(st.History) == 0 {
		st.History = nil
	}
	return removed > 0, next
}

// --- pacing -----------------------------------------------------------------

// observeFleet gives the pacer the health of every cluster, so it picks the
// disruption mode (no eviction at all while every cluster is unhealthy).
func observeFleet(p eviction.Pacer, cfg failover.ClusterTaintConfig, fleet []fleetCluster) []eviction.DisruptionState {
	views := make([]eviction.ClusterHealthView, len(fleet))
	for i, c := range fleet {
		views[i] = eviction.ClusterHealthView{Name: c.Name, Healthy: clusterHealthy(cfg, c.Taints)}
	}
	return p.Observe(views)
}

// --- application failover ---------------------------------------------------

// workloadHealth is one cluster's interpreted health of the workload.
type workloadHealth struct {
	Cluster string
	Status  health.Status
	Reason  string
	// Since is when the hub first saw the workload's status there.
	Since metav1.Time
}

// interpret tells the health of an observed workload (nil: Unknown).
func interpret(reg *health.Registry, obj *unstructured.Unstructured) (health.Status, string) {
	if reg == nil || obj == nil {
		return health.Unknown, "no status feedback"
	}
	res := reg.Interpret(obj)
	return res.Status, res.Reason
}

// applicationEviction is one cluster the detector says the workload must
// leave, ready for evict.
type applicationEviction struct {
	Cluster string
	Message string
	// Make builds the eviction with the state preserved from the old copy.
	Make func(state map[string]string) eviction.Eviction
}

// detection is the application failover detector's answer.
type detection struct {
	Evictions []applicationEviction
	// Records are the records to persist as they are: the detector keeps
	// the record of a cluster it proposes to evict until the cluster leaves
	// the targets, so an eviction that could not be carried out (state not
	// readable, Evict refused) comes back with its countdown and its
	// Settled flag.
	Records        []failover.WorkloadHealthRecord
	RecordsChanged bool
	Next           time.Time
}

// detectFailure asks failover.DetectApplicationFailure which clusters the
// workload must leave because it stays unhealthy there.
func detectFailure(policy *failover.ApplicationFailoverBehavior, targets []string, observed []workloadHealth, records []failover.WorkloadHealthRecord, now time.Time, cfg failover.DetectorConfig) (detection, error) {
	hs := make([]failover.ObservedHealth, len(observed))
	for i, o := range observed {
		hs[i] = failover.ObservedHealth{ClusterName: o.Cluster, Status: o.Status, CollectedSince: o.Since}
	}
	det, err := failover.DetectApplicationFailure(failover.DetectorInput{
		Policy: policy, Clusters: targets, Health: hs, Records: records,
	}, now, cfg)
	if err != nil {
		return detection{}, err
	}
	out := detection{Records: det.Records, RecordsChanged: det.RecordsChanged, Next: det.NextCheck}
	for _, e := range det.Evictions {
		out.Evictions = append(out.Evictions, applicationEviction{
			Cluster: e.FromCluster,
			Message: e.Message,
			Make: func(state map[string]string) eviction.Eviction {
				ev := e.Eviction(state)
				ev.CreatedAt = now
				return ev
			},
		})
	}
	return out, nil
}

// recordEviction remembers that the workload left cluster at now.
func recordEviction(st *FailoverState, cluster string, now time.Time) {
	st.History.Record(cluster, now)
}

// --- state preservation -----------------------------------------------------

// preserveState reads the state the rules name from the observed workload
// (package preservation). No rules: no state. A missing value is an error:
// the eviction waits rather than move a stateful workload without its
// state.
func preserveState(sp *preservation.StatePreservation, obj *unstructured.Unstructured) (map[string]string, error) {
	if sp == nil || len(sp.Rules) == 0 {
		return nil, nil
	}
	rules, err := preservation.Compile(sp.Rules)
	if err != nil {
		return nil, err
	}
	return rules.ExtractFromObject(obj)
}

func statePreservation(policy *failover.FailoverBehavior, ev eviction.Eviction) *preservation.StatePreservation {
	if policy == nil {
		return nil
	}
	if ev.Reason == eviction.ReasonApplicationFailure && policy.Application != nil {
		return policy.Application.StatePreservation
	}
	if policy.Cluster != nil {
		return policy.Cluster.StatePreservation
	}
	return nil
}

// injectionState returns the state to inject into the manifest for a new
// copy on target: preservation.StateFor, the library's single-writer rule
// (only state carried by a Directly eviction, whose old copy is deleted
// before the new one is dispatched, and only into the one new cluster of
// that failover).
func injectionState(target string, targets []string, tasks []eviction.GracefulEvictionTask) (map[string]string, bool) {
	return preservation.StateFor(target, targetClusters(targets), tasks)
}

// injectState writes state into the manifest's labels.
func injectState(manifest *unstructured.Unstructured, state map[string]string) error {
	return preservation.Inject(manifest, state)
}

// deleteOldCopy reports whether the old work a task tracks goes now
// (eviction.DeleteOldCopy): at once under Directly, but never the last
// copy of a workload with no target; Gracefully and Never keep it while the
// task exists.
func deleteOldCopy(t *eviction.GracefulEvictionTask, targets []string) bool {
	return eviction.DeleteOldCopy(t, targetClusters(targets))
}

// oldCopy is what the hub knows of a workload's copy on one cluster: its
// ManifestWork (nil: gone), whether the cluster is unreachable, and, for a
// cluster whose agent fences, its declared fence and when its lease was
// last renewed.
type oldCopy struct {
	Work        *metav1.ObjectMeta
	Unreachable bool
	// DeletingSince, when set, is when the deletion of a work being
	// deleted counts from, instead of its deletionTimestamp.
	DeletingSince time.Time
	FenceAfter    time.Duration
	LastHeard     time.Time
}

// memberFence reads what a ManagedCluster's agent declares of its fence
// (fencing.Declared on the cluster's annotations) and when its lease was
// last renewed. A missing or invalid declaration is a cluster that cannot
// fence: its escape counts from the deletion, the documented risk.
func memberFence(annotations map[string]string, lease *coordinationv1.Lease) (time.Duration, time.Time) {
	fenceAfter, err := fencing.Declared(annotations)
	if err != nil || fenceAfter == 0 {
		return 0, time.Time{}
	}
	var heard time.Time
	if lease != nil && lease.Spec.RenewTime != nil {
		heard = lease.Spec.RenewTime.Time
	}
	return fenceAfter, heard
}

// oldCopies adapts the hub's view to eviction.OldCopyLookup: a copy is gone
// once its ManifestWork is (the work agent's finalizer holds the work until
// the applied resources are removed from the managed cluster), and its
// deletion started at the work's deletionTimestamp, which is persisted, so
// a restart neither resets nor skips the escape countdown.
func oldCopies(of func(cluster string) oldCopy) eviction.OldCopyLookup {
	return eviction.OldCopyLookupFunc(func(cluster string) eviction.OldCopy {
		c := of(cluster)
		if c.Work == nil {
			return eviction.OldCopy{Gone: true}
		}
		out := eviction.OldCopy{Unreachable: c.Unreachable, FenceAfter: c.FenceAfter, LastHeard: c.LastHeard}
		if c.Work.DeletionTimestamp != nil {
			out.DeletingSince = c.Work.DeletionTimestamp.Time
			if !c.DeletingSince.IsZero() {
				out.DeletingSince = c.DeletingSince
			}
		}
		return out
	})
}

// dispatchGate is whether a new copy may be dispatched to target now.
type dispatchGate struct {
	Blocked   bool
	Until     time.Time
	BlockedBy string
	Escaped   bool
	// Fenced: every old cluster given up on fenced its copy.
	Fenced bool
}

// gateDispatch asks eviction.DispatchBlocked whether dispatch to target
// waits for an old copy a Directly eviction is deleting: it holds from the
// moment the eviction is decided until the old work is gone, or, for an
// unreachable old cluster, until the escape timeout counted from the old
// work's deletionTimestamp has passed.
func gateDispatch(target string, tasks []eviction.GracefulEvictionTask, old eviction.OldCopyLookup, now time.Time, opts eviction.AssessOptions) dispatchGate {
	g := eviction.DispatchBlocked(target, tasks, old, now, opts)
	return dispatchGate{Blocked: g.Blocked, Until: g.Until, BlockedBy: g.BlockedBy, Escaped: g.Escaped, Fenced: g.Fenced}
}

// --- graceful eviction ------------------------------------------------------

// assessment is the graceful eviction assessment's answer.
type assessment struct {
	Kept    []eviction.GracefulEvictionTask
	Removed []removedTask
	Changed bool
	Next    time.Time
}

type removedTask struct {
	Task   eviction.GracefulEvictionTask
	Reason string
}

// assess judges the tasks with eviction.Assess: a replacement healthy on
// every target (and the re-placement done) or the grace period over lets
// an old copy go; a Directly task, which carries the preserved state and
// holds the dispatch, stays until its old copy is gone and the new one is
// healthy (or its grace period passed); the last copy of a workload that
// has nowhere else to run is kept.
func assess(tasks []eviction.GracefulEvictionTask, targets []string, placed bool, healthOf func(cluster string) health.Status, old eviction.OldCopyLookup, now time.Time, opts eviction.AssessOptions) assessment {
	a := eviction.Assess(eviction.AssessInput{
		Tasks:           tasks,
		Targets:         targetClusters(targets),
		SchedulerBehind: !placed,
		Health:          eviction.HealthLookupFunc(healthOf),
		OldCopies:       old,
		Now:             now,
	}, opts)
	out := assessment{Kept: a.Kept, Changed: a.Changed(), Next: a.NextAssessment}
	for _, r := range a.Removed {
		out.Removed = append(out.Removed, removedTask{Task: r.Task, Reason: string(r.Reason)})
	}
	return out
}

// targetClusters turns cluster names into the library's placement entries
// (a Placement's clusters are duplicates: no replica counts).
func targetClusters(names []string) []eviction.TargetCluster {
	if len(names) == 0 {
		return nil
	}
	out := make([]eviction.TargetCluster, len(names))
	for i, n := range names {
		out[i] = eviction.TargetCluster{Name: n}
	}
	return out
}
