package failover

import (
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/fleetover/fleetover/eviction"
)

// ClusterBinding is one workload placed on a tainted cluster, as the
// cluster-failover planner sees it.
type ClusterBinding struct {
	// Key identifies the binding (for example namespace/name).
	Key string
	// Tolerations are the workload's cluster tolerations (after
	// AddDefaultClusterTolerations).
	Tolerations []corev1.Toleration
	// Failover is the policy's failover.cluster block; nil uses the
	// planner's defaults.
	Failover *ClusterFailoverBehavior
}

// ClusterEviction is one binding that must leave the cluster now.
type ClusterEviction struct {
	// Key is the binding's key.
	Key string
	// Index is the binding's position in the slice given to the planner.
	Index int
	// PurgeMode and GracePeriodSeconds are resolved from the binding's
	// policy and the planner's defaults (GracePeriodSeconds is 0 unless
	// PurgeMode is Gracefully).
	ResolvedClusterFailover
	// Taint is the NoExecute taint that decided; it points into the taints
	// slice given to the planner.
	Taint *corev1.Taint
}

// ClusterFailoverPlan is the answer of the planner for one cluster.
type ClusterFailoverPlan struct {
	// Evict lists the bindings that must leave now, in input order.
	Evict []ClusterEviction
	// NextCheck is the earliest moment another binding's toleration runs
	// out; zero when no countdown is running. Bindings that tolerate the
	// taints forever neither appear in Evict nor set NextCheck.
	NextCheck time.Time
	// Waiting counts the bindings with a running countdown.
	Waiting int
	// Unstamped reports that a NoExecute taint without TimeAdded was
	// counted from now; persist a TimeAdded (ComputeClusterTaints does) or
	// the countdowns restart at every plan.
	Unstamped bool
}

// ClusterFailoverPlanner decides which bindings leave a tainted cluster: the
// core of a taint manager. The zero value uses Gracefully and
// eviction.DefaultGracePeriodSeconds for bindings whose policy does not choose.
// Planning is a pure function of its inputs and now.
type ClusterFailoverPlanner struct {
	// Defaults are the controller-wide purge mode and grace period.
	Defaults ClusterFailoverDefaults
	// Tolerations is the matching rule; give the scheduler's
	// TaintToleration filter the same value.
	Tolerations TolerationOptions
}

// Plan evaluates every binding's tolerations against taints (see
// TolerationOptions.Evaluate) and returns the bindings to evict now and when to look
// again. It allocates only the Evict slice; use PlanInto to reuse one.
func (p ClusterFailoverPlanner) Plan(taints []corev1.Taint, bindings []ClusterBinding, now time.Time) ClusterFailoverPlan {
	var plan ClusterFailoverPlan
	p.PlanInto(&plan, taints, bindings, now)
	return plan
}

// PlanInto is Plan writing into plan, reusing the capacity of plan.Evict, so a
// caller planning cluster after cluster allocates nothing once warm.
func (p ClusterFailoverPlanner) PlanInto(plan *ClusterFailoverPlan, taints []corev1.Taint, bindings []ClusterBinding, now time.Time) {
	*plan = ClusterFailoverPlan{Evict: plan.Evict[:0]}
	if !hasNoExecute(taints) {
		return
	}
	for i := range bindings {
		b := &bindings[i]
		d := p.Tolerations.Evaluate(taints, b.Tolerations, now)
		switch d.Action {
		case EvictNow:
			plan.Evict = append(plan.Evict, ClusterEviction{
				Key:                     b.Key,
				Index:                   i,
				ResolvedClusterFailover: p.Defaults.Resolve(b.Failover),
				Taint:                   d.Taint,
			})
		case EvictAfter:
			plan.Waiting++
			plan.Unstamped = plan.Unstamped || d.Unstamped
			if plan.NextCheck.IsZero() || d.At.Before(plan.NextCheck) {
				plan.NextCheck = d.At
			}
		}
	}
}

// Eviction returns what eviction.Evict needs to move the binding off
// fromCluster: the resolved purge mode and grace period, the reason, the
// producer and a message naming the taint. The caller adds the preserved
// state; Evict removes the target and builds the task.
func (e ClusterEviction) Eviction(fromCluster string) eviction.Eviction {
	ev := eviction.Eviction{
		Cluster:   fromCluster,
		PurgeMode: e.PurgeMode,
		Reason:    eviction.ReasonTaintUntolerated,
		Producer:  eviction.ProducerTaintManager,
	}
	if e.Taint != nil {
		ev.Message = "cluster taint " + e.Taint.ToString() + " is not tolerated"
	}
	if e.GracePeriodSeconds > 0 {
		secs := e.GracePeriodSeconds
		ev.GracePeriodSeconds = &secs
	}
	return ev
}

func hasNoExecute(taints []corev1.Taint) bool {
	for i := range taints {
		if taints[i].Effect == corev1.TaintEffectNoExecute {
			return true
		}
	}
	return false
}
