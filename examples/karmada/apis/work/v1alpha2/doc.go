// Package v1alpha2 holds the subset of Karmada's work.karmada.io/v1alpha2 API
// the reference controllers use: the ResourceBinding, which ties a resource
// template to its target clusters and carries the failover state (graceful
// eviction tasks, eviction history) and the aggregated status.
//
// The types are wire-compatible with github.com/karmada-io/api/work/v1alpha2
// (same group, version, kind and JSON field names), written here because that
// module cannot be fetched. Failover fields reuse the library's own types
// (eviction.GracefulEvictionTask, failover.FailoverBehavior), whose JSON
// names are Karmada's.
//
// +kubebuilder:object:generate=true
// +groupName=work.karmada.io
package v1alpha2
