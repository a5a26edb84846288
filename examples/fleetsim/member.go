package main

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fleetover/fleetover/examples/fleetsim/replay"
	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/suspension"
)

// syncCopies is the member side: copies start, become healthy, report
// status; deletions complete where the cluster can be reached.
func (e *Engine) syncCopies(w *workload) {
	for ci, cp := range w.copies {
		if cp == nil {
			continue
		}
		c := e.clusters[ci]
		if !cp.deleting && !w.isTarget(c.name) {
			// An orphan (neither placed nor being evicted), or an old
			// copy a Directly purge deletes now that a replacement is
			// placed.
			if t := w.task(c.name); t == nil {
				cp.startDeletion(e.Now())
			} else if e.lib.DeleteOldCopy(t, w.targets) {
				e.inv.onDeleteOldCopy(w, c, t)
				cp.startDeletion(e.Now())
			}
		}
		if cp.deleting {
			e.partitionOnPurge(c)
			if suspension.Decide(w.susp, c.name, suspension.OperationDelete) != suspension.ActionProceed {
				e.inv.violate(InvDeletionNotBlocked, c.name, w.name(), "a deletion was held")
			}
			if c.reachable() {
				w.copies[ci] = nil
				e.stats.Deletions++
				e.tl.add(e, EvDelete, c.name, w.name(), "old copy deleted")
			}
			continue
		}
		if c.reachable() {
			e.collect(w, c, cp)
		}
	}
}

// collect builds the status the control plane collects from cp and runs
// the health interpreter on the object, as the status controller does when
// a member cluster reports a change.
func (e *Engine) collect(w *workload, c *cluster, cp *copyState) {
	ready := int64(0)
	failing := w.failing[c.idx]
	if c.alive() && !failing && !e.Now().Before(cp.created.Add(e.sc.Settings.StartupDelay.D())) {
		ready = int64(cp.replicas)
	}
	sig := statusSig{ready: ready, replicas: cp.replicas, failing: failing, unreadable: w.stateUnreadable}
	if cp.collected != nil && sig == cp.sig {
		return
	}
	cp.sig = sig
	// Until its job first runs, a copy that resumes preserved state
	// reports the submission's own job id: a fresh job that has not
	// restored the checkpoint, whose state must not replace the one the
	// copy was started from.
	jobID := cp.jobID
	if ready == 0 && !cp.settled && cp.submitJob != "" {
		jobID = cp.submitJob
	}
	status := replay.Status(w.spec.Kind, replay.Copy{
		Name: w.name(), Replicas: int64(cp.replicas), Ready: ready, Failing: failing,
		JobID: jobID, Created: cp.created, Unreadable: w.stateUnreadable,
	})
	raw, err := json.Marshal(status)
	if err != nil {
		cp.collected, cp.health = nil, health.Unknown
		return
	}
	if cp.firstCollected.IsZero() {
		cp.firstCollected = e.Now()
	}
	cp.collected = raw
	cp.health = e.lib.Interpret(objectOf(w, cp, status))
	if !cp.settled && cp.health == health.Healthy {
		cp.settled = true
		e.inv.onSettled(w, cp)
	}
}

// objectOf builds the workload object as it exists on a member cluster.
func objectOf(w *workload, cp *copyState, status map[string]any) *unstructured.Unstructured {
	return replay.Object(w.spec.Kind, w.name(), int64(cp.replicas), status)
}

// purgeDeleted removes a deleted workload's copies; deletion is never held.
func (e *Engine) purgeDeleted(w *workload) {
	for ci, cp := range w.copies {
		if cp == nil {
			continue
		}
		c := e.clusters[ci]
		if suspension.Decide(w.susp, c.name, suspension.OperationDelete) != suspension.ActionProceed {
			e.inv.violate(InvDeletionNotBlocked, c.name, w.name(), "deletion of a deleted workload was held")
			continue
		}
		if c.reachable() {
			w.copies[ci] = nil
			e.stats.Deletions++
			e.tl.add(e, EvDelete, c.name, w.name(), "copy deleted (workload deleted)")
		}
	}
}
