package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupName is the API group of the types in this package.
const GroupName = "work.karmada.io"

// SchemeGroupVersion is the API group and version of the types in this package.
var SchemeGroupVersion = schema.GroupVersion{Group: GroupName, Version: "v1alpha1"}

// AddToScheme registers the types of this package with a scheme.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(SchemeGroupVersion, &Work{}, &WorkList{})
	metav1.AddToGroupVersion(s, SchemeGroupVersion)
	return nil
}
