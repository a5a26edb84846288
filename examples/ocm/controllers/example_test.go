package controllers_test

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"

	"github.com/fleetover/fleetover/examples/ocm/controllers"
)

// The health taints the controllers compute by default: OCM's own keys,
// NoSelectIfNew at once and NoSelect after the eviction timeout.
func ExampleDefaultClusterTaintConfig() {
	cfg := controllers.DefaultClusterTaintConfig()
	fmt.Println(cfg.NotReadyTaintKey)
	fmt.Println(cfg.UnreachableTaintKey)
	fmt.Println(cfg.NoExecuteAfterTimeout, cfg.EvictionTimeout)
	// Output:
	// cluster.open-cluster-management.io/unavailable
	// cluster.open-cluster-management.io/unreachable
	// true 5m0s
}

// Where a replica set's pieces live: its Placement's decision, and one
// ManifestWork per cluster namespace, named so that replica sets of the
// same name in two namespaces do not clash.
func ExampleWorkName() {
	set := &workv1alpha1.ManifestWorkReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "apps", Name: "api"}}
	other := &workv1alpha1.ManifestWorkReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: "batch", Name: "api"}}
	fmt.Println(controllers.DecisionName("api"))
	fmt.Println(controllers.WorkName(set) != controllers.WorkName(other))
	// Output:
	// api-decision-1
	// true
}
