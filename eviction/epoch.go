package eviction

import "math"

// FencingEpochLabel is the label under which the fencing epoch of a
// failover (GracefulEvictionTask.FencingEpoch) travels to the new copy,
// beside the preserved state: preservation.StateFor adds it to the state it
// returns. Its value is the epoch in decimal.
const FencingEpochLabel = "failover.fleetover.io/fencing-epoch"

// NextFencingEpoch returns the epoch a new failover of a stateful workload
// gives its new copy: one more than the largest of last (the workload's
// last epoch, as its controller persists it; 0 before its first failover)
// and the epochs of its tasks. The result is strictly greater than every
// epoch a copy of the workload was started with, so a sink that keeps the
// largest epoch it has seen refuses every older copy. A negative last
// counts as 0; at math.MaxInt64 the epoch stays there (it cannot grow).
func NextFencingEpoch(last int64, tasks []GracefulEvictionTask) int64 {
	top := max(last, 0)
	for i := range tasks {
		top = max(top, tasks[i].FencingEpoch)
	}
	if top == math.MaxInt64 {
		return top
	}
	return top + 1
}
