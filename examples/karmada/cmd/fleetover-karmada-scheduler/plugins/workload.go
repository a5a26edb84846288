package plugins

import (
	"time"

	clusterv1alpha1 "github.com/karmada-io/karmada/pkg/apis/cluster/v1alpha1"
	workv1alpha2 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha2"
	"github.com/karmada-io/karmada/pkg/scheduler/framework"

	"github.com/fleetover/fleetover/scheduling"
	"github.com/fleetover/fleetover/suspension"
)

// workload is the scheduling package's view of the binding being placed:
// its tolerations, the clusters it is on and its dispatch suspension.
func workload(spec *workv1alpha2.ResourceBindingSpec, now time.Time) *scheduling.Workload {
	w := &scheduling.Workload{Name: spec.Resource.Namespace + "/" + spec.Resource.Name, Now: now}
	if spec.Placement != nil {
		w.Tolerations = spec.Placement.ClusterTolerations
	}
	if len(spec.Clusters) > 0 {
		w.Placement = make([]string, len(spec.Clusters))
		for i := range spec.Clusters {
			w.Placement[i] = spec.Clusters[i].Name
		}
	}
	if s := dispatchSuspension(spec.Suspension); s != nil {
		w.Suspension = s
	}
	return w
}

// dispatchSuspension is the dispatch half of the binding's suspension
// (spec.suspension.scheduling is the scheduler's own business).
func dispatchSuspension(s *workv1alpha2.Suspension) *suspension.Suspension {
	if s == nil || (s.Dispatching == nil && s.DispatchingOnClusters == nil) {
		return nil
	}
	out := &suspension.Suspension{Dispatching: s.Dispatching}
	if s.DispatchingOnClusters != nil {
		out.DispatchingOnClusters = &suspension.SuspendClusters{ClusterNames: s.DispatchingOnClusters.ClusterNames}
	}
	return out
}

func cluster(c *clusterv1alpha1.Cluster) *scheduling.Cluster {
	return &scheduling.Cluster{Name: c.Name, Taints: c.Spec.Taints, Labels: c.Labels}
}

// result turns a filter's verdict into the framework's: a rejection is
// Unschedulable, with the filter's reason and, for a taint, the taint.
func result(st scheduling.Status) *framework.Result {
	if !st.Rejected {
		return framework.NewResult(framework.Success)
	}
	reason := "cluster(s) rejected: " + st.Reason
	if st.Taint != nil {
		reason += " {" + st.Taint.ToString() + "}"
	}
	if !st.Until.IsZero() {
		reason += " until " + st.Until.UTC().Format(time.RFC3339)
	}
	return framework.NewResult(framework.Unschedulable, reason)
}
