package controllers_test

import (
	"context"

	"k8s.io/apimachinery/pkg/labels"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

// A test's controllers see only its objects: the clusters, placements,
// decisions and replica sets that carry its scope label, which the test's
// client adds when it creates them. So tests (the crash campaign's runs)
// can run side by side on one API server, each with its own fake clock:
// otherwise one test's health controller would judge another test's
// clusters by its own clock. ManifestWorks and Leases of other tests reach
// the controllers' informers and map to replica sets and clusters the
// controllers do not have (not found, so nothing to do).
const scopeLabel = "fleetover.test/scope"

// scopedCache limits a test's controllers to its objects.
func scopedCache(scope string) cache.Options {
	sel := labels.SelectorFromSet(labels.Set{scopeLabel: scope})
	return cache.Options{ByObject: map[client.Object]cache.ByObject{
		&clusterv1.ManagedCluster{}:            {Label: sel},
		&clusterv1beta1.Placement{}:            {Label: sel},
		&clusterv1beta1.PlacementDecision{}:    {Label: sel},
		&workv1alpha1.ManifestWorkReplicaSet{}: {Label: sel},
	}}
}

// scopedClient is the test's client: every scoped object it creates
// carries the scope label.
func scopedClient(c client.WithWatch, scope string) client.Client {
	return interceptor.NewClient(c, interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			switch obj.(type) {
			case *clusterv1.ManagedCluster, *clusterv1beta1.Placement, *clusterv1beta1.PlacementDecision, *workv1alpha1.ManifestWorkReplicaSet:
				l := obj.GetLabels()
				if l == nil {
					l = map[string]string{}
				}
				l[scopeLabel] = scope
				obj.SetLabels(l)
			}
			return c.Create(ctx, obj, opts...)
		},
	})
}
