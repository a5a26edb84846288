package preservation

import (
	"maps"
	"slices"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fleetover/fleetover/eviction"
)

// InjectionPolicy says where preserved state may be injected. A stateful
// workload resumed from a checkpoint must run as a single writer; the zero
// value injects only where one is guaranteed:
//
//   - the task that carries the state purges Directly: the old copy is
//     deleted before the new one is dispatched (eviction.DispatchBlocked
//     holds the dispatch until then), and
//   - the failover left one new target: two new clusters resuming the same
//     checkpoint would be two writers.
//
// Each field opts into injecting where a single writer is not guaranteed.
// Karmada injects in both cases; docs/stateful-failover.md compares.
type InjectionPolicy struct {
	// WhileOldCopyRuns also injects the state of Gracefully and Never
	// tasks, whose old copy keeps running while the new one starts.
	WhileOldCopyRuns bool
	// IntoSeveralTargets also injects when the failover placed the
	// workload on more than one new cluster: each resumes the same state.
	IntoSeveralTargets bool
}

// StateFor is InjectionPolicy{}.StateFor: state only where a single writer
// is guaranteed.
func StateFor(targetCluster string, targets []eviction.TargetCluster, tasks []eviction.GracefulEvictionTask) (map[string]string, bool) {
	return InjectionPolicy{}.StateFor(targetCluster, targets, tasks)
}

// StateFor returns a copy of the state to inject into the workload on
// targetCluster, and whether there is any. targets is the workload's
// placement and tasks its graceful eviction tasks, both as eviction.Evict
// (and scheduling.Replace) left them. The task whose state applies is
// eviction.StateCarrier's pick (never back to the cluster the state came
// from, nor to a cluster the workload ran on before that failover; the
// newest task wins whole). The policy then decides whether that state may
// go in: see InjectionPolicy.
//
// When the task carries a fencing epoch (eviction.GracefulEvictionTask.
// FencingEpoch), the state returned holds it too, in decimal under
// eviction.FencingEpochLabel, beside the preserved keys (replacing a
// preserved value under that key): the new copy learns its fencing token
// with its state, and only where the state may go.
func (p InjectionPolicy) StateFor(targetCluster string, targets []eviction.TargetCluster, tasks []eviction.GracefulEvictionTask) (map[string]string, bool) {
	carrier := eviction.StateCarrier(targetCluster, tasks)
	if carrier == nil {
		return nil, false
	}
	if carrier.PurgeMode.Normalize() != eviction.PurgeDirectly && !p.WhileOldCopyRuns {
		return nil, false
	}
	if !p.IntoSeveralTargets && newTargets(carrier, targetCluster, targets) > 1 {
		return nil, false
	}
	state := maps.Clone(carrier.PreservedLabelState)
	if carrier.FencingEpoch > 0 {
		state[eviction.FencingEpochLabel] = strconv.FormatInt(carrier.FencingEpoch, 10)
	}
	return state, true
}

// newTargets counts the clusters of the placement, targetCluster included,
// that the workload did not run on before the carrier's failover.
func newTargets(carrier *eviction.GracefulEvictionTask, targetCluster string, targets []eviction.TargetCluster) int {
	n := 1 // targetCluster qualified, so it is new
	for _, t := range targets {
		if t.Name != targetCluster && t.Name != carrier.FromCluster && !slices.Contains(carrier.ClustersBeforeFailover, t.Name) {
			n++
		}
	}
	return n
}

// Injector applies preserved state to the manifests dispatched to member
// clusters. It is the library's counterpart of Karmada's
// StatefulFailoverInjection feature gate: the zero Injector is disabled
// and changes nothing.
type Injector struct {
	// Enabled turns injection on.
	Enabled bool
	// Policy says where the state may go; the zero value only where a
	// single writer is guaranteed.
	Policy InjectionPolicy
}

// InjectFor injects into obj, the manifest about to be dispatched to
// targetCluster, the state the policy's StateFor selects from targets and
// tasks. It reports whether labels were written. A disabled Injector, or no
// state for targetCluster, leaves obj untouched. Errors are Inject's. Call
// it only for a dispatch eviction.DispatchBlocked lets through.
func (in Injector) InjectFor(obj *unstructured.Unstructured, targetCluster string, targets []eviction.TargetCluster, tasks []eviction.GracefulEvictionTask) (bool, error) {
	if !in.Enabled {
		return false, nil
	}
	state, ok := in.Policy.StateFor(targetCluster, targets, tasks)
	if !ok {
		return false, nil
	}
	if err := Inject(obj, state); err != nil {
		return false, err
	}
	return true, nil
}
