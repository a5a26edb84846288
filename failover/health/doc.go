// Package health tells whether a workload object is healthy on the cluster
// it runs on: Healthy, Unhealthy or Unknown, with a reason.
//
// What belongs here: the Interpreter interface and its InterpreterFunc
// adapter, a Registry that picks an interpreter by GroupVersionKind (or by
// GroupKind, for every version of a kind), the built-in rules for common
// Kubernetes kinds and FlinkDeployment, and custom rules written in Go, in
// CEL or as Karmada-style Lua scripts (in the subpackages cel and lua, so
// that importing this package links neither). What does not: when a workload moves
// (package failover decides that from the statuses interpreted here), and
// anything that reads a cluster — interpreters see one object, already
// fetched.
//
// Guarantees:
//   - Built-in rules read the unstructured map directly and never convert it
//     to a typed object; a healthy object is interpreted without allocating.
//   - No input panics. Registry.Interpret never fails: an interpreter error,
//     a panic in a custom interpreter or an invalid status becomes Unknown
//     with the cause as reason.
//   - A status that describes an older spec (observedGeneration behind
//     metadata.generation) is Unknown, never Healthy.
//   - A kind without an interpreter is Unknown by default; Healthy, as in
//     Karmada, when RegistryConfig.UnregisteredKindsHealthy is set.
//   - Scripted rules (failover/health/cel, failover/health/lua) are compiled
//     once and bounded in time, work and memory; this package imports
//     neither cel-go nor gopher-lua.
//   - Registries and interpreters are safe for concurrent use and keep no
//     package-level state.
//
// This package imports no other package of this module.
package health
