package controllers

import (
	"context"

	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	workv1alpha1 "github.com/karmada-io/api/work/v1alpha1"

	"github.com/fleetover/fleetover/failover"
)

// explainFacts is everything the explanation of one binding reads from the
// API server: the binding (targets, tasks, tolerations, suspension,
// aggregated status, the annotations with the detector's records and the
// eviction history), the fleet's clusters (taints, Ready conditions), the
// failover policy (spec.failover and the extension, possibly from the
// propagation policy the binding names) and the binding's Works (what
// became of an old copy).
type explainFacts struct {
	binding  client.Object
	clusters []clusterv1alpha1.Cluster
	policy   *failover.FailoverBehavior
	// policyErr is why the policy could not be read: the binding gets no
	// failover decision, and the explanation says so.
	policyErr error
	works     []workv1alpha1.Work
}

// readExplainFacts reads the facts of binding rb (already read) from c.
func readExplainFacts(ctx context.Context, c client.Reader, rb client.Object) (*explainFacts, error) {
	clusters := &clusterv1alpha1.ClusterList{}
	if err := c.List(ctx, clusters); err != nil {
		return nil, err
	}
	works, err := bindingWorks(ctx, c, rb)
	if err != nil {
		return nil, err
	}
	f := &explainFacts{binding: rb, clusters: clusters.Items, works: works}
	f.policy, f.policyErr = failoverPolicy(ctx, c, rb)
	return f, nil
}
