package health

// Status is the interpreted health of a workload on one cluster. The values
// are those of Karmada's ResourceHealth, so a binding's aggregated status
// decodes unchanged.
type Status string

const (
	// Healthy: the workload does what its spec asks.
	Healthy Status = "Healthy"
	// Unhealthy: the workload is observed and falls short of its spec.
	Unhealthy Status = "Unhealthy"
	// Unknown: the workload's state cannot be told (no status yet, a stale
	// observation, an interpreter error).
	Unknown Status = "Unknown"
)

// IsValid reports whether s is one of Healthy, Unhealthy and Unknown.
func (s Status) IsValid() bool {
	return s == Healthy || s == Unhealthy || s == Unknown
}
