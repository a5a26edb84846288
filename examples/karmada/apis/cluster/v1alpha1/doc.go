// Package v1alpha1 holds the subset of Karmada's cluster.karmada.io/v1alpha1
// API that the reference controllers read and write: the Cluster object with
// its sync mode, taints and Ready condition.
//
// The types are wire-compatible with github.com/karmada-io/api/cluster/v1alpha1
// (same group, version, kind and JSON field names) and are written for this
// example because that module cannot be fetched here. Fields the controllers do
// not use are left out; the CRD keeps unknown fields so a real Karmada object
// round-trips through it.
//
// +kubebuilder:object:generate=true
// +groupName=cluster.karmada.io
package v1alpha1
