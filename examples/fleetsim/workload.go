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
	collected      []byte        // last status the control plane collected (raw JSON)
	firstCollected time.Time     // when the control plane first collected it
	settled        bool          // the copy was Healthy at least once
	health         health.Status // the health interpreter's verdict on it
	sig            statusSig     // what the collected status was built from
	deleting       bool          // deletion requested, not yet confirmed
}

// statusSig identifies a generated status, so an unchanged copy is not
// re-encoded and re-interpreted at every step.
type statusSig struct {
	ready    int64
	replicas int32
	failing  bool
}

// workload is one workload and its binding: placement (targets), eviction
// tasks, eviction history and pending purges are the state a controller
// persists on the binding.
type workload struct {
	idx         int
	spec        *WorkloadSpec
	divided     bool
	tolerations []corev1.Toleration
	clusterFO   failover.ResolvedClusterFailover
	appFO       *failover.ApplicationFailoverBehavior
	blockSecs   *int32
	minGroups   int
	maxGroups   int
	byZone      bool
	weights     map[string]int64
	affinity    map[string]bool

	targets []eviction.TargetCluster
	tasks   []eviction.GracefulEvictionTask
	history eviction.EvictionHistory
	purges  []eviction.PendingPurge
	// carried are removed tasks whose preserved state has not reached a
	// new copy yet: a Directly purge drops its task before the new copy
	// may be dispatched, and the state must outlive it.
	carried []eviction.GracefulEvictionTask
	copies  []*copyState // by cluster index
	failing []bool       // by cluster index: the workload itself fails there
	deleted bool
	jobSeq  int
	origJob string // job id of the first copy (stateful workloads)

	appRecords []failover.WorkloadHealthRecord // the detector's records at its last look

	// susp is the policy's suspension as it is now (faults suspend and
	// resume dispatching during the run).
	susp      *suspension.Suspension
	workConds [][]metav1.Condition // by cluster index: the Work's conditions
	heldNoted map[string]bool      // dispatch holds already on the timeline
	lastPlace string
}

func (w *workload) name() string { return w.spec.Name }

func (w *workload) isTarget(cluster string) bool {
	for _, t := range w.targets {
		if t.Name == cluster {
			return true
		}
	}
	return false
}

func (w *workload) hasTask(cluster string) bool {
	for i := range w.tasks {
		if w.tasks[i].FromCluster == cluster {
			return true
		}
	}
	return false
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
	}
	w.tolerations = failover.AddDefaultClusterTolerations(spec.Tolerations, failover.DefaultTolerationsConfig{
		NotReadyTolerationSeconds:    st.DefaultTolerationSeconds,
		UnreachableTolerationSeconds: st.DefaultTolerationSeconds,
	})
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
	for _, sp := range spec.Placement.SpreadConstraints {
		w.minGroups, w.maxGroups = sp.MinGroups, sp.MaxGroups
		w.byZone = sp.SpreadByField == "zone"
	}
	if a := spec.Placement.ClusterAffinity; a != nil && (len(a.ClusterNames) > 0 || len(a.Zones) > 0) {
		w.affinity = map[string]bool{}
		for _, n := range a.ClusterNames {
			w.affinity[n] = true
		}
		for _, cs := range e.sc.Clusters {
			if slices.Contains(a.Zones, cs.Zone) {
				w.affinity[cs.Name] = true
			}
		}
	}
	if wp := spec.Placement.ReplicaScheduling.WeightPreference; wp != nil {
		w.weights = map[string]int64{}
		for _, sw := range wp.StaticWeightList {
			for _, n := range sw.TargetCluster.ClusterNames {
				w.weights[n] = sw.Weight
			}
		}
	}
	return w, nil
}
