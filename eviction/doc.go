// Package eviction decides how a workload leaves a cluster: the graceful
// eviction tasks a binding carries while an old copy is still running, their
// validation and assessment, the purge modes (Directly, Gracefully, Never),
// a deadline queue to look at each workload again on time, a pacer that
// keeps a fleet-wide outage from turning into an eviction storm, and the
// per-workload eviction history the scheduler uses to stay away from a
// cluster it just left.
//
// What belongs here: everything between "this workload must leave cluster
// X" and "the old copy on X may be deleted". What does not: deciding that a
// workload must leave (package failover), what state to carry and how to
// inject it (package preservation), where the workload goes next (package
// scheduling). The only package of the module it imports is
// failover/health, for the health vocabulary: the health of the workload on
// a cluster is asked for through HealthLookup, what became of an old copy
// through OldCopyLookup, and preserved state is a plain map[string]string
// on the task.
//
// Guarantees:
//
//   - Decisions (Evict, Assess, DispatchBlocked, EvictionHistory.BlockedUntil)
//     are pure functions of their inputs and the time passed in; they never
//     read the clock, sleep, start goroutines or modify their inputs.
//   - The last copy of a workload is never deleted for lack of a
//     replacement: while the target list is empty, no task is removed by
//     time or health (unless AssessOptions.EmptyTargetsAreHealthy restores
//     Karmada's behaviour).
//   - Every countdown derives from a persisted timestamp (a task's
//     CreationTimestamp, a history entry's CreationTimestamp, an old copy's
//     deletion timestamp), so a controller restart neither resets nor skips
//     one.
//   - Under PurgeDirectly the new copy is never dispatched while the old
//     one may run: the gate holds from the eviction on, and the task
//     carries the preserved state until the new copy runs.
//     The DeadlineQueue holds only deadlines rebuilt from those timestamps;
//     the Pacer's modes and buckets can be exported and imported.
//   - The stateful helpers (DeadlineQueue, Pacer) take a k8s.io/utils/clock
//     clock and are safe for concurrent use. The DeadlineQueue runs on one
//     timer whatever its size, never a timer or goroutine per key; the Pacer
//     starts a timer only inside a blocking Wait.
//   - When every cluster of the fleet is unhealthy, the Pacer accepts no
//     eviction at all.
//   - Bad input gets a field.ErrorList or an error matching a sentinel with
//     errors.Is; nothing panics.
package eviction
