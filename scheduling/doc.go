// Package scheduling decides WHERE a workload may go: which clusters are
// feasible for it, and how a failover re-places it when clusters fail.
//
// What belongs here: the Filter interface and its runner, the built-in
// filters (TaintToleration, EvictionInProgress, EvictionHistory, Suspended,
// ClusterAffinity) and the failover re-placement of Duplicated and Divided
// workloads within spread bounds by cluster, region and zone. What does
// not: when to fail over (package failover), how the
// old copy leaves (package eviction), whether dispatching is suspended
// (package suspension; this package asks through the one-method
// SuspensionChecker, which *suspension.Suspension satisfies). Scoring
// plugins are not here either: callers pass precomputed scores, which
// only order candidates.
//
// Guarantees:
//
//   - Decisions are pure functions of their inputs and Workload.Now: no
//     clock is read, no goroutine started, inputs are not modified.
//   - Results are deterministic: candidates are ordered by score (higher
//     first), then by name; under a region or zone spread, one that opens
//     a region not covered yet comes first, then one that opens a zone.
//   - A re-placement never chooses a cluster a filter rejected, never assigns
//     more replicas than asked, never moves a workload off a cluster whose
//     dispatching is suspended, and keeps the clusters that did not fail.
//   - Every rejection that expires with time (an eviction-history block)
//     carries its expiry, and the runner reports the earliest one so the
//     caller can requeue the workload then instead of polling.
//   - Bad requests get errors wrapping ErrInvalidRequest that name the field;
//     no input panics.
package scheduling
