package controllers

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"

	workv1alpha2 "github.com/fleetover/fleetover/examples/karmada/apis/work/v1alpha2"
)

// BindingTargetClusterIndex indexes bindings by the names of their target
// clusters, so a cluster's taint manager lists only the bindings on it
// instead of every binding.
const BindingTargetClusterIndex = "spec.clusters.name"

// IndexBindingsByCluster registers BindingTargetClusterIndex with the
// manager's cache.
func IndexBindingsByCluster(ctx context.Context, indexer client.FieldIndexer) error {
	return indexer.IndexField(ctx, &workv1alpha2.ResourceBinding{}, BindingTargetClusterIndex, func(o client.Object) []string {
		rb, ok := o.(*workv1alpha2.ResourceBinding)
		if !ok {
			return nil
		}
		names := make([]string, 0, len(rb.Spec.Clusters))
		for _, tc := range rb.Spec.Clusters {
			names = append(names, tc.Name)
		}
		return names
	})
}
