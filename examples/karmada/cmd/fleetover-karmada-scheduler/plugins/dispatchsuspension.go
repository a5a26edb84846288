package plugins

import (
	"context"
	"time"

	clusterv1alpha1 "github.com/karmada-io/karmada/pkg/apis/cluster/v1alpha1"
	workv1alpha2 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha2"
	"github.com/karmada-io/karmada/pkg/scheduler/framework"

	"github.com/fleetover/fleetover/scheduling"
)

// DispatchSuspensionName is the name DispatchSuspension registers under.
const DispatchSuspensionName = "FleetoverDispatchSuspension"

// DispatchSuspension keeps new placements off the clusters the binding's
// spec.suspension suspends dispatching to (scheduling.Suspended): a copy
// placed there would never be dispatched (Karmada #6730). A cluster the
// workload is already on passes, so the copy there stays.
type DispatchSuspension struct{}

var _ framework.FilterPlugin = DispatchSuspension{}

// NewDispatchSuspension is DispatchSuspension's factory for the framework's
// registry.
func NewDispatchSuspension() (framework.Plugin, error) { return DispatchSuspension{}, nil }

// Name returns DispatchSuspensionName.
func (DispatchSuspension) Name() string { return DispatchSuspensionName }

// Filter rejects a suspended cluster the workload is not on.
func (DispatchSuspension) Filter(_ context.Context, spec *workv1alpha2.ResourceBindingSpec, _ *workv1alpha2.ResourceBindingStatus, c *clusterv1alpha1.Cluster) *framework.Result {
	if spec.Suspension == nil {
		return framework.NewResult(framework.Success)
	}
	return result(scheduling.Suspended().Filter(workload(spec, time.Time{}), cluster(c)))
}
