package controllers

import (
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/api/policy/v1alpha1"
	workv1alpha1 "github.com/karmada-io/api/work/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"
)

// NewScheme returns a scheme that knows the built-in Kubernetes types and the
// Karmada types the controllers use.
func NewScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme,
		clusterv1alpha1.Install,
		policyv1alpha1.Install,
		workv1alpha1.Install,
		workv1alpha2.Install,
	} {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}
