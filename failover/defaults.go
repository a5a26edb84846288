package failover

import (
	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover/health"
)

// Policy defaults. SetDefaultsFailoverBehavior writes them into a policy; the
// resolvers fall back to them when neither the policy nor the controller
// configuration says otherwise.
const (
	// DefaultApplicationTolerationSeconds is how long a workload may stay
	// failing on a cluster before application failover moves it. The
	// application-failover design (seed 001) proposed 10 seconds; Karmada
	// ships 300, and so do we: ten seconds turns every rolling update that
	// briefly reports Unhealthy into a migration.
	DefaultApplicationTolerationSeconds int32 = 300

	// SeedApplicationTolerationSeconds is the 10 second toleration the
	// application-failover design proposed. It is not applied anywhere; it is
	// kept so a policy written against that design can state it explicitly.
	SeedApplicationTolerationSeconds int32 = 10

	// DefaultGracePeriodSeconds bounds how long the old copy of a Gracefully
	// purged workload waits for the new copy to become healthy. It is only
	// defaulted when the purge mode is graceful.
	DefaultGracePeriodSeconds int32 = 600

	// DefaultBlockPredecessorSeconds keeps a workload away from the cluster it
	// was evicted from by application failover. A policy value of 0 means the
	// cluster never becomes schedulable again for that workload.
	DefaultBlockPredecessorSeconds int32 = 600

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
// [Unhealthy], GracePeriodSeconds DefaultGracePeriodSeconds when the purge
// mode is graceful, BlockPredecessorSeconds DefaultBlockPredecessorSeconds.
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
		v := DefaultGracePeriodSeconds
		a.GracePeriodSeconds = &v
	}
	if a.BlockPredecessorSeconds == nil {
		v := DefaultBlockPredecessorSeconds
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
