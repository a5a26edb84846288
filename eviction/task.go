package eviction

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Reasons a task is created for. Reasons follow the CamelCase form of
// metav1.Condition reasons.
const (
	// ReasonTaintUntolerated: the cluster carries a NoExecute taint the
	// workload no longer tolerates (cluster failover).
	ReasonTaintUntolerated = "TaintUntolerated"
	// ReasonApplicationFailure: the workload stayed unhealthy on the cluster
	// past its toleration (application failover).
	ReasonApplicationFailure = "ApplicationFailure"
)

// Producers name the controller that created a task.
const (
	ProducerTaintManager        = "TaintManager"
	ProducerApplicationFailover = "ApplicationFailover"
)

// GracefulEvictionTask records one cluster a workload is leaving. It is kept
// on the workload's binding until the old copy may go; its field names are
// those of Karmada's ResourceBinding so a binding decodes unchanged.
//
// +k8s:deepcopy-gen=true
type GracefulEvictionTask struct {
	// FromCluster is the cluster the workload is leaving.
	FromCluster string `json:"fromCluster"`
	// PurgeMode says how the old copy goes; empty means Gracefully.
	// +optional
	PurgeMode PurgeMode `json:"purgeMode,omitempty"`
	// Replicas is how many replicas were on FromCluster, when the workload
	// is divided.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`
	// Reason is a CamelCase word saying why (see the Reason constants).
	Reason string `json:"reason"`
	// Message is a human readable explanation.
	// +optional
	Message string `json:"message,omitempty"`
	// Producer names the controller that created the task.
	Producer string `json:"producer"`
	// GracePeriodSeconds overrides the global timeout for this task only.
	// +optional
	GracePeriodSeconds *int32 `json:"gracePeriodSeconds,omitempty"`
	// SuppressDeletion, when set, overrides the assessment: true keeps the
	// old copy however long it takes, false lets it go at the next look.
	// +optional
	SuppressDeletion *bool `json:"suppressDeletion,omitempty"`
	// PreservedLabelState is the state extracted from the old copy's status,
	// to be injected as labels on the new cluster.
	// +optional
	PreservedLabelState map[string]string `json:"preservedLabelState,omitempty"`
	// ClustersBeforeFailover are the clusters the workload was on when the
	// task was created; preserved state is never injected into them.
	// +optional
	ClustersBeforeFailover []string `json:"clustersBeforeFailover,omitempty"`
	// CreationTimestamp is set by the assessment the first time it sees the
	// task; every timeout counts from it.
	// +optional
	CreationTimestamp *metav1.Time `json:"creationTimestamp,omitempty"`
	// FencingEpoch is the fencing token of the copy this failover starts:
	// one more than any epoch the workload had before (NextFencingEpoch).
	// It is injected with the preserved state under FencingEpochLabel, so
	// a workload or its sink can refuse a writer with a smaller epoch (a
	// stale copy behind a partition). Zero: the task carries no epoch.
	// Karmada's binding has no such field.
	// +optional
	FencingEpoch int64 `json:"fencingEpoch,omitempty"`
}
