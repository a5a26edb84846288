package main

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetover/fleetover/eviction"
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
		clusters := make([]string, 0, len(w.targets))
		hs := make([]failover.WorkloadHealth, 0, len(w.targets))
		for _, t := range w.targets {
			c := e.byName[t.Name]
			// Failover is paused while dispatching to the cluster is
			// suspended: such a cluster is not judged.
			if suspension.FailoverPaused(w.susp, c.name) {
				continue
			}
			clusters = append(clusters, c.name)
			wh := failover.WorkloadHealth{ClusterName: c.name, Health: health.Unknown}
			if cp := w.copies[c.idx]; cp != nil && !cp.deleting {
				wh.CollectedSince, wh.Settled = metav1.NewTime(cp.firstCollected), cp.settled
				if c.reachable() {
					wh.Health = cp.health
				}
			}
			hs = append(hs, wh)
		}
		det, err := e.lib.AppDetector.Detect(w.name(), w.appFO, clusters, hs)
		if err != nil {
			e.noteHold(w, "", "application failover cannot decide: "+err.Error())
			continue
		}
		for _, ev := range det.Evictions {
			c := e.byName[ev.FromCluster]
			ok := e.evict(w, c, eviction.Eviction{
				Producer:               eviction.ProducerApplicationFailover,
				Reason:                 ev.Reason,
				Message:                ev.Message,
				PurgeMode:              ev.PurgeMode,
				GracePeriodSeconds:     ev.GracePeriodSeconds,
				SuppressDeletion:       ev.SuppressDeletion,
				ClustersBeforeFailover: ev.ClustersBeforeFailover,
			}, true)
			if ok {
				w.history.Record(c.name, e.Now())
				e.inv.recordBlock(w, c.name)
				continue
			}
			// The eviction did not happen (paced): keep the countdown.
			rec := failover.WorkloadHealthRecord{ClusterName: c.name}
			for _, r := range w.appRecords {
				if r.ClusterName == c.name {
					rec = r
				}
			}
			if rec.FailingSince == nil {
				now := metav1.NewTime(e.Now())
				rec.FailingSince = &now
			}
			det.Records = append(det.Records, rec)
			e.lib.AppDetector.Restore(w.name(), det.Records)
		}
		w.appRecords = det.Records
	}
}
