package failover

import "github.com/fleetover/fleetover/eviction"

// ResolveClusterPurgeMode returns the purge mode cluster failover uses for a
// workload, in this order: the policy's failover.cluster.purgeMode, else
// globalDefault (the controller's setting, Karmada's
// --no-execute-taint-eviction-purge-mode), else Gracefully. Legacy spellings
// are normalised; an invalid value at one level (which validation rejects for
// policies) falls through to the next level instead of being used.
func ResolveClusterPurgeMode(cluster *ClusterFailoverBehavior, globalDefault eviction.PurgeMode) eviction.PurgeMode {
	if cluster != nil && cluster.PurgeMode.IsValid() {
		return cluster.PurgeMode.Normalize()
	}
	if globalDefault.IsValid() {
		return globalDefault.Normalize()
	}
	return DefaultPurgeMode
}

// ResolveClusterGracePeriodSeconds returns the grace period cluster failover
// gives a Gracefully purged workload, in this order: the policy's
// failover.cluster.gracePeriodSeconds, else globalDefaultSeconds (the
// controller's graceful-eviction timeout), else eviction.DefaultGracePeriodSeconds.
// Values that are not positive are skipped at every level. The caller uses
// the result only when the resolved purge mode is graceful.
func ResolveClusterGracePeriodSeconds(cluster *ClusterFailoverBehavior, globalDefaultSeconds int32) int32 {
	if cluster != nil && cluster.GracePeriodSeconds != nil && *cluster.GracePeriodSeconds > 0 {
		return *cluster.GracePeriodSeconds
	}
	if globalDefaultSeconds > 0 {
		return globalDefaultSeconds
	}
	return eviction.DefaultGracePeriodSeconds
}

// ClusterFailoverDefaults is the controller-wide configuration that cluster
// failover falls back to when a policy leaves a field unset. The zero value
// means Gracefully with eviction.DefaultGracePeriodSeconds.
type ClusterFailoverDefaults struct {
	// PurgeMode is the global purge mode (Karmada's
	// --no-execute-taint-eviction-purge-mode); empty means Gracefully.
	PurgeMode eviction.PurgeMode
	// GracePeriodSeconds is the global graceful-eviction timeout (Karmada's
	// --graceful-eviction-timeout); 0 means eviction.DefaultGracePeriodSeconds.
	GracePeriodSeconds int32
}

// ResolvedClusterFailover is how one workload leaves a failed cluster.
type ResolvedClusterFailover struct {
	// PurgeMode is Directly, Gracefully or Never.
	PurgeMode eviction.PurgeMode
	// GracePeriodSeconds is positive when PurgeMode is Gracefully and 0
	// otherwise, since no other mode waits on a grace period.
	GracePeriodSeconds int32
}

// Resolve applies ResolveClusterPurgeMode and
// ResolveClusterGracePeriodSeconds with d as the controller's configuration.
func (d ClusterFailoverDefaults) Resolve(cluster *ClusterFailoverBehavior) ResolvedClusterFailover {
	mode := ResolveClusterPurgeMode(cluster, d.PurgeMode)
	r := ResolvedClusterFailover{PurgeMode: mode}
	if mode.IsGraceful() {
		r.GracePeriodSeconds = ResolveClusterGracePeriodSeconds(cluster, d.GracePeriodSeconds)
	}
	return r
}
