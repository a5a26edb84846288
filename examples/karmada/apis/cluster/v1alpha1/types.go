package v1alpha1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ClusterSyncMode says who keeps a member cluster's state in sync.
// +kubebuilder:validation:Enum=Push;Pull
type ClusterSyncMode string

const (
	// Push: the control plane reaches the member cluster and probes it.
	Push ClusterSyncMode = "Push"
	// Pull: an agent in the member cluster reports, renewing a Lease.
	Pull ClusterSyncMode = "Pull"
)

// ClusterConditionReady is the type of the condition that says whether the
// control plane can use the member cluster.
const ClusterConditionReady = "Ready"

// Well-known taint keys put on clusters by the health controller.
const (
	// TaintClusterNotReady marks a cluster whose Ready condition is False.
	TaintClusterNotReady = "cluster.karmada.io/not-ready"
	// TaintClusterUnreachable marks a cluster whose Ready condition is Unknown.
	TaintClusterUnreachable = "cluster.karmada.io/unreachable"
)

// LeaseNamespace is where pull-mode agents renew their cluster's Lease; the
// Lease carries the cluster's name.
const LeaseNamespace = "karmada-cluster"

// Cluster is a member cluster of the federation.
//
// +genclient
// +genclient:nonNamespaced
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Mode",type=string,JSONPath=`.spec.syncMode`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
type Cluster struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired state of the cluster.
	Spec ClusterSpec `json:"spec"`
	// Status is the observed state of the cluster.
	// +optional
	Status ClusterStatus `json:"status,omitempty"`
}

// ClusterSpec is the desired state of a member cluster.
type ClusterSpec struct {
	// ID uniquely identifies the member cluster.
	// +optional
	ID string `json:"id,omitempty"`
	// SyncMode says whether the control plane pushes to the cluster or an
	// agent in the cluster pulls.
	// +kubebuilder:validation:Enum=Push;Pull
	SyncMode ClusterSyncMode `json:"syncMode"`
	// APIEndpoint is the member cluster's API server address.
	// +optional
	APIEndpoint string `json:"apiEndpoint,omitempty"`
	// Provider, Region and Zone place the cluster for spread constraints.
	// +optional
	Provider string `json:"provider,omitempty"`
	// +optional
	Region string `json:"region,omitempty"`
	// +optional
	Zone string `json:"zone,omitempty"`
	// Taints repel workloads that do not tolerate them.
	// +optional
	Taints []corev1.Taint `json:"taints,omitempty"`
}

// ClusterStatus is the observed state of a member cluster.
type ClusterStatus struct {
	// KubernetesVersion is the member cluster's version.
	// +optional
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
	// Conditions holds the Ready condition among others.
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// ClusterList is a list of clusters.
//
// +kubebuilder:object:root=true
type ClusterList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Cluster `json:"items"`
}
