package controllers

import (
	"hash/fnv"
	"strconv"

	workv1alpha1 "github.com/fleetover/fleetover/examples/karmada/apis/work/v1alpha1"
	workv1alpha2 "github.com/fleetover/fleetover/examples/karmada/apis/work/v1alpha2"
)

// Labels and annotations that tie a Work to its binding, as Karmada sets them.
const (
	// BindingPermanentIDLabel carries the binding's UID on each of its Works.
	BindingPermanentIDLabel = "resourcebinding.karmada.io/permanent-id"
	// BindingNamespaceAnnotation and BindingNameAnnotation name the binding
	// a Work belongs to.
	BindingNamespaceAnnotation = "resourcebinding.karmada.io/namespace"
	BindingNameAnnotation      = "resourcebinding.karmada.io/name"
	// BindingFinalizer keeps a binding until its Works are gone: envtest, like
	// a Karmada control plane, runs no garbage collector for them.
	BindingFinalizer = "fleetover.io/binding-works"
)

// ExecutionNamespace returns the namespace holding the Works of cluster.
func ExecutionNamespace(cluster string) string {
	return workv1alpha1.ExecutionNamespacePrefix + cluster
}

// ClusterOfExecutionNamespace returns the cluster whose Works live in ns,
// and false for a namespace that is no execution namespace.
func ClusterOfExecutionNamespace(ns string) (string, bool) {
	p := workv1alpha1.ExecutionNamespacePrefix
	if len(ns) <= len(p) || ns[:len(p)] != p {
		return "", false
	}
	return ns[len(p):], true
}

// WorkName returns the name of the binding's Work in each execution
// namespace: the binding's name and a short hash of its namespace, kind and
// name, so bindings with the same name in different namespaces do not clash.
func WorkName(rb *workv1alpha2.ResourceBinding) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(rb.Namespace + "/" + rb.Spec.Resource.Kind + "/" + rb.Name))
	name := rb.Name
	// Leave room for the hash within a 253-character object name.
	if len(name) > 240 {
		name = name[:240]
	}
	return name + "-" + strconv.FormatUint(uint64(h.Sum32()), 36)
}
