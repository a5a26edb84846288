package eviction

import (
	"time"

	"github.com/fleetover/fleetover/failover/health"
)

// Identifiers kept for one minor version after a rename, so that code
// written against the API before v0.1.0 still compiles. Each is the same
// concept under its old name; CHANGELOG.md and docs/migrating.md say what
// to write instead. They go in v0.2.0.

// WorkloadHealth is the health of a workload's copy on one cluster.
//
// Deprecated: use health.Status (package failover/health), the one health
// vocabulary of the library. This is an alias, not a second type.
type WorkloadHealth = health.Status

// The former names of the health statuses.
const (
	// Deprecated: use health.Healthy.
	WorkloadHealthy = health.Healthy
	// Deprecated: use health.Unhealthy.
	WorkloadUnhealthy = health.Unhealthy
	// Deprecated: use health.Unknown.
	WorkloadHealthUnknown = health.Unknown
)

// DefaultGracefulEvictionTimeout is how long a Gracefully purged old copy
// waits for its replacement when neither the task nor the options say.
//
// Deprecated: use DefaultGracePeriodSeconds, the one constant for the grace
// period (in seconds, as the policies and tasks state it).
const DefaultGracefulEvictionTimeout = time.Duration(DefaultGracePeriodSeconds) * time.Second
