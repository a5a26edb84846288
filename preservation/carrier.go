package preservation

import (
	"maps"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Carrier is the part of a graceful eviction task that preservation needs:
// the state taken from the cluster being left, and where it must not go.
// Cluster failover and application failover tasks map onto it alike.
type Carrier struct {
	// FromCluster is the cluster the state was extracted from.
	FromCluster string
	// ClustersBeforeFailover are the clusters the workload ran on when the
	// task was created.
	ClustersBeforeFailover []string
	// State is the preserved label state.
	State map[string]string
	// CreatedAt is the task's creation timestamp. The zero time means "not
	// stamped yet", which in an eviction flow means just created: it counts
	// as newer than any stamped carrier.
	CreatedAt time.Time
}

// qualifiesFor reports whether the carrier's state may go to target: never
// back to the cluster it came from, never to a cluster the workload already
// ran on before the failover, and only when there is state to carry.
func (c *Carrier) qualifiesFor(target string) bool {
	return len(c.State) > 0 && c.FromCluster != target && !slices.Contains(c.ClustersBeforeFailover, target)
}

// newerThan orders carriers: newest CreatedAt first (zero counts as
// newest), then the smaller FromCluster name.
func (c *Carrier) newerThan(o *Carrier) bool {
	switch {
	case c.CreatedAt.IsZero() != o.CreatedAt.IsZero():
		return c.CreatedAt.IsZero()
	case !c.CreatedAt.Equal(o.CreatedAt):
		return c.CreatedAt.After(o.CreatedAt)
	default:
		return c.FromCluster < o.FromCluster
	}
}

// StateFor returns a copy of the state to inject into the workload on
// targetCluster, and whether there is any. Among the carriers that qualify
// (non-empty State, targetCluster is neither their FromCluster nor in their
// ClustersBeforeFailover) the newest by CreatedAt wins whole, states are not
// merged: the newest task saw the most recent status. Equal CreatedAt goes to
// the smaller FromCluster name, then to the earlier carrier in the slice, so
// the answer never depends on map or goroutine order.
func StateFor(targetCluster string, carriers []Carrier) (map[string]string, bool) {
	var best *Carrier
	for i := range carriers {
		c := &carriers[i]
		if !c.qualifiesFor(targetCluster) {
			continue
		}
		if best == nil || c.newerThan(best) {
			best = c
		}
	}
	if best == nil {
		return nil, false
	}
	return maps.Clone(best.State), true
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
// targetCluster, the state StateFor selects from carriers. It reports
// whether labels were written. A disabled Injector, or no qualifying
// carrier, leaves obj untouched. Errors are Inject's.
func (in Injector) InjectFor(obj *unstructured.Unstructured, targetCluster string, carriers []Carrier) (bool, error) {
	if !in.Enabled {
		return false, nil
	}
	state, ok := StateFor(targetCluster, carriers)
	if !ok {
		return false, nil
	}
	if err := Inject(obj, state); err != nil {
		return false, err
	}
	return true, nil
}
