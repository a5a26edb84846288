package scheduling

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/fleetover/fleetover/failover"
)

// Names of the built-in filters, as they appear in Rejection.Filter.
const (
	FilterTaintToleration    = "TaintToleration"
	FilterEvictionInProgress = "EvictionInProgress"
	FilterEvictionHistory    = "EvictionHistory"
	FilterSuspended          = "Suspended"
	FilterClusterAffinity    = "ClusterAffinity"
	FilterExpiredToleration  = "ExpiredToleration"
)

// DefaultFilters returns the filters a failover re-placement needs, in the
// order they run: TaintToleration, EvictionInProgress, EvictionHistory and
// Suspended. Each is a no-op when the workload carries no data for it
// (no history, no suspension).
func DefaultFilters() []Filter {
	return []Filter{
		TaintToleration(failover.TolerationOptions{}),
		EvictionInProgress(),
		EvictionHistoryFilter(),
		Suspended(),
	}
}

// TaintToleration rejects a cluster with a NoSchedule or NoExecute taint the
// workload does not tolerate, with Kubernetes' meaning of the effects:
// NoSchedule only stops new placement, so a cluster the workload is already
// on passes it; NoExecute drives the workload out, so it rejects every
// cluster, placed or not. PreferNoSchedule never rejects. Matching is
// failover's: opts is the same TolerationOptions the failover planner
// uses, so the filter and the eviction decision always agree on whether a
// taint is tolerated. TolerationSeconds is ignored, as the Kubernetes
// scheduler ignores it (how long a NoExecute taint is tolerated is the
// failover package's business).
func TaintToleration(opts failover.TolerationOptions) Filter { return taintToleration{opts: opts} }

type taintToleration struct{ opts failover.TolerationOptions }

func (taintToleration) Name() string { return FilterTaintToleration }

func (f taintToleration) Filter(w *Workload, c *Cluster) Status {
	for i := range c.Taints {
		t := &c.Taints[i]
		if t.Effect != corev1.TaintEffectNoSchedule && t.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		if f.opts.FirstTolerating(w.Tolerations, t) >= 0 {
			continue
		}
		if t.Effect == corev1.TaintEffectNoSchedule && w.InPlacement(c.Name) {
			continue
		}
		if t.Effect == corev1.TaintEffectNoExecute {
			return Status{Rejected: true, Reason: "the cluster has a NoExecute taint the workload does not tolerate", Taint: t}
		}
		return Status{Rejected: true, Reason: "the cluster has a NoSchedule taint the workload does not tolerate", Taint: t}
	}
	return Fit()
}

// ExpiredToleration rejects a cluster whose NoExecute taints the workload
// tolerates, but only for a time that is up as of Workload.Now: the taint
// manager would evict a copy placed there at once. TaintToleration lets
// such a cluster through (it ignores tolerationSeconds, as the Kubernetes
// scheduler does); a scheduler that places for a failover taint manager
// runs both. The deadline is failover's (TolerationOptions.Evaluate): a
// taint's TimeAdded plus the toleration's seconds, a taint without
// TimeAdded counted from Now, tolerationSeconds <= 0 up at once. A NoExecute
// taint the workload does not tolerate at all is TaintToleration's to
// reject; this filter lets it through, so each rejection has one author.
func ExpiredToleration(opts failover.TolerationOptions) Filter {
	return expiredToleration{opts: opts}
}

type expiredToleration struct{ opts failover.TolerationOptions }

func (expiredToleration) Name() string { return FilterExpiredToleration }

func (f expiredToleration) Filter(w *Workload, c *Cluster) Status {
	d := f.opts.Evaluate(c.Taints, w.Tolerations, w.Now)
	if d.Action != failover.EvictNow || d.Toleration == nil {
		return Fit()
	}
	return Status{Rejected: true, Reason: "the workload's toleration of the cluster's NoExecute taint has run out", Taint: d.Taint}
}

// EvictionInProgress rejects a cluster the workload is leaving: one named by
// a graceful eviction task's FromCluster. The task's clusters are no targets
// until the task is gone, whichever purge mode it has.
func EvictionInProgress() Filter { return evictionInProgress{} }

type evictionInProgress struct{}

func (evictionInProgress) Name() string { return FilterEvictionInProgress }

func (evictionInProgress) Filter(w *Workload, c *Cluster) Status {
	if w.Evicting(c.Name) {
		return Reject("the workload is being evicted from this cluster")
	}
	return Fit()
}

// EvictionHistoryFilter rejects a cluster the workload was evicted from while
// Workload.History blocks it, with the block's end as the rejection's Until
// (none when the block never ends). No history, no rejection.
func EvictionHistoryFilter() Filter { return evictionHistory{} }

type evictionHistory struct{}

func (evictionHistory) Name() string { return FilterEvictionHistory }

func (evictionHistory) Filter(w *Workload, c *Cluster) Status {
	until, blocked, _ := w.History.BlockedUntil(c.Name, w.BlockPredecessorSeconds, w.Now)
	if !blocked {
		return Fit()
	}
	if until.IsZero() {
		return Reject("the workload was evicted from this cluster and may not return")
	}
	return RejectUntil("the workload was evicted from this cluster recently", until)
}

// Suspended rejects a cluster dispatching is suspended to, unless the
// workload is already on it: a new copy placed there would never be
// dispatched (Karmada #6730), while the copy already there stays.
func Suspended() Filter { return suspended{} }

type suspended struct{}

func (suspended) Name() string { return FilterSuspended }

func (suspended) Filter(w *Workload, c *Cluster) Status {
	if w.suspended(c.Name) && !w.InPlacement(c.Name) {
		return Reject("dispatching to this cluster is suspended")
	}
	return Fit()
}

// ClusterNames keeps only the named clusters (a policy's
// clusterAffinity.clusterNames); with no names it keeps every cluster.
func ClusterNames(names ...string) Filter {
	set := make(map[string]struct{}, len(names))
	for _, n := range names {
		set[n] = struct{}{}
	}
	return clusterNames{set: set}
}

type clusterNames struct{ set map[string]struct{} }

func (clusterNames) Name() string { return FilterClusterAffinity }

func (f clusterNames) Filter(_ *Workload, c *Cluster) Status {
	if len(f.set) == 0 {
		return Fit()
	}
	if _, ok := f.set[c.Name]; ok {
		return Fit()
	}
	return Reject("cluster is not in the affinity's cluster names")
}

// SelectedClusters keeps only the clusters selected maps to true: a
// policy's cluster affinity that the caller matched on its own cluster type
// (field selectors, exclusions, zones). Unlike ClusterNames, an empty
// selection keeps no cluster, since an affinity may select none.
func SelectedClusters(selected map[string]bool) Filter {
	return selectedClusters{selected: selected}
}

type selectedClusters struct{ selected map[string]bool }

func (selectedClusters) Name() string { return FilterClusterAffinity }

func (f selectedClusters) Filter(_ *Workload, c *Cluster) Status {
	if f.selected[c.Name] {
		return Fit()
	}
	return Reject("cluster is not selected by the placement's cluster affinity")
}

// LabelSelector keeps only the clusters whose labels match sel (a policy's
// clusterAffinity.labelSelector, converted with metav1.LabelSelectorAsSelector).
// A nil selector keeps every cluster.
func LabelSelector(sel labels.Selector) Filter { return labelSelector{sel: sel} }

type labelSelector struct{ sel labels.Selector }

func (labelSelector) Name() string { return FilterClusterAffinity }

func (f labelSelector) Filter(_ *Workload, c *Cluster) Status {
	if f.sel == nil || f.sel.Matches(labels.Set(c.Labels)) {
		return Fit()
	}
	return Reject("the cluster's labels do not match the affinity's label selector")
}
