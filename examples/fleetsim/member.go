package main

import (
	"encoding/json"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

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
	var status map[string]any
	switch w.spec.Kind {
	case "FlinkDeployment":
		// A failing copy fails for its cluster's sake (its job manager
		// cannot run there), which moving solves; a job that fails in its
		// own code would be kept in place by the health rule.
		state, jobManager := "RUNNING", "READY"
		if ready == 0 {
			state = "RECONCILING"
			if failing {
				jobManager = "ERROR"
			}
		}
		// Until its job first runs, a copy reports the submission's own
		// job id: a fresh job that has not restored the checkpoint, whose
		// state must not replace the one the copy was started from.
		jobID := cp.jobID
		if ready == 0 && !cp.settled {
			jobID = cp.submitJob
		}
		jobStatus := map[string]any{
			"jobId":     jobID,
			"jobName":   w.name(),
			"state":     state,
			"startTime": strconv.FormatInt(cp.created.UnixMilli(), 10),
			"checkpointInfo": map[string]any{
				"lastPeriodicCheckpointTimestamp": cp.created.UnixMilli(),
				"formatType":                      "FULL",
			},
		}
		if w.stateUnreadable {
			delete(jobStatus, "jobId")
		}
		status = map[string]any{
			"observedGeneration":         int64(1),
			"lifecycleState":             "STABLE",
			"jobManagerDeploymentStatus": jobManager,
			"jobStatus":                  jobStatus,
		}
	case "StatefulSet":
		status = map[string]any{
			"observedGeneration": int64(1),
			"replicas":           int64(cp.replicas),
			"readyReplicas":      ready,
			"availableReplicas":  ready,
			"currentReplicas":    int64(cp.replicas),
			"updatedReplicas":    int64(cp.replicas),
		}
	default:
		status = map[string]any{
			"observedGeneration": int64(1),
			"replicas":           int64(cp.replicas),
			"updatedReplicas":    int64(cp.replicas),
			"readyReplicas":      ready,
			"availableReplicas":  ready,
		}
	}
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
	obj := map[string]any{
		"apiVersion": workloadGVK(w.spec.Kind).GroupVersion().String(),
		"kind":       w.spec.Kind,
		"metadata":   map[string]any{"name": w.name(), "generation": int64(1)},
		"spec":       map[string]any{"replicas": int64(cp.replicas)},
	}
	if status != nil {
		obj["status"] = status
	}
	return &unstructured.Unstructured{Object: obj}
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

// workloadGVK is the kind the simulated members run for a scenario kind.
func workloadGVK(kind string) schema.GroupVersionKind {
	if kind == "FlinkDeployment" {
		return schema.GroupVersionKind{Group: "flink.apache.org", Version: "v1beta1", Kind: kind}
	}
	return schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: kind}
}
