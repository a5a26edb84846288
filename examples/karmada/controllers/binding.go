package controllers

import (
	"sigs.k8s.io/controller-runtime/pkg/client"

	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"
)

// BindingKind names one of Karmada's two binding kinds. Both carry the same
// spec and status (workv1alpha2.ResourceBindingSpec and
// ResourceBindingStatus), so every binding controller runs once per kind
// and reads and writes them through bindingSpec and bindingStatus.
type BindingKind string

const (
	// ResourceBindingKind is the namespaced binding of a namespaced
	// resource template.
	ResourceBindingKind BindingKind = workv1alpha2.ResourceKindResourceBinding
	// ClusterResourceBindingKind is the cluster-scoped binding of a
	// cluster-scoped resource template.
	ClusterResourceBindingKind BindingKind = workv1alpha2.ResourceKindClusterResourceBinding
)

// BindingKinds lists both kinds, in the order the controllers are set up.
func BindingKinds() []BindingKind {
	return []BindingKind{ResourceBindingKind, ClusterResourceBindingKind}
}

// NewObject returns an empty binding of the kind.
func (k BindingKind) NewObject() client.Object {
	if k == ClusterResourceBindingKind {
		return &workv1alpha2.ClusterResourceBinding{}
	}
	return &workv1alpha2.ResourceBinding{}
}

// NewList returns an empty list of bindings of the kind.
func (k BindingKind) NewList() client.ObjectList {
	if k == ClusterResourceBindingKind {
		return &workv1alpha2.ClusterResourceBindingList{}
	}
	return &workv1alpha2.ResourceBindingList{}
}

// workLabel is the label that ties a Work to its binding: the binding
// carries it too, with its permanent ID (see permanentID).
func (k BindingKind) workLabel() string {
	if k == ClusterResourceBindingKind {
		return workv1alpha2.ClusterResourceBindingPermanentIDLabel
	}
	return workv1alpha2.ResourceBindingPermanentIDLabel
}

// bindingItems returns the items of a list made by NewList.
func bindingItems(l client.ObjectList) []client.Object {
	switch l := l.(type) {
	case *workv1alpha2.ResourceBindingList:
		out := make([]client.Object, len(l.Items))
		for i := range l.Items {
			out[i] = &l.Items[i]
		}
		return out
	case *workv1alpha2.ClusterResourceBindingList:
		out := make([]client.Object, len(l.Items))
		for i := range l.Items {
			out[i] = &l.Items[i]
		}
		return out
	}
	return nil
}

// bindingSpec returns the spec of a binding of either kind, nil for any
// other object.
func bindingSpec(o client.Object) *workv1alpha2.ResourceBindingSpec {
	switch b := o.(type) {
	case *workv1alpha2.ResourceBinding:
		return &b.Spec
	case *workv1alpha2.ClusterResourceBinding:
		return &b.Spec
	}
	return nil
}

// bindingStatus returns the status of a binding of either kind, nil for
// any other object.
func bindingStatus(o client.Object) *workv1alpha2.ResourceBindingStatus {
	switch b := o.(type) {
	case *workv1alpha2.ResourceBinding:
		return &b.Status
	case *workv1alpha2.ClusterResourceBinding:
		return &b.Status
	}
	return nil
}

// kindOf returns the kind of a binding object.
func kindOf(o client.Object) BindingKind {
	if _, ok := o.(*workv1alpha2.ClusterResourceBinding); ok {
		return ClusterResourceBindingKind
	}
	return ResourceBindingKind
}

// permanentID is the value that ties a binding's Works to it: the
// permanent-id label Karmada puts on the binding when it makes it (and on
// each of its Works), or, on a binding that has none (one this example's
// own detector or a test made), its UID. Beside Karmada, the Works are
// karmada-controller-manager's and carry the label's value, not the UID:
// reading them by the UID would find none, and take every old copy for
// gone.
func permanentID(rb client.Object) string {
	if id := rb.GetLabels()[kindOf(rb).workLabel()]; id != "" {
		return id
	}
	return string(rb.GetUID())
}
