// Package karmadafleet reads a Karmada control plane's objects, as
// `kubectl get -o yaml` prints them, into a plain description of the fleet:
// its member clusters and the workloads its bindings propagate, with the
// placement and failover policy of each.
//
// It reads Clusters (cluster.karmada.io/v1alpha1), PropagationPolicies and
// ClusterPropagationPolicies (policy.karmada.io/v1alpha1), and
// ResourceBindings and ClusterResourceBindings (work.karmada.io/v1alpha2),
// one object or many per file (multi-document YAML, or a List with items),
// from a file or a directory read recursively. It knows those objects by
// Karmada's field names only: it imports no Karmada module, so a program
// built on it stays free of Karmada's dependencies (a test in
// examples/karmada checks the names against Karmada's own types).
//
// What the reader cannot describe is never dropped silently: an object of
// another kind, a field it does not know, or a value that would change
// behaviour in a way the description cannot carry (a spread constraint by
// provider, a second cluster affinity term, dependencies) becomes a
// Finding naming the object and the field path. Bad input (a document that
// is not YAML, a field of the wrong type, a cluster without a name) is an
// error naming the file, the object and the field; input is bounded in
// size (MaxBytes).
package karmadafleet
