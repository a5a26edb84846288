// Package fencing is the member side of a single writer under partition:
// the decisions an agent running in a member cluster (Karmada's
// karmada-agent in Pull mode, Open Cluster Management's work agent) takes
// so that a stateful workload never runs twice, also when the control plane
// cannot reach it.
//
// When the control plane loses a member it cannot tell a dead cluster from
// a partitioned one. Under purge mode Directly it waits for the old copy to
// be confirmed gone before it starts the new one, and gives up on an
// unreachable member after eviction.AssessOptions.DirectlyEscapeTimeout. A
// partitioned member's copy may still run then. An agent that fences stops
// its single-writer copies itself once it has not renewed its lease with
// the control plane for Config.FenceAfter, and the control plane, told that
// the member fences (FenceAfterAnnotation on its cluster object, or a
// configured fence for its Pull-mode members), waits FenceAfter +
// MaxClockSkew + FenceMargin from the last time it heard the member
// (eviction.DispatchBlocked with eviction.OldCopy.FenceAfter and
// LastHeard). The new copy then starts only after the old one stopped.
//
// What belongs here: the fence decision (Decide: fence, stay fenced,
// resume, from the agent's last successful renewal, FenceAfter and the
// time), how to stop a copy of a kind (StopFor: scale to zero, suspend,
// delete, or a user hook), the agent's declaration (Declare, Declared), the
// label that marks a single-writer workload (SingleWriterLabel) and the
// validation of Config. What does not: the control plane's wait (package
// eviction: DispatchBlocked, FencedEscapeWait, ValidateFencedEscape), the
// fencing epoch a failover gives the new copy (eviction.NextFencingEpoch,
// injected by preservation.StateFor under eviction.FencingEpochLabel), and
// the agent's loop and its API calls (examples/ocm and examples/karmada
// show one).
//
// Every decision is a pure function of its inputs and the now passed in:
// nothing here reads the clock, sleeps or starts a goroutine. The package
// imports eviction (for its duration rule) and nothing else of the module.
package fencing
