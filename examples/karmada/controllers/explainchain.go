package controllers

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"

	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	workv1alpha1 "github.com/karmada-io/api/work/v1alpha1"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/scheduling"
	"github.com/fleetover/fleetover/suspension"
)

// Reason codes of the explanation's steps.
const (
	ReasonSettled               = "Settled"
	ReasonInvalidFailoverPolicy = "InvalidFailoverPolicy"
	ReasonClusterNotFound       = "ClusterNotFound"
	ReasonClusterNotReady       = "ClusterNotReady"
	ReasonFailoverPaused        = "FailoverPaused"
	ReasonToleratedForever      = "TaintToleratedForever"
	ReasonTolerationNotExpired  = "TolerationNotExpired"
	ReasonClusterFailoverOff    = "ClusterFailoverDisabled"
	ReasonFullDisruption        = "FullDisruption"
	ReasonEvictionPaced         = "EvictionPaced"
	ReasonEvictionDue           = "EvictionDue"
	ReasonNoFeasibleCluster     = "NoFeasibleCluster"
	ReasonPlacementDue          = "PlacementDue"
	ReasonWaitingForOldCopy     = "WaitingForOldCopy"
	ReasonWaitingForReplacement = "WaitingForHealthyReplacement"
	ReasonGracefulEvictionDone  = "GracefulEvictionDone"

	ReasonApplicationFailoverOff          = "ApplicationFailoverDisabled"
	ReasonApplicationPreConditionsPending = "PreConditionsPending"
	ReasonApplicationTolerationNotExpired = "UnhealthyTolerationNotExpired"
	ReasonApplicationEvictionDue          = "ApplicationEvictionDue"
)

// Step names of the explanation, in chain order.
const (
	StepPolicy           = "Policy"
	StepClusterHealth    = "ClusterHealth"
	StepToleration       = "Toleration"
	StepApplication      = "ApplicationHealth"
	StepEviction         = "Eviction"
	StepPlacement        = "Placement"
	StepDispatch         = "Dispatch"
	StepGracefulEviction = "GracefulEviction"
	StepWorkload         = "Workload"
)

// chainOf fills ex with the chain of f: for each target cluster its health
// and the toleration decision of its NoExecute taints, then the evictions
// under way, the new placement, the dispatch gate and the graceful
// eviction's assessment. The first step that holds the workload is
// ex.Holding.
func chainOf(ex *Explanation, f *explainFacts, cfg ExplainConfig, now time.Time) {
	spec, status := bindingSpec(f.binding), bindingStatus(f.binding)
	add := func(s ExplanationStep, holds, warning bool) {
		ex.Steps = append(ex.Steps, s)
		if holds && ex.Holding < 0 {
			ex.Holding, ex.Warning = len(ex.Steps)-1, warning
			ex.NextChange = s.Until
		}
	}
	if f.policyErr != nil {
		add(ExplanationStep{Step: StepPolicy, Reason: ReasonInvalidFailoverPolicy,
			Message: fmt.Sprintf("the failover policy is invalid, no failover decision is taken: %v", f.policyErr)}, true, true)
		return
	}
	byName := make(map[string]*clusterv1alpha1.Cluster, len(f.clusters))
	for i := range f.clusters {
		byName[f.clusters[i].Name] = &f.clusters[i]
	}
	var tolerations []corev1.Toleration
	if spec.Placement != nil {
		tolerations = spec.Placement.ClusterTolerations
	}
	tolerations = failover.AddDefaultClusterTolerations(tolerations, cfg.DefaultTolerations)
	susp := toSuspension(spec.Suspension)

	for _, tc := range spec.Clusters {
		cl := byName[tc.Name]
		if cl == nil {
			add(ExplanationStep{Step: StepClusterHealth, Reason: ReasonClusterNotFound,
				Message: fmt.Sprintf("target cluster %s does not exist", tc.Name)}, true, true)
			continue
		}
		noExecute := slices.ContainsFunc(cl.Spec.Taints, func(t corev1.Taint) bool { return t.Effect == corev1.TaintEffectNoExecute })
		if ready := meta.FindStatusCondition(cl.Status.Conditions, clusterv1alpha1.ClusterConditionReady); ready != nil && ready.Status != "True" {
			msg := fmt.Sprintf("cluster %s is not ready (%s: %s)", cl.Name, ready.Reason, ready.Message)
			if !noExecute {
				msg += "; it carries no NoExecute taint, so nothing evicts the workload from it"
			}
			add(ExplanationStep{Step: StepClusterHealth, Reason: ReasonClusterNotReady, Message: msg, Since: ready.LastTransitionTime.Time}, !noExecute, false)
		}
		if !noExecute {
			continue
		}
		d := cfg.Tolerations.Evaluate(cl.Spec.Taints, tolerations, now)
		step := ExplanationStep{Step: StepToleration}
		if d.Taint != nil && d.Taint.TimeAdded != nil {
			step.Since = d.Taint.TimeAdded.Time
		}
		switch {
		case suspension.FailoverPaused(susp, cl.Name):
			step.Reason, step.Message = ReasonFailoverPaused, fmt.Sprintf("dispatching to cluster %s is suspended, which pauses its failover", cl.Name)
			add(step, true, false)
		case d.Action == failover.TolerateForever:
			step.Reason, step.Message = ReasonToleratedForever, fmt.Sprintf("the workload tolerates the NoExecute taints of cluster %s without a time limit, so it is never evicted from it", cl.Name)
			add(step, true, true)
		case d.Action == failover.EvictAfter:
			step.Reason, step.Until = ReasonTolerationNotExpired, d.At
			step.Message = fmt.Sprintf("the workload tolerates taint %s of cluster %s until %s", d.Taint.ToString(), cl.Name, d.At.UTC().Format(time.RFC3339))
			add(step, true, false)
		case !cfg.ClusterFailover:
			step.Reason = ReasonClusterFailoverOff
			step.Message = fmt.Sprintf("taint %s of cluster %s is not tolerated, but cluster failover is off (the taint manager does not run: Failover gate, --enable-taint-manager, --enable-no-execute-taint-eviction)", d.Taint.ToString(), cl.Name)
			add(step, true, true)
		default:
			zone := clusterZone(cl)
			var state eviction.DisruptionState
			var when time.Time
			if cfg.Pacer != nil {
				state = cfg.Pacer.State(zone)
				if at, ok := cfg.Pacer.When(zone); ok {
					when = at
				}
			}
			switch {
			case state.Mode == eviction.DisruptionFull:
				step.Reason = ReasonFullDisruption
				step.Message = fmt.Sprintf("taint %s of cluster %s is not tolerated, but every cluster is unhealthy: no eviction while the whole fleet is down (%s)", d.Taint.ToString(), cl.Name, state.Message)
				add(step, true, false)
			case when.After(now):
				step.Reason, step.Until, step.Passing = ReasonEvictionPaced, when, true
				step.Message = fmt.Sprintf("taint %s of cluster %s is not tolerated; the eviction waits for the fleet's eviction rate until %s", d.Taint.ToString(), cl.Name, when.UTC().Format(time.RFC3339))
				add(step, true, false)
			default:
				step.Reason, step.Until, step.Passing = ReasonEvictionDue, now, true
				step.Message = fmt.Sprintf("taint %s of cluster %s is not tolerated: the workload is evicted from it now", d.Taint.ToString(), cl.Name)
				add(step, true, false)
			}
		}
	}

	if f.policy != nil && f.policy.Application != nil {
		applicationSteps(f, cfg, now, add)
	}

	tasks := toTasks(spec.GracefulEvictionTasks)
	for _, t := range tasks {
		s := ExplanationStep{Step: StepEviction, Reason: t.Reason,
			Message: fmt.Sprintf("evicted from cluster %s (purge mode %s): %s", t.FromCluster, t.PurgeMode, t.Message)}
		if t.CreationTimestamp != nil {
			s.Since = t.CreationTimestamp.Time
		}
		add(s, false, false)
	}

	if lost := lostClusters(spec); len(lost) > 0 {
		fleet := make([]scheduling.Cluster, len(f.clusters))
		for i := range f.clusters {
			cl := &f.clusters[i]
			fleet[i] = scheduling.Cluster{Name: cl.Name, Taints: cl.Spec.Taints, Labels: cl.Labels}
		}
		history, _ := decodeEvictionHistory(f.binding.GetAnnotations())
		plan, _, err := replaceLost(f.binding.DeepCopyObject().(client.Object), fleet, history, blockSeconds(f.policy), cfg.DefaultTolerations, cfg.Tolerations, now)
		// Replace reports a change also when it only drops the evicted
		// clusters; a placement is due when a cluster takes replicas.
		placed := slices.ContainsFunc(plan.Moves, func(m scheduling.Move) bool { return m.To != "" })
		s := ExplanationStep{Step: StepPlacement}
		switch {
		case err != nil:
			s.Reason, s.Message = ReasonNoFeasibleCluster, fmt.Sprintf("no new placement for %s: %v", strings.Join(lost, ", "), err)
			add(s, true, true)
		case placed:
			s.Reason, s.Until, s.Passing = ReasonPlacementDue, now, true
			s.Message = fmt.Sprintf("the scheduler places the workload lost on %s now", strings.Join(lost, ", "))
			add(s, true, false)
		default:
			s.Reason, s.Until = ReasonNoFeasibleCluster, plan.Filtered.RetryAt
			s.Message = fmt.Sprintf("no cluster can take the workload lost on %s: %s", strings.Join(lost, ", "), rejections(plan.Filtered, lost))
			add(s, true, plan.Filtered.RetryAt.IsZero())
		}
	}

	old := oldCopiesFrom(f.works, byName)
	for _, tc := range spec.Clusters {
		if slices.ContainsFunc(f.works, func(w workv1alpha1.Work) bool { return w.Namespace == ExecutionNamespace(tc.Name) }) {
			continue
		}
		if g := eviction.DispatchBlocked(tc.Name, tasks, old, now, cfg.Assess); g.Blocked {
			s := ExplanationStep{Step: StepDispatch, Reason: ReasonWaitingForOldCopy, Until: g.Until,
				Message: fmt.Sprintf("the new copy on cluster %s waits until the old copy on cluster %s is gone (purge mode Directly)", tc.Name, g.BlockedBy)}
			add(s, true, false)
		}
	}

	if len(tasks) > 0 {
		a := eviction.Assess(eviction.AssessInput{
			Tasks: tasks, Targets: toTargets(spec.Clusters),
			SchedulerBehind: status.SchedulerObservedGeneration != f.binding.GetGeneration(),
			Health:          aggregatedHealth(status), OldCopies: old, Now: now,
		}, cfg.Assess)
		for _, r := range a.Removed {
			add(ExplanationStep{Step: StepGracefulEviction, Reason: ReasonGracefulEvictionDone, Until: now, Passing: true,
				Message: fmt.Sprintf("the old copy on cluster %s may go now (%s)", r.Task.FromCluster, r.Reason)}, true, false)
		}
		for _, t := range a.Kept {
			add(ExplanationStep{Step: StepGracefulEviction, Reason: ReasonWaitingForReplacement, Until: a.NextAssessment,
				Message: fmt.Sprintf("the old copy on cluster %s is kept until the new copies are healthy or its grace period ends", t.FromCluster)}, true, false)
		}
	}

	if ex.Holding < 0 {
		add(ExplanationStep{Step: StepWorkload, Reason: ReasonSettled,
			Message: fmt.Sprintf("the workload runs on %s; nothing holds it", strings.Join(targetNames(spec), ", "))}, false, false)
	}
}

// rejections says why each candidate (a rejected cluster other than the
// evicted ones) was ruled out.
func rejections(r scheduling.Result, evicted []string) string {
	names := make([]string, 0, len(r.Rejected))
	for n := range r.Rejected {
		if !slices.Contains(evicted, n) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "no other cluster exists"
	}
	slices.Sort(names)
	parts := make([]string, len(names))
	for i, n := range names {
		rej := r.Rejected[n]
		why := rej.Reason
		if rej.Taint != nil {
			why += " (" + rej.Taint.ToString() + ")"
		}
		if !rej.Until.IsZero() {
			why += " until " + rej.Until.UTC().Format(time.RFC3339)
		}
		parts[i] = fmt.Sprintf("%s: %s %s", n, rej.Filter, why)
	}
	return strings.Join(parts, "; ")
}

// oldCopiesFrom is oldCopies on what the explanation already read: the
// binding's Works and the clusters by name.
func oldCopiesFrom(works []workv1alpha1.Work, clusters map[string]*clusterv1alpha1.Cluster) eviction.OldCopyLookup {
	return eviction.OldCopyLookupFunc(func(cluster string) eviction.OldCopy {
		i := slices.IndexFunc(works, func(w workv1alpha1.Work) bool { return w.Namespace == ExecutionNamespace(cluster) })
		if i < 0 {
			return eviction.OldCopy{Gone: true}
		}
		var old eviction.OldCopy
		if ts := works[i].DeletionTimestamp; ts != nil {
			old.DeletingSince = ts.Time
		}
		if cl := clusters[cluster]; cl != nil {
			old.Unreachable = slices.ContainsFunc(cl.Spec.Taints, func(t corev1.Taint) bool { return t.Key == clusterv1alpha1.TaintClusterUnreachable })
		}
		return old
	})
}

// applicationSteps explains application failover on each target cluster
// where the workload is unhealthy: the detector's decision on the records
// and observations the application failover controller keeps (a dry run:
// the detector is a pure function of them).
func applicationSteps(f *explainFacts, cfg ExplainConfig, now time.Time, add func(ExplanationStep, bool, bool)) {
	spec, status := bindingSpec(f.binding), bindingStatus(f.binding)
	policy := f.policy.Application
	obs, _ := decodeStatusObservations(f.binding.GetAnnotations())
	items := make([]statusItem, len(status.AggregatedStatus))
	for i, it := range status.AggregatedStatus {
		items[i] = statusItem{cluster: it.ClusterName, healthy: it.Health == "Healthy"}
	}
	obs = observeStatus(obs, items, now)
	records, _ := decodeRecords(f.binding.GetAnnotations())
	healths := (&ApplicationFailoverController{Health: cfg.Health}).workloadHealth(spec, status, obs)
	clusters := make([]string, 0, len(spec.Clusters))
	for _, name := range targetNames(spec) {
		if !suspension.FailoverPaused(toSuspension(spec.Suspension), name) {
			clusters = append(clusters, name)
		}
	}
	det, err := failover.DetectApplicationFailure(failover.DetectorInput{Policy: policy, Clusters: clusters, Health: healths, Records: records}, now, cfg.Detector)
	if err != nil {
		add(ExplanationStep{Step: StepPolicy, Reason: ReasonInvalidFailoverPolicy,
			Message: fmt.Sprintf("the application failover policy is invalid: %v", err)}, true, true)
		return
	}
	toleration := failover.DefaultApplicationTolerationSeconds
	if policy.DecisionConditions.TolerationSeconds != nil {
		toleration = *policy.DecisionConditions.TolerationSeconds
	}
	for _, cluster := range clusters {
		i := slices.IndexFunc(healths, func(h failover.ObservedHealth) bool { return h.ClusterName == cluster })
		if i < 0 || healths[i].Status != "Unhealthy" {
			continue
		}
		step := ExplanationStep{Step: StepApplication}
		r := slices.IndexFunc(det.Records, func(r failover.WorkloadHealthRecord) bool { return r.ClusterName == cluster })
		switch {
		case !cfg.ApplicationFailover:
			step.Reason = ReasonApplicationFailoverOff
			step.Message = fmt.Sprintf("the workload is unhealthy on cluster %s, but the application failover controller does not run", cluster)
			add(step, true, true)
		case slices.ContainsFunc(det.Evictions, func(e failover.ApplicationEviction) bool { return e.FromCluster == cluster }):
			step.Reason, step.Until, step.Passing = ReasonApplicationEvictionDue, now, true
			step.Message = fmt.Sprintf("the workload stayed unhealthy on cluster %s past its toleration: it is evicted now", cluster)
			add(step, true, false)
		case r >= 0 && det.Records[r].FailingSince != nil:
			since := det.Records[r].FailingSince.Time
			step.Reason, step.Since, step.Until = ReasonApplicationTolerationNotExpired, since, since.Add(time.Duration(toleration)*time.Second)
			step.Message = fmt.Sprintf("the workload is unhealthy on cluster %s; it is evicted if it stays so until %s", cluster, step.Until.UTC().Format(time.RFC3339))
			add(step, true, false)
		default:
			step.Reason, step.Until = ReasonApplicationPreConditionsPending, det.NextCheck
			step.Message = fmt.Sprintf("the workload is unhealthy on cluster %s, but the policy's preconditions (delaySeconds after the first status, a healthy state seen once) are not met, so no countdown runs", cluster)
			add(step, true, false)
		}
	}
}
