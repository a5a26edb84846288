package controllers

import (
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
)

// NewScheme returns a scheme with the Kubernetes built-in types and the Open
// Cluster Management types the controllers read and write: ManagedCluster,
// Placement and PlacementDecision, ManifestWork and ManifestWorkReplicaSet.
func NewScheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme,
		clusterv1.Install,
		clusterv1beta1.Install,
		workv1.Install,
		workv1alpha1.Install,
	} {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}
