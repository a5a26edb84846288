// Package v1alpha1 holds the subset of Karmada's work.karmada.io/v1alpha1 API
// the reference controllers use: the Work object, which carries the manifests
// dispatched to one member cluster.
//
// The types are wire-compatible with github.com/karmada-io/api/work/v1alpha1
// (same group, version, kind and JSON field names), written here because that
// module cannot be fetched; fields the controllers do not use are left out.
//
// +kubebuilder:object:generate=true
// +groupName=work.karmada.io
package v1alpha1
