package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Condition types and reasons of a Work.
const (
	// WorkApplied: the manifests were applied on the member cluster.
	WorkApplied = "Applied"
	// WorkDispatching: whether the Work is being dispatched to its cluster.
	WorkDispatching = "Dispatching"
)

// ExecutionNamespacePrefix prefixes the namespace that holds the Works of
// one member cluster: "karmada-es-<cluster>".
const ExecutionNamespacePrefix = "karmada-es-"

// Work carries the manifests the control plane applies on one member
// cluster; it lives in that cluster's execution namespace.
//
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced
// +kubebuilder:subresource:status
type Work struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is what to apply.
	Spec WorkSpec `json:"spec"`
	// Status is what the member cluster reported.
	// +optional
	Status WorkStatus `json:"status,omitempty"`
}

// WorkSpec is what to apply on the member cluster.
type WorkSpec struct {
	// Workload holds the manifests.
	// +optional
	Workload WorkloadTemplate `json:"workload,omitempty"`
	// SuspendDispatching, when true, stops applying the manifests to the
	// member cluster; deleting the Work still removes them.
	// +optional
	SuspendDispatching *bool `json:"suspendDispatching,omitempty"`
	// PreserveResourcesOnDeletion keeps the member cluster's resources when
	// the Work is deleted.
	// +optional
	PreserveResourcesOnDeletion *bool `json:"preserveResourcesOnDeletion,omitempty"`
}

// WorkloadTemplate is the list of manifests.
type WorkloadTemplate struct {
	// Manifests are the objects to apply.
	// +optional
	Manifests []Manifest `json:"manifests,omitempty"`
}

// Manifest is one object, kept as raw JSON.
type Manifest struct {
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:EmbeddedResource
	runtime.RawExtension `json:",inline"`
}

// WorkStatus is what the member cluster reported.
type WorkStatus struct {
	// Conditions holds Applied and Dispatching among others.
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// ManifestStatuses is the status of each manifest on the member cluster.
	// +optional
	ManifestStatuses []ManifestStatus `json:"manifestStatuses,omitempty"`
}

// ManifestStatus is the status of one manifest on the member cluster.
type ManifestStatus struct {
	// Identifier names the manifest.
	Identifier ResourceIdentifier `json:"identifier"`
	// Status is the object's .status as the member cluster reports it.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Status *runtime.RawExtension `json:"status,omitempty"`
	// Health is the interpreted health: Healthy, Unhealthy or Unknown.
	// +kubebuilder:validation:Enum=Healthy;Unhealthy;Unknown
	// +optional
	Health string `json:"health,omitempty"`
}

// ResourceIdentifier names one manifest of a Work.
type ResourceIdentifier struct {
	// Ordinal is the manifest's index in the Work.
	Ordinal int `json:"ordinal"`
	// +optional
	Group   string `json:"group,omitempty"`
	Version string `json:"version"`
	Kind    string `json:"kind"`
	// +optional
	Resource string `json:"resource,omitempty"`
	// +optional
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

// WorkList is a list of Works.
//
// +kubebuilder:object:root=true
type WorkList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Work `json:"items"`
}
