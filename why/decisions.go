package why

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/preservation"
	"github.com/fleetover/fleetover/scheduling"
)

// conditionReady is the type of a cluster's readiness condition.
const conditionReady = "Ready"

// ClusterHealth explains a cluster's readiness as its conditions and taints
// show it. A cluster that is not Ready but carries no NoExecute taint yet
// holds the workload: nothing evicts from a cluster before the taint.
func ClusterHealth(cluster string, conditions []metav1.Condition, taints []corev1.Taint) Explanation {
	e := Explanation{Step: StepClusterHealth, Cluster: cluster}
	ready := meta.FindStatusCondition(conditions, conditionReady)
	switch {
	case ready == nil:
		e.Reason, e.Message = ReasonClusterNoReadyStatus, fmt.Sprintf("cluster %s reports no Ready condition: it is treated as not ready", cluster)
	case ready.Status == metav1.ConditionTrue:
		e.Reason, e.Message, e.Since = ReasonClusterReady, fmt.Sprintf("cluster %s is ready", cluster), ready.LastTransitionTime.Time
		return e
	case ready.Status == metav1.ConditionUnknown:
		e.Reason, e.Since = ReasonClusterUnreachable, ready.LastTransitionTime.Time
		e.Message = fmt.Sprintf("cluster %s is unreachable (%s)", cluster, conditionText(ready))
	default:
		e.Reason, e.Since = ReasonClusterNotReady, ready.LastTransitionTime.Time
		e.Message = fmt.Sprintf("cluster %s is not ready (%s)", cluster, conditionText(ready))
	}
	if !hasNoExecute(taints) {
		e.Reason, e.Holds = ReasonClusterNotReadyNoTaint, true
		e.Message += "; it carries no NoExecute taint yet, so nothing evicts the workload from it"
	}
	return e
}

func conditionText(c *metav1.Condition) string {
	switch {
	case c.Reason != "" && c.Message != "":
		return c.Reason + ": " + c.Message
	case c.Reason != "":
		return c.Reason
	default:
		return "Ready=" + string(c.Status)
	}
}

func hasNoExecute(taints []corev1.Taint) bool {
	return slices.ContainsFunc(taints, func(t corev1.Taint) bool { return t.Effect == corev1.TaintEffectNoExecute })
}

// Toleration explains d, the toleration decision for the NoExecute taints of
// cluster (failover.TolerationOptions.Evaluate).
func Toleration(cluster string, d failover.TolerationDecision) Explanation {
	e := Explanation{Step: StepToleration, Cluster: cluster}
	if d.Taint != nil && d.Taint.TimeAdded != nil {
		e.Since = d.Taint.TimeAdded.Time
	}
	switch d.Action {
	case failover.TolerateForever:
		e.Reason, e.Holds, e.Warning = ReasonTaintToleratedForever, true, true
		e.Message = fmt.Sprintf("the workload tolerates every NoExecute taint of cluster %s without a time limit: it is never evicted from it", cluster)
	case failover.EvictAfter:
		e.Reason, e.Holds, e.Until = ReasonTolerationNotExpired, true, d.At
		e.Message = fmt.Sprintf("the workload tolerates taint %s of cluster %s", taintText(d.Taint), cluster)
	default:
		if d.Toleration == nil {
			e.Reason = ReasonTaintNotTolerated
			e.Message = fmt.Sprintf("taint %s of cluster %s is not tolerated", taintText(d.Taint), cluster)
		} else {
			e.Reason = ReasonTolerationExpired
			e.Message = fmt.Sprintf("the toleration of taint %s of cluster %s has run out", taintText(d.Taint), cluster)
		}
	}
	return e
}

func taintText(t *corev1.Taint) string {
	if t == nil {
		return "(none)"
	}
	return t.ToString()
}

// Pacing explains whether the pacer lets an eviction from cluster, in zone,
// through now: state is Pacer.State(zone), and at, ok are Pacer.When(zone).
func Pacing(cluster string, state eviction.DisruptionState, at time.Time, ok bool, now time.Time) Explanation {
	e := Explanation{Step: StepPacing, Cluster: cluster}
	switch {
	case state.Mode == eviction.DisruptionFull || !ok:
		e.Reason, e.Holds = ReasonFullDisruption, true
		e.Message = fmt.Sprintf("evictions from cluster %s are stopped: %s", cluster, orText(state.Message, "the fleet is in full disruption"))
	case at.After(now):
		e.Reason, e.Holds, e.Until = ReasonEvictionPaced, true, at
		e.Message = fmt.Sprintf("the eviction from cluster %s waits for the fleet's eviction rate (%s mode, %g evictions per second)", cluster, state.Mode, state.Rate)
	default:
		e.Reason = ReasonEvictionDue
		e.Message = fmt.Sprintf("the workload is evicted from cluster %s now", cluster)
	}
	return e
}

// PacerWait is when the pacer p lets an eviction from zone through,
// counted on the caller's clock (now), whatever clock p runs on: the wait
// comes from p's bucket (Export) and rate, not from p's own time. ok is
// false while evictions are stopped; a zero at means now.
func PacerWait(p eviction.Pacer, zone string, now time.Time) (at time.Time, ok bool) {
	st := p.State(zone)
	if st.Mode == eviction.DisruptionFull || st.Rate <= 0 {
		return time.Time{}, false
	}
	var z *eviction.ZonePacerState
	zones := p.Export().Zones
	for i := range zones {
		if zones[i].Zone == zone || (z == nil && zones[i].Zone == "") {
			z = &zones[i]
		}
	}
	if z == nil {
		return time.Time{}, true // a zone not counted yet has a full bucket
	}
	tokens := z.Tokens
	if now.After(z.CountedAt) {
		// Tokens earned since the bucket was counted, when both clocks
		// agree; a pacer ahead of now has earned nothing since.
		tokens += now.Sub(z.CountedAt).Seconds() * st.Rate
	}
	if tokens >= 1 {
		return time.Time{}, true
	}
	return now.Add(time.Duration(math.Ceil((1 - tokens) / st.Rate * float64(time.Second)))), true
}

// NoExecuteTaintDue refines e, a ClusterNotReadyWithoutNoExecuteTaint
// explanation of a cluster with conditions, by what the controller's taint
// configuration cfg will do: hold until the timed NoExecute health taint
// is due, or until a ClusterTaintPolicy that matches adds one; when
// nothing ever will, a warning (ReasonNoNoExecuteTaintSource) naming the
// ClusterTaintPolicy to create.
func NoExecuteTaintDue(e Explanation, conditions []metav1.Condition, cfg failover.ClusterTaintConfig) Explanation {
	ready := meta.FindStatusCondition(conditions, conditionReady)
	if cfg.NoExecuteAfterTimeout && ready != nil && !ready.LastTransitionTime.IsZero() {
		timeout := cfg.EvictionTimeout
		if timeout == 0 {
			timeout = failover.DefaultEvictionTimeout
		}
		e.Until = ready.LastTransitionTime.Add(timeout)
		e.Message += fmt.Sprintf("; the NoExecute health taint is due %s after Ready left True", timeout)
		return e
	}
	for _, p := range cfg.Policies {
		if addsNoExecute(p) && allMatch(p.AddOnConditions, conditions) {
			e.Message += fmt.Sprintf("; ClusterTaintPolicy %s adds a NoExecute taint at its next reconcile", p.Name)
			return e
		}
	}
	e.Reason, e.Warning = ReasonNoNoExecuteTaintSource, true
	e.Message = strings.Replace(e.Message, "it carries no NoExecute taint yet, so nothing evicts the workload from it",
		"nothing adds a NoExecute taint to it (the cluster controller adds NoSchedule only), so nothing will evict the workload until a ClusterTaintPolicy adds one", 1) +
		"; create one: " + ClusterTaintPolicyHint
	return e
}

// ClusterTaintPolicyHint is the ClusterTaintPolicy that makes a Karmada
// cluster that is not ready evict: a NoExecute taint while Ready is False
// or Unknown, removed once it is True (Karmada's webhook admits NoExecute
// with --allow-no-execute-taint-policy).
const ClusterTaintPolicyHint = `apiVersion: policy.karmada.io/v1alpha1, kind: ClusterTaintPolicy, spec: {addOnConditions: [{conditionType: Ready, operator: In, statusValues: ["False", "Unknown"]}], removeOnConditions: [{conditionType: Ready, operator: In, statusValues: ["True"]}], taints: [{key: cluster.karmada.io/not-ready, effect: NoExecute}]}`

func addsNoExecute(p failover.ConditionTaintPolicy) bool {
	return slices.ContainsFunc(p.Taints, func(t corev1.Taint) bool { return t.Effect == corev1.TaintEffectNoExecute })
}

func allMatch(ms []failover.ConditionMatch, conditions []metav1.Condition) bool {
	if len(ms) == 0 {
		return false
	}
	for _, m := range ms {
		if !m.Matches(conditions) {
			return false
		}
	}
	return true
}

func orText(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// ApplicationHealth explains the application failover detector's view of
// cluster: in is what it was given and det what it decided
// (failover.DetectApplicationFailure or Detector.Detect).
func ApplicationHealth(cluster string, in failover.DetectorInput, det failover.Detection) Explanation {
	e := Explanation{Step: StepApplicationHealth, Cluster: cluster}
	if slices.ContainsFunc(det.Evictions, func(a failover.ApplicationEviction) bool { return a.FromCluster == cluster }) {
		e.Reason = ReasonApplicationEvictionDue
		e.Message = fmt.Sprintf("the workload has stayed unhealthy on cluster %s past its toleration: it is evicted now", cluster)
		return e
	}
	status := health.Unknown
	for _, h := range in.Health {
		if h.ClusterName == cluster {
			status = h.Status
			e.Since = h.CollectedSince.Time
			break
		}
	}
	var rec *failover.WorkloadHealthRecord
	for i := range det.Records {
		if det.Records[i].ClusterName == cluster {
			rec = &det.Records[i]
		}
	}
	switch {
	case rec != nil && rec.FailingSince != nil:
		e.Reason, e.Holds, e.Since = ReasonUnhealthyNotExpired, true, rec.FailingSince.Time
		e.Until = rec.FailingSince.Add(time.Duration(tolerationSeconds(in.Policy)) * time.Second)
		e.Message = fmt.Sprintf("the workload is %s on cluster %s; it is tolerated until the countdown ends", status, cluster)
	case status == health.Healthy:
		e.Reason = ReasonWorkloadHealthy
		e.Message = fmt.Sprintf("the workload is healthy on cluster %s", cluster)
	case status == health.Unknown:
		// Unknown neither counts as failing nor stops a countdown, so it
		// holds nothing by itself; it is shown because it is often why a
		// broken workload does not move.
		e.Reason = ReasonHealthUnknown
		e.Message = fmt.Sprintf("the workload's health on cluster %s is unknown, which does not count as failing", cluster)
	default:
		e.Reason, e.Holds, e.Until = ReasonPreConditionsPending, true, det.NextCheck
		e.Message = fmt.Sprintf("the workload is %s on cluster %s, but the policy's pre-conditions (delay, first healthy state) do not let the countdown start yet", status, cluster)
	}
	return e
}

func tolerationSeconds(p *failover.ApplicationFailoverBehavior) int32 {
	if p != nil && p.DecisionConditions.TolerationSeconds != nil {
		return *p.DecisionConditions.TolerationSeconds
	}
	return failover.DefaultApplicationTolerationSeconds
}

// EvictionTask explains a graceful eviction task already on the binding.
func EvictionTask(t eviction.GracefulEvictionTask) Explanation {
	e := Explanation{Step: StepEviction, Cluster: t.FromCluster, Reason: ReasonEvictionInProgress,
		Message: fmt.Sprintf("evicted from cluster %s (%s, purge mode %s)", t.FromCluster, orText(t.Reason, "no reason given"), orText(string(t.PurgeMode.Normalize()), string(eviction.PurgeGracefully)))}
	if t.Message != "" && !strings.HasPrefix(t.Message, t.Reason) {
		e.Message += ": " + t.Message
	}
	if t.CreationTimestamp != nil {
		e.Since = t.CreationTimestamp.Time
	}
	return e
}

// topologySpread names the spread by a topology field that left a
// workload without a place, from the plan's reason; ok is false for any
// other reason.
func topologySpread(plan *scheduling.Plan) (field string, reason Reason, excluded []string, ok bool) {
	switch plan.Reason {
	case scheduling.ReasonRegionSpread:
		return "region", ReasonRegionSpreadBlocks, plan.RegionExcluded, true
	case scheduling.ReasonZoneSpread:
		return "zone", ReasonZoneSpreadBlocks, plan.ZoneExcluded, true
	}
	return "", "", nil, false
}

// Placement explains the re-placement of a workload that must leave the
// lost clusters: plan and err are scheduling.Replace's.
func Placement(lost []string, plan scheduling.Plan, err error) Explanation {
	e := Explanation{Step: StepPlacement}
	where := strings.Join(lost, ", ")
	if err != nil {
		e.Reason, e.Holds, e.Warning = ReasonNoFeasibleCluster, true, true
		e.Message = fmt.Sprintf("no new placement for the replicas on %s: %v", where, err)
		return e
	}
	if slices.ContainsFunc(plan.Moves, func(m scheduling.Move) bool { return m.To != "" }) {
		e.Reason, e.Message = ReasonPlacementDue, fmt.Sprintf("the workload on %s is placed elsewhere now", where)
		return e
	}
	if len(plan.Held) > 0 {
		e.Reason, e.Holds = ReasonFailoverPaused, true
		e.Message = fmt.Sprintf("dispatching to %s is suspended, which pauses its failover: the eviction from it is undone, and decided again when dispatching resumes",
			strings.Join(plan.Held, ", "))
		return e
	}
	if field, reason, excluded, ok := topologySpread(&plan); ok {
		e.Reason, e.Holds, e.Warning = reason, true, true
		if len(excluded) > 0 {
			e.Message = fmt.Sprintf("the %s spread leaves no place for the workload on %s: %s could take it but lie outside the %ss it may use, or have no %s",
				field, where, strings.Join(excluded, ", "), field, field)
		} else {
			e.Message = fmt.Sprintf("the %s spread leaves no place for the workload on %s: the clusters that could take it span fewer %ss than it needs", field, where, field)
		}
		return e
	}
	candidates := rejectedCandidates(plan.Filtered, lost)
	// A feasible cluster that already runs the workload is no place to move
	// to: had it room for more, the plan would have moved replicas there.
	elsewhere := slices.ContainsFunc(plan.Filtered.Feasible, func(n string) bool {
		return !slices.Contains(lost, n) && !slices.ContainsFunc(plan.Targets, func(t eviction.TargetCluster) bool { return t.Name == n })
	})
	if len(candidates) == 0 && !elsewhere {
		e.Reason, e.Holds, e.Warning = ReasonNoClusterLeft, true, true
		e.Message = fmt.Sprintf("the workload on %s has no other cluster to move to", where)
		return e
	}
	e.Reason, e.Holds, e.Until, e.Warning = ReasonNoFeasibleCluster, true, plan.Filtered.RetryAt, plan.Filtered.RetryAt.IsZero()
	e.Message = fmt.Sprintf("no cluster can take the workload on %s: %s", where, rejectionText(plan.Filtered, candidates))
	return e
}

func rejectedCandidates(r scheduling.Result, lost []string) []string {
	names := make([]string, 0, len(r.Rejected))
	for n := range r.Rejected {
		if !slices.Contains(lost, n) {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	return names
}

func rejectionText(r scheduling.Result, names []string) string {
	if len(names) == 0 {
		return "every other cluster already runs it"
	}
	parts := make([]string, len(names))
	for i, n := range names {
		rej := r.Rejected[n]
		s := n + ": " + rej.Filter
		if rej.Reason != "" {
			s += " (" + rej.Reason + ")"
		}
		if rej.Taint != nil {
			s += " taint " + rej.Taint.ToString()
		}
		if !rej.Until.IsZero() {
			s += " until " + rej.Until.UTC().Format(time.RFC3339)
		}
		parts[i] = s
	}
	return strings.Join(parts, "; ")
}

// Dispatch explains whether the copy for target may be dispatched: suspended
// is the suspension check and gate eviction.DispatchBlocked's answer. ok is
// false when nothing holds the dispatch and nothing was given up on.
func Dispatch(target string, suspended bool, gate eviction.DispatchGate) (e Explanation, ok bool) {
	e = Explanation{Step: StepDispatch, Cluster: target}
	switch {
	case suspended:
		e.Reason, e.Holds = ReasonDispatchSuspended, true
		e.Message = fmt.Sprintf("dispatching to cluster %s is suspended", target)
	case gate.Blocked:
		e.Reason, e.Holds, e.Until = ReasonWaitingForOldCopy, true, gate.Until
		e.Message = fmt.Sprintf("the new copy on cluster %s waits until the old copy on cluster %s is gone (purge mode Directly)", target, gate.BlockedBy)
	case gate.Escaped && !gate.Fenced:
		e.Reason, e.Warning = ReasonOldCopyEscaped, true
		e.Message = fmt.Sprintf("the new copy on cluster %s is dispatched: an unreachable old cluster was given up on; it cannot fence itself, so its copy may still run behind a partition", target)
	case gate.Escaped:
		e.Reason = ReasonOldCopyFenced
		e.Message = fmt.Sprintf("the new copy on cluster %s is dispatched: the unreachable old cluster fences itself, and its fence is over", target)
	default:
		return e, false
	}
	return e, true
}

// State explains which preserved state policy injects into the copy on
// target (preservation.InjectionPolicy.StateFor), or why none.
func State(target string, targets []eviction.TargetCluster, tasks []eviction.GracefulEvictionTask, policy preservation.InjectionPolicy) Explanation {
	e := Explanation{Step: StepState, Cluster: target}
	carrier := eviction.StateCarrier(target, tasks)
	if carrier == nil {
		e.Reason, e.Message = ReasonNoStateToCarry, fmt.Sprintf("no preserved state applies to cluster %s", target)
		return e
	}
	if state, ok := policy.StateFor(target, targets, tasks); ok {
		e.Reason = ReasonStateCarried
		e.Message = fmt.Sprintf("the copy on cluster %s gets the state preserved from cluster %s (%s)", target, carrier.FromCluster, strings.Join(sortedKeys(state), ", "))
		return e
	}
	// Relaxing one rule at a time tells which one withheld the state, with
	// StateFor itself deciding: the rules are not repeated here.
	// A withheld state holds the workload: its new copy would start from
	// scratch, which is what the binding's condition reports.
	e.Holds = true
	if _, ok := (preservation.InjectionPolicy{WhileOldCopyRuns: true, IntoSeveralTargets: policy.IntoSeveralTargets}).StateFor(target, targets, tasks); ok {
		e.Reason, e.Warning = ReasonStateWhileOldCopyRuns, true
		e.Message = fmt.Sprintf("the state from cluster %s is not injected on cluster %s: the old copy may still run (purge mode %s); set InjectionPolicy.WhileOldCopyRuns or purge Directly", carrier.FromCluster, target, carrier.PurgeMode.Normalize())
		return e
	}
	e.Reason, e.Warning = ReasonStateSeveralTargets, true
	e.Message = fmt.Sprintf("the state from cluster %s is not injected on cluster %s: it would reach several new copies; set InjectionPolicy.IntoSeveralTargets to allow it", carrier.FromCluster, target)
	return e
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// GracefulEviction explains an assessment (eviction.Assess): one explanation
// per task removed or kept. A kept task holds the old copy, not the new one.
func GracefulEviction(a eviction.Assessment) []Explanation {
	out := make([]Explanation, 0, len(a.Removed)+len(a.Kept))
	for _, r := range a.Removed {
		out = append(out, Explanation{Step: StepGracefulEviction, Cluster: r.Task.FromCluster, Reason: ReasonGracefulEvictionDone,
			Message: fmt.Sprintf("the old copy on cluster %s may go now (%s)", r.Task.FromCluster, r.Reason)})
	}
	for _, t := range a.Kept {
		e := Explanation{Step: StepGracefulEviction, Cluster: t.FromCluster, Holds: true}
		if t.CreationTimestamp != nil {
			e.Since = t.CreationTimestamp.Time
		}
		if t.SuppressDeletion != nil && *t.SuppressDeletion {
			e.Reason, e.Warning = ReasonOldCopyKeptUntilRemoved, true
			e.Message = fmt.Sprintf("the old copy on cluster %s stays until a person removes its eviction task (purge mode Never)", t.FromCluster)
		} else {
			e.Reason, e.Until = ReasonWaitingForReplacement, a.NextAssessment
			e.Message = fmt.Sprintf("the old copy on cluster %s is kept until the new copies are healthy or its grace period ends", t.FromCluster)
			if t.PurgeMode.Normalize() == eviction.PurgeDirectly {
				e.Message = fmt.Sprintf("the eviction task from cluster %s keeps the preserved state until its old copy is gone and the new copies run", t.FromCluster)
			}
		}
		out = append(out, e)
	}
	return out
}

// ClusterTaints explains a taint computation (failover.ComputeClusterTaints)
// for cluster: what it adds and removes, and when the taints change next
// without new input (the NoExecute timeout).
func ClusterTaints(cluster string, diff failover.ClusterTaintDiff) Explanation {
	e := Explanation{Step: StepTaints, Cluster: cluster, Until: diff.NextCheck}
	if !diff.Changed {
		e.Reason = ReasonTaintsUnchanged
		e.Message = fmt.Sprintf("the taints of cluster %s stay as they are", cluster)
	} else {
		e.Reason = ReasonTaintsChanged
		e.Message = fmt.Sprintf("cluster %s gains [%s] and loses [%s]", cluster, taintList(diff.ToAdd), taintList(diff.ToRemove))
	}
	if !diff.NextCheck.IsZero() {
		e.Message += "; the next taint is due by itself"
	}
	return e
}

func taintList(ts []corev1.Taint) string {
	parts := make([]string, len(ts))
	for i := range ts {
		parts[i] = ts[i].ToString()
	}
	return strings.Join(parts, ", ")
}

// Evict explains eviction.Evict's outcome for cluster.
func Evict(cluster string, res eviction.EvictResult) Explanation {
	e := Explanation{Step: StepEviction, Cluster: cluster}
	switch res.Outcome {
	case eviction.EvictTaskAdded:
		e.Reason = ReasonEvictionTaskAdded
		e.Message = fmt.Sprintf("the workload leaves cluster %s; a graceful eviction task keeps its old copy until it may go", cluster)
	case eviction.EvictAlreadyInProgress:
		e.Reason = ReasonEvictionAlreadyQueued
		e.Message = fmt.Sprintf("the workload is already leaving cluster %s; its task is kept (new preserved state merged in)", cluster)
	case eviction.EvictNotPlaced:
		e.Reason = ReasonEvictionNotPlaced
		e.Message = fmt.Sprintf("the workload does not run on cluster %s, so there is nothing to evict", cluster)
	default:
		// No outcome: Evict returned an error (the zero EvictResult).
		return EvictFailed(cluster, nil)
	}
	return e
}

// EvictFailed explains an eviction eviction.Evict refused with err (an
// eviction.InvalidEvictionError for the zero Eviction or a task that does
// not validate): nothing changed, and the same eviction will be refused
// again. A nil err stands for an error not at hand.
func EvictFailed(cluster string, err error) Explanation {
	e := Explanation{Step: StepEviction, Cluster: cluster, Reason: ReasonInvalidEviction, Holds: true, Warning: true,
		Message: "the eviction was refused and nothing changed"}
	if cluster != "" {
		e.Message = fmt.Sprintf("the eviction from cluster %s was refused and nothing changed", cluster)
	}
	if err != nil {
		e.Message += ": " + err.Error()
	}
	return e
}

// Filters explains a filter run (scheduling.RunFilters): one explanation per
// rejected cluster, in name order, with the filter that ruled it out and
// when that lapses.
func Filters(res scheduling.Result) []Explanation {
	names := make([]string, 0, len(res.Rejected))
	for n := range res.Rejected {
		names = append(names, n)
	}
	slices.Sort(names)
	out := make([]Explanation, len(names))
	for i, n := range names {
		rej := res.Rejected[n]
		out[i] = Explanation{Step: StepFilter, Cluster: n, Reason: ReasonClusterFiltered, Until: rej.Until,
			Message: "cluster " + rejectionText(res, []string{n})}
	}
	return out
}
