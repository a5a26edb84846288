package carrier

// The annotation keys. What a controller does when one is invalid is its
// own business; the reference controllers' choice is given on each key.
const (
	// PolicyExtensionKey carries the failover policy fields Karmada's
	// FailoverBehavior lacks (PolicyExtension). It is read from the
	// binding, else from the PropagationPolicy or ClusterPropagationPolicy
	// the binding names. Invalid: the binding gets no failover decision and
	// an InvalidFailoverPolicy event.
	PolicyExtensionKey = "failover.fleetover.io/policy"
	// EvictionHistoryKey holds a binding's eviction history
	// (eviction.EvictionHistory): which cluster it left and when, for
	// blockPredecessorSeconds. Invalid: read as empty, with an event.
	EvictionHistoryKey = "failover.fleetover.io/eviction-history"
	// ApplicationHealthRecordsKey holds the application failover detector's
	// records (failover.WorkloadHealthRecord: unhealthy-since and settled,
	// per cluster), so a restart neither restarts nor skips a toleration
	// countdown (Karmada #7171). Invalid: read as empty (the countdown
	// restarts), with an event.
	ApplicationHealthRecordsKey = "failover.fleetover.io/application-health"
	// StatusObservationsKey holds, per cluster, when the binding's
	// aggregated status first carried an item for it and whether the
	// workload was ever Healthy there: Karmada's AggregatedStatusItem has
	// neither a creation time nor a settled flag. Invalid: read as empty.
	StatusObservationsKey = "failover.fleetover.io/status-observations"
	// ClusterHealthStateKey holds the cluster health tracker's state of a
	// cluster (failover.ClusterHealthState), so a restarted controller
	// continues a debounce or a silence countdown (Karmada #7408). Invalid:
	// the cluster is registered afresh.
	ClusterHealthStateKey = "failover.fleetover.io/cluster-health"
)
