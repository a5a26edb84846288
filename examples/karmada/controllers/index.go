package controllers

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// BindingTargetClusterIndex indexes bindings of both kinds by the names of
// their target clusters, so a cluster's taint manager lists only the
// bindings on it instead of every binding.
const BindingTargetClusterIndex = "spec.clusters.name"

// IndexBindingsByCluster registers BindingTargetClusterIndex for both
// binding kinds with the manager's cache.
func IndexBindingsByCluster(ctx context.Context, indexer client.FieldIndexer) error {
	for _, kind := range BindingKinds() {
		err := indexer.IndexField(ctx, kind.NewObject(), BindingTargetClusterIndex, func(o client.Object) []string {
			spec := bindingSpec(o)
			if spec == nil {
				return nil
			}
			names := make([]string, 0, len(spec.Clusters))
			for _, tc := range spec.Clusters {
				names = append(names, tc.Name)
			}
			return names
		})
		if err != nil {
			return err
		}
	}
	return nil
}
