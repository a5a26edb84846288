package failover

import (
	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover/health"
)

// Policy defaults. SetDefaultsFailoverBehavior writes them into a policy; the
// resolvers fall back to them when neither the policy nor the controller
// configuration says otherwise. The grace period and the block window are
// the eviction package's (eviction.DefaultGracePeriodSeconds,
// eviction.DefaultBlockPredecessorSeconds): one constant each.
const (
	// DefaultApplicationTolerationSeconds is how long a workload may stay
	// failing on a cluster before application failover moves it. It is
	// Karmada's default; a shorter one (the original application-failover
	// proposal said 10 seconds) turns every rolling update that briefly
	// reports Unhealthy into a migration.
	DefaultApplicationTolerationSeconds int32 = 300

	// DefaultPurgeMode is the purge mode when neither the policy nor the
	// controller configuration names one.
	DefaultPurgeMode = eviction.PurgeGracefully
)

// DefaultDecisionHealthyStates are the health states that count as failing
// when a policy does not list any.
func DefaultDecisionHealthyStates() []health.Status { return []health.Status{health.Unhealthy} }

// SetDefaultsFailoverBehavior fills the unset fields of fb with their
// defaults and normalises legacy purge-mode spellings. It is safe on nil and
// idempotent. Fields that are set but invalid are left for
// ValidateFailoverBehavior to report; defaulting never hides a mistake.
func SetDefaultsFailoverBehavior(fb *FailoverBehavior) {
	if fb == nil {
		return
	}
	SetDefaultsApplicationFailoverBehavior(fb.Application)
	SetDefaultsClusterFailoverBehavior(fb.Cluster)
}

// SetDefaultsApplicationFailoverBehavior defaults application failover:
// PurgeMode Gracefully (legacy names normalised), TolerationSeconds
// DefaultApplicationTolerationSeconds, DecisionConditions.HealthyState
// [Unhealthy], GracePeriodSeconds eviction.DefaultGracePeriodSeconds when the purge
// mode is graceful, BlockPredecessorSeconds eviction.DefaultBlockPredecessorSeconds.
// PreConditions are not defaulted: no delay and no healthy-once gate.
func SetDefaultsApplicationFailoverBehavior(a *ApplicationFailoverBehavior) {
	if a == nil {
		return
	}
	a.PurgeMode = a.PurgeMode.Normalize()
	if a.PurgeMode == "" {
		a.PurgeMode = DefaultPurgeMode
	}
	if a.DecisionConditions.TolerationSeconds == nil {
		v := DefaultApplicationTolerationSeconds
		a.DecisionConditions.TolerationSeconds = &v
	}
	if len(a.DecisionConditions.HealthyState) == 0 {
		a.DecisionConditions.HealthyState = DefaultDecisionHealthyStates()
	}
	if a.GracePeriodSeconds == nil && a.PurgeMode.IsGraceful() {
		v := eviction.DefaultGracePeriodSeconds
		a.GracePeriodSeconds = &v
	}
	if a.BlockPredecessorSeconds == nil {
		v := eviction.DefaultBlockPredecessorSeconds
		a.BlockPredecessorSeconds = &v
	}
}

// SetDefaultsClusterFailoverBehavior only normalises legacy purge-mode
// spellings. An empty PurgeMode and an unset GracePeriodSeconds stay empty on
// purpose: they defer to the controller's configuration at resolution time
// (see ResolveClusterPurgeMode and ResolveClusterGracePeriodSeconds), so a
// change of the controller's defaults applies to every policy that did not
// choose.
func SetDefaultsClusterFailoverBehavior(c *ClusterFailoverBehavior) {
	if c == nil {
		return
	}
	c.PurgeMode = c.PurgeMode.Normalize()
}
