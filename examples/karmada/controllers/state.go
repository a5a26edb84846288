package controllers

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/preservation"
)

// extractState reads the state sp preserves from the binding's aggregated
// status on cluster (package preservation). No rules give no state. A
// missing status or value is an error: the eviction waits rather than move
// a stateful workload without its state.
func extractState(sp *preservation.StatePreservation, status *workv1alpha2.ResourceBindingStatus, cluster string) (map[string]string, error) {
	if sp == nil || len(sp.Rules) == 0 {
		return nil, nil
	}
	rules, err := preservation.Compile(sp.Rules)
	if err != nil {
		return nil, err
	}
	for i := range status.AggregatedStatus {
		item := &status.AggregatedStatus[i]
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

// evictInto applies eviction.Evict to the binding's spec: the cluster
// leaves the targets and one task tracks its old copy. It reports whether
// the spec changed.
func evictInto(spec *workv1alpha2.ResourceBindingSpec, ev eviction.Eviction) (eviction.EvictOutcome, bool, error) {
	res, err := eviction.Evict(toTargets(spec.Clusters), toTasks(spec.GracefulEvictionTasks), ev)
	if err != nil || !res.Changed() {
		return res.Outcome, false, err
	}
	spec.Clusters = make([]workv1alpha2.TargetCluster, len(res.Targets))
	for i, tc := range res.Targets {
		spec.Clusters[i] = workv1alpha2.TargetCluster{Name: tc.Name, Replicas: tc.Replicas}
	}
	spec.GracefulEvictionTasks = fromTasks(res.Tasks)
	return res.Outcome, true, nil
}

// targetNames lists the binding's target clusters.
func targetNames(spec *workv1alpha2.ResourceBindingSpec) []string {
	out := make([]string, len(spec.Clusters))
	for i, tc := range spec.Clusters {
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
	return func(manifest *unstructured.Unstructured, cluster string, tasks []eviction.GracefulEvictionTask) error {
		if len(tasks) == 0 {
			return nil
		}
		carriers := make([]preservation.Carrier, len(tasks))
		for i := range tasks {
			t := &tasks[i]
			carriers[i] = preservation.Carrier{
				FromCluster:            t.FromCluster,
				ClustersBeforeFailover: t.ClustersBeforeFailover,
				State:                  t.PreservedLabelState,
			}
			if t.CreationTimestamp != nil {
				carriers[i].CreatedAt = t.CreationTimestamp.Time
			}
		}
		_, err := injector.InjectFor(manifest, cluster, carriers)
		return err
	}
}
