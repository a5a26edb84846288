package controllers

import (
	"fmt"

	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/preservation"
)

// WorkloadManifest is the ordinal of the manifest whose status tells the
// workload's health and carries its state: the first manifest of the
// replica set's template. Other manifests (a Service, a ConfigMap) travel
// with it.
const WorkloadManifest = 0

// workHealth reads a workload's health and state from its ManifestWork's
// status feedback (see observedWorkload), through the library's health
// interpreters and state preservation rules.
type workHealth struct {
	registry *health.Registry
}

// status is the workload's health on the work's cluster; a missing work or
// one with no feedback yet is Unknown.
func (w *workHealth) status(mw *workv1.ManifestWork) (health.Status, string) {
	if mw == nil {
		return health.Unknown, "no manifest work"
	}
	obj, ok, err := observedWorkload(mw, WorkloadManifest)
	if err != nil {
		return health.Unknown, err.Error()
	}
	if !ok {
		return health.Unknown, "no status feedback yet"
	}
	return interpret(w.registry, obj)
}

// state extracts the preserved state from the work's status feedback.
func (w *workHealth) state(sp *preservation.StatePreservation, mw *workv1.ManifestWork) (map[string]string, error) {
	if mw == nil {
		return nil, fmt.Errorf("no manifest work to read the state from")
	}
	obj, ok, err := observedWorkload(mw, WorkloadManifest)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("manifest work %s/%s reports no status feedback yet", mw.Namespace, mw.Name)
	}
	return preserveState(sp, obj)
}
