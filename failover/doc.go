// Package failover decides WHEN a workload leaves a cluster.
//
// What belongs here:
//   - the policy API of failover (FailoverBehavior and its parts), with
//     SetDefaults…, Validate… and the resolution of purge mode and grace
//     period against the controller's global settings;
//   - cluster health: ClusterHealthTracker turns push-mode probe results and
//     pull-mode status reports and lease renewals into each cluster's Ready
//     condition, debounced across the True / not-True boundary;
//   - cluster taints: ComputeClusterTaints derives the health taints and the
//     condition-rule taints a cluster should carry, as a diff;
//   - tolerations: DefaultClusterTolerations and EvaluateTolerations (evict
//     now, evict after a delay, or tolerate forever);
//   - the cluster-failover planner (the core of a taint manager): which
//     bindings leave a tainted cluster now, and when to look again;
//   - the application-failover detector (per binding and cluster, from the
//     interpreted workload health).
//
// What does not: how a workload leaves (graceful eviction tasks, purge
// modes, queues and pacing live in package eviction), what state it carries
// (package preservation), whether dispatching is suspended (package
// suspension), where it goes next (package scheduling), and how a single
// workload's health is interpreted (package failover/health).
//
// Guarantees:
//   - Decisions are pure functions of their inputs and now: nothing here
//     reads the wall clock, sleeps or starts a goroutine. The tracker reads
//     "now" from an injected clock.PassiveClock.
//   - Every countdown derives from a persisted timestamp: a taint's
//     TimeAdded, the Ready condition's LastTransitionTime, a lease's renew
//     time. The tracker's in-memory debounce state is exported and imported
//     as a JSON-serialisable ClusterHealthState, so a restart neither resets
//     nor skips a countdown and the first probe after a restart cannot flip
//     a cluster.
//   - A NoExecute taint without TimeAdded is never tolerated forever: its
//     countdown starts at first sight and ComputeClusterTaints stamps it so
//     the caller persists that moment.
//   - Validators return field.ErrorList naming the field; other errors are
//     sentinels for errors.Is. No input makes a function panic.
//   - EvaluateTolerations does not allocate; the planner allocates only its
//     result slice, which PlanInto reuses.
//
// Kubernetes types are used where Kubernetes has them: corev1.Taint,
// corev1.Toleration (matched with corev1.Toleration.ToleratesTaint),
// metav1.Condition and metav1.Time.
package failover
