package plugins

import (
	"context"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	clusterv1alpha1 "github.com/karmada-io/karmada/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/karmada/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha2"
	"github.com/karmada-io/karmada/pkg/scheduler/framework"
	frameworkplugins "github.com/karmada-io/karmada/pkg/scheduler/framework/plugins"
	"github.com/karmada-io/karmada/pkg/scheduler/framework/runtime"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/examples/karmada/carrier"
)

// The tests run the plugins in Karmada's own scheduling framework, beside
// its in-tree filters, and compare the clusters that framework finds
// feasible with what Karmada's in-tree filters alone find.

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// feasible runs every filter plugin of r on each cluster, as the
// scheduler's findClustersThatFit does, and returns the fitting clusters'
// names and each rejection's reason.
func feasible(t *testing.T, r runtime.Registry, rb *workv1alpha2.ResourceBinding, clusters ...*clusterv1alpha1.Cluster) ([]string, map[string]string) {
	t.Helper()
	fwk, err := runtime.NewFramework(r)
	if err != nil {
		t.Fatal(err)
	}
	var fit []string
	rejected := map[string]string{}
	for _, c := range clusters {
		res := fwk.RunFilterPlugins(&framework.FilterContext{Context: context.Background(), BindingSpec: &rb.Spec, BindingStatus: &rb.Status, Cluster: c})
		if res.IsSuccess() {
			fit = append(fit, c.Name)
		} else {
			rejected[c.Name] = strings.Join(res.Reasons(), "; ")
		}
	}
	return fit, rejected
}

// karmadaAnd returns Karmada's in-tree registry, plus cfg's plugins when
// cfg is not nil.
func karmadaAnd(t *testing.T, cfg *Config) runtime.Registry {
	t.Helper()
	r := frameworkplugins.NewInTreeRegistry()
	if cfg != nil {
		if err := r.Merge(cfg.Registry()); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func newCluster(name string, taints ...corev1.Taint) *clusterv1alpha1.Cluster {
	c := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
	c.Spec.Taints = taints
	c.Status.APIEnablements = []clusterv1alpha1.APIEnablement{{GroupVersion: "apps/v1", Resources: []clusterv1alpha1.APIResource{{Name: "deployments", Kind: "Deployment"}}}}
	return c
}

func newBinding(on ...string) *workv1alpha2.ResourceBinding {
	rb := &workv1alpha2.ResourceBinding{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web-deployment"}}
	rb.Spec.Resource = workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: "default", Name: "web"}
	rb.Spec.Placement = &policyv1alpha1.Placement{}
	for _, c := range on {
		rb.Spec.Clusters = append(rb.Spec.Clusters, workv1alpha2.TargetCluster{Name: c, Replicas: 1})
	}
	return rb
}

// TestDispatchSuspension: Karmada's filters choose a cluster whose
// dispatching the binding suspends (Karmada #6730); with the plugin it is
// chosen only where the workload already runs, and a binding that suspends
// every cluster keeps what it has.
func TestDispatchSuspension(t *testing.T) {
	clusters := []*clusterv1alpha1.Cluster{newCluster("member1"), newCluster("member2"), newCluster("member3")}
	tests := []struct {
		name         string
		on           []string
		suspension   *workv1alpha2.Suspension
		karmada, our []string
	}{
		{"member2 suspended, new placement", nil,
			&workv1alpha2.Suspension{Suspension: policyv1alpha1.Suspension{DispatchingOnClusters: &policyv1alpha1.SuspendClusters{ClusterNames: []string{"member2"}}}},
			[]string{"member1", "member2", "member3"}, []string{"member1", "member3"}},
		{"member2 suspended, already there", []string{"member2"},
			&workv1alpha2.Suspension{Suspension: policyv1alpha1.Suspension{DispatchingOnClusters: &policyv1alpha1.SuspendClusters{ClusterNames: []string{"member2"}}}},
			[]string{"member1", "member2", "member3"}, []string{"member1", "member2", "member3"}},
		{"all suspended, on member1", []string{"member1"},
			&workv1alpha2.Suspension{Suspension: policyv1alpha1.Suspension{Dispatching: ptr.To(true)}},
			[]string{"member1", "member2", "member3"}, []string{"member1"}},
		{"scheduling suspension alone is not ours", nil,
			&workv1alpha2.Suspension{Scheduling: ptr.To(true)},
			[]string{"member1", "member2", "member3"}, []string{"member1", "member2", "member3"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rb := newBinding(tt.on...)
			rb.Spec.Suspension = tt.suspension
			if got, _ := feasible(t, karmadaAnd(t, nil), rb, clusters...); !slices.Equal(got, tt.karmada) {
				t.Errorf("Karmada's filters chose %v, want %v", got, tt.karmada)
			}
			got, why := feasible(t, karmadaAnd(t, &Config{}), rb, clusters...)
			if !slices.Equal(got, tt.our) {
				t.Errorf("with %s: %v, want %v (%v)", DispatchSuspensionName, got, tt.our, why)
			}
			for c, reason := range why {
				if !strings.Contains(reason, "dispatching to this cluster is suspended") {
					t.Errorf("%s rejected for %q", c, reason)
				}
			}
		})
	}
}

// TestTaintToleration: where Karmada's TaintToleration places and the taint
// manager then evicts at once, the plugin does not place.
func TestTaintToleration(t *testing.T) {
	notReady := corev1.Taint{Key: clusterv1alpha1.TaintClusterNotReady, Effect: corev1.TaintEffectNoExecute, TimeAdded: &metav1.Time{Time: now.Add(-10 * time.Minute)}}
	tolerate := func(seconds *int64) []corev1.Toleration {
		return []corev1.Toleration{{Key: clusterv1alpha1.TaintClusterNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: seconds}}
	}
	tests := []struct {
		name         string
		on           []string
		tolerations  []corev1.Toleration
		karmada, our []string
	}{
		{"tolerated for 300 s, tainted 600 s ago", nil, tolerate(ptr.To[int64](300)), []string{"member1", "member2"}, []string{"member2"}},
		{"tolerated for 0 s", nil, tolerate(ptr.To[int64](0)), []string{"member1", "member2"}, []string{"member2"}},
		{"tolerated for 900 s, 300 s left", nil, tolerate(ptr.To[int64](900)), []string{"member1", "member2"}, []string{"member1", "member2"}},
		{"tolerated for good", nil, tolerate(nil), []string{"member1", "member2"}, []string{"member1", "member2"}},
		{"untolerated, new placement", nil, nil, []string{"member2"}, []string{"member2"}},
		{"untolerated, already there: the taint manager's to evict", []string{"member1"}, nil, []string{"member1", "member2"}, []string{"member1", "member2"}},
		{"expired, already there: the taint manager's to evict", []string{"member1"}, tolerate(ptr.To[int64](300)), []string{"member1", "member2"}, []string{"member1", "member2"}},
	}
	clk := clocktesting.NewFakePassiveClock(now)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rb := newBinding(tt.on...)
			rb.Spec.Placement.ClusterTolerations = tt.tolerations
			clusters := []*clusterv1alpha1.Cluster{newCluster("member1", notReady), newCluster("member2")}
			if got, _ := feasible(t, karmadaAnd(t, nil), rb, clusters...); !slices.Equal(got, tt.karmada) {
				t.Errorf("Karmada's filters chose %v, want %v", got, tt.karmada)
			}
			got, why := feasible(t, karmadaAnd(t, &Config{Clock: clk}), rb, clusters...)
			if !slices.Equal(got, tt.our) {
				t.Errorf("with %s: %v, want %v (%v)", TaintTolerationName, got, tt.our, why)
			}
			if r := why["member1"]; r != "" && !strings.Contains(r, clusterv1alpha1.TaintClusterNotReady) {
				t.Errorf("member1 rejected for %q: want the taint named", r)
			}
		})
	}
}

// fakeAnnotations is Annotations from maps keyed namespace/name.
type fakeAnnotations struct{ bindings, policies map[string]map[string]string }

func (f fakeAnnotations) Binding(ns, name string) (map[string]string, bool) {
	a, ok := f.bindings[ns+"/"+name]
	return a, ok
}

func (f fakeAnnotations) Policy(ns, name string) (map[string]string, bool) {
	a, ok := f.policies[ns+"/"+name]
	return a, ok
}

func historyOf(t *testing.T, cluster string, at time.Time) string {
	t.Helper()
	raw, err := carrier.Encode(carrier.EvictionHistoryDocument{Version: carrier.SchemaVersion, Entries: eviction.EvictionHistory{{ClusterName: cluster, CreationTimestamp: metav1.NewTime(at)}}})
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestEvictionHistory: Karmada's ClusterEviction keeps a workload off a
// cluster only while the eviction task exists; with the plugin it stays off
// for the policy's blockPredecessorSeconds after it left, read from the
// binding or from its policy, and comes back once the window is over.
func TestEvictionHistory(t *testing.T) {
	left := now.Add(-time.Minute)
	window := func(seconds int) string {
		return `{"version":"v1alpha1","application":{"blockPredecessorSeconds":` + strconv.Itoa(seconds) + `}}`
	}
	policyAnnotations := map[string]string{policyv1alpha1.PropagationPolicyNameAnnotation: "web", policyv1alpha1.PropagationPolicyNamespaceAnnotation: "default"}
	tests := []struct {
		name     string
		binding  map[string]string
		policies map[string]map[string]string
		at       time.Time
		our      []string
	}{
		{"default window (600 s), 60 s after", map[string]string{carrier.EvictionHistoryKey: historyOf(t, "member1", left)}, nil, now, []string{"member2"}},
		{"default window over", map[string]string{carrier.EvictionHistoryKey: historyOf(t, "member1", left)}, nil, left.Add(time.Duration(eviction.DefaultBlockPredecessorSeconds) * time.Second), []string{"member1", "member2"}},
		{"binding's window of 30 s is over", map[string]string{carrier.EvictionHistoryKey: historyOf(t, "member1", left), carrier.PolicyExtensionKey: window(30)}, nil, now, []string{"member1", "member2"}},
		{"policy's window of 3600 s", withEntry(policyAnnotations, carrier.EvictionHistoryKey, historyOf(t, "member1", left)),
			map[string]map[string]string{"default/web": {carrier.PolicyExtensionKey: window(3600)}}, left.Add(3599 * time.Second), []string{"member2"}},
		{"blocked for good", map[string]string{carrier.EvictionHistoryKey: historyOf(t, "member1", left), carrier.PolicyExtensionKey: window(0)}, nil, now.Add(1000 * time.Hour), []string{"member2"}},
		{"unreadable history keeps no cluster out", map[string]string{carrier.EvictionHistoryKey: `{"version":"v9"}`}, nil, now, []string{"member1", "member2"}},
		{"unreadable window: the default one", map[string]string{carrier.EvictionHistoryKey: historyOf(t, "member1", left), carrier.PolicyExtensionKey: "{"}, nil, now, []string{"member2"}},
		{"no history", map[string]string{}, nil, now, []string{"member1", "member2"}},
		{"blocked but already there: not the scheduler's to remove", map[string]string{carrier.EvictionHistoryKey: historyOf(t, "member1", left)}, nil, now, []string{"member1", "member2"}},
	}
	clusters := []*clusterv1alpha1.Cluster{newCluster("member1"), newCluster("member2")}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rb := newBinding()
			if strings.Contains(tt.name, "already there") {
				rb = newBinding("member1")
			}
			if got, _ := feasible(t, karmadaAnd(t, nil), rb, clusters...); !slices.Equal(got, []string{"member1", "member2"}) {
				t.Errorf("Karmada's filters chose %v, want both clusters", got)
			}
			a := fakeAnnotations{bindings: map[string]map[string]string{"default/web-deployment": tt.binding}, policies: tt.policies}
			got, why := feasible(t, karmadaAnd(t, &Config{Annotations: a, Clock: clocktesting.NewFakePassiveClock(tt.at)}), rb, clusters...)
			if !slices.Equal(got, tt.our) {
				t.Errorf("with %s: %v, want %v (%v)", EvictionHistoryName, got, tt.our, why)
			}
		})
	}
}

func withEntry(m map[string]string, k, v string) map[string]string {
	out := maps.Clone(m)
	out[k] = v
	return out
}

// TestDisabledByPluginsFlag: karmada-scheduler's --plugins list filters the
// merged registry (runtime.Registry.Filter); '*' keeps the plugins,
// '*,-Name' drops one, and the placement is then Karmada's again.
func TestDisabledByPluginsFlag(t *testing.T) {
	rb := newBinding()
	rb.Spec.Suspension = &workv1alpha2.Suspension{Suspension: policyv1alpha1.Suspension{Dispatching: ptr.To(true)}}
	clusters := []*clusterv1alpha1.Cluster{newCluster("member1"), newCluster("member2")}
	all := karmadaAnd(t, &Config{Annotations: fakeAnnotations{}})
	for _, name := range []string{DispatchSuspensionName, TaintTolerationName, EvictionHistoryName} {
		if _, ok := all.Filter([]string{"*"})[name]; !ok {
			t.Errorf("'*' leaves %s out", name)
		}
	}
	if got, _ := feasible(t, all.Filter([]string{"*"}), rb, clusters...); len(got) != 0 {
		t.Errorf("with '*': %v, want no cluster (dispatching suspended everywhere, nothing placed yet)", got)
	}
	off := all.Filter([]string{"*", "-" + DispatchSuspensionName})
	if _, ok := off[DispatchSuspensionName]; ok {
		t.Fatalf("'*,-%s' keeps it", DispatchSuspensionName)
	}
	if got, _ := feasible(t, off, rb, clusters...); !slices.Equal(got, []string{"member1", "member2"}) {
		t.Errorf("with '*,-%s': %v, want Karmada's placement on both", DispatchSuspensionName, got)
	}
}
