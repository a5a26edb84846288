package main

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/fencing"
	"github.com/fleetover/fleetover/scheduling"
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

// appDetectorSeam decides application failover for one binding from its
// workload's interpreted health on each target cluster, and keeps the
// countdown records exportable across a restart.
type appDetectorSeam interface {
	Detect(binding string, policy *failover.ApplicationFailoverBehavior, clusters []string, health []failover.ObservedHealth) (failover.Detection, error)
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

// stateSeam extracts preserved state from a collected status and injects
// it into the manifest dispatched to a new cluster.
type stateSeam interface {
	Extract(w *workload, rawStatus []byte, app bool) (map[string]string, error)
	Inject(manifest *unstructured.Unstructured, targets []eviction.TargetCluster, tasks []eviction.GracefulEvictionTask, cluster string) (bool, error)
}

// placementSeam is the scheduler's regular scheduling of a binding whose
// placement is short (initial placement, a recovered fleet).
type placementSeam interface {
	Place(e *Engine, w *workload) []eviction.TargetCluster
}

// replaceSeam is the scheduler's failover re-placement.
type replaceSeam func(req *scheduling.Request) (scheduling.Plan, error)

// evictSeam takes a cluster out of a placement and records the graceful
// eviction task (eviction.Evict).
type evictSeam func(targets []eviction.TargetCluster, tasks []eviction.GracefulEvictionTask, ev eviction.Eviction) (eviction.EvictResult, error)

// dispatchGateSeam says whether a new copy may be dispatched to target now
// (eviction.DispatchBlocked).
type dispatchGateSeam func(target string, tasks []eviction.GracefulEvictionTask, old eviction.OldCopyLookup, now time.Time, opts eviction.AssessOptions) eviction.DispatchGate

// deleteOldCopySeam says whether the old copy a task names is deleted now
// (eviction.DeleteOldCopy).
type deleteOldCopySeam func(task *eviction.GracefulEvictionTask, targets []eviction.TargetCluster) bool

// fenceSeam is a Pull agent's fence decision (fencing.Decide).
type fenceSeam func(st fencing.State, now time.Time, cfg fencing.Config) fencing.Decision

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
	Replace       replaceSeam
	Blocked       blockSeam
	Evict         evictSeam
	DispatchGate  dispatchGateSeam
	DeleteOldCopy deleteOldCopySeam
	Fence         fenceSeam
	Interpret     func(obj *unstructured.Unstructured) health.Status
	Assess        func(in eviction.AssessInput, opts eviction.AssessOptions) eviction.Assessment
}
