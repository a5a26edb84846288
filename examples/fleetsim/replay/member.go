package replay

import (
	"strconv"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Copy is what a member cluster's copy of a workload reports, as the
// simulator models it.
type Copy struct {
	// Name is the workload's (a Flink job is named after it).
	Name string
	// Replicas are the copy's replicas; Ready of them are ready.
	Replicas, Ready int64
	// Failing: the workload fails on this cluster (a workloadUnhealthy
	// fault).
	Failing bool
	// JobID is the job a stateful copy runs; empty for other kinds.
	JobID string
	// Created is when the copy started.
	Created time.Time
	// Unreadable leaves the preserved state out of the status (the
	// operator is reconciling it).
	Unreadable bool
}

// Status is the .status a member reports for a copy of a workload of
// kind: what the control plane collects and the health interpreters read.
// The simulator and the replay's member emulator both report it, so both
// sides decide on the same statuses.
func Status(kind string, c Copy) map[string]any {
	switch kind {
	case "FlinkDeployment":
		// A failing copy fails for its cluster's sake (its job manager
		// cannot run there), which moving solves.
		state, jobManager := "RUNNING", "READY"
		if c.Ready == 0 {
			state = "RECONCILING"
			if c.Failing {
				jobManager = "ERROR"
			}
		}
		jobStatus := map[string]any{
			"jobId":     c.JobID,
			"jobName":   c.Name,
			"state":     state,
			"startTime": strconv.FormatInt(c.Created.UnixMilli(), 10),
			"checkpointInfo": map[string]any{
				"lastPeriodicCheckpointTimestamp": c.Created.UnixMilli(),
				"formatType":                      "FULL",
			},
		}
		if c.Unreadable {
			delete(jobStatus, "jobId")
		}
		return map[string]any{
			"observedGeneration":         int64(1),
			"lifecycleState":             "STABLE",
			"jobManagerDeploymentStatus": jobManager,
			"jobStatus":                  jobStatus,
		}
	case "StatefulSet":
		return map[string]any{
			"observedGeneration": int64(1),
			"replicas":           c.Replicas,
			"readyReplicas":      c.Ready,
			"availableReplicas":  c.Ready,
			"currentReplicas":    c.Replicas,
			"updatedReplicas":    c.Replicas,
		}
	default:
		return map[string]any{
			"observedGeneration": int64(1),
			"replicas":           c.Replicas,
			"updatedReplicas":    c.Replicas,
			"readyReplicas":      c.Ready,
			"availableReplicas":  c.Ready,
		}
	}
}

// GVK is the kind the members run for a workload kind of a scenario.
func GVK(kind string) schema.GroupVersionKind {
	if kind == "FlinkDeployment" {
		return schema.GroupVersionKind{Group: "flink.apache.org", Version: "v1beta1", Kind: kind}
	}
	return schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: kind}
}

// Object is a copy of the workload as it exists on a member cluster: what
// a health interpreter reads. A nil status leaves .status out.
func Object(kind, name string, replicas int64, status map[string]any) *unstructured.Unstructured {
	obj := map[string]any{
		"apiVersion": GVK(kind).GroupVersion().String(),
		"kind":       kind,
		"metadata":   map[string]any{"name": name, "generation": int64(1)},
		"spec":       map[string]any{"replicas": replicas},
	}
	if status != nil {
		obj["status"] = status
	}
	return &unstructured.Unstructured{Object: obj}
}
