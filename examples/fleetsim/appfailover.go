package main

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/suspension"
)

// failoverApplications is the application failover controller: the
// detector looks at the workload's health on each target cluster.
func (e *Engine) failoverApplications() {
	for _, w := range e.workloads {
		if w.deleted || w.appFO == nil || len(w.targets) == 0 {
			continue
		}
		clusters, hs := e.observedHealth(w)
		det, err := e.lib.AppDetector.Detect(w.name(), w.appFO, clusters, hs)
		if err != nil {
			e.noteHold(w, "", "application failover cannot decide: "+err.Error())
			continue
		}
		e.inv.onDetect(w, clusters, hs, det)
		// The detector's evictions are proposals: one the pacer refuses or
		// whose state cannot be read comes back at the next look, with its
		// countdown (the detector keeps the record until the cluster leaves
		// the targets).
		for _, ev := range det.Evictions {
			c := e.byName[ev.FromCluster]
			if e.evict(w, c, ev.Eviction(nil), true) {
				w.history.Record(c.name, e.Now())
				e.inv.recordBlock(w, c.name)
			}
		}
		e.inv.afterDecisions(w, &e.inv.appPending)
	}
}

// observedHealth is what the detector is shown of w: the target clusters it
// may judge (not those whose failover a dispatch suspension pauses) and the
// workload's health on each, Unknown where the cluster is unreachable or
// the copy is missing or being deleted.
func (e *Engine) observedHealth(w *workload) ([]string, []failover.ObservedHealth) {
	clusters := make([]string, 0, len(w.targets))
	hs := make([]failover.ObservedHealth, 0, len(w.targets))
	for _, t := range w.targets {
		c := e.byName[t.Name]
		// Failover is paused while dispatching to the cluster is
		// suspended (dispatch suspension pauses failover): such a cluster is not judged.
		if suspension.FailoverPaused(w.susp, c.name) {
			continue
		}
		clusters = append(clusters, c.name)
		wh := failover.ObservedHealth{ClusterName: c.name, Status: health.Unknown}
		if cp := w.copies[c.idx]; cp != nil && !cp.deleting {
			wh.CollectedSince, wh.Settled = metav1.NewTime(cp.firstCollected), cp.settled
			if c.reachable() {
				wh.Status = cp.health
			}
		}
		hs = append(hs, wh)
	}
	return clusters, hs
}
