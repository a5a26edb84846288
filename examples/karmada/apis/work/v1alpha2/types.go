package v1alpha2

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/suspension"
)

// Condition types of a ResourceBinding.
const (
	// Scheduled: the scheduler placed the binding.
	Scheduled = "Scheduled"
	// FullyApplied: every target cluster applied the resource.
	FullyApplied = "FullyApplied"
)

// ResourceBinding ties a namespaced resource template to the clusters it is
// propagated to.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced,shortName=rb
// +kubebuilder:subresource:status
type ResourceBinding struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired placement.
	Spec ResourceBindingSpec `json:"spec"`
	// Status is the observed state.
	// +optional
	Status ResourceBindingStatus `json:"status,omitempty"`
}

// ResourceBindingSpec is the desired placement of a resource.
type ResourceBindingSpec struct {
	// Resource is the template this binding propagates.
	Resource ObjectReference `json:"resource"`
	// Replicas is the template's replica count, for divided workloads.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// Placement is the scheduling policy copied from the propagation policy.
	// +optional
	Placement *Placement `json:"placement,omitempty"`
	// Clusters are the target clusters chosen by the scheduler.
	// +optional
	Clusters []TargetCluster `json:"clusters,omitempty"`
	// GracefulEvictionTasks are the clusters the resource is leaving; the old
	// copy stays until its task is removed.
	// +optional
	GracefulEvictionTasks []eviction.GracefulEvictionTask `json:"gracefulEvictionTasks,omitempty"`
	// ActiveEvictionHistory remembers the clusters the resource was evicted
	// from, so the scheduler keeps it away for BlockPredecessorSeconds.
	// +optional
	ActiveEvictionHistory eviction.EvictionHistory `json:"activeEvictionHistory,omitempty"`
	// Failover is the failover behaviour copied from the propagation policy.
	// +optional
	Failover *failover.FailoverBehavior `json:"failover,omitempty"`
	// Suspension pauses dispatching to all or some clusters.
	// +optional
	Suspension *suspension.Suspension `json:"suspension,omitempty"`
	// RescheduleTriggeredAt asks the scheduler for a fresh placement.
	// +optional
	RescheduleTriggeredAt *metav1.Time `json:"rescheduleTriggeredAt,omitempty"`
	// SchedulerName names the scheduler responsible for the binding.
	// +optional
	SchedulerName string `json:"schedulerName,omitempty"`
}

// ObjectReference names the resource template.
type ObjectReference struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	// +optional
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
	// +optional
	UID string `json:"uid,omitempty"`
	// +optional
	ResourceVersion string `json:"resourceVersion,omitempty"`
}

// TargetCluster is one cluster chosen by the scheduler.
type TargetCluster struct {
	// Name is the cluster's name.
	Name string `json:"name"`
	// Replicas is this cluster's share, for divided workloads.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
}

// Placement is the subset of a propagation policy's placement the failover
// controllers read.
type Placement struct {
	// ClusterAffinity restricts the candidate clusters.
	// +optional
	ClusterAffinity *ClusterAffinity `json:"clusterAffinity,omitempty"`
	// ClusterTolerations are the taints the resource tolerates.
	// +optional
	ClusterTolerations []corev1.Toleration `json:"clusterTolerations,omitempty"`
	// SpreadConstraints bound how many groups the resource spreads over.
	// +optional
	SpreadConstraints []SpreadConstraint `json:"spreadConstraints,omitempty"`
	// ReplicaScheduling says whether replicas are duplicated or divided.
	// +optional
	ReplicaScheduling *ReplicaSchedulingStrategy `json:"replicaScheduling,omitempty"`
}

// ClusterAffinity lists candidate clusters by name.
type ClusterAffinity struct {
	// +optional
	ClusterNames []string `json:"clusterNames,omitempty"`
	// +optional
	ExcludeClusters []string `json:"exclude,omitempty"`
}

// SpreadConstraint bounds the spread over one field or label.
type SpreadConstraint struct {
	// SpreadByField is cluster, region, zone or provider.
	// +optional
	SpreadByField string `json:"spreadByField,omitempty"`
	// +optional
	SpreadByLabel string `json:"spreadByLabel,omitempty"`
	// +optional
	MaxGroups int `json:"maxGroups,omitempty"`
	// +optional
	MinGroups int `json:"minGroups,omitempty"`
}

// ReplicaSchedulingStrategy says how replicas are placed.
type ReplicaSchedulingStrategy struct {
	// ReplicaSchedulingType is Duplicated or Divided.
	// +kubebuilder:validation:Enum=Duplicated;Divided
	// +optional
	ReplicaSchedulingType string `json:"replicaSchedulingType,omitempty"`
	// ReplicaDivisionPreference is Aggregated or Weighted.
	// +optional
	ReplicaDivisionPreference string `json:"replicaDivisionPreference,omitempty"`
}

// ResourceBindingStatus is the observed state of a binding.
type ResourceBindingStatus struct {
	// SchedulerObservedGeneration is the generation the scheduler last
	// placed; when it equals metadata.generation the placement is current.
	// +optional
	SchedulerObservedGeneration int64 `json:"schedulerObservedGeneration,omitempty"`
	// LastScheduledTime is when the scheduler last placed the binding.
	// +optional
	LastScheduledTime *metav1.Time `json:"lastScheduledTime,omitempty"`
	// Conditions holds Scheduled and FullyApplied among others.
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// AggregatedStatus is the resource's status on each target cluster.
	// +optional
	AggregatedStatus []AggregatedStatusItem `json:"aggregatedStatus,omitempty"`
}

// AggregatedStatusItem is the resource's status on one cluster.
type AggregatedStatusItem struct {
	// ClusterName is the member cluster.
	ClusterName string `json:"clusterName"`
	// Status is the resource's .status there.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Status *runtime.RawExtension `json:"status,omitempty"`
	// Applied says whether the resource was applied there.
	// +optional
	Applied bool `json:"applied,omitempty"`
	// AppliedMessage explains an apply failure.
	// +optional
	AppliedMessage string `json:"appliedMessage,omitempty"`
	// Health is the interpreted health: Healthy, Unhealthy or Unknown.
	// +kubebuilder:validation:Enum=Healthy;Unhealthy;Unknown
	// +optional
	Health string `json:"health,omitempty"`
	// Settled says the resource was healthy there at least once.
	// +optional
	Settled bool `json:"settled,omitempty"`
	// CreationTimestamp is when the status there was first collected.
	// +optional
	CreationTimestamp metav1.Time `json:"creationTimestamp,omitempty"`
}

// ResourceBindingList is a list of bindings.
//
// +kubebuilder:object:root=true
type ResourceBindingList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []ResourceBinding `json:"items"`
}
