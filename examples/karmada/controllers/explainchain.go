package controllers

import (
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	workv1alpha1 "github.com/karmada-io/api/work/v1alpha1"

	"github.com/fleetover/fleetover/examples/karmada/carrier"
	"github.com/fleetover/fleetover/fencing"
	"github.com/fleetover/fleetover/why"
)

// Reason codes and step names of the explanation: the library's (package
// why, docs/reasons.md), as the strings the Failover condition carries.
const (
	ReasonSettled                         = string(why.ReasonSettled)
	ReasonInvalidFailoverPolicy           = string(why.ReasonInvalidFailoverPolicy)
	ReasonClusterFailoverOff              = string(why.ReasonClusterFailoverOff)
	ReasonTolerationNotExpired            = string(why.ReasonTolerationNotExpired)
	ReasonEvictionDue                     = string(why.ReasonEvictionDue)
	ReasonNoFeasibleCluster               = string(why.ReasonNoFeasibleCluster)
	ReasonSchedulingSuspended             = string(why.ReasonSchedulingSuspended)
	ReasonWaitingForOldCopy               = string(why.ReasonWaitingForOldCopy)
	ReasonWaitingForReplacement           = string(why.ReasonWaitingForReplacement)
	ReasonApplicationTolerationNotExpired = string(why.ReasonUnhealthyNotExpired)

	StepApplication      = string(why.StepApplicationHealth)
	StepDispatch         = string(why.StepDispatch)
	StepEviction         = string(why.StepEviction)
	StepGracefulEviction = string(why.StepGracefulEviction)
	StepPlacement        = string(why.StepPlacement)
	StepToleration       = string(why.StepToleration)
	StepWorkload         = string(why.StepWorkload)
)

// chainOf fills ex with the library's chain for f (why.Workload on what
// the controllers hold). A step a controller is acting on right now (an
// eviction due or paced, a placement, a task's removal) holds the binding
// as a passing step: it is shown, and the condition waits for that
// controller's write. The first holding or passing step is ex.Holding.
func chainOf(ex *Explanation, f *explainFacts, cfg ExplainConfig, now time.Time) {
	if f.policyErr != nil {
		ex.Steps = append(ex.Steps, ExplanationStep{Step: string(why.StepPolicy), Reason: ReasonInvalidFailoverPolicy,
			Message: fmt.Sprintf("the failover policy is invalid, no failover decision is taken: %v", f.policyErr)})
		ex.Holding, ex.Warning = 0, true
		return
	}
	chain := why.Workload(whyInput(f, cfg, now))
	for i, s := range chain.Steps {
		step := ExplanationStep{Step: string(s.Step), Reason: string(s.Reason), Message: s.Message, Since: s.Since, Until: s.Until,
			Passing: actingNow(chain.Steps, i)}
		if g, ok := karmadaGate(s.Reason); ok {
			step.Message += " (" + g + ")"
		}
		ex.Steps = append(ex.Steps, step)
		if (s.Holds || step.Passing) && ex.Holding < 0 {
			ex.Holding, ex.Warning, ex.NextChange = len(ex.Steps)-1, s.Warning, s.Until
		}
	}
	if ex.Holding < 0 {
		ex.NextChange = chain.NextChange
	}
}

// karmadaGate names, for a step held by a controller that does not run,
// the Karmada settings that turn it on.
func karmadaGate(r why.Reason) (string, bool) {
	switch r {
	case why.ReasonClusterFailoverOff:
		return "the taint manager does not run: Karmada's Failover gate, --enable-taint-manager, --enable-no-execute-taint-eviction", true
	case why.ReasonApplicationFailoverOff:
		return "the application failover controller does not run: --controllers applicationFailover", true
	}
	return "", false
}

// actingNow reports that steps[i] is a decision a controller carries out
// now.
func actingNow(steps []why.Explanation, i int) bool {
	switch steps[i].Reason {
	case why.ReasonEvictionDue, why.ReasonEvictionPaced, why.ReasonPlacementDue, why.ReasonGracefulEvictionDone, why.ReasonApplicationEvictionDue:
		return true
	}
	return false
}

// whyInput is what the controllers hold about the binding of f, in the
// shape why.Workload reads.
func whyInput(f *explainFacts, cfg ExplainConfig, now time.Time) why.Input {
	spec, status := bindingSpec(f.binding), bindingStatus(f.binding)
	fl := newFleet(f.clusters)
	in := why.Input{
		Targets:             toTargets(spec.Clusters),
		Tasks:               toTasks(spec.GracefulEvictionTasks),
		Policy:              f.policy,
		TolerationOptions:   cfg.Tolerations,
		Gates:               why.Gates{ClusterFailoverOff: !cfg.ClusterFailover, ApplicationFailoverOff: !cfg.ApplicationFailover},
		Pacer:               cfg.Pacer,
		Suspension:          toSuspension(spec.Suspension),
		TargetHealth:        aggregatedHealth(status),
		SchedulerBehind:     status.SchedulerObservedGeneration != f.binding.GetGeneration(),
		SchedulingSuspended: spec.SchedulingSuspended(),
		Assess:              cfg.Assess,
		Dispatched:          []string{},
		Now:                 now,
	}
	for i := range f.clusters {
		cl := &f.clusters[i]
		in.Clusters = append(in.Clusters, why.Cluster{Name: cl.Name, Zone: clusterZone(cl), Conditions: cl.Status.Conditions, Taints: cl.Spec.Taints})
	}
	var tolerations []corev1.Toleration
	if spec.Placement != nil {
		tolerations = spec.Placement.ClusterTolerations
	}
	defaults := defaultTolerations{config: cfg.DefaultTolerations, none: cfg.NoDefaultTolerations}
	in.Tolerations = defaults.add(tolerations)
	history, _ := carrier.DecodeEvictionHistory(f.binding.GetAnnotations())
	// The group in use, then the later groups of clusterAffinities, as
	// the scheduler tries them.
	for i, term := range affinityTerms(spec.Placement, status.SchedulerObservedAffinityName) {
		req := termRequest(f.binding, fl, term, history, blockSeconds(f.policy), defaults, cfg.Tolerations, now)
		if i == 0 {
			in.Placement = req
		} else {
			in.Alternatives = append(in.Alternatives, req)
		}
	}
	// The clusters are read already: no Get per old copy.
	in.OldCopies = oldCopiesOf(f.works, in.Tasks, func(cluster string) bool {
		cl := fl.cluster(cluster)
		return cl != nil && unreachableCluster(cl)
	})
	for _, tc := range spec.Clusters {
		if slices.ContainsFunc(f.works, func(w workv1alpha1.Work) bool { return w.Namespace == ExecutionNamespace(tc.Name) }) {
			in.Dispatched = append(in.Dispatched, tc.Name)
		}
	}
	if f.policy != nil && f.policy.Application != nil {
		obs, _ := decodeStatusObservations(f.binding.GetAnnotations())
		obs = observeStatus(obs, statusItems(status), now)
		in.Application.Records, _ = decodeRecords(f.binding.GetAnnotations())
		in.Application.Health = (&ApplicationFailoverController{Health: cfg.Health}).workloadHealth(spec, status, obs)
		in.Application.Config = cfg.Detector
		// Health the member already reported is read as it is; the
		// registry only matters for a kind it cannot interpret.
		in.Application.Registry = cfg.Health
		in.Application.Kind = schema.FromAPIVersionAndKind(spec.Resource.APIVersion, spec.Resource.Kind)
	}
	return in
}

// policyWarnings are why.Warnings for the binding of f under the
// controllers' settings: what in its policy, tolerations or placement keeps
// failover from ever firing.
func policyWarnings(f *explainFacts, cfg ExplainConfig, now time.Time) []why.Warning {
	in := whyInput(f, cfg, now)
	spec := field.NewPath("spec")
	req := *in.Placement
	req.Targets = in.Targets
	return why.Warnings(why.PolicyInput{
		Policy: f.policy, Path: spec.Child("failover"),
		Tolerations: in.Tolerations, TolerationsPath: spec.Child("placement", "clusterTolerations"), TolerationOptions: in.TolerationOptions,
		Kind: in.Application.Kind, Registry: in.Application.Registry, Gates: in.Gates,
		Placement: &req, PlacementPath: spec.Child("placement"), Alternatives: in.Alternatives,
		MembersFence: membersFence(f.clusters),
	})
}

// membersFence reports whether every cluster of the fleet fences itself: a
// Pull-mode cluster whose agent declares a valid fence. A Push cluster
// cannot (nothing of the control plane runs there), so a stateful workload
// purged Directly gets why's DirectlyEscapeWithoutFence warning.
func membersFence(clusters []clusterv1alpha1.Cluster) bool {
	for i := range clusters {
		fa, err := fencing.Declared(clusters[i].Annotations)
		if clusters[i].Spec.SyncMode != clusterv1alpha1.Pull || err != nil || fa == 0 {
			return false
		}
	}
	return len(clusters) > 0
}
