package scheduling

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/fleetover/fleetover/eviction"
)

// Cluster is what filters see of a member cluster.
type Cluster struct {
	// Name identifies the cluster.
	Name string
	// Taints are the cluster's taints (failover sets not-ready / unreachable).
	Taints []corev1.Taint
	// Labels are the cluster's labels (zone, region, provider, ...).
	Labels map[string]string
	// Region is the region the cluster runs in (Karmada's spec.region);
	// only Request.RegionSpread reads it.
	Region string
	// Zones are the failure zones the cluster runs in (Karmada's
	// spec.zones); only Request.ZoneSpread reads them. A cluster in several
	// zones belongs to each.
	Zones []string
	// AvailableReplicas is how many more replicas of the workload the cluster
	// can take; nil means unknown (no limit is applied).
	AvailableReplicas *int32
}

// SuspensionChecker tells whether dispatching to a cluster is suspended.
// *suspension.Suspension implements it (a nil one suspends nothing).
type SuspensionChecker interface {
	DispatchSuspended(cluster string) bool
}

// SuspensionFunc adapts a function to SuspensionChecker.
type SuspensionFunc func(cluster string) bool

// DispatchSuspended calls f.
func (f SuspensionFunc) DispatchSuspended(cluster string) bool { return f(cluster) }

// Workload is what filters see of the workload being placed. The zero value
// is a workload with no tolerations, no placement and no history.
type Workload struct {
	// Name identifies the workload in reasons and errors.
	Name string
	// Tolerations of the workload's policy.
	Tolerations []corev1.Toleration
	// Placement lists the clusters the workload is on now.
	Placement []string
	// EvictionTasks are the workload's graceful eviction tasks; a cluster
	// being left is no target.
	EvictionTasks []eviction.GracefulEvictionTask
	// History is the workload's eviction history; it keeps the workload
	// away from the clusters it was evicted from, by the rule of
	// eviction.EvictionHistory.BlockedUntil.
	History eviction.EvictionHistory
	// BlockPredecessorSeconds is the policy's block window for History: nil
	// means eviction.DefaultBlockPredecessorSeconds, 0 blocks for good.
	BlockPredecessorSeconds *int32
	// Suspension, when set, says which clusters dispatching is suspended to.
	Suspension SuspensionChecker
	// OldCopies, when set, tells what is left of the copies on the evicted
	// clusters. Replace holds an evicted cluster whose dispatching is
	// suspended only while its copy runs there: a copy that is gone, or
	// whose deletion started, leaves nothing for the suspension to keep,
	// and the cluster is replaced as any other. nil: every evicted
	// cluster's copy is taken to run on.
	OldCopies eviction.OldCopyLookup
	// Now is the time decisions are made for. Only the eviction history
	// reads it: Replace refuses a Workload with a History and no Now
	// (ErrInvalidRequest), since every block window would then hold
	// forever; RunFilters with such a Workload judges the history as of
	// the zero time, so every recorded cluster stays blocked.
	Now time.Time
}

// InPlacement reports whether the workload is on cluster now.
func (w *Workload) InPlacement(cluster string) bool {
	for _, c := range w.Placement {
		if c == cluster {
			return true
		}
	}
	return false
}

// Evicting reports whether a graceful eviction task moves the workload off
// cluster.
func (w *Workload) Evicting(cluster string) bool {
	for i := range w.EvictionTasks {
		if w.EvictionTasks[i].FromCluster == cluster {
			return true
		}
	}
	return false
}

// suspended is false when no checker is set.
func (w *Workload) suspended(cluster string) bool {
	return w.Suspension != nil && w.Suspension.DispatchSuspended(cluster)
}

// holds reports whether a re-placement keeps the evicted cluster: its
// dispatching is suspended, and its copy still runs there.
func (w *Workload) holds(cluster string) bool {
	if !w.suspended(cluster) {
		return false
	}
	if w.OldCopies == nil {
		return true
	}
	old := w.OldCopies.OldCopy(cluster)
	return !old.Gone && old.DeletingSince.IsZero()
}
