package plugins

import (
	"context"

	"k8s.io/utils/clock"

	clusterv1alpha1 "github.com/karmada-io/karmada/pkg/apis/cluster/v1alpha1"
	workv1alpha2 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha2"
	"github.com/karmada-io/karmada/pkg/scheduler/framework"

	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/scheduling"
)

// TaintTolerationName is the name TaintToleration registers under.
const TaintTolerationName = "FleetoverTaintToleration"

// TaintToleration places by the taint rule of fleetover's taint manager
// (scheduling.TaintToleration and scheduling.ExpiredToleration with the
// same failover.TolerationOptions): it never places a workload where that
// manager would evict it at once.
type TaintToleration struct {
	options failover.TolerationOptions
	clock   clock.PassiveClock
}

var _ framework.FilterPlugin = &TaintToleration{}

// NewTaintToleration returns the plugin matching tolerations by opts (give
// it the taint manager's) and reading the time from clk (nil: the real
// clock).
func NewTaintToleration(opts failover.TolerationOptions, clk clock.PassiveClock) *TaintToleration {
	if clk == nil {
		clk = clock.RealClock{}
	}
	return &TaintToleration{options: opts, clock: clk}
}

// Name returns TaintTolerationName.
func (p *TaintToleration) Name() string { return TaintTolerationName }

// Filter rejects a cluster the workload is not on yet that has a taint the
// workload does not tolerate, or tolerates only for a time that is up. A
// cluster the workload is on passes, as in Karmada's TaintToleration:
// taking the workload off it is the taint manager's, which evicts with a
// graceful eviction task, at its pace; a scheduler that dropped the
// cluster would delete the copy there at once, behind the taint
// manager's back.
func (p *TaintToleration) Filter(_ context.Context, spec *workv1alpha2.ResourceBindingSpec, _ *workv1alpha2.ResourceBindingStatus, c *clusterv1alpha1.Cluster) *framework.Result {
	if len(c.Spec.Taints) == 0 || spec.TargetContains(c.Name) {
		return framework.NewResult(framework.Success)
	}
	w, cl := workload(spec, p.clock.Now()), cluster(c)
	if st := scheduling.TaintToleration(p.options).Filter(w, cl); st.Rejected {
		return result(st)
	}
	return result(scheduling.ExpiredToleration(p.options).Filter(w, cl))
}
