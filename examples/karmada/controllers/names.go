package controllers

import (
	"hash/fnv"
	"strconv"

	"sigs.k8s.io/controller-runtime/pkg/client"

	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"
)

const (
	// ExecutionNamespacePrefix starts the name of each cluster's execution
	// namespace, where the Works for that cluster live (as in Karmada).
	ExecutionNamespacePrefix = "karmada-es-"
	// ClusterLeaseNamespace holds the Leases a pull-mode cluster's agent
	// renews, one per cluster, named after it (as in Karmada).
	ClusterLeaseNamespace = "karmada-cluster"
	// BindingFinalizer keeps a binding until its Works are gone: envtest, like
	// a Karmada control plane, runs no garbage collector for them.
	BindingFinalizer = "fleetover.io/binding-works"
)

// ExecutionNamespace returns the namespace holding the Works of cluster.
func ExecutionNamespace(cluster string) string {
	return ExecutionNamespacePrefix + cluster
}

// ClusterOfExecutionNamespace returns the cluster whose Works live in ns,
// and false for a namespace that is no execution namespace.
func ClusterOfExecutionNamespace(ns string) (string, bool) {
	p := ExecutionNamespacePrefix
	if len(ns) <= len(p) || ns[:len(p)] != p {
		return "", false
	}
	return ns[len(p):], true
}

// WorkName returns the name of a binding's Work in each execution
// namespace: the binding's name and a short hash of its kind, namespace,
// resource kind and name, so bindings with the same name do not clash.
func WorkName(binding client.Object) string {
	h := fnv.New32a()
	kind := ""
	if spec := bindingSpec(binding); spec != nil {
		kind = spec.Resource.Kind
	}
	prefix := ""
	if _, ok := binding.(*workv1alpha2.ClusterResourceBinding); ok {
		prefix = "cluster/"
	}
	_, _ = h.Write([]byte(prefix + binding.GetNamespace() + "/" + kind + "/" + binding.GetName()))
	name := binding.GetName()
	// Leave room for the hash within a 253-character object name.
	if len(name) > 240 {
		name = name[:240]
	}
	return name + "-" + strconv.FormatUint(uint64(h.Sum32()), 36)
}
