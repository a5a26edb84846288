// Package suspension decides WHETHER a workload may be dispatched to a member
// cluster while its propagation is paused.
//
// What belongs here: the Suspension API type (the suspension block of a
// propagation policy or binding), its validation, the per-cluster checks a
// dispatcher makes before it writes to a cluster, the Dispatching condition a
// controller reports on each per-cluster work object, the rule that pauses
// failover while dispatching is suspended, and a guard that keeps a
// re-division from deleting a workload on a suspended cluster.
//
// What does not belong here: choosing clusters (package scheduling), leaving a
// cluster (package eviction) or deciding when to fail over (package failover).
// This package imports no other package of the module, so any of them may use
// it.
//
// Guarantees:
//
//   - Deletion is never blocked: Decide returns Proceed for OperationDelete
//     whatever the suspension says, so suspended workloads leave no leftovers.
//   - A nil *Suspension suspends nothing; every function accepts it.
//   - Decisions are pure: no clock is read, no goroutine started. The
//     condition helper takes "now" from the caller.
//   - Both field spellings decode: the original proposal's suspendDispatching
//     and suspendDispatchingOnClusters, and the current dispatching and
//     dispatchingOnClusters. Setting both spellings of one field is an error;
//     encoding always writes the current spelling.
//
// The Dispatching condition, per work object (one per cluster):
//
//	dispatching to the cluster   Status  Reason              Message
//	suspended                    False   SuspendDispatching  names the scope (all clusters, or this cluster)
//	not suspended                True    Dispatching         says updates are being applied
//
// Status True always means "changes reach the cluster". An early draft of the
// design reported True while suspended, which readers took for the opposite
// (Karmada #6509); this package never does.
package suspension
