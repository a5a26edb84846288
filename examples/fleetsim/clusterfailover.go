package main

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/suspension"
)

// failoverClusters is the taint manager. A deadline queue holds, per
// cluster, when to plan it next: at once when its taints change, then at
// the planner's NextCheck (the earliest toleration to run out). The planner
// lists the workloads that must leave each due cluster.
func (e *Engine) failoverClusters() {
	if !*e.sc.Settings.ClusterFailover {
		// The taint manager evicts nothing (Karmada: the Failover gate,
		// --enable-taint-manager or --enable-no-execute-taint-eviction off).
		for {
			if _, ok := e.taintQueue.TryGet(); !ok {
				return
			}
		}
	}
	now := e.Now()
	var bindings []failover.ClusterBinding
	var owners []*workload
	for {
		ci, ok := e.taintQueue.TryGet()
		if !ok {
			break
		}
		c := e.clusters[ci]
		if !hasNoExecute(c.taints) {
			continue
		}
		bindings, owners = bindings[:0], owners[:0]
		for _, w := range e.workloads {
			if w.deleted || !w.isTarget(c.name) {
				continue
			}
			// Failover is paused while dispatching to the cluster is
			// suspended (dispatch suspension pauses failover).
			if suspension.FailoverPaused(w.susp, c.name) {
				continue
			}
			var cfo *failover.ClusterFailoverBehavior
			if w.spec.Failover != nil {
				cfo = w.spec.Failover.Cluster
			}
			bindings = append(bindings, failover.ClusterBinding{Key: w.name(), Tolerations: w.tolerations, Failover: cfo})
			owners = append(owners, w)
		}
		if len(bindings) == 0 {
			continue
		}
		plan := e.lib.Planner(c.taints, bindings, now)
		e.inv.onPlan(c, owners, plan)
		deferred := false
		for _, ev := range plan.Evict {
			w := owners[ev.Index]
			var grace *int32
			if ev.GracePeriodSeconds > 0 {
				g := ev.GracePeriodSeconds
				grace = &g
			}
			if !e.evict(w, c, eviction.Eviction{
				Producer:           eviction.ProducerTaintManager,
				Reason:             eviction.ReasonTaintUntolerated,
				PurgeMode:          ev.PurgeMode,
				GracePeriodSeconds: grace,
			}, false) && w.isTarget(c.name) {
				deferred = true
			}
		}
		for _, w := range owners {
			e.inv.afterDecisions(w, &e.inv.taintPending)
		}
		if deferred {
			// Paced or waiting for a readable status: look again next step.
			e.taintQueue.Add(ci, now.Add(e.sc.Step.D()))
		}
		if !plan.NextCheck.IsZero() {
			e.taintQueue.Add(ci, plan.NextCheck)
		}
	}
}

func hasNoExecute(ts []corev1.Taint) bool {
	for i := range ts {
		if ts[i].Effect == corev1.TaintEffectNoExecute {
			return true
		}
	}
	return false
}
