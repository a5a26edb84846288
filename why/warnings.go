package why

import (
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/preservation"
	"github.com/fleetover/fleetover/scheduling"
)

// Warning is a policy setting that makes failover a silent no-op: valid, but
// the failover it asks for can never fire, or fires without what it asks
// for.
type Warning struct {
	// Field is the path of the setting, as in field.Error.
	Field  string
	Reason Reason
	// Message says what will (not) happen and what to change.
	Message string
}

// String renders the warning as "field: message (Reason)".
func (w Warning) String() string { return fmt.Sprintf("%s: %s (%s)", w.Field, w.Message, w.Reason) }

// PolicyInput is a workload's failover policy and the controller settings
// it runs under.
type PolicyInput struct {
	// Policy is the failover behaviour, found at Path (for example
	// spec.failover of a PropagationPolicy).
	Policy *failover.FailoverBehavior
	Path   *field.Path
	// Tolerations are the workload's cluster tolerations with the
	// controller's defaults added, found at TolerationsPath, decided under
	// TolerationOptions.
	Tolerations       []corev1.Toleration
	TolerationsPath   *field.Path
	TolerationOptions failover.TolerationOptions
	// Kind is the workload's kind and Registry the controller's health
	// interpreters; nil Registry skips the interpreter check.
	Kind     schema.GroupVersionKind
	Registry *health.Registry
	Gates    Gates
	// Placement, when set, is the workload's placement as the scheduler
	// sees it (Workload, Clusters, Filters, Targets), found at
	// PlacementPath; nil skips the check for a cluster to move to.
	Placement     *scheduling.Request
	PlacementPath *field.Path
	// Alternatives are the later placements the scheduler would try when
	// Placement has no room (Input.Alternatives): a cluster one of them
	// lets in is a place to move to as well. A nil entry offers no room.
	Alternatives []*scheduling.Request
	// MembersFence reports that every cluster the workload may run on
	// fences itself (package fencing). While false, the zero value, a
	// stateful workload failing over Directly gets the
	// DirectlyEscapeWithoutFence warning (failover.WarningsForUnfencedMembers).
	MembersFence bool
	// ClusterTaints is how the controller taints clusters; nil skips the
	// check. Given, cluster failover on (Gates) and nothing that adds a
	// NoExecute taint to a cluster whose Ready is False or Unknown (no
	// timed health taint, no matching ClusterTaintPolicy, as in Karmada by
	// default), the NoNoExecuteTaintSource warning names the
	// ClusterTaintPolicy to create.
	ClusterTaints *failover.ClusterTaintConfig
}

// Warnings returns the settings of in whose failover can never fire, each
// with its field and reason code, in a stable order. A nil Path is
// "failover", a nil TolerationsPath "placement.clusterTolerations", a nil
// PlacementPath "placement".
func Warnings(in PolicyInput) []Warning {
	fp := orPath(in.Path, "failover")
	var out []Warning
	warn := func(p *field.Path, r Reason, format string, args ...any) {
		out = append(out, Warning{Field: p.String(), Reason: r, Message: fmt.Sprintf(format, args...)})
	}
	if fb := in.Policy; fb != nil {
		if fb.Application != nil {
			ap := fp.Child("application")
			if in.Gates.ApplicationFailoverOff {
				warn(ap, ReasonApplicationFailoverOff, "application failover is off in the controller, so this policy never evicts")
			}
			if in.Registry != nil && !registered(in.Registry, in.Kind) {
				warn(ap, ReasonNoHealthInterpreter, "no health interpreter is registered for %s, so its health is never known and application failover never fires; register one (Go, CEL, Lua or a ResourceInterpreterCustomization)", kindText(in.Kind))
			}
			neverWithState(fb.Application.PurgeMode, fb.Application.StatePreservation, ap, warn)
			if !in.MembersFence {
				escapeWithoutFence(fb.Application.PurgeMode, fb.Application.StatePreservation, ap, warn)
			}
		}
		if fb.Cluster != nil {
			cp := fp.Child("cluster")
			if in.Gates.ClusterFailoverOff {
				warn(cp, ReasonClusterFailoverOff, "cluster failover is off in the controller, so this policy never evicts")
			}
			neverWithState(fb.Cluster.PurgeMode, fb.Cluster.StatePreservation, cp, warn)
			if !in.MembersFence {
				escapeWithoutFence(fb.Cluster.PurgeMode, fb.Cluster.StatePreservation, cp, warn)
			}
		}
	}
	if cfg := in.ClusterTaints; cfg != nil && !in.Gates.ClusterFailoverOff && !evictsOnFailure(*cfg) {
		warn(fp, ReasonNoNoExecuteTaintSource, "nothing adds a NoExecute taint to a cluster that is not ready (the cluster controller adds NoSchedule only), so no cluster failure evicts this workload; create a ClusterTaintPolicy: %s", ClusterTaintPolicyHint)
	}
	if StatefulKind(in.Kind) {
		fb := in.Policy
		if fb == nil || fb.Cluster == nil || fb.Cluster.StatePreservation == nil || len(fb.Cluster.StatePreservation.Rules) == 0 {
			warn(fp.Child("cluster", "statePreservation"), ReasonNoStateToCarry, "a %s that fails over with a cluster restarts from scratch: no statePreservation carries its job; add rules such as {aliasLabelName: failover.fleetover.io/jobid, jsonPath: \"{ .jobStatus.jobId }\"} with purgeMode Directly", in.Kind.Kind)
		}
		if fb != nil && fb.Application != nil && (fb.Application.StatePreservation == nil || len(fb.Application.StatePreservation.Rules) == 0) {
			warn(fp.Child("application", "statePreservation"), ReasonNoStateToCarry, "a %s that fails over on its own health restarts from scratch: no statePreservation carries its job; add rules as for cluster failover", in.Kind.Kind)
		}
	}
	tp := orPath(in.TolerationsPath, "placement", "clusterTolerations")
	for _, key := range []string{failover.TaintKeyClusterNotReady, failover.TaintKeyClusterUnreachable} {
		taint := corev1.Taint{Key: key, Effect: corev1.TaintEffectNoExecute, TimeAdded: &metav1.Time{Time: time.Unix(0, 0)}}
		if i := in.TolerationOptions.FirstTolerating(in.Tolerations, &taint); i >= 0 && in.Tolerations[i].TolerationSeconds == nil {
			warn(tp.Index(i), ReasonTaintToleratedForever, "tolerates the %s NoExecute taint without tolerationSeconds, so the workload never leaves such a cluster; set tolerationSeconds", key)
		}
	}
	if req := in.Placement; req != nil && !roomOutside(req, req.Targets) &&
		!slices.ContainsFunc(in.Alternatives, func(alt *scheduling.Request) bool { return roomOutside(alt, req.Targets) }) {
		warn(orPath(in.PlacementPath, "placement"), ReasonNoClusterLeft, "no cluster outside the current placement passes the placement's filters, so an evicted copy has nowhere to go")
	}
	return out
}

// evictsOnFailure reports whether cfg adds a NoExecute taint to a cluster
// whose Ready condition is False or Unknown: the timed health taint, or a
// ClusterTaintPolicy whose add conditions match both.
func evictsOnFailure(cfg failover.ClusterTaintConfig) bool {
	if cfg.NoExecuteAfterTimeout {
		return true
	}
	for _, st := range []metav1.ConditionStatus{metav1.ConditionFalse, metav1.ConditionUnknown} {
		conds := []metav1.Condition{{Type: conditionReady, Status: st}}
		if !slices.ContainsFunc(cfg.Policies, func(p failover.ConditionTaintPolicy) bool {
			return addsNoExecute(p) && allMatch(p.AddOnConditions, conds)
		}) {
			return false
		}
	}
	return true
}

// roomOutside reports whether a cluster outside targets passes the
// filters req's re-placement runs. A nil req is no placement: it has no
// room.
func roomOutside(req *scheduling.Request, targets []eviction.TargetCluster) bool {
	if req == nil {
		return false
	}
	res := scheduling.RunFilters(req.Workload, req.Clusters, req.FiltersInUse()...)
	return slices.ContainsFunc(res.Feasible, func(n string) bool { return !placed(targets, n) })
}

func neverWithState(mode eviction.PurgeMode, sp *preservation.StatePreservation, p *field.Path, warn func(*field.Path, Reason, string, ...any)) {
	if mode.Normalize() == eviction.PurgeNever && sp != nil && len(sp.Rules) > 0 {
		warn(p.Child("purgeMode"), ReasonNeverPurgedWithState, "purge mode Never keeps the old copy until a person removes the eviction task, so the preserved state is never injected (it waits for the old copy to go); use purgeMode Directly")
	}
}

func escapeWithoutFence(mode eviction.PurgeMode, sp *preservation.StatePreservation, p *field.Path, warn func(*field.Path, Reason, string, ...any)) {
	if mode.Normalize() == eviction.PurgeDirectly && sp != nil && len(sp.Rules) > 0 {
		warn(p.Child("purgeMode"), ReasonEscapeWithoutFence, "the new copy waits for the old one, but gives up on an unreachable member after the escape timeout; a member that cannot fence itself (Push mode) may still run the old copy behind a partition, and two copies then write the same state; place the workload on members that fence (Pull mode with a fence), or never give up (a negative escape timeout)")
	}
}

func placed(targets []eviction.TargetCluster, name string) bool {
	return slices.ContainsFunc(targets, func(t eviction.TargetCluster) bool { return t.Name == name })
}

func orPath(p *field.Path, name string, more ...string) *field.Path {
	if p != nil {
		return p
	}
	return field.NewPath(name, more...)
}

func kindText(gvk schema.GroupVersionKind) string {
	if gvk.Empty() {
		return "the workload's kind"
	}
	return gvk.String()
}
