package controllers

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/preservation"

	workv1alpha2 "github.com/fleetover/fleetover/examples/karmada/apis/work/v1alpha2"
)

// extractState reads the state sp preserves from the binding's aggregated
// status on cluster (package preservation). No rules give no state. A
// missing status or value is an error: the eviction waits rather than move
// a stateful workload without its state.
func extractState(sp *preservation.StatePreservation, rb *workv1alpha2.ResourceBinding, cluster string) (map[string]string, error) {
	if sp == nil || len(sp.Rules) == 0 {
		return nil, nil
	}
	rules, err := preservation.Compile(sp.Rules)
	if err != nil {
		return nil, err
	}
	for i := range rb.Status.AggregatedStatus {
		item := &rb.Status.AggregatedStatus[i]
		if item.ClusterName != cluster {
			continue
		}
		if item.Status == nil || len(item.Status.Raw) == 0 {
			break
		}
		return rules.ExtractFromJSON(item.Status.Raw)
	}
	return nil, fmt.Errorf("no status collected from cluster %q to preserve state from", cluster)
}

// evictInto applies eviction.Evict to the binding: the cluster leaves the
// targets and one task tracks its old copy. It reports whether the binding
// changed.
func evictInto(rb *workv1alpha2.ResourceBinding, ev eviction.Eviction) (eviction.EvictOutcome, bool, error) {
	targets := make([]eviction.TargetCluster, len(rb.Spec.Clusters))
	for i, tc := range rb.Spec.Clusters {
		targets[i] = eviction.TargetCluster{Name: tc.Name, Replicas: tc.Replicas}
	}
	res, err := eviction.Evict(targets, rb.Spec.GracefulEvictionTasks, ev)
	if err != nil || !res.Changed() {
		return res.Outcome, false, err
	}
	rb.Spec.Clusters = make([]workv1alpha2.TargetCluster, len(res.Targets))
	for i, tc := range res.Targets {
		rb.Spec.Clusters[i] = workv1alpha2.TargetCluster{Name: tc.Name, Replicas: tc.Replicas}
	}
	rb.Spec.GracefulEvictionTasks = res.Tasks
	return res.Outcome, true, nil
}

// targetNames lists the binding's target clusters.
func targetsOf(rb *workv1alpha2.ResourceBinding) []eviction.TargetCluster {
	out := make([]eviction.TargetCluster, len(rb.Spec.Clusters))
	for i, tc := range rb.Spec.Clusters {
		out[i] = eviction.TargetCluster{Name: tc.Name, Replicas: tc.Replicas}
	}
	return out
}

func targetNames(rb *workv1alpha2.ResourceBinding) []string {
	out := make([]string, len(rb.Spec.Clusters))
	for i, tc := range rb.Spec.Clusters {
		out[i] = tc.Name
	}
	return out
}

// NewStateInjector returns the dispatcher's StateInjector backed by
// preservation.Injector: the newest qualifying task's state goes into the
// manifest for a cluster that is neither the task's old cluster nor one the
// workload ran on before the failover. enabled plays the part of Karmada's
// StatefulFailoverInjection feature gate.
func NewStateInjector(enabled bool) StateInjector {
	injector := preservation.Injector{Enabled: enabled}
	return func(manifest *unstructured.Unstructured, cluster string, targets []eviction.TargetCluster, tasks []eviction.GracefulEvictionTask) error {
		if len(tasks) == 0 {
			return nil
		}
		_, err := injector.InjectFor(manifest, cluster, targets, tasks)
		return err
	}
}
