package preservation

import (
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fleetover/fleetover/eviction"
)

// qualifies reports whether the state task carries may go to target: never
// back to the cluster it came from, never to a cluster the workload already
// ran on before the failover, and only when there is state to carry.
func qualifies(t *eviction.GracefulEvictionTask, target string) bool {
	return len(t.PreservedLabelState) > 0 && t.FromCluster != target && !slices.Contains(t.ClustersBeforeFailover, target)
}

// newer orders tasks: the newest CreationTimestamp first (none counts as
// newest: in an eviction flow an unstamped task was just created), then the
// smaller FromCluster name.
func newer(a, b *eviction.GracefulEvictionTask) bool {
	aNew, bNew := a.CreationTimestamp == nil, b.CreationTimestamp == nil
	switch {
	case aNew != bNew:
		return aNew
	case !aNew && !a.CreationTimestamp.Equal(b.CreationTimestamp):
		return a.CreationTimestamp.After(b.CreationTimestamp.Time)
	default:
		return a.FromCluster < b.FromCluster
	}
}

// StateFor returns a copy of the state to inject into the workload on
// targetCluster, read from the workload's graceful eviction tasks (as
// eviction.Evict returned them), and whether there is any. Among the tasks
// that qualify (non-empty PreservedLabelState, targetCluster is neither
// their FromCluster nor in their ClustersBeforeFailover) the newest by
// CreationTimestamp wins whole, states are not merged: the newest task saw
// the most recent status. Equal timestamps go to the smaller FromCluster
// name, then to the earlier task in the slice, so the answer never depends
// on map or goroutine order.
func StateFor(targetCluster string, tasks []eviction.GracefulEvictionTask) (map[string]string, bool) {
	var best *eviction.GracefulEvictionTask
	for i := range tasks {
		t := &tasks[i]
		if !qualifies(t, targetCluster) {
			continue
		}
		if best == nil || newer(t, best) {
			best = t
		}
	}
	if best == nil {
		return nil, false
	}
	return maps.Clone(best.PreservedLabelState), true
}

// Injector applies preserved state to the manifests dispatched to member
// clusters. It is the library's counterpart of Karmada's
// StatefulFailoverInjection feature gate: the zero Injector is disabled
// and changes nothing.
type Injector struct {
	// Enabled turns injection on.
	Enabled bool
}

// InjectFor injects into obj, the manifest about to be dispatched to
// targetCluster, the state StateFor selects from tasks. It reports whether
// labels were written. A disabled Injector, or no qualifying task, leaves
// obj untouched. Errors are Inject's.
func (in Injector) InjectFor(obj *unstructured.Unstructured, targetCluster string, tasks []eviction.GracefulEvictionTask) (bool, error) {
	if !in.Enabled {
		return false, nil
	}
	state, ok := StateFor(targetCluster, tasks)
	if !ok {
		return false, nil
	}
	if err := Inject(obj, state); err != nil {
		return false, err
	}
	return true, nil
}
