package controllers

import (
	"hash/fnv"
	"strconv"

	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
)

// Names of the objects and metadata the controllers own. Everything they
// write carries the failover.fleetover.io prefix, so that it never collides
// with a field an Open Cluster Management controller writes.
const (
	// ClusterHealthStateAnnotation holds a ManagedCluster's health tracker
	// state (failover.ClusterHealthState as JSON), so that a restarted
	// controller continues a debounce or silence countdown.
	ClusterHealthStateAnnotation = "failover.fleetover.io/cluster-health"
	// FailoverPolicyAnnotation on a ManifestWorkReplicaSet holds its
	// failover behaviour (failover.FailoverBehavior as JSON, the field names
	// of a Karmada PropagationPolicy's failover block).
	FailoverPolicyAnnotation = "failover.fleetover.io/failover"
	// FailoverStateAnnotation on a PlacementDecision holds the failover
	// state of its workload (FailoverState as JSON): graceful eviction
	// tasks, eviction history and application health records.
	FailoverStateAnnotation = "failover.fleetover.io/state"
	// ReplicaSetUIDLabel ties a ManifestWork to the ManifestWorkReplicaSet
	// it was made from.
	ReplicaSetUIDLabel = "failover.fleetover.io/replicaset-uid"
	// ReplicaSetNamespaceAnnotation and ReplicaSetNameAnnotation name the
	// ManifestWorkReplicaSet a ManifestWork belongs to.
	ReplicaSetNamespaceAnnotation = "failover.fleetover.io/replicaset-namespace"
	ReplicaSetNameAnnotation      = "failover.fleetover.io/replicaset-name"
	// ClusterLeaseName is the Lease the klusterlet's registration agent
	// renews in its cluster's namespace on the hub.
	ClusterLeaseName = "managed-cluster-lease"
	// PlacementDecisionSuffix names the one PlacementDecision per Placement
	// these controllers read and write: <placement>-decision-1, as OCM's
	// placement controller names the first one.
	PlacementDecisionSuffix = "-decision-1"
	// DecisionReason is the reason of the cluster decisions fleetover
	// writes.
	DecisionReason = "FleetoverFailover"
)

// DecisionName returns the name of the PlacementDecision of placement.
func DecisionName(placement string) string { return placement + PlacementDecisionSuffix }

// PlacementOfDecision returns the Placement a PlacementDecision belongs to,
// from OCM's placement label.
func PlacementOfDecision(pd *clusterv1beta1.PlacementDecision) string {
	return pd.Labels[clusterv1beta1.PlacementLabel]
}

// WorkName returns the name of the ManifestWork made from mwrs in each
// cluster namespace: its name and a short hash of its namespace and name, so
// replica sets with the same name in different namespaces do not clash.
func WorkName(mwrs *workv1alpha1.ManifestWorkReplicaSet) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(mwrs.Namespace + "/" + mwrs.Name))
	name := mwrs.Name
	if len(name) > 240 {
		name = name[:240]
	}
	return name + "-" + strconv.FormatUint(uint64(h.Sum32()), 36)
}
