package controllers

import (
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
)

// FailoverStateVersion is the version of FailoverState's JSON.
const FailoverStateVersion = "failover.fleetover.io/v1alpha1"

// FailoverState is what fleetover remembers about one workload between two
// looks, kept on its PlacementDecision (FailoverStateAnnotation): what
// OCM's API has no field for. Everything a countdown counts from is in
// here or on another persisted object, so a restart neither resets nor
// skips one.
type FailoverState struct {
	// Version is FailoverStateVersion.
	Version string `json:"version"`
	// Tasks are the graceful eviction tasks: the clusters the workload is
	// leaving, how, and the state preserved from them.
	Tasks []eviction.GracefulEvictionTask `json:"tasks,omitempty"`
	// History records the clusters the workload was evicted from, so the
	// re-placement keeps it away for BlockPredecessorSeconds.
	History eviction.EvictionHistory `json:"history,omitempty"`
	// ApplicationHealth are the application failover detector's records
	// (unhealthy-since and settled, per cluster).
	ApplicationHealth []failover.WorkloadHealthRecord `json:"applicationHealth,omitempty"`
	// FencingEpoch is the last fencing epoch a failover of the workload
	// gave its new copy (eviction.NextFencingEpoch counts on from it), kept
	// when the task that carried it is gone.
	FencingEpoch int64 `json:"fencingEpoch,omitempty"`
}

// decodeState reads the failover state from annotations. No annotation is
// an empty state. A damaged or invalid one is an error naming the field: the
// controllers then act on nothing rather than forget an eviction.
func decodeState(annotations map[string]string) (FailoverState, error) {
	raw, ok := annotations[FailoverStateAnnotation]
	if !ok {
		return FailoverState{Version: FailoverStateVersion}, nil
	}
	path := field.NewPath("metadata", "annotations").Key(FailoverStateAnnotation)
	var st FailoverState
	if err := json.Unmarshal([]byte(raw), &st); err != nil {
		return FailoverState{}, field.Invalid(path, raw, err.Error())
	}
	if st.Version != FailoverStateVersion {
		return FailoverState{}, field.NotSupported(path.Child("version"), st.Version, []string{FailoverStateVersion})
	}
	errs := eviction.ValidateGracefulEvictionTasks(st.Tasks, path.Child("tasks"))
	errs = append(errs, eviction.ValidateEvictionHistory(st.History, path.Child("history"))...)
	if st.FencingEpoch < 0 {
		errs = append(errs, field.Invalid(path.Child("fencingEpoch"), st.FencingEpoch, "must be greater than or equal to 0"))
	}
	if len(errs) > 0 {
		return FailoverState{}, errs.ToAggregate()
	}
	return st, nil
}

// encodeState writes the state into annotations (removing it when empty)
// and reports whether they changed.
func encodeState(annotations *map[string]string, st FailoverState) (bool, error) {
	st.Version = FailoverStateVersion
	if len(st.Tasks) == 0 && len(st.History) == 0 && len(st.ApplicationHealth) == 0 && st.FencingEpoch == 0 {
		if _, ok := (*annotations)[FailoverStateAnnotation]; !ok {
			return false, nil
		}
		delete(*annotations, FailoverStateAnnotation)
		return true, nil
	}
	raw, err := json.Marshal(st)
	if err != nil {
		return false, err
	}
	if (*annotations)[FailoverStateAnnotation] == string(raw) {
		return false, nil
	}
	if *annotations == nil {
		*annotations = map[string]string{}
	}
	(*annotations)[FailoverStateAnnotation] = string(raw)
	return true, nil
}

// decodePolicy reads a ManifestWorkReplicaSet's failover behaviour and
// validates it as an admission webhook would. No annotation is no failover
// (nil). The defaults are not written into the object: the library applies
// them where it reads the policy.
func decodePolicy(annotations map[string]string) (*failover.FailoverBehavior, error) {
	raw, ok := annotations[FailoverPolicyAnnotation]
	if !ok {
		return nil, nil
	}
	path := field.NewPath("metadata", "annotations").Key(FailoverPolicyAnnotation)
	fb := &failover.FailoverBehavior{}
	if err := json.Unmarshal([]byte(raw), fb); err != nil {
		return nil, field.Invalid(path, raw, err.Error())
	}
	if errs := failover.ValidateFailoverBehavior(fb, path); len(errs) > 0 {
		return nil, fmt.Errorf("invalid failover policy: %w", errs.ToAggregate())
	}
	return fb, nil
}
