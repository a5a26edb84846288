package preservation

// StatePreservation lists the pieces of a workload's status to carry to the
// cluster it moves to. Field names match the statePreservation block of a
// Karmada PropagationPolicy.
//
// +k8s:deepcopy-gen=true
type StatePreservation struct {
	// Rules name one piece of state each.
	Rules []StatePreservationRule `json:"rules"`
}

// StatePreservationRule reads one value from the workload's .status with a
// JSONPath template and carries it under AliasLabelName.
//
// +k8s:deepcopy-gen=true
type StatePreservationRule struct {
	// AliasLabelName is the label key the value is injected under on the new
	// cluster.
	AliasLabelName string `json:"aliasLabelName"`
	// JSONPath is a Kubernetes JSONPath template evaluated against .status:
	// "{ .jobStatus.jobId }" reads .status.jobStatus.jobId.
	JSONPath string `json:"jsonPath"`
}
