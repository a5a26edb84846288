package main

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
)

// The simulator drives the library through the small interfaces below, one
// per decision a controller makes. Each is implemented by an adapter over
// the library package that owns the decision (library.go); a test swaps one
// for a deliberately broken version to prove the invariants catch it.

// probeResult is what the control plane learned about a cluster this step.
type probeResult struct {
	// Heard: a status update (Push) or a lease renewal (Pull) arrived.
	Heard bool
	// Reachable: the control plane could reach the cluster's API server.
	Reachable bool
	// HealthOK: the cluster's health endpoint answered ok.
	HealthOK bool
}

// readiness is a cluster's Ready condition as the control plane sees it.
type readiness struct {
	Status metav1.ConditionStatus
	Reason string
}

// clusterHealthSeam turns probe results into the Ready condition and keeps
// its debounce state exportable across a controller restart.
type clusterHealthSeam interface {
	Observe(cluster string, pull bool, p probeResult) readiness
	Export() ([]byte, error)
	Import([]byte) error
}

// taintSeam computes a cluster's taints from its Ready condition, keeping
// the TimeAdded of taints that stay, and when to compute them again without
// a condition change (zero: not before the next change).
type taintSeam func(cond metav1.Condition, existing []corev1.Taint, now time.Time) (taints []corev1.Taint, next time.Time)

// plannerSeam is the taint manager's core: which bindings leave a tainted
// cluster now.
type plannerSeam func(taints []corev1.Taint, bindings []failover.ClusterBinding, now time.Time) failover.ClusterFailoverPlan

// appDetectorSeam decides application failover for one workload on one
// cluster from its interpreted health.
type appDetectorSeam interface {
	Observe(workload, cluster string, b *failover.ApplicationFailoverBehavior, h health.Status) (evict bool)
	Forget(workload, cluster string)
	Export() ([]byte, error)
	Import([]byte) error
}

// pacerSeam rate-limits evictions across the fleet and stops them during a
// fleet-wide outage.
type pacerSeam interface {
	// Observe records the health of every cluster.
	Observe(views []eviction.ClusterHealthView)
	// TryAccept reports whether one more eviction may happen now.
	TryAccept(zone string) bool
	// Mode names the disruption mode for the timeline.
	Mode() string
}

// stateSeam extracts preserved state from a collected status and picks the
// labels to inject on a cluster.
type stateSeam interface {
	Extract(w *workload, rawStatus []byte, app bool) (map[string]string, error)
	Inject(tasks []eviction.GracefulEvictionTask, cluster string) map[string]string
}

// placementSeam is the scheduler: filters and failover re-placement.
type placementSeam interface {
	Place(e *Engine, w *workload) []eviction.TargetCluster
}

// blockSeam answers whether the eviction history keeps a workload away from
// a cluster now (used by the scheduler's filter).
type blockSeam func(h eviction.EvictionHistory, cluster string, blockSeconds *int32, now time.Time) bool

// Library bundles the decisions the simulated controllers delegate to.
type Library struct {
	ClusterHealth clusterHealthSeam
	Taints        taintSeam
	Planner       plannerSeam
	AppDetector   appDetectorSeam
	Pacer         pacerSeam
	State         stateSeam
	Placement     placementSeam
	Blocked       blockSeam
	Interpret     func(obj *unstructured.Unstructured) health.Status
	Assess        func(in eviction.AssessInput, opts eviction.AssessOptions) eviction.Assessment
}
