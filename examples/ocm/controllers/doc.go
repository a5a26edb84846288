// Package controllers holds reference controllers that run failover on an
// Open Cluster Management hub with fleetover making every decision. They
// read OCM's own objects (open-cluster-management.io/api), hand them to one
// library package, and write the answer back.
//
//	controller                     decides with
//	ClusterHealthController        failover.ClusterHealthTracker, failover.ComputeClusterTaints
//	PlacementFailoverController    failover.ClusterFailoverPlanner, eviction.Pacer, eviction.Evict, scheduling.Replace
//	ApplicationFailoverController  failover/health interpreters, failover.DetectApplicationFailure, eviction.Evict, scheduling.Replace
//	GracefulEvictionController     eviction.Assess
//	WorkDistributor                eviction.DispatchBlocked, eviction.DeleteOldCopy, preservation (StateFor, Inject)
//
// The OCM objects and what they stand for:
//
//	ManagedCluster          a member cluster; its klusterlet's Lease and Available condition are the health reports,
//	                        spec.taints carry the health taints
//	Placement               the tolerations (tolerationSeconds) and the predicates (label and claim selectors)
//	PlacementDecision       the clusters the workload runs on; its FailoverStateAnnotation holds the failover state
//	ManifestWorkReplicaSet  the workload (a ManifestWork template) and, in FailoverPolicyAnnotation, its failover policy
//	ManifestWork            one copy on one cluster; its status feedback is the workload's health and state
//
// Every decision asked of the library is in decide.go, and every
// conversion between OCM's types and the library's in convert.go; the
// constructors are called in setup.go and recheck.go, the validators in
// state.go.
//
// Guarantees:
//
//   - Time comes from the injected clock only: "look again at T" answers go
//     into one eviction.DeadlineQueue per controller (Rechecker), so a fake
//     clock steps every countdown.
//   - Every countdown is derived from persisted state: taint timeAdded, the
//     tracker state annotation on the ManagedCluster, task creation
//     timestamps, eviction history and detector records on the
//     PlacementDecision. A restart neither resets nor skips a countdown.
//   - Every write carries the resourceVersion it read and is retried on a
//     conflict against the fresh object, so a concurrent writer's change is
//     never overwritten. The controllers write only: ManagedCluster
//     spec.taints under the configured keys and one annotation,
//     PlacementDecision status.decisions and one annotation, and the
//     ManifestWorks they create.
//   - A stateful workload never runs twice: under Directly the new copy is
//     dispatched only once the old ManifestWork is gone, and only then with
//     the preserved state (preservation.StateFor's single-writer rule). The
//     task that carries the state stays until the new copy is healthy.
package controllers
