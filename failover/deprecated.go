package failover

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/preservation"
)

// Identifiers kept for one minor version after a rename, so that code
// written against the API before v0.1.0 still compiles. Each is the same
// concept under its old name; CHANGELOG.md and docs/migrating.md say what
// to write instead. They go in v0.2.0.

// WorkloadHealth is the health of a binding's workload on one cluster.
//
// Deprecated: use ObservedHealth. This is an alias, not a second type; its
// field Health is now Status (a health.Status, as before).
type WorkloadHealth = ObservedHealth

const (
	// DefaultGracePeriodSeconds is the grace period of a graceful purge
	// when the policy names none.
	//
	// Deprecated: use eviction.DefaultGracePeriodSeconds (the same value:
	// one constant for the library).
	DefaultGracePeriodSeconds = eviction.DefaultGracePeriodSeconds

	// DefaultBlockPredecessorSeconds keeps a workload away from the cluster
	// it was evicted from.
	//
	// Deprecated: use eviction.DefaultBlockPredecessorSeconds (the same
	// value: one constant for the library).
	DefaultBlockPredecessorSeconds = eviction.DefaultBlockPredecessorSeconds
)

// WarningsForStatePreservationSpread warns about state preservation on a
// placement that may span several clusters.
//
// Deprecated: use WarningsForStatePreservation, which also takes the
// controller's preservation.InjectionPolicy. This wrapper passes the zero
// policy (inject only where a single writer is guaranteed), so besides the
// spread warning it returns the purge-mode warnings that policy implies.
func WarningsForStatePreservationSpread(fb *FailoverBehavior, maxGroups int32, fldPath *field.Path) []string {
	return WarningsForStatePreservation(fb, maxGroups, preservation.InjectionPolicy{}, fldPath)
}
