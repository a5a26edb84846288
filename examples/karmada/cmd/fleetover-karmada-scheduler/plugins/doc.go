// Package plugins puts fleetover's placement rules into Karmada's own
// scheduler as out-of-tree filter plugins of its scheduling framework
// (github.com/karmada-io/karmada/pkg/scheduler/framework). Each plugin is a
// thin adapter: it turns the binding's spec and status and the Cluster
// into the scheduling package's Workload and Cluster and asks one of its
// filters, so Karmada's scheduler and fleetover's controllers decide by the
// same code.
//
// The plugins, by the name they are registered and enabled under
// (karmada-scheduler's --plugins flag: '*' enables them with Karmada's
// own, '*,-Name' disables one):
//
//   - FleetoverDispatchSuspension (DispatchSuspensionName): a cluster the
//     binding's spec.suspension suspends dispatching to is chosen only if
//     the workload already runs there; Karmada's scheduler places on it
//     and the copy is never dispatched (Karmada #6730).
//   - FleetoverTaintToleration (TaintTolerationName): the taint rule of
//     fleetover's taint manager (failover.TolerationOptions): a taint the
//     workload does not tolerate keeps it off, and so does a NoExecute
//     taint it tolerates only for a time that is up. Karmada's
//     TaintToleration ignores tolerationSeconds, so it places where the
//     taint manager evicts at once.
//   - FleetoverEvictionHistory (EvictionHistoryName): a workload is kept
//     off a cluster it was evicted from for the policy's
//     blockPredecessorSeconds (the eviction history and the window are in
//     the annotations of package carrier). Karmada's ClusterEviction
//     plugin keeps it off only while the eviction task exists.
//
// Every plugin keeps new placements off and passes a cluster the workload
// is already on: taking a workload off a cluster is the failover
// controllers' (a graceful eviction task, paced, with the old copy kept
// until the new one runs); a scheduler that dropped the cluster would
// delete the copy there at once.
//
// Guarantees: the plugins read no clock but the one they are given, write
// nothing, are safe for the framework's concurrent calls, and never panic
// on what they read. An eviction history that cannot be read keeps no
// cluster out (fleetover's controllers report it on the binding); a block
// window that cannot be read is the default one. Both are logged.
package plugins
