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

// WarningsForStatePreservationSpread returns admission warnings (not errors)
// for a policy that preserves state while its placement may spread the
// workload over more than one cluster. maxGroups is the maxGroups of the
// placement's spread constraint by cluster; 0 means there is none.
//
// Preserved state is only meaningful when every replica moves together, which
// a spread constraint {spreadByField: cluster, maxGroups: 1} guarantees. A
// wider spread is not wrong, it only makes the carried state ambiguous (the
// design calls this out as a caveat, not a prohibition), and rejecting it
// would break policies that work today; so this is a warning a webhook
// returns alongside an accepted object. Both application and cluster failover
// are checked.
func WarningsForStatePreservationSpread(fb *FailoverBehavior, maxGroups int32, fldPath *field.Path) []string {
	if fb == nil || maxGroups == 1 {
		return nil
	}
	spread := "no spread constraint by cluster"
	if maxGroups > 1 {
		spread = fmt.Sprintf("a spread constraint by cluster with maxGroups %d", maxGroups)
	}
	var warnings []string
	add := func(sp *preservation.StatePreservation, p *field.Path) {
		if sp == nil || len(sp.Rules) == 0 {
			return
		}
		warnings = append(warnings, fmt.Sprintf(
			"%s: state preservation assumes every replica moves together, but the placement has %s; set spreadConstraints [{spreadByField: cluster, maxGroups: 1}] or the preserved state may be injected into only part of the workload",
			p.String(), spread))
	}
	if fb.Application != nil {
		add(fb.Application.StatePreservation, fldPath.Child("application", "statePreservation"))
	}
	if fb.Cluster != nil {
		add(fb.Cluster.StatePreservation, fldPath.Child("cluster", "statePreservation"))
	}
	return warnings
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
