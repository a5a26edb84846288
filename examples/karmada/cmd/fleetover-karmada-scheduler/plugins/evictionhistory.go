package plugins

import (
	"context"

	"k8s.io/klog/v2"
	"k8s.io/utils/clock"

	clusterv1alpha1 "github.com/karmada-io/karmada/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/karmada/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha2"
	"github.com/karmada-io/karmada/pkg/scheduler/framework"
	"github.com/karmada-io/karmada/pkg/util/names"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/examples/karmada/carrier"
	"github.com/fleetover/fleetover/scheduling"
)

// EvictionHistoryName is the name EvictionHistory registers under.
const EvictionHistoryName = "FleetoverEvictionHistory"

// Annotations finds the annotations EvictionHistory reads, which the
// framework does not pass to a plugin: those of the binding being placed
// and of the propagation policy it names. found is false when the object
// is not known (not yet seen, or gone).
type Annotations interface {
	// Binding returns the annotations of the ResourceBinding namespace/name,
	// or of the ClusterResourceBinding name when namespace is empty.
	Binding(namespace, name string) (annotations map[string]string, found bool)
	// Policy returns the annotations of the PropagationPolicy
	// namespace/name, or of the ClusterPropagationPolicy name when
	// namespace is empty.
	Policy(namespace, name string) (annotations map[string]string, found bool)
}

// EvictionHistory keeps a workload off the clusters it was evicted from
// while its eviction history blocks them (scheduling.EvictionHistoryFilter):
// for the policy's blockPredecessorSeconds, eviction.DefaultBlockPredecessorSeconds
// when unset. The history and the window are read from the annotations
// fleetover's controllers write (package carrier): the binding's history,
// the window from the binding or else from its policy.
type EvictionHistory struct {
	annotations Annotations
	clock       clock.PassiveClock
}

var _ framework.FilterPlugin = &EvictionHistory{}

// NewEvictionHistory returns the plugin reading annotations through a and
// the time from clk (nil: the real clock).
func NewEvictionHistory(a Annotations, clk clock.PassiveClock) *EvictionHistory {
	if clk == nil {
		clk = clock.RealClock{}
	}
	return &EvictionHistory{annotations: a, clock: clk}
}

// Name returns EvictionHistoryName.
func (p *EvictionHistory) Name() string { return EvictionHistoryName }

// Filter rejects a cluster the history blocks, saying until when, unless
// the workload is on it: the history keeps new placements off, and taking
// a workload off a cluster is the failover controllers' (with a graceful
// eviction task), not the scheduler's.
func (p *EvictionHistory) Filter(_ context.Context, spec *workv1alpha2.ResourceBindingSpec, _ *workv1alpha2.ResourceBindingStatus, c *clusterv1alpha1.Cluster) *framework.Result {
	if spec.TargetContains(c.Name) {
		return framework.NewResult(framework.Success)
	}
	history, block := p.history(spec)
	if len(history) == 0 {
		return framework.NewResult(framework.Success)
	}
	w := &scheduling.Workload{Name: spec.Resource.Namespace + "/" + spec.Resource.Name, History: history, BlockPredecessorSeconds: block, Now: p.clock.Now()}
	return result(scheduling.EvictionHistoryFilter().Filter(w, cluster(c)))
}

// history reads the binding's eviction history and its block window.
func (p *EvictionHistory) history(spec *workv1alpha2.ResourceBindingSpec) (eviction.EvictionHistory, *int32) {
	r := spec.Resource
	binding := names.GenerateBindingName(r.Kind, r.Name)
	a, found := p.annotations.Binding(r.Namespace, binding)
	if !found {
		return nil, nil
	}
	history, err := carrier.DecodeEvictionHistory(a)
	if err != nil {
		klog.V(2).InfoS("Eviction history unreadable, no cluster kept out", "plugin", EvictionHistoryName, "binding", klog.KRef(r.Namespace, binding), "err", err)
		return nil, nil
	}
	if len(history) == 0 {
		return nil, nil
	}
	ext, err := carrier.DecodePolicyExtension(a)
	if err == nil && ext == nil {
		ext, err = p.policyExtension(a)
	}
	if err != nil {
		// The window is unknown: the default one keeps the workload out
		// rather than letting it back at once.
		klog.V(2).InfoS("Failover policy extension unreadable, the default block window applies", "plugin", EvictionHistoryName, "binding", klog.KRef(r.Namespace, binding), "err", err)
		return history, nil
	}
	return history, ext.BlockPredecessorSeconds()
}

// policyExtension reads the extension from the policy the binding's
// annotations name; a policy that is not known extends nothing.
func (p *EvictionHistory) policyExtension(binding map[string]string) (*carrier.PolicyExtension, error) {
	var namespace, name string
	switch {
	case binding[policyv1alpha1.PropagationPolicyNameAnnotation] != "":
		namespace, name = binding[policyv1alpha1.PropagationPolicyNamespaceAnnotation], binding[policyv1alpha1.PropagationPolicyNameAnnotation]
	case binding[policyv1alpha1.ClusterPropagationPolicyAnnotation] != "":
		name = binding[policyv1alpha1.ClusterPropagationPolicyAnnotation]
	default:
		return nil, nil
	}
	a, found := p.annotations.Policy(namespace, name)
	if !found {
		return nil, nil
	}
	return carrier.DecodePolicyExtension(a)
}
