package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/preservation"
)

// extractState reads the state sp preserves from the binding's aggregated
// status on cluster (package preservation). No rules give no state. A
// missing status or value is an error: the eviction waits rather than move
// a stateful workload without its state.
func extractState(cache *RuleCache, sp *preservation.StatePreservation, status *workv1alpha2.ResourceBindingStatus, cluster string) (map[string]string, error) {
	if sp == nil || len(sp.Rules) == 0 {
		return nil, nil
	}
	rules, err := cache.Compile(sp.Rules)
	if err != nil {
		return nil, err
	}
	for i := range status.AggregatedStatus {
		item := &status.AggregatedStatus[i]
		if item.ClusterName != cluster {
			continue
		}
		if item.Status == nil || len(item.Status.Raw) == 0 {
			break
		}
		return rules.ExtractFromJSON(item.Status.Raw)
	}
	return nil, fmt.Errorf("no status collected from cluster %q to preserve state from", cluster)
}

// evictInto applies eviction.Evict to the binding's spec: the cluster
// leaves the targets and one task tracks its old copy. It reports whether
// the spec changed.
//
// An eviction that carries preserved state (a stateful workload) gives the
// new copy the next fencing epoch after lastEpoch and the tasks' epochs
// (eviction.NextFencingEpoch); Karmada's task has no field for it, so it
// travels in the task's preservedLabelState under
// eviction.FencingEpochLabel (toTask, fromTasks).
func evictInto(spec *workv1alpha2.ResourceBindingSpec, ev eviction.Eviction, lastEpoch int64) (eviction.EvictOutcome, bool, error) {
	tasks := toTasks(spec.GracefulEvictionTasks)
	if len(ev.PreservedLabelState) > 0 {
		ev.FencingEpoch = eviction.NextFencingEpoch(lastEpoch, tasks)
	}
	res, err := eviction.Evict(toTargets(spec.Clusters), tasks, ev)
	if err != nil || !res.Changed() {
		return res.Outcome, false, err
	}
	spec.Clusters = make([]workv1alpha2.TargetCluster, len(res.Targets))
	for i, tc := range res.Targets {
		spec.Clusters[i] = workv1alpha2.TargetCluster{Name: tc.Name, Replicas: tc.Replicas}
	}
	spec.GracefulEvictionTasks = fromTasks(res.Tasks)
	return res.Outcome, true, nil
}

// lastFencingEpoch is the largest fencing epoch a copy of rb was started
// with: the eviction.FencingEpochLabel of its Works' manifests, where the
// copy a failover leaves carries it. Works that cannot be read count as
// none: the tasks' epochs still count in NextFencingEpoch.
func lastFencingEpoch(ctx context.Context, c client.Reader, rb client.Object) int64 {
	works, err := bindingWorks(ctx, c, rb)
	if err != nil {
		return 0
	}
	var last int64
	for i := range works {
		for _, m := range works[i].Spec.Workload.Manifests {
			obj := &unstructured.Unstructured{}
			if obj.UnmarshalJSON(m.Raw) != nil {
				continue
			}
			if e, err := strconv.ParseInt(obj.GetLabels()[eviction.FencingEpochLabel], 10, 64); err == nil {
				last = max(last, e)
			}
		}
	}
	return last
}

// targetNames lists the binding's target clusters.
func targetNames(spec *workv1alpha2.ResourceBindingSpec) []string {
	out := make([]string, len(spec.Clusters))
	for i, tc := range spec.Clusters {
		out[i] = tc.Name
	}
	return out
}

// NewStateInjector returns the dispatcher's StateInjector backed by
// preservation.Injector: the newest qualifying task's state goes into the
// manifest for a cluster that is neither the task's old cluster nor one the
// workload ran on before the failover. enabled plays the part of Karmada's
// StatefulFailoverInjection feature gate.
func NewStateInjector(enabled bool) StateInjector {
	injector := preservation.Injector{Enabled: enabled}
	return func(manifest *unstructured.Unstructured, cluster string, targets []eviction.TargetCluster, tasks []eviction.GracefulEvictionTask) error {
		if len(tasks) == 0 {
			return nil
		}
		_, err := injector.InjectFor(manifest, cluster, targets, tasks)
		return err
	}
}

// maxCachedRuleSets bounds a RuleCache: past it the cache starts afresh
// (policies are few; this only guards against unbounded churn).
const maxCachedRuleSets = 4096

// RuleCache compiles each distinct set of state-preservation rules once:
// a policy's rules change only with a new policy generation, so every
// binding of the same policy generation shares one compiled *Rules
// (immutable and safe for concurrent use). A nil *RuleCache compiles on
// every call.
type RuleCache struct {
	mu       sync.Mutex
	compiled map[string]compiledRules
}

type compiledRules struct {
	rules *preservation.Rules
	err   error
}

// NewRuleCache returns an empty cache.
func NewRuleCache() *RuleCache {
	return &RuleCache{compiled: map[string]compiledRules{}}
}

// Compile returns the compiled rules, compiling them on first use.
func (c *RuleCache) Compile(rules []preservation.StatePreservationRule) (*preservation.Rules, error) {
	if c == nil {
		return preservation.Compile(rules)
	}
	raw, _ := json.Marshal(rules)
	key := string(raw)
	c.mu.Lock()
	defer c.mu.Unlock()
	if r, ok := c.compiled[key]; ok {
		return r.rules, r.err
	}
	r, err := preservation.Compile(rules)
	if len(c.compiled) >= maxCachedRuleSets {
		c.compiled = map[string]compiledRules{}
	}
	c.compiled[key] = compiledRules{rules: r, err: err}
	return r, err
}

// Len returns how many rule sets are compiled, for tests.
func (c *RuleCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.compiled)
}
