package failover

import (
	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/preservation"
)

// FailoverBehavior is the failover block of a propagation policy: how a
// workload leaves a cluster when the workload itself fails there
// (Application) and when the whole cluster fails (Cluster). Field names match
// the policy's YAML, so a policy's failover block decodes unchanged.
//
// +k8s:deepcopy-gen=true
type FailoverBehavior struct {
	// Application enables application failover; nil disables it.
	// +optional
	Application *ApplicationFailoverBehavior `json:"application,omitempty"`
	// Cluster configures cluster failover; nil uses the controller's
	// defaults (see ResolveClusterPurgeMode).
	// +optional
	Cluster *ClusterFailoverBehavior `json:"cluster,omitempty"`
}

// ApplicationFailoverBehavior moves a workload that stays unhealthy on a
// cluster.
//
// +k8s:deepcopy-gen=true
type ApplicationFailoverBehavior struct {
	// PreConditions must all hold before a countdown can start.
	// +optional
	PreConditions *PreConditions `json:"preConditions,omitempty"`
	// DecisionConditions decide when a failing workload moves.
	// +optional
	DecisionConditions DecisionConditions `json:"decisionConditions,omitempty"`
	// PurgeMode says how the old copy goes; defaults to Gracefully.
	// +optional
	PurgeMode eviction.PurgeMode `json:"purgeMode,omitempty"`
	// GracePeriodSeconds bounds how long a Gracefully purged old copy waits
	// for the new one to become healthy; defaults to 600. Only meaningful
	// with PurgeMode Gracefully.
	// +optional
	GracePeriodSeconds *int32 `json:"gracePeriodSeconds,omitempty"`
	// BlockPredecessorSeconds keeps the workload away from the cluster it
	// left for this long; defaults to 600; 0 blocks that cluster for good.
	// +optional
	BlockPredecessorSeconds *int32 `json:"blockPredecessorSeconds,omitempty"`
	// StatePreservation names the state carried to the new cluster.
	// +optional
	StatePreservation *preservation.StatePreservation `json:"statePreservation,omitempty"`
}

// PreConditions gate the start of application failover.
//
// +k8s:deepcopy-gen=true
type PreConditions struct {
	// DelaySeconds waits this long after the status of the workload on a
	// cluster was first collected.
	// +optional
	DelaySeconds *int32 `json:"delaySeconds,omitempty"`
	// HealthyState, when Healthy, only fails over a workload that was
	// healthy on the cluster at least once.
	// +optional
	HealthyState health.Status `json:"healthyState,omitempty"`
}

// DecisionConditions decide when a failing workload moves.
//
// +k8s:deepcopy-gen=true
type DecisionConditions struct {
	// TolerationSeconds is how long the workload may stay failing before it
	// moves; defaults to DefaultApplicationTolerationSeconds.
	// +optional
	TolerationSeconds *int32 `json:"tolerationSeconds,omitempty"`
	// HealthyState lists the health states that count as failing; defaults
	// to [Unhealthy]. Adding Unknown also moves a workload whose health
	// cannot be told.
	// +optional
	HealthyState []health.Status `json:"healthyState,omitempty"`
}

// ClusterFailoverBehavior says how a workload leaves a failed cluster.
//
// +k8s:deepcopy-gen=true
type ClusterFailoverBehavior struct {
	// PurgeMode says how the old copy goes; empty falls back to the
	// controller's global default, then to Gracefully.
	// +optional
	PurgeMode eviction.PurgeMode `json:"purgeMode,omitempty"`
	// GracePeriodSeconds bounds how long a Gracefully purged old copy waits;
	// empty uses the controller's graceful-eviction timeout.
	// +optional
	GracePeriodSeconds *int32 `json:"gracePeriodSeconds,omitempty"`
	// StatePreservation names the state carried to the new cluster.
	// +optional
	StatePreservation *preservation.StatePreservation `json:"statePreservation,omitempty"`
}
