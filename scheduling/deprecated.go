package scheduling

import (
	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
)

// Identifiers kept for one minor version after a rename, so that code
// written against the API before v0.1.0 still compiles. Each is the same
// concept under its old name; CHANGELOG.md and docs/migrating.md say what
// to write instead. They go in v0.2.0.

// TargetCluster is one cluster of a workload's placement.
//
// Deprecated: use eviction.TargetCluster, the one placement type that
// eviction.Evict returns and Replace takes. This is an alias, not a second
// type.
type TargetCluster = eviction.TargetCluster

// TaintTolerationOptions configures TaintToleration.
//
// Deprecated: use failover.TolerationOptions, the one toleration matching
// rule shared with failover's decisions. This is an alias, not a second
// type.
type TaintTolerationOptions = failover.TolerationOptions
