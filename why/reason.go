package why

// Reason is a stable, CamelCase code for the outcome of one step. Controllers
// put it in a condition's Reason and in events; tools may switch on it.
type Reason string

// Reasons of the policy step.
const (
	// ReasonInvalidFailoverPolicy: the failover policy does not validate,
	// so no failover decision is taken.
	ReasonInvalidFailoverPolicy Reason = "InvalidFailoverPolicy"
)

// Reasons of the cluster health step.
const (
	ReasonClusterReady           Reason = "ClusterReady"
	ReasonClusterNotFound        Reason = "ClusterNotFound"
	ReasonClusterNotReady        Reason = "ClusterNotReady"
	ReasonClusterUnreachable     Reason = "ClusterUnreachable"
	ReasonClusterNoReadyStatus   Reason = "ClusterNoReadyCondition"
	ReasonClusterNotReadyNoTaint Reason = "ClusterNotReadyWithoutNoExecuteTaint"
	// ReasonNoNoExecuteTaintSource: nothing the controller runs will ever
	// add a NoExecute taint to a cluster that is not ready (no timed
	// health taint, no ClusterTaintPolicy for it), so cluster failover
	// never evicts: a warning naming the ClusterTaintPolicy to create.
	ReasonNoNoExecuteTaintSource Reason = "NoNoExecuteTaintSource"
)

// Reasons of the toleration step (cluster failover). ReasonFailoverPaused
// is also the placement step's when the re-placement holds an evicted
// cluster (scheduling.Plan.Held).
const (
	ReasonFailoverPaused        Reason = "FailoverPaused"
	ReasonTaintToleratedForever Reason = "TaintToleratedForever"
	ReasonTolerationNotExpired  Reason = "TolerationNotExpired"
	ReasonTaintNotTolerated     Reason = "TaintNotTolerated"
	ReasonTolerationExpired     Reason = "TolerationExpired"
	ReasonClusterFailoverOff    Reason = "ClusterFailoverDisabled"
)

// Reasons of the pacing step.
const (
	ReasonFullDisruption Reason = "FullDisruption"
	ReasonEvictionPaced  Reason = "EvictionPaced"
	ReasonEvictionDue    Reason = "EvictionDue"
)

// Reasons of the application health step (application failover).
const (
	ReasonApplicationFailoverOff Reason = "ApplicationFailoverDisabled"
	ReasonNoHealthInterpreter    Reason = "NoHealthInterpreter"
	ReasonWorkloadHealthy        Reason = "WorkloadHealthy"
	ReasonHealthUnknown          Reason = "WorkloadHealthUnknown"
	ReasonPreConditionsPending   Reason = "PreConditionsPending"
	ReasonUnhealthyNotExpired    Reason = "UnhealthyTolerationNotExpired"
	ReasonApplicationEvictionDue Reason = "ApplicationEvictionDue"
)

// Reasons of the eviction step: eviction.Evict's outcome, and the tasks
// already on the binding.
const (
	ReasonEvictionInProgress    Reason = "EvictionInProgress"
	ReasonEvictionTaskAdded     Reason = "EvictionTaskAdded"
	ReasonEvictionAlreadyQueued Reason = "EvictionAlreadyInProgress"
	ReasonEvictionNotPlaced     Reason = "EvictionNotPlaced"
	// ReasonInvalidEviction: eviction.Evict refused the eviction (an
	// eviction.InvalidEvictionError: no cluster named, a task that does not
	// validate); nothing changed.
	ReasonInvalidEviction Reason = "InvalidEviction"
)

// Reasons of the cluster taint step (failover.ComputeClusterTaints).
const (
	ReasonTaintsUnchanged Reason = "TaintsUnchanged"
	ReasonTaintsChanged   Reason = "TaintsChanged"
)

// Reasons of the scheduling filters, one per rejected cluster.
const (
	ReasonClusterFiltered Reason = "ClusterFilteredOut"
)

// Reasons of the placement step.
const (
	ReasonPlacementDue        Reason = "PlacementDue"
	ReasonNoFeasibleCluster   Reason = "NoFeasibleCluster"
	ReasonNoClusterLeft       Reason = "NoClusterToMoveTo"
	ReasonZoneSpreadBlocks    Reason = "NoPlaceWithinZoneSpread"
	ReasonRegionSpreadBlocks  Reason = "NoPlaceWithinRegionSpread"
	ReasonSchedulingSuspended Reason = "SchedulingSuspended"
)

// Reasons of the dispatch step.
const (
	ReasonDispatchSuspended Reason = "DispatchSuspended"
	ReasonWaitingForOldCopy Reason = "WaitingForOldCopy"
	// ReasonOldCopyEscaped: an unreachable old cluster that cannot fence
	// itself was given up on after the escape timeout; its copy may still
	// run behind a partition (a warning).
	ReasonOldCopyEscaped Reason = "OldCopyGivenUp"
	// ReasonOldCopyFenced: every unreachable old cluster given up on fences
	// itself, and its fence is over: its copy has stopped.
	ReasonOldCopyFenced Reason = "OldCopyFenced"
)

// Reasons of the state step (stateful failover).
const (
	ReasonStateCarried          Reason = "StateCarried"
	ReasonNoStateToCarry        Reason = "NoStateToCarry"
	ReasonStateWhileOldCopyRuns Reason = "StateWithheldWhileOldCopyRuns"
	ReasonStateSeveralTargets   Reason = "StateWithheldFromSeveralTargets"
)

// Reasons of the graceful eviction step.
const (
	ReasonGracefulEvictionDone    Reason = "GracefulEvictionDone"
	ReasonWaitingForReplacement   Reason = "WaitingForHealthyReplacement"
	ReasonOldCopyKeptUntilRemoved Reason = "OldCopyKeptUntilTaskRemoved"
)

// Reasons of the workload step and of policy warnings.
const (
	// ReasonSettled: nothing holds the workload; it runs where it is placed.
	ReasonSettled Reason = "Settled"
	// ReasonNeverPurgedWithState: purge mode Never keeps the old copy
	// until a person removes the task, while state preservation waits for
	// that copy to go before the state is injected (Directly only).
	ReasonNeverPurgedWithState Reason = "OldCopyNeverPurgedWithStatePreservation"
	// ReasonEscapeWithoutFence: a stateful workload fails over Directly
	// and may run on members that cannot fence themselves, so the escape
	// from a partitioned member can start a second writer.
	ReasonEscapeWithoutFence Reason = "DirectlyEscapeWithoutFence"
)

// Reasons returns every reason code, in declaration order. It allocates a new
// slice on every call.
func Reasons() []Reason {
	return []Reason{
		ReasonInvalidFailoverPolicy,
		ReasonClusterReady, ReasonClusterNotFound, ReasonClusterNotReady, ReasonClusterUnreachable,
		ReasonClusterNoReadyStatus, ReasonClusterNotReadyNoTaint, ReasonNoNoExecuteTaintSource,
		ReasonFailoverPaused, ReasonTaintToleratedForever, ReasonTolerationNotExpired,
		ReasonTaintNotTolerated, ReasonTolerationExpired, ReasonClusterFailoverOff,
		ReasonFullDisruption, ReasonEvictionPaced, ReasonEvictionDue,
		ReasonApplicationFailoverOff, ReasonNoHealthInterpreter, ReasonWorkloadHealthy, ReasonHealthUnknown,
		ReasonPreConditionsPending, ReasonUnhealthyNotExpired, ReasonApplicationEvictionDue,
		ReasonEvictionInProgress, ReasonEvictionTaskAdded, ReasonEvictionAlreadyQueued, ReasonEvictionNotPlaced, ReasonInvalidEviction,
		ReasonTaintsUnchanged, ReasonTaintsChanged,
		ReasonClusterFiltered,
		ReasonPlacementDue, ReasonNoFeasibleCluster, ReasonNoClusterLeft, ReasonZoneSpreadBlocks, ReasonRegionSpreadBlocks, ReasonSchedulingSuspended,
		ReasonDispatchSuspended, ReasonWaitingForOldCopy, ReasonOldCopyEscaped, ReasonOldCopyFenced,
		ReasonStateCarried, ReasonNoStateToCarry, ReasonStateWhileOldCopyRuns, ReasonStateSeveralTargets,
		ReasonGracefulEvictionDone, ReasonWaitingForReplacement, ReasonOldCopyKeptUntilRemoved,
		ReasonSettled, ReasonNeverPurgedWithState, ReasonEscapeWithoutFence,
	}
}
