package controllers

import (
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	clusterv1alpha1 "github.com/fleetover/fleetover/examples/karmada/apis/cluster/v1alpha1"
	workv1alpha1 "github.com/fleetover/fleetover/examples/karmada/apis/work/v1alpha1"
	workv1alpha2 "github.com/fleetover/fleetover/examples/karmada/apis/work/v1alpha2"
)

// NewScheme returns a scheme that knows the built-in Kubernetes types and the
// Karmada types the controllers use.
func NewScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme,
		clusterv1alpha1.AddToScheme,
		workv1alpha1.AddToScheme,
		workv1alpha2.AddToScheme,
	} {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}
