package failover

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/preservation"
)

// supportedPurgeModes lists the values a webhook shows when rejecting a purge
// mode. The legacy spellings stay accepted but are not advertised.
var supportedPurgeModes = []eviction.PurgeMode{eviction.PurgeDirectly, eviction.PurgeGracefully, eviction.PurgeNever}

// ValidateFailoverBehavior checks a policy's failover block as an admission
// webhook would, before or after SetDefaultsFailoverBehavior. A nil block is
// valid (failover disabled). fldPath is the path of the block, for example
// field.NewPath("spec", "failover").
func ValidateFailoverBehavior(fb *FailoverBehavior, fldPath *field.Path) field.ErrorList {
	if fb == nil {
		return nil
	}
	var errs field.ErrorList
	errs = append(errs, ValidateApplicationFailoverBehavior(fb.Application, fldPath.Child("application"))...)
	errs = append(errs, ValidateClusterFailoverBehavior(fb.Cluster, fldPath.Child("cluster"))...)
	return errs
}

// ValidateApplicationFailoverBehavior checks application failover:
//   - preConditions.delaySeconds >= 0 and preConditions.healthyState empty or Healthy;
//   - decisionConditions.tolerationSeconds >= 0 and decisionConditions.healthyState
//     made of Unhealthy and Unknown without duplicates;
//   - purgeMode one of Directly, Gracefully, Never (or a legacy spelling);
//   - gracePeriodSeconds > 0, and set only with a graceful purge mode (an empty
//     purge mode defaults to Gracefully);
//   - blockPredecessorSeconds >= 0;
//   - statePreservation rules, through preservation's validation.
func ValidateApplicationFailoverBehavior(a *ApplicationFailoverBehavior, fldPath *field.Path) field.ErrorList {
	if a == nil {
		return nil
	}
	var errs field.ErrorList
	if pc := a.PreConditions; pc != nil {
		pcPath := fldPath.Child("preConditions")
		errs = append(errs, validateNonNegative(pc.DelaySeconds, pcPath.Child("delaySeconds"))...)
		if pc.HealthyState != "" && pc.HealthyState != health.Healthy {
			errs = append(errs, field.NotSupported(pcPath.Child("healthyState"), pc.HealthyState, []health.Status{health.Healthy}))
		}
	}
	dcPath := fldPath.Child("decisionConditions")
	errs = append(errs, validateNonNegative(a.DecisionConditions.TolerationSeconds, dcPath.Child("tolerationSeconds"))...)
	errs = append(errs, validateDecisionHealthyStates(a.DecisionConditions.HealthyState, dcPath.Child("healthyState"))...)

	mode := a.PurgeMode
	if mode == "" {
		mode = DefaultPurgeMode
	}
	errs = append(errs, validatePurgeMode(a.PurgeMode, fldPath.Child("purgeMode"))...)
	errs = append(errs, validateGracePeriod(a.GracePeriodSeconds, mode, fldPath.Child("gracePeriodSeconds"))...)
	errs = append(errs, validateNonNegative(a.BlockPredecessorSeconds, fldPath.Child("blockPredecessorSeconds"))...)
	errs = append(errs, validateStatePreservation(a.StatePreservation, fldPath.Child("statePreservation"))...)
	return errs
}

// ValidateClusterFailoverBehavior checks cluster failover: purgeMode one of
// Directly, Gracefully, Never (or a legacy spelling) or empty;
// gracePeriodSeconds > 0 and not combined with Directly or Never (an empty
// purge mode defers to the controller, so a grace period is accepted with
// it); statePreservation rules through preservation's validation.
func ValidateClusterFailoverBehavior(c *ClusterFailoverBehavior, fldPath *field.Path) field.ErrorList {
	if c == nil {
		return nil
	}
	var errs field.ErrorList
	errs = append(errs, validatePurgeMode(c.PurgeMode, fldPath.Child("purgeMode"))...)
	mode := c.PurgeMode
	if mode == "" {
		// Deferred to the controller's default, which may be graceful.
		mode = eviction.PurgeGracefully
	}
	errs = append(errs, validateGracePeriod(c.GracePeriodSeconds, mode, fldPath.Child("gracePeriodSeconds"))...)
	errs = append(errs, validateStatePreservation(c.StatePreservation, fldPath.Child("statePreservation"))...)
	return errs
}

// WarningsForStatePreservation returns admission warnings (not errors) for
// a policy whose preserved state may not reach the new copy, or may reach
// two copies at once, under the injection policy the controller runs with.
// maxGroups is the maxGroups of the placement's spread constraint by
// cluster; 0 means there is none. Both application and cluster failover are
// checked, and each warning names its field.
//
// By default state is injected only where a single writer is guaranteed
// (preservation.InjectionPolicy): the purge mode is Directly, and the
// failover leaves one new target. A policy outside that is accepted, since
// rejecting it would break policies that work today, but the user is told
// what will happen: no injection, or, where the controller opted in,
// injection while another copy of the same state may run.
func WarningsForStatePreservation(fb *FailoverBehavior, maxGroups int32, injection preservation.InjectionPolicy, fldPath *field.Path) []string {
	if fb == nil {
		return nil
	}
	var warnings []string
	check := func(sp *preservation.StatePreservation, mode eviction.PurgeMode, p *field.Path) {
		if sp == nil || len(sp.Rules) == 0 {
			return
		}
		sp1 := p.Child("statePreservation").String()
		switch mode = mode.Normalize(); {
		case mode == eviction.PurgeDirectly:
		case injection.WhileOldCopyRuns:
			warnings = append(warnings, fmt.Sprintf(
				"%s: with purgeMode %s the old copy keeps running while the new one starts, and the controller injects the preserved state anyway: two copies may resume from, and write, the same state; use purgeMode Directly for a single writer",
				sp1, purgeModeOrDefault(mode)))
		default:
			warnings = append(warnings, fmt.Sprintf(
				"%s: with purgeMode %s the old copy keeps running while the new one starts, so the preserved state is not injected and the new copy starts without it; use purgeMode Directly",
				sp1, purgeModeOrDefault(mode)))
		}
		if maxGroups == 1 {
			return
		}
		spread := "no spread constraint by cluster"
		if maxGroups > 1 {
			spread = fmt.Sprintf("a spread constraint by cluster with maxGroups %d", maxGroups)
		}
		if injection.IntoSeveralTargets {
			warnings = append(warnings, fmt.Sprintf(
				"%s: the placement has %s, and the controller injects the preserved state into every new cluster: each new copy resumes from the same state; set spreadConstraints [{spreadByField: cluster, maxGroups: 1}] for a single writer",
				sp1, spread))
			return
		}
		warnings = append(warnings, fmt.Sprintf(
			"%s: the placement has %s; when a failover places the workload on more than one new cluster the preserved state is injected into none of them; set spreadConstraints [{spreadByField: cluster, maxGroups: 1}]",
			sp1, spread))
	}
	if a := fb.Application; a != nil {
		check(a.StatePreservation, a.PurgeMode, fldPath.Child("application"))
	}
	if c := fb.Cluster; c != nil {
		check(c.StatePreservation, c.PurgeMode, fldPath.Child("cluster"))
	}
	return warnings
}

// WarningsForUnfencedMembers returns admission warnings for a policy
// whose stateful workload (state preservation rules) fails over Directly
// while it may run on members that cannot fence themselves (Push-mode
// clusters, where no agent of the control plane runs, or Pull-mode agents
// that declare no fence): when such a member is cut off rather than down,
// the Directly escape (eviction.AssessOptions.DirectlyEscapeTimeout after
// the old copy's deletion started) starts the new copy while the old one
// may still run behind the partition, and both write. Call it when the
// placement may include such a member; a placement on members that all
// fence (package fencing) needs no warning. Each warning names its
// purgeMode field.
func WarningsForUnfencedMembers(fb *FailoverBehavior, fldPath *field.Path) []string {
	if fb == nil {
		return nil
	}
	var warnings []string
	check := func(sp *preservation.StatePreservation, mode eviction.PurgeMode, p *field.Path) {
		if sp == nil || len(sp.Rules) == 0 || mode.Normalize() != eviction.PurgeDirectly {
			return
		}
		warnings = append(warnings, fmt.Sprintf(
			"%s: with purgeMode Directly the new copy waits for the old one, but gives up on an unreachable member after the escape timeout; a member that cannot fence itself (Push mode) may still run the old copy behind a network partition, and two copies then write the same state; place the workload on members whose agents fence (Pull mode with a fence) or set the escape timeout negative to never give up",
			p.Child("purgeMode")))
	}
	if a := fb.Application; a != nil {
		check(a.StatePreservation, a.PurgeMode, fldPath.Child("application"))
	}
	if c := fb.Cluster; c != nil {
		check(c.StatePreservation, c.PurgeMode, fldPath.Child("cluster"))
	}
	return warnings
}

func purgeModeOrDefault(m eviction.PurgeMode) string {
	if m == "" {
		return "unset (the controller's default, Gracefully unless configured)"
	}
	return string(m)
}

func validateNonNegative(v *int32, fldPath *field.Path) field.ErrorList {
	if v != nil && *v < 0 {
		return field.ErrorList{field.Invalid(fldPath, *v, "must be greater than or equal to 0")}
	}
	return nil
}

func validatePurgeMode(m eviction.PurgeMode, fldPath *field.Path) field.ErrorList {
	if m == "" || m.IsValid() {
		return nil
	}
	return field.ErrorList{field.NotSupported(fldPath, m, supportedPurgeModes)}
}

// validateGracePeriod checks a grace period against the purge mode it will be
// used with (already defaulted by the caller).
func validateGracePeriod(v *int32, mode eviction.PurgeMode, fldPath *field.Path) field.ErrorList {
	if v == nil {
		return nil
	}
	var errs field.ErrorList
	if *v <= 0 {
		errs = append(errs, field.Invalid(fldPath, *v, "must be greater than 0"))
	}
	if mode.IsValid() && !mode.IsGraceful() {
		errs = append(errs, field.Forbidden(fldPath, fmt.Sprintf("only allowed when purgeMode is %s, not %s", eviction.PurgeGracefully, mode.Normalize())))
	}
	return errs
}

func validateDecisionHealthyStates(states []health.Status, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := make(map[health.Status]bool, len(states))
	for i, s := range states {
		p := fldPath.Index(i)
		if s != health.Unhealthy && s != health.Unknown {
			errs = append(errs, field.NotSupported(p, s, []health.Status{health.Unhealthy, health.Unknown}))
			continue
		}
		if seen[s] {
			errs = append(errs, field.Duplicate(p, s))
		}
		seen[s] = true
	}
	return errs
}

// validateStatePreservation delegates to the preservation package, which
// owns the rule syntax (label keys, JSONPath templates).
func validateStatePreservation(sp *preservation.StatePreservation, fldPath *field.Path) field.ErrorList {
	return preservation.ValidateStatePreservation(sp, fldPath)
}
