// Package controllers holds reference controllers that run Karmada's
// failover on a control plane with fleetover making every decision. They
// are examples of wiring, not a product: each reconciler reads Karmada
// objects, hands them to one library package, and writes the answer back.
//
//	controller                   decides with
//	ClusterHealthController      failover.ClusterHealthTracker, failover.ComputeClusterTaints
//	TaintManager                 failover.ClusterFailoverPlanner, eviction.Pacer, eviction.Evict
//	GracefulEvictionController   eviction.Assess
//	ApplicationFailoverController failover.DetectApplicationFailure, eviction.Evict, eviction.EvictionHistory
//	FailoverScheduler            scheduling.Replace and its filters, eviction.EvictionHistory.GC
//	WorkDispatcher               suspension (ShouldDispatch, Decide, SetDispatchingCondition), preservation.Injector
//	FailoverConditions           ExplainBinding: the chain of the decisions above, as the Failover condition
//
// What belongs here: the glue between controller-runtime and the library
// (reading, converting, writing with optimistic concurrency, scheduling
// the next look). What does not: any decision the library can take.
//
// Guarantees:
//
//   - Time comes from the injected clock only. "Look again at T" answers
//     become controller-runtime's Result.RequeueAfter (Schedule); with a
//     clock other than the real one, each controller's queue waits for it
//     on that clock, so a test that steps a fake clock triggers the looks
//     that fall due.
//   - Every countdown is derived from persisted state: taint TimeAdded,
//     condition transition times, task creation timestamps, eviction
//     history, and two annotations holding the in-memory trackers' state
//     (ClusterHealthStateAnnotation, ApplicationHealthRecordsAnnotation). A
//     restart neither resets nor skips a countdown.
//   - Every write to an existing object is a JSON merge patch of the
//     fields the controller changed, carrying the resourceVersion it read
//     (client.MergeFromWithOptimisticLock), retried on a conflict against
//     the fresh object: no field the controller does not know and no
//     concurrent writer's change is lost.
//   - They run on Karmada's own API types (github.com/karmada-io/api) and
//     handle ResourceBinding and ClusterResourceBinding alike (BindingKind).
//     What the design has and Karmada's API lacks travels in versioned,
//     validated annotations (AnnotationSchemaVersion).
//   - Deletion is never held back by a suspension: a binding's finalizer
//     removes every Work, suspended or not.
package controllers
