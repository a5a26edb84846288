// Package preservation decides WHAT a stateful workload carries across a
// failover: it compiles state preservation rules, extracts the state they
// select from the workload's status on the cluster being left, and injects
// that state as labels into the manifest dispatched to the new cluster.
//
// What belongs here: the rule types (the statePreservation block of a
// policy) and their validation, rule compilation, extraction from raw or
// decoded status, label-value encoding, injection into an
// *unstructured.Unstructured, and the choice of which preserved state
// applies to which target cluster. What does not: when to fail over
// (package failover), eviction tasks and their lifecycle (package
// eviction, which stores the extracted state as a plain map[string]string),
// and where the workload goes (package scheduling). It imports one package
// of the module, eviction, for the one vocabulary of failover: the
// preserved state travels on eviction.GracefulEvictionTask
// (PreservedLabelState), the placement is a list of eviction.TargetCluster,
// and which task's state applies to a target is eviction.StateCarrier's
// pick. StateFor and Injector.InjectFor read those tasks as eviction.Evict
// (and scheduling.Replace) left them; there is no separate view of a task.
//
// Templates follow k8s.io/client-go/util/jsonpath and are evaluated
// against the workload's .status: "{ .jobStatus.jobId }" reads
// .status.jobStatus.jobId.
//
// Guarantees:
//
//   - ValidateStatePreservation and Compile accept exactly the same rules:
//     every alias is a label key used once, every template has at least one
//     {...} action, parses, and uses no {range}/{end} (a parsed range
//     template keeps state between executions) nor unknown identifiers,
//     and every template stays within the bounds that keep its cost
//     polynomial of low degree (MaxRules, MaxJSONPathLength,
//     MaxRecursiveDescents, MaxFilters, MaxUnionBranches).
//   - An extraction stays within its Budget (status size, and an upper
//     bound of JSONPath's work computed before it runs) or fails with
//     ErrBudgetExceeded naming the rule: rules and status written by
//     someone else cannot hang the controller or exhaust its memory.
//   - Compiled *Rules are immutable and safe for concurrent use. Templates
//     that jsonpath evaluates get a private parsed copy per concurrent
//     evaluation from a pool.
//   - A status is decoded at most once per extraction, whatever the number of
//     rules. When every rule is a plain field chain ("{.a.b.c}"), raw JSON is
//     validated and scanned in a single pass and never decoded; results are
//     identical to decoding with encoding/json and evaluating with client-go
//     jsonpath (a differential fuzz test holds the two together).
//   - Values print exactly as jsonpath prints them. Extraction never returns
//     a value that is not a valid label value: it fails with
//     ErrInvalidLabelValue, or with EncodeInvalidValues encodes it with
//     EncodeLabelValue. A missing field fails with ErrFieldNotFound naming
//     the rule and the path, or with AllowMissing skips the rule.
//   - Inject never modifies the state it is given, validates before it
//     writes, and lets preserved state win over existing labels.
//   - State goes only to a new cluster: never to the cluster it came from,
//     never to a cluster the workload ran on before the failover. Which
//     carrier applies is deterministic (StateFor).
//   - No function panics on any input, reads the clock, or starts a
//     goroutine.
package preservation
