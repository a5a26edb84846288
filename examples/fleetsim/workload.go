package main

import (
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/suspension"
)

// copyState is the workload's object on one member cluster.
type copyState struct {
	replicas       int32
	created        time.Time
	labels         map[string]string
	jobID          string
	submitJob      string        // the job id it reports until its job first runs (a copy that resumes preserved state)
	collected      []byte        // last status the control plane collected (raw JSON)
	firstCollected time.Time     // when the control plane first collected it
	settled        bool          // the copy was Healthy at least once
	health         health.Status // the health interpreter's verdict on it
	sig            statusSig     // what the collected status was built from
	deleting       bool          // deletion requested, not yet confirmed
	deletingSince  time.Time     // when the deletion was requested (the Work's deletionTimestamp)
	fenced         bool          // stopped by its cluster's agent (package fencing): it writes nothing
}

// statusSig identifies a generated status, so an unchanged copy is not
// re-encoded and re-interpreted at every step.
type statusSig struct {
	ready      int64
	replicas   int32
	failing    bool
	unreadable bool
}

// workload is one workload and its binding: placement (targets), eviction
// tasks and eviction history are the state a controller persists on the
// binding. A Directly task stays there, carrying the preserved state, until
// its old copy is gone and the new copy runs.
type workload struct {
	idx         int
	spec        *WorkloadSpec
	divided     bool
	tolerations []corev1.Toleration
	clusterFO   failover.ResolvedClusterFailover
	appFO       *failover.ApplicationFailoverBehavior
	blockSecs   *int32
	// clusterSpread, zoneSpread and regionSpread bound how many clusters,
	// zones and regions the workload spans; zero bounds constrain nothing.
	clusterSpread groupBounds
	zoneSpread    groupBounds
	regionSpread  groupBounds
	// weights is the static weight of each cluster that a weight rule
	// names (Karmada's rule: the highest of the matching rules); a cluster
	// no rule names is absent (weight 0). Nil without a weight preference.
	weights map[string]int64
	// affinity is the set of clusters the affinity in use selects; nil
	// selects every cluster.
	affinity map[string]bool
	// groups are the placement's clusterAffinities in order, each with
	// the set it selects, and group the index of the one in use (whose
	// set affinity is); nil without clusterAffinities.
	groups []affinityGroup
	group  int

	targets []eviction.TargetCluster
	tasks   []eviction.GracefulEvictionTask
	history eviction.EvictionHistory
	copies  []*copyState // by cluster index
	failing []bool       // by cluster index: the workload itself fails there
	deleted bool
	// stateUnreadable: the collected status lacks the preserved state
	// (a stateUnreadable fault).
	stateUnreadable bool
	jobSeq          int
	submits         int
	origJob         string // job id of the first copy (stateful workloads)
	epoch           int64  // the last fencing epoch a failover gave it, persisted on its binding

	// schedulingSuspended: the scheduler leaves the workload alone, as
	// Karmada's does with spec.suspension.scheduling (faults suspend and
	// resume it).
	schedulingSuspended bool
	// susp is the policy's suspension as it is now (faults suspend and
	// resume dispatching during the run).
	susp       *suspension.Suspension
	workConds  [][]metav1.Condition // by cluster index: the Work's conditions
	heldNoted  map[string]bool      // dispatch holds already on the timeline
	notHealthy bool                 // the timeline's last word on its health
	lastPlace  string
}

func (w *workload) name() string { return w.spec.Name }

// singleWriter reports whether w must never run two copies: it preserves
// state across failover, runs on one cluster, and every failover it has
// purges the old copy Directly.
// stateful reports whether w preserves state on a failover: each failover
// then gives the new copy a fencing epoch.
func (w *workload) stateful() bool {
	fb := w.spec.Failover
	return fb != nil && ((fb.Cluster != nil && fb.Cluster.StatePreservation != nil) ||
		(fb.Application != nil && fb.Application.StatePreservation != nil))
}

func (w *workload) singleWriter() bool {
	fb := w.spec.Failover
	if fb == nil || w.divided || w.clusterSpread.max != 1 {
		return false
	}
	stateful := (fb.Cluster != nil && fb.Cluster.StatePreservation != nil) ||
		(fb.Application != nil && fb.Application.StatePreservation != nil)
	return stateful && w.clusterFO.PurgeMode == eviction.PurgeDirectly &&
		(w.appFO == nil || w.appFO.PurgeMode.Normalize() == eviction.PurgeDirectly)
}

func (w *workload) isTarget(cluster string) bool {
	for _, t := range w.targets {
		if t.Name == cluster {
			return true
		}
	}
	return false
}

func (w *workload) hasTask(cluster string) bool { return w.task(cluster) != nil }

func (w *workload) task(cluster string) *eviction.GracefulEvictionTask {
	for i := range w.tasks {
		if w.tasks[i].FromCluster == cluster {
			return &w.tasks[i]
		}
	}
	return nil
}

// startDeletion requests the deletion of cp once; the request time stands
// for the Work's deletionTimestamp.
func (cp *copyState) startDeletion(now time.Time) {
	if !cp.deleting {
		cp.deleting, cp.deletingSince = true, now
	}
}

// oldCopies is what the controllers know of w's copies being left, as the
// Works on the control plane show it. Under Karmada's rules a Directly task
// older than its timeout holds nothing any more (Karmada drops it, #6671):
// its copy counts as gone, though its deletion was never confirmed.
func (e *Engine) oldCopies(w *workload) eviction.OldCopyLookup {
	return eviction.OldCopyLookupFunc(func(cluster string) eviction.OldCopy {
		c := e.byName[cluster]
		if c == nil || w.copies[c.idx] == nil || e.karmadaTaskTimedOut(w, cluster) {
			return eviction.OldCopy{Gone: true}
		}
		cp := w.copies[c.idx]
		old := eviction.OldCopy{DeletingSince: cp.deletingSince, Unreachable: !c.reachable()}
		if e.fences(c) {
			// The agent declared its fence; the control plane heard it
			// last at its last heartbeat.
			old.FenceAfter, old.LastHeard = e.sc.Settings.FenceAfter.D(), c.lastHeard
		}
		return old
	})
}

func (e *Engine) newWorkload(i int, spec *WorkloadSpec) (*workload, error) {
	st := e.sc.Settings
	w := &workload{
		idx:       i,
		spec:      spec,
		divided:   spec.Placement.ReplicaScheduling.ReplicaSchedulingType == "Divided",
		copies:    make([]*copyState, len(e.sc.Clusters)),
		failing:   make([]bool, len(e.sc.Clusters)),
		workConds: make([][]metav1.Condition, len(e.sc.Clusters)),
		heldNoted: map[string]bool{},
		susp:      spec.Suspend.DeepCopy(),

		schedulingSuspended: spec.SchedulingSuspended,
	}
	w.tolerations = spec.Tolerations
	if *st.DefaultTolerations {
		w.tolerations = failover.AddDefaultClusterTolerations(spec.Tolerations, failover.DefaultTolerationsConfig{
			NotReadyTolerationSeconds:    st.DefaultTolerationSeconds,
			UnreachableTolerationSeconds: st.DefaultTolerationSeconds,
		})
	}
	fb := spec.Failover
	if fb != nil {
		fb = fb.DeepCopy()
		failover.SetDefaultsFailoverBehavior(fb)
	}
	var cfo *failover.ClusterFailoverBehavior
	if fb != nil {
		cfo = fb.Cluster
		w.appFO = fb.Application
		if w.appFO != nil {
			w.blockSecs = w.appFO.BlockPredecessorSeconds
		}
	}
	w.clusterFO = failover.ClusterFailoverDefaults{
		PurgeMode:          st.ClusterPurgeMode,
		GracePeriodSeconds: int32(st.GracefulEvictionTimeout.D() / time.Second),
	}.Resolve(cfo)
	// Karmada's scheduler ignores the spread constraints of a division by
	// static weight (or by none), the only division modelled here. Its
	// filter still turns away a cluster that lacks a field the placement
	// spreads by: here only a region can be missing.
	needsRegion := false
	for _, sp := range spec.Placement.SpreadConstraints {
		b := groupBounds{min: sp.MinGroups, max: sp.MaxGroups}
		switch sp.SpreadByField {
		case SpreadByZone:
			w.zoneSpread = b
		case SpreadByRegion:
			w.regionSpread, needsRegion = b, true
		default:
			w.clusterSpread = b
		}
	}
	if w.divided {
		w.clusterSpread, w.zoneSpread, w.regionSpread = groupBounds{}, groupBounds{}, groupBounds{}
	}
	selected := func(a *ClusterAffinity) map[string]bool {
		if (a == nil || len(a.ClusterNames) == 0 && len(a.Zones) == 0) && !needsRegion {
			return nil
		}
		set := map[string]bool{}
		for _, cs := range e.sc.Clusters {
			if (a == nil || a.matches(cs)) && (!needsRegion || cs.Region != "") {
				set[cs.Name] = true
			}
		}
		return set
	}
	w.affinity = selected(spec.Placement.ClusterAffinity)
	for i := range spec.Placement.ClusterAffinities {
		term := &spec.Placement.ClusterAffinities[i]
		w.groups = append(w.groups, affinityGroup{name: term.AffinityName, clusters: selected(&term.ClusterAffinity)})
	}
	if len(w.groups) > 0 {
		w.useGroup(max(0, slices.IndexFunc(w.groups, func(g affinityGroup) bool { return g.name == spec.AffinityGroup })))
	}
	if wp := spec.Placement.ReplicaScheduling.WeightPreference; wp != nil {
		w.weights = map[string]int64{}
		for _, cs := range e.sc.Clusters {
			weight := int64(0)
			for _, sw := range wp.StaticWeightList {
				if sw.TargetCluster.matches(cs) {
					weight = max(weight, sw.Weight)
				}
			}
			if weight > 0 {
				w.weights[cs.Name] = weight
			}
		}
	}
	return w, nil
}

// affinityGroup is one term of clusterAffinities: its name and the set
// of clusters it selects (nil: every cluster).
type affinityGroup struct {
	name     string
	clusters map[string]bool
}

// useGroup makes the affinity group at index i the one in use.
func (w *workload) useGroup(i int) {
	w.group, w.affinity = i, w.groups[i].clusters
}

// groupHolding returns the index of the first affinity group that selects
// every cluster of targets, or 0.
func (w *workload) groupHolding(targets []eviction.TargetCluster) int {
	for i, g := range w.groups {
		if g.clusters == nil || !slices.ContainsFunc(targets, func(t eviction.TargetCluster) bool { return !g.clusters[t.Name] }) {
			return i
		}
	}
	return 0
}

// groupBounds is a spread constraint's minGroups and maxGroups.
type groupBounds struct{ min, max int }

// spans says whether the clusters names satisfy w's spread constraints:
// at least one cluster and the cluster minimum, and numbers of zones and
// regions within their bounds.
func (w *workload) spans(e *Engine, names []string) bool {
	return len(names) >= max(1, w.clusterSpread.min) &&
		w.zoneSpread.spannedBy(e, names, zoneOf) && w.regionSpread.spannedBy(e, names, regionOf)
}

// spannedBy says whether the clusters names are in a number of groups
// within the bounds; zero bounds count nothing.
func (b groupBounds) spannedBy(e *Engine, names []string, group func(*cluster) string) bool {
	if b == (groupBounds{}) {
		return true
	}
	n := groupsOf(e, names, group)
	return n >= b.min && (b.max == 0 || n <= b.max)
}

// zoneOf and regionOf are the groups a cluster counts in.
func zoneOf(c *cluster) string   { return c.zone }
func regionOf(c *cluster) string { return c.region }

// groupsOf counts the groups (zones or regions) the clusters names are in.
func groupsOf(e *Engine, names []string, group func(*cluster) string) int {
	seen := map[string]bool{}
	for _, n := range names {
		seen[group(e.byName[n])] = true
	}
	return len(seen)
}
