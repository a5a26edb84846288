package replay

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	corev1 "k8s.io/api/core/v1"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/suspension"
)

// Version is the fixture schema's version; Read refuses any other.
const Version = "fleetover.io/replay/v1"

// Fixture is one simulator run as the reference controllers replay it.
// Times are offsets from the start of the run.
type Fixture struct {
	Version string `json:"version"`
	// Scenario is the scenario's name.
	Scenario string `json:"scenario"`
	// Step is the simulator's step: the replay moves its fake clock by the
	// same amount.
	Step metav1.Duration `json:"step"`
	// Duration is how long the run lasts.
	Duration metav1.Duration `json:"duration"`
	Settings Settings        `json:"settings"`
	Clusters []Cluster       `json:"clusters"`
	// Workloads are in the scenario's order.
	Workloads []Workload `json:"workloads"`
	// Faults are the primitive changes of the ground truth, in the order
	// the simulator applies them: a fault with a duration is followed, at
	// its end, by its recovery.
	Faults []Fault `json:"faults"`

	// What the simulator decided.

	// Evictions are in the order they happened.
	Evictions []Eviction `json:"evictions"`
	// Injections are the new copies that started with preserved state, in
	// order.
	Injections []Injection `json:"injections,omitempty"`
}

// Settings are the scenario's settings with the simulator's defaults
// filled in: the replay configures the controllers from them.
type Settings struct {
	FailureThreshold   metav1.Duration `json:"failureThreshold"`
	SuccessThreshold   metav1.Duration `json:"successThreshold"`
	MonitorGracePeriod metav1.Duration `json:"monitorGracePeriod"`
	StartupGracePeriod metav1.Duration `json:"startupGracePeriod"`
	EvictionTimeout    metav1.Duration `json:"evictionTimeout"`
	NoExecuteTaints    bool            `json:"noExecuteTaints"`
	// DefaultTolerationSeconds is the default not-ready and unreachable
	// toleration.
	DefaultTolerationSeconds int64           `json:"defaultTolerationSeconds"`
	GracefulEvictionTimeout  metav1.Duration `json:"gracefulEvictionTimeout"`
	// ClusterPurgeMode is the global purge mode of a cluster failover.
	ClusterPurgeMode eviction.PurgeMode `json:"clusterPurgeMode,omitempty"`
	// StartupDelay is how long a new copy takes to become healthy.
	StartupDelay              metav1.Duration `json:"startupDelay"`
	EvictionsPerSecond        float64         `json:"evictionsPerSecond,omitempty"`
	PacePerZone               bool            `json:"pacePerZone,omitempty"`
	CancelOnRecovery          bool            `json:"cancelOnRecovery,omitempty"`
	StatefulFailoverInjection bool            `json:"statefulFailoverInjection"`
}

// Cluster is one member cluster.
type Cluster struct {
	Name string `json:"name"`
	Zone string `json:"zone,omitempty"`
	// Region is empty when the scenario gives none.
	Region string `json:"region,omitempty"`
	// SyncMode is Push or Pull.
	SyncMode string `json:"syncMode"`
}

// Workload is one workload and its binding.
type Workload struct {
	Name string `json:"name"`
	// Kind is Deployment, StatefulSet or FlinkDeployment.
	Kind     string `json:"kind"`
	Replicas int32  `json:"replicas"`
	// Divided is true for divided replicas, false for duplicated.
	Divided bool `json:"divided,omitempty"`
	// StaticWeights is each cluster's static weight for divided replicas
	// (the highest of the weight rules that name it; a cluster no rule
	// names is absent); nil without a static weight list.
	StaticWeights map[string]int64 `json:"staticWeights,omitempty"`
	// ClusterNames is the cluster affinity by name; empty is every cluster.
	ClusterNames []string `json:"clusterNames,omitempty"`
	// AffinityGroups are ordered affinity groups (Karmada's
	// clusterAffinities) instead of ClusterNames.
	AffinityGroups []AffinityGroup `json:"affinityGroups,omitempty"`
	// AffinityGroup is the group of AffinityGroups the workload starts
	// in: the replay writes it to the binding's
	// status.schedulerObservingAffinityName. Empty: the first.
	AffinityGroup string `json:"affinityGroup,omitempty"`
	// ClusterSpread bounds the number of clusters; nil bounds nothing.
	ClusterSpread *SpreadConstraint `json:"clusterSpread,omitempty"`
	// ZoneSpread bounds the number of zones; nil bounds nothing.
	ZoneSpread *SpreadConstraint `json:"zoneSpread,omitempty"`
	// RegionSpread bounds the number of regions; nil bounds nothing.
	RegionSpread *SpreadConstraint          `json:"regionSpread,omitempty"`
	Tolerations  []corev1.Toleration        `json:"tolerations,omitempty"`
	Failover     *failover.FailoverBehavior `json:"failover,omitempty"`
	Suspension   *suspension.Suspension     `json:"suspension,omitempty"`
	// State is the state the first copies run with (a Flink job id:
	// "jobId").
	State map[string]string `json:"state,omitempty"`
	// SchedulingSuspended: the binding starts with its scheduling
	// suspended (spec.suspension.scheduling).
	SchedulingSuspended bool `json:"schedulingSuspended,omitempty"`
	// Initial is the first placement: the replay creates the binding with
	// it, since first placement is not the failover controllers' job.
	Initial []eviction.TargetCluster `json:"initial"`
	// Final is the placement at the end of the run.
	Final []eviction.TargetCluster `json:"final"`
}

// AffinityGroup is one group of clusterAffinities: its name and the
// clusters it selects by name (empty: every cluster).
type AffinityGroup struct {
	Name         string   `json:"name"`
	ClusterNames []string `json:"clusterNames,omitempty"`
}

// SpreadConstraint bounds how many clusters, zones or regions a workload
// spans.
type SpreadConstraint struct {
	MinGroups int32 `json:"minGroups,omitempty"`
	MaxGroups int32 `json:"maxGroups,omitempty"`
}

// Fault types the fixture carries; they are the simulator's.
const (
	FaultOutage   = "outage"
	FaultNotReady = "notReady"
	// FaultPartition: the cluster runs on, unreachable from the control
	// plane.
	FaultPartition = "partition"
	// FaultPartitionOnPurge: the cluster is cut off from the control plane,
	// for Fault.For, the moment a copy on it starts being deleted.
	FaultPartitionOnPurge  = "partitionOnPurge"
	FaultRecover           = "recover"
	FaultWorkloadUnhealthy = "workloadUnhealthy"
	FaultWorkloadHealthy   = "workloadHealthy"
	FaultRestart           = "restart"
	// FaultSuspend and FaultResume suspend and resume dispatching of the
	// workload to Cluster, or to every cluster when Cluster is empty
	// (ChangeSuspension).
	FaultSuspend = "suspend"
	FaultResume  = "resume"
	// FaultSuspendScheduling and FaultResumeScheduling set and clear the
	// workload's spec.suspension.scheduling.
	FaultSuspendScheduling = "suspendScheduling"
	FaultResumeScheduling  = "resumeScheduling"
)

// Fault is one primitive change of the ground truth.
type Fault struct {
	At       metav1.Duration `json:"at"`
	Type     string          `json:"type"`
	Cluster  string          `json:"cluster,omitempty"`
	Zone     string          `json:"zone,omitempty"`
	Workload string          `json:"workload,omitempty"`
	// For is how long a partitionOnPurge partition lasts; only that fault
	// has it.
	For *metav1.Duration `json:"for,omitempty"`
}

// Eviction is a workload leaving a cluster.
type Eviction struct {
	At        metav1.Duration    `json:"at"`
	Workload  string             `json:"workload"`
	Cluster   string             `json:"cluster"`
	Reason    string             `json:"reason"`
	PurgeMode eviction.PurgeMode `json:"purgeMode"`
}

// Injection is a new copy that started with preserved state as labels.
type Injection struct {
	At       metav1.Duration   `json:"at"`
	Workload string            `json:"workload"`
	Cluster  string            `json:"cluster"`
	Labels   map[string]string `json:"labels"`
}
