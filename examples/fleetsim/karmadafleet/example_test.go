package karmadafleet_test

import (
	"fmt"

	"github.com/fleetover/fleetover/examples/fleetsim/karmadafleet"
)

func ExampleParse() {
	export := `apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: member1}
spec: {syncMode: Push, zone: eu-1a}
status:
  conditions: [{type: Ready, status: "False", reason: ClusterNotReady, message: "", lastTransitionTime: "2026-01-01T00:00:00Z"}]
---
apiVersion: work.karmada.io/v1alpha2
kind: ResourceBinding
metadata: {name: web-deployment, namespace: shop}
spec:
  resource: {apiVersion: apps/v1, kind: Deployment, namespace: shop, name: web}
  replicas: 3
  clusters: [{name: member1, replicas: 3}]
  placement:
    spreadConstraints: [{spreadByField: provider, maxGroups: 1}]
`
	fleet, err := karmadafleet.Parse("export.yaml", []byte(export))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range fleet.Clusters {
		fmt.Printf("cluster %s in %s, Ready %s\n", c.Name, c.Zone, c.Ready)
	}
	for _, w := range fleet.Workloads {
		fmt.Printf("%s %s/%s: %d replicas on %v\n", w.Resource.Kind, w.Resource.Namespace, w.Resource.Name, w.Replicas, w.Clusters)
	}
	for _, f := range fleet.Findings {
		fmt.Println(f)
	}
	// Output:
	// cluster member1 in eu-1a, Ready False
	// Deployment shop/web: 3 replicas on [{member1 3}]
	// ResourceBinding shop/web-deployment: spec.placement.spreadConstraints[0].spreadByField: a spread by provider is not modelled; the constraint is ignored (export.yaml)
}
