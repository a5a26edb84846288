package karmadafleet

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetover/fleetover/failover"
)

// Ref names one object of the input.
type Ref struct {
	Kind      string
	Namespace string
	Name      string
}

func (r Ref) String() string {
	if r.Namespace == "" {
		return r.Kind + " " + r.Name
	}
	return r.Kind + " " + r.Namespace + "/" + r.Name
}

// Finding is something in the input that the description does not carry:
// an object of a kind the reader does not model, a field it does not know,
// or a value it cannot follow. Field is a path from the object's root
// (spec.placement.spreadConstraints[1].spreadByField); empty for a whole
// object.
type Finding struct {
	File    string
	Object  Ref
	Field   string
	Message string
}

func (f Finding) String() string {
	s := f.Object.String()
	if f.Field != "" {
		s += ": " + f.Field
	}
	return fmt.Sprintf("%s: %s (%s)", s, f.Message, f.File)
}

// Fleet is what the input describes.
type Fleet struct {
	// Clusters in name order.
	Clusters []Cluster
	// Workloads, one per binding, in the order of their names.
	Workloads []Workload
	// Policies read, in the order of their names.
	Policies []Policy
	// TaintPolicies are the ClusterTaintPolicies read, oldest first (by
	// creation time, then name), the order Karmada applies them in.
	TaintPolicies []TaintPolicy
	// Findings in the order the objects were read.
	Findings []Finding
}

// TaintPolicy is a ClusterTaintPolicy (policy.karmada.io/v1alpha1): it adds
// its taints to the clusters it targets when every addOnConditions match
// holds, and removes them when every removeOnConditions match holds.
type TaintPolicy struct {
	// File is the file the object was read from.
	File string
	Name string
	// CreationTimestamp orders the policies, as Karmada applies them.
	CreationTimestamp metav1.Time
	// TargetClusters selects the clusters; nil selects every cluster.
	TargetClusters     *ClusterAffinity
	AddOnConditions    []MatchCondition
	RemoveOnConditions []MatchCondition
	Taints             []PolicyTaint
}

// MatchCondition tests one condition of a cluster.
type MatchCondition struct {
	ConditionType string                   `json:"conditionType"`
	Operator      string                   `json:"operator"`
	StatusValues  []metav1.ConditionStatus `json:"statusValues"`
}

// PolicyTaint is a taint a ClusterTaintPolicy manages.
type PolicyTaint struct {
	Key    string             `json:"key"`
	Effect corev1.TaintEffect `json:"effect"`
	Value  string             `json:"value,omitempty"`
}

// ConditionTaintPolicy converts p into the library's policy, named
// "<creation time>/<name>" so that, in the library's name order, policies
// apply oldest first as Karmada applies them (policies created within the
// same second then apply by name; Karmada's order is not fixed there).
func (p TaintPolicy) ConditionTaintPolicy() failover.ConditionTaintPolicy {
	out := failover.ConditionTaintPolicy{
		Name:               p.CreationTimestamp.UTC().Format("2006-01-02T15:04:05Z") + "/" + p.Name,
		AddOnConditions:    conditionMatches(p.AddOnConditions),
		RemoveOnConditions: conditionMatches(p.RemoveOnConditions),
	}
	for _, t := range p.Taints {
		out.Taints = append(out.Taints, corev1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
	}
	return out
}

func conditionMatches(in []MatchCondition) []failover.ConditionMatch {
	var out []failover.ConditionMatch
	for _, m := range in {
		out = append(out, failover.ConditionMatch{
			ConditionType: m.ConditionType,
			Operator:      failover.MatchOperator(m.Operator),
			StatusValues:  m.StatusValues,
		})
	}
	return out
}

// Cluster is a member cluster as its Cluster object describes it.
type Cluster struct {
	// File is the file the object was read from.
	File     string
	Name     string
	Labels   map[string]string
	SyncMode string // Push or Pull
	Provider string
	Region   string
	Zone     string
	Zones    []string
	Taints   []corev1.Taint
	// Ready is the status of the Ready condition; empty when the status
	// has none (a cluster that has not reported yet).
	Ready       metav1.ConditionStatus
	ReadyReason string
}

// Policy is a PropagationPolicy or a ClusterPropagationPolicy.
type Policy struct {
	// File is the file the object was read from.
	File        string
	Ref         Ref
	PermanentID string
	Placement   *Placement
	Failover    *FailoverBehavior
	Suspension  *Suspension
}

// Workload is one resource a binding propagates, with the placement and
// failover policy that apply to it: the binding's own, or, where the
// binding lacks them, those of the policy it came from.
type Workload struct {
	// File is the file the binding was read from.
	File     string
	Binding  Ref
	Resource ObjectReference
	// Policy is the policy the binding came from; nil when none in the
	// input matches the binding's labels and annotations.
	Policy   *Ref
	Replicas int32
	// Clusters is the placement the scheduler last wrote (spec.clusters).
	Clusters  []TargetCluster
	Placement *Placement
	// ObservedAffinityName is the affinity term of Placement's
	// clusterAffinities the scheduler last placed by
	// (status.schedulerObservingAffinityName); empty: the first. A name
	// that is no term of the placement is reported and left empty.
	ObservedAffinityName string
	Failover             *FailoverBehavior
	// Suspension of dispatching.
	Suspension *Suspension
	// EvictionTasks are the graceful evictions in flight.
	EvictionTasks []GracefulEvictionTask
	// Status is the binding's aggregated status: each copy's health and
	// the status collected from it.
	Status []AggregatedStatusItem
	// PlacementFromPolicy, FailoverFromPolicy and SuspensionFromPolicy
	// say the block came from the policy, the binding lacking it.
	PlacementFromPolicy  bool
	FailoverFromPolicy   bool
	SuspensionFromPolicy bool
}

// ObjectReference is the resource a binding propagates.
type ObjectReference struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace,omitempty"`
	Name       string `json:"name"`
}

// TargetCluster is one cluster of a binding's placement.
type TargetCluster struct {
	Name     string `json:"name"`
	Replicas int32  `json:"replicas,omitempty"`
}

// Placement is a policy's placement block, by Karmada's field names.
type Placement struct {
	ClusterAffinity    *ClusterAffinity         `json:"clusterAffinity,omitempty"`
	ClusterAffinities  []ClusterAffinityTerm    `json:"clusterAffinities,omitempty"`
	ClusterTolerations []corev1.Toleration      `json:"clusterTolerations,omitempty"`
	SpreadConstraints  []SpreadConstraint       `json:"spreadConstraints,omitempty"`
	ReplicaScheduling  *ReplicaSchedulingPolicy `json:"replicaScheduling,omitempty"`
}

// ClusterAffinity selects clusters; a cluster matches when it meets every
// selector given and is not excluded.
type ClusterAffinity struct {
	LabelSelector   *metav1.LabelSelector `json:"labelSelector,omitempty"`
	FieldSelector   *FieldSelector        `json:"fieldSelector,omitempty"`
	ClusterNames    []string              `json:"clusterNames,omitempty"`
	ExcludeClusters []string              `json:"exclude,omitempty"`
}

// ClusterAffinityTerm is one of several ordered affinities.
type ClusterAffinityTerm struct {
	AffinityName    string `json:"affinityName"`
	ClusterAffinity `json:",inline"`
}

// FieldSelector selects clusters by provider, region or zone.
type FieldSelector struct {
	MatchExpressions []corev1.NodeSelectorRequirement `json:"matchExpressions,omitempty"`
}

// SpreadConstraint bounds how many groups (clusters, zones, ...) a
// workload spans.
type SpreadConstraint struct {
	SpreadByField string `json:"spreadByField,omitempty"`
	SpreadByLabel string `json:"spreadByLabel,omitempty"`
	MaxGroups     int    `json:"maxGroups,omitempty"`
	MinGroups     int    `json:"minGroups,omitempty"`
}

// ReplicaSchedulingPolicy says how replicas go to clusters.
type ReplicaSchedulingPolicy struct {
	ReplicaSchedulingType     string              `json:"replicaSchedulingType,omitempty"`
	ReplicaDivisionPreference string              `json:"replicaDivisionPreference,omitempty"`
	WeightPreference          *ClusterPreferences `json:"weightPreference,omitempty"`
}

// ClusterPreferences weighs clusters for a Divided workload.
type ClusterPreferences struct {
	StaticWeightList []StaticClusterWeight `json:"staticWeightList,omitempty"`
	DynamicWeight    string                `json:"dynamicWeight,omitempty"`
}

// StaticClusterWeight gives the clusters an affinity selects a weight.
type StaticClusterWeight struct {
	TargetCluster ClusterAffinity `json:"targetCluster"`
	Weight        int64           `json:"weight"`
}

// FailoverBehavior is a policy's failover block.
type FailoverBehavior struct {
	Application *ApplicationFailoverBehavior `json:"application,omitempty"`
	Cluster     *ClusterFailoverBehavior     `json:"cluster,omitempty"`
}

// ApplicationFailoverBehavior is failover on the workload's own health.
type ApplicationFailoverBehavior struct {
	DecisionConditions DecisionConditions `json:"decisionConditions"`
	PurgeMode          string             `json:"purgeMode,omitempty"`
	GracePeriodSeconds *int32             `json:"gracePeriodSeconds,omitempty"`
	StatePreservation  *StatePreservation `json:"statePreservation,omitempty"`
}

// DecisionConditions say when a workload has failed.
type DecisionConditions struct {
	TolerationSeconds *int32 `json:"tolerationSeconds,omitempty"`
}

// ClusterFailoverBehavior is failover when a cluster fails.
type ClusterFailoverBehavior struct {
	PurgeMode         string             `json:"purgeMode,omitempty"`
	StatePreservation *StatePreservation `json:"statePreservation,omitempty"`
}

// StatePreservation lists the state carried to the new cluster.
type StatePreservation struct {
	Rules []StatePreservationRule `json:"rules"`
}

// StatePreservationRule extracts one value from the old copy's status.
type StatePreservationRule struct {
	AliasLabelName string `json:"aliasLabelName"`
	JSONPath       string `json:"jsonPath"`
}

// Suspension suspends dispatching, to every cluster or to some.
type Suspension struct {
	Dispatching           *bool            `json:"dispatching,omitempty"`
	DispatchingOnClusters *SuspendClusters `json:"dispatchingOnClusters,omitempty"`
	// Scheduling is a binding's only.
	Scheduling *bool `json:"scheduling,omitempty"`
}

// SuspendClusters names the clusters dispatching to is suspended.
type SuspendClusters struct {
	ClusterNames []string `json:"clusterNames,omitempty"`
}

// GracefulEvictionTask is an eviction in flight on a binding.
type GracefulEvictionTask struct {
	FromCluster            string            `json:"fromCluster"`
	PurgeMode              string            `json:"purgeMode,omitempty"`
	Replicas               *int32            `json:"replicas,omitempty"`
	Reason                 string            `json:"reason"`
	Message                string            `json:"message,omitempty"`
	Producer               string            `json:"producer"`
	GracePeriodSeconds     *int32            `json:"gracePeriodSeconds,omitempty"`
	SuppressDeletion       *bool             `json:"suppressDeletion,omitempty"`
	PreservedLabelState    map[string]string `json:"preservedLabelState,omitempty"`
	CreationTimestamp      *metav1.Time      `json:"creationTimestamp,omitempty"`
	ClustersBeforeFailover []string          `json:"clustersBeforeFailover,omitempty"`
}

// AggregatedStatusItem is what the control plane last collected from one
// cluster's copy.
type AggregatedStatusItem struct {
	ClusterName string `json:"clusterName"`
	// Status is the copy's status, as collected.
	Status map[string]any `json:"status,omitempty"`
	// Health is Healthy, Unhealthy or Unknown.
	Health string `json:"health,omitempty"`
}
