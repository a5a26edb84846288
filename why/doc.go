// Package why explains failover decisions: why a workload moved, and above
// all why it did not.
//
// Every decision in fleetover is a pure function of explicit inputs, so each
// can say what decided it. This package turns the decisions' own results
// (failover.TolerationDecision, eviction.DisruptionState,
// failover.Detection, scheduling.Plan, eviction.DispatchGate,
// eviction.Assessment, the state preservation.StateFor picks) into
// Explanations: a step, a stable Reason code, a sentence for people, and the
// times at which the step began and will end by itself. Workload strings
// them into a Chain from the cluster to the dispatch, ending at the step
// that holds the workload where it is. Warnings finds policies whose
// failover can never fire.
//
// The package sits above every other one (it imports them; none imports
// it), so explaining costs nothing until it is asked for: the decisions'
// hot paths do not build messages. Reason codes are part of the API: they
// are stable, CamelCase, and listed with what a user can do about each in
// docs/reasons.md.
package why
