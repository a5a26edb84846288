package fleetcheck

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/api/policy/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"sigs.k8s.io/randfill"
	"sigs.k8s.io/yaml"

	"github.com/fleetover/fleetover/examples/fleetsim/karmadafleet"
)

const seeds = 40

var epoch = time.Date(2026, time.March, 1, 0, 0, 0, 0, time.UTC)

// filler fills every field (no nils, one or two elements per list) with
// values the reader accepts; enumerated fields take any of their values.
func filler(seed int64) *randfill.Filler {
	name := func(c randfill.Continue) string {
		const letters = "abcdefghijklmnopqrstuvwxyz"
		b := make([]byte, 3+c.Intn(6))
		for i := range b {
			b[i] = letters[c.Intn(len(letters))]
		}
		return string(b)
	}
	pick := func(c randfill.Continue, vs ...string) string { return vs[c.Intn(len(vs))] }
	return randfill.NewWithSeed(seed).NilChance(0).NumElements(1, 2).MaxDepth(12).Funcs(
		func(s *string, c randfill.Continue) { *s = name(c) },
		func(i *int, c randfill.Continue) { *i = 1 + c.Intn(3) },
		func(i *int32, c randfill.Continue) { *i = int32(1 + c.Intn(3)) },
		func(i *int64, c randfill.Continue) { *i = int64(1 + c.Intn(3)) },
		func(u *uint, c randfill.Continue) { *u = uint(c.Intn(3)) },
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewQuantity(int64(1+c.Intn(64)), resource.DecimalSI)
		},
		func(t *metav1.Time, c randfill.Continue) {
			*t = metav1.NewTime(epoch.Add(-time.Duration(1+c.Intn(86400)) * time.Second))
		},
		func(r *runtime.RawExtension, c randfill.Continue) {
			r.Raw = []byte(fmt.Sprintf(`{"phase":%q}`, name(c)))
		},
		func(f *metav1.FieldsV1, c randfill.Continue) { f.Raw = []byte(`{"f:spec":{}}`) },
		func(m *map[string]string, c randfill.Continue) {
			*m = map[string]string{name(c): name(c)}
		},
		func(s *metav1.ConditionStatus, c randfill.Continue) {
			*s = metav1.ConditionStatus(pick(c, "True", "False", "Unknown"))
		},
		func(u *types.UID, c randfill.Continue) { *u = types.UID(name(c)) },
		func(e *corev1.TaintEffect, c randfill.Continue) {
			*e = corev1.TaintEffect(pick(c, "NoSchedule", "PreferNoSchedule", "NoExecute"))
		},
		func(m *policyv1alpha1.PurgeMode, c randfill.Continue) {
			*m = policyv1alpha1.PurgeMode(pick(c, "Directly", "Gracefully", "Never", "Immediately", "Graciously"))
		},
		func(m *policyv1alpha1.ReplicaSchedulingType, c randfill.Continue) {
			*m = policyv1alpha1.ReplicaSchedulingType(pick(c, "Duplicated", "Divided"))
		},
		func(m *policyv1alpha1.ReplicaDivisionPreference, c randfill.Continue) {
			*m = policyv1alpha1.ReplicaDivisionPreference(pick(c, "Weighted", "Aggregated"))
		},
		func(m *policyv1alpha1.SpreadFieldValue, c randfill.Continue) {
			*m = policyv1alpha1.SpreadFieldValue(pick(c, "cluster", "zone", "region", "provider"))
		},
		func(m *clusterv1alpha1.ClusterSyncMode, c randfill.Continue) {
			*m = clusterv1alpha1.ClusterSyncMode(pick(c, "Push", "Pull"))
		},
	)
}

// serve marshals obj as the API server serves it and kubectl prints it:
// JSON with apiVersion and kind, shown as YAML.
func serve(t *testing.T, obj runtime.Object, apiVersion, kind string) []byte {
	t.Helper()
	js, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(js, &m); err != nil {
		t.Fatal(err)
	}
	m["apiVersion"], m["kind"] = apiVersion, kind
	out, err := yaml.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// objects of one seed, filled, with the fields the reader checks set to
// values it accepts; the bindings name their policies as Karmada does.
type objects struct {
	cluster *clusterv1alpha1.Cluster
	pp      *policyv1alpha1.PropagationPolicy
	cpp     *policyv1alpha1.ClusterPropagationPolicy
	rb      *workv1alpha2.ResourceBinding
	crb     *workv1alpha2.ClusterResourceBinding
}

func fill(seed int64) objects {
	f := filler(seed)
	o := objects{
		cluster: &clusterv1alpha1.Cluster{},
		pp:      &policyv1alpha1.PropagationPolicy{},
		cpp:     &policyv1alpha1.ClusterPropagationPolicy{},
		rb:      &workv1alpha2.ResourceBinding{},
		crb:     &workv1alpha2.ClusterResourceBinding{},
	}
	f.Fill(o.cluster)
	f.Fill(o.pp)
	f.Fill(o.cpp)
	f.Fill(o.rb)
	f.Fill(o.crb)
	o.cluster.Namespace, o.cpp.Namespace, o.crb.Namespace = "", "", ""
	// Cluster failover admits only the purge modes of its CRD enum (the
	// reader refuses the others, as Karmada's API server does; the
	// application failover block keeps any value).
	for i, fb := range []*policyv1alpha1.FailoverBehavior{o.pp.Spec.Failover, o.cpp.Spec.Failover, o.rb.Spec.Failover, o.crb.Spec.Failover} {
		if fb != nil && fb.Cluster != nil {
			fb.Cluster.PurgeMode = []policyv1alpha1.PurgeMode{policyv1alpha1.PurgeModeDirectly, policyv1alpha1.PurgeModeGracefully}[(int(seed)+i)%2]
		}
	}
	o.cluster.Name = "member-" + o.cluster.Name
	// One Ready condition (the reader takes the last one).
	o.cluster.Status.Conditions[0].Type = clusterv1alpha1.ClusterConditionReady
	o.cluster.Status.Conditions = o.cluster.Status.Conditions[:1]
	o.pp.Namespace = o.rb.Namespace
	o.pp.Labels[policyv1alpha1.PropagationPolicyPermanentIDLabel] = "pp-id"
	o.cpp.Labels[policyv1alpha1.ClusterPropagationPolicyPermanentIDLabel] = "cpp-id"
	// The binding names its policy by annotations, the cluster-scoped one
	// by its permanent-id label only.
	o.rb.Annotations = map[string]string{
		policyv1alpha1.PropagationPolicyNameAnnotation:      o.pp.Name,
		policyv1alpha1.PropagationPolicyNamespaceAnnotation: o.pp.Namespace,
	}
	o.crb.Annotations = nil
	o.crb.Labels = map[string]string{policyv1alpha1.ClusterPropagationPolicyPermanentIDLabel: "cpp-id"}
	// Half the seeds leave the binding's blocks to its policy.
	if seed%2 == 1 {
		o.rb.Spec.Placement, o.rb.Spec.Failover, o.rb.Spec.Suspension = nil, nil, nil
		o.crb.Spec.Placement, o.crb.Spec.Failover, o.crb.Spec.Suspension = nil, nil, nil
	}
	return o
}

func (o objects) document(t *testing.T) []byte {
	var b bytes.Buffer
	for _, d := range [][]byte{
		serve(t, o.cluster, "cluster.karmada.io/v1alpha1", "Cluster"),
		serve(t, o.pp, "policy.karmada.io/v1alpha1", "PropagationPolicy"),
		serve(t, o.cpp, "policy.karmada.io/v1alpha1", "ClusterPropagationPolicy"),
		serve(t, o.rb, "work.karmada.io/v1alpha2", "ResourceBinding"),
		serve(t, o.crb, "work.karmada.io/v1alpha2", "ClusterResourceBinding"),
	} {
		b.WriteString("---\n")
		b.Write(d)
	}
	return b.Bytes()
}

// Fields of Karmada's types the reader does not read, and reports as not
// modelled when they are set.
var unmodelled = map[string]bool{
	"spec.placement.workloadAffinity": true,
}

// TestReaderMatchesKarmadaTypes: every field the reader models comes
// through equal from Karmada's typed objects, and every field those carry
// is either read, deliberately passed over, or reported; none is dropped
// unseen.
func TestReaderMatchesKarmadaTypes(t *testing.T) {
	for seed := int64(0); seed < seeds; seed++ {
		o := fill(seed)
		fleet, err := karmadafleet.Parse(fmt.Sprintf("seed-%d.yaml", seed), o.document(t))
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for _, f := range fleet.Findings {
			if strings.HasPrefix(f.Message, "field not modelled") && !unmodelled[f.Field] {
				t.Errorf("seed %d: %s: %s: the reader does not know this field of Karmada's type", seed, f.Object, f.Field)
			}
		}
		if len(fleet.Clusters) != 1 || len(fleet.Policies) != 2 || len(fleet.Workloads) != 2 {
			t.Fatalf("seed %d: read %d clusters, %d policies, %d workloads; want 1, 2, 2", seed, len(fleet.Clusters), len(fleet.Policies), len(fleet.Workloads))
		}
		if d := cmp.Diff(wantCluster(o.cluster), fleet.Clusters[0], ignoreFile); d != "" {
			t.Errorf("seed %d: cluster (-Karmada +reader):\n%s", seed, d)
		}
		wantPolicies := []karmadafleet.Policy{
			wantPolicy(karmadafleet.Ref{Kind: "ClusterPropagationPolicy", Name: o.cpp.Name}, "cpp-id", &o.cpp.Spec),
			wantPolicy(karmadafleet.Ref{Kind: "PropagationPolicy", Namespace: o.pp.Namespace, Name: o.pp.Name}, "pp-id", &o.pp.Spec),
		}
		if d := cmp.Diff(wantPolicies, fleet.Policies, ignoreFile); d != "" {
			t.Errorf("seed %d: policies (-Karmada +reader):\n%s", seed, d)
		}
		wantWorkloads := []karmadafleet.Workload{
			wantWorkload(karmadafleet.Ref{Kind: "ClusterResourceBinding", Name: o.crb.Name}, &o.crb.Spec, &o.crb.Status, wantPolicies[0]),
			wantWorkload(karmadafleet.Ref{Kind: "ResourceBinding", Namespace: o.rb.Namespace, Name: o.rb.Name}, &o.rb.Spec, &o.rb.Status, wantPolicies[1]),
		}
		if d := cmp.Diff(wantWorkloads, fleet.Workloads, ignoreFile); d != "" {
			t.Errorf("seed %d: workloads (-Karmada +reader):\n%s", seed, d)
		}
	}
}

var ignoreFile = cmp.FilterPath(func(p cmp.Path) bool {
	sf, ok := p.Last().(cmp.StructField)
	return ok && sf.Name() == "File"
}, cmp.Ignore())

func wantCluster(c *clusterv1alpha1.Cluster) karmadafleet.Cluster {
	ready := c.Status.Conditions[0]
	return karmadafleet.Cluster{
		Name:        c.Name,
		Labels:      c.Labels,
		SyncMode:    string(c.Spec.SyncMode),
		Provider:    c.Spec.Provider,
		Region:      c.Spec.Region,
		Zone:        c.Spec.Zone,
		Zones:       c.Spec.Zones,
		Taints:      c.Spec.Taints,
		Ready:       ready.Status,
		ReadyReason: ready.Reason,
	}
}

func wantPolicy(ref karmadafleet.Ref, id string, s *policyv1alpha1.PropagationSpec) karmadafleet.Policy {
	return karmadafleet.Policy{
		Ref:         ref,
		PermanentID: id,
		Placement:   wantPlacement(&s.Placement),
		Failover:    wantFailover(s.Failover),
		Suspension:  wantSuspension(s.Suspension, nil),
	}
}

func wantWorkload(ref karmadafleet.Ref, s *workv1alpha2.ResourceBindingSpec, st *workv1alpha2.ResourceBindingStatus, p karmadafleet.Policy) karmadafleet.Workload {
	pref := p.Ref
	w := karmadafleet.Workload{
		Binding: ref,
		Resource: karmadafleet.ObjectReference{
			APIVersion: s.Resource.APIVersion, Kind: s.Resource.Kind, Namespace: s.Resource.Namespace, Name: s.Resource.Name,
		},
		Policy:   &pref,
		Replicas: s.Replicas,
	}
	for _, c := range s.Clusters {
		w.Clusters = append(w.Clusters, karmadafleet.TargetCluster{Name: c.Name, Replicas: c.Replicas})
	}
	for _, a := range st.AggregatedStatus {
		item := karmadafleet.AggregatedStatusItem{ClusterName: a.ClusterName, Health: string(a.Health)}
		if a.Status != nil {
			if err := json.Unmarshal(a.Status.Raw, &item.Status); err != nil {
				panic(err)
			}
		}
		w.Status = append(w.Status, item)
	}
	for _, task := range s.GracefulEvictionTasks {
		w.EvictionTasks = append(w.EvictionTasks, karmadafleet.GracefulEvictionTask{
			FromCluster: task.FromCluster, PurgeMode: string(task.PurgeMode), Replicas: task.Replicas,
			Reason: task.Reason, Message: task.Message, Producer: task.Producer,
			GracePeriodSeconds: task.GracePeriodSeconds, SuppressDeletion: task.SuppressDeletion,
			PreservedLabelState: task.PreservedLabelState, CreationTimestamp: task.CreationTimestamp,
			ClustersBeforeFailover: task.ClustersBeforeFailover,
		})
	}
	if s.Placement != nil {
		w.Placement = wantPlacement(s.Placement)
	} else {
		w.Placement, w.PlacementFromPolicy = p.Placement, true
	}
	if s.Failover != nil {
		w.Failover = wantFailover(s.Failover)
	} else {
		w.Failover, w.FailoverFromPolicy = p.Failover, true
	}
	if s.Suspension != nil {
		w.Suspension = wantSuspension(&s.Suspension.Suspension, s.Suspension.Scheduling)
	} else {
		w.Suspension, w.SuspensionFromPolicy = p.Suspension, true
	}
	return w
}

func wantAffinity(a policyv1alpha1.ClusterAffinity) karmadafleet.ClusterAffinity {
	out := karmadafleet.ClusterAffinity{LabelSelector: a.LabelSelector, ClusterNames: a.ClusterNames, ExcludeClusters: a.ExcludeClusters}
	if a.FieldSelector != nil {
		out.FieldSelector = &karmadafleet.FieldSelector{MatchExpressions: a.FieldSelector.MatchExpressions}
	}
	return out
}

func wantPlacement(p *policyv1alpha1.Placement) *karmadafleet.Placement {
	out := &karmadafleet.Placement{ClusterTolerations: p.ClusterTolerations}
	if p.ClusterAffinity != nil {
		a := wantAffinity(*p.ClusterAffinity)
		out.ClusterAffinity = &a
	}
	for _, term := range p.ClusterAffinities {
		out.ClusterAffinities = append(out.ClusterAffinities, karmadafleet.ClusterAffinityTerm{AffinityName: term.AffinityName, ClusterAffinity: wantAffinity(term.ClusterAffinity)})
	}
	for _, sc := range p.SpreadConstraints {
		out.SpreadConstraints = append(out.SpreadConstraints, karmadafleet.SpreadConstraint{
			SpreadByField: string(sc.SpreadByField), SpreadByLabel: sc.SpreadByLabel, MaxGroups: sc.MaxGroups, MinGroups: sc.MinGroups,
		})
	}
	if rs := p.ReplicaScheduling; rs != nil {
		out.ReplicaScheduling = &karmadafleet.ReplicaSchedulingPolicy{
			ReplicaSchedulingType:     string(rs.ReplicaSchedulingType),
			ReplicaDivisionPreference: string(rs.ReplicaDivisionPreference),
		}
		if wp := rs.WeightPreference; wp != nil {
			cp := &karmadafleet.ClusterPreferences{DynamicWeight: string(wp.DynamicWeight)}
			for _, sw := range wp.StaticWeightList {
				cp.StaticWeightList = append(cp.StaticWeightList, karmadafleet.StaticClusterWeight{TargetCluster: wantAffinity(sw.TargetCluster), Weight: sw.Weight})
			}
			out.ReplicaScheduling.WeightPreference = cp
		}
	}
	return out
}

func wantPreservation(sp *policyv1alpha1.StatePreservation) *karmadafleet.StatePreservation {
	if sp == nil {
		return nil
	}
	out := &karmadafleet.StatePreservation{}
	for _, r := range sp.Rules {
		out.Rules = append(out.Rules, karmadafleet.StatePreservationRule{AliasLabelName: r.AliasLabelName, JSONPath: r.JSONPath})
	}
	return out
}

func wantFailover(f *policyv1alpha1.FailoverBehavior) *karmadafleet.FailoverBehavior {
	if f == nil {
		return nil
	}
	out := &karmadafleet.FailoverBehavior{}
	if a := f.Application; a != nil {
		out.Application = &karmadafleet.ApplicationFailoverBehavior{
			DecisionConditions: karmadafleet.DecisionConditions{TolerationSeconds: a.DecisionConditions.TolerationSeconds},
			PurgeMode:          string(a.PurgeMode),
			GracePeriodSeconds: a.GracePeriodSeconds,
			StatePreservation:  wantPreservation(a.StatePreservation),
		}
	}
	if c := f.Cluster; c != nil {
		out.Cluster = &karmadafleet.ClusterFailoverBehavior{PurgeMode: string(c.PurgeMode), StatePreservation: wantPreservation(c.StatePreservation)}
	}
	return out
}

func wantSuspension(s *policyv1alpha1.Suspension, scheduling *bool) *karmadafleet.Suspension {
	if s == nil {
		return nil
	}
	out := &karmadafleet.Suspension{Dispatching: s.Dispatching, Scheduling: scheduling}
	if s.DispatchingOnClusters != nil {
		out.DispatchingOnClusters = &karmadafleet.SuspendClusters{ClusterNames: s.DispatchingOnClusters.ClusterNames}
	}
	return out
}

// TestExportDecodesStrictly: every object of the testdata export decodes
// into Karmada's type for its kind with unknown fields refused, so the
// export holds only fields Karmada v1.17 has, spelled as Karmada spells
// them.
func TestExportDecodesStrictly(t *testing.T) {
	dir := filepath.Join("..", "..", "fleetsim", "testdata", "karmada-export")
	kinds := map[string]func() any{
		"cluster.karmada.io/v1alpha1/Cluster":                 func() any { return &clusterv1alpha1.Cluster{} },
		"policy.karmada.io/v1alpha1/PropagationPolicy":        func() any { return &policyv1alpha1.PropagationPolicy{} },
		"policy.karmada.io/v1alpha1/ClusterPropagationPolicy": func() any { return &policyv1alpha1.ClusterPropagationPolicy{} },
		"policy.karmada.io/v1alpha1/OverridePolicy":           func() any { return &policyv1alpha1.OverridePolicy{} },
		"work.karmada.io/v1alpha2/ResourceBinding":            func() any { return &workv1alpha2.ResourceBinding{} },
		"work.karmada.io/v1alpha2/ClusterResourceBinding":     func() any { return &workv1alpha2.ClusterResourceBinding{} },
		"policy.karmada.io/v1alpha1/ClusterTaintPolicy":       func() any { return &policyv1alpha1.ClusterTaintPolicy{} },
	}
	seen := map[string]int{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		yr := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
		for {
			doc, err := yr.Read()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			var top map[string]any
			if err := yaml.Unmarshal(doc, &top); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			items := []any{top}
			if top["kind"] == "List" {
				items = top["items"].([]any)
			}
			for i, it := range items {
				m := it.(map[string]any)
				key := fmt.Sprintf("%s/%s", m["apiVersion"], m["kind"])
				newObj, ok := kinds[key]
				if !ok {
					t.Errorf("%s: item %d: %s is not a kind this check knows", path, i, key)
					continue
				}
				js, err := json.Marshal(m)
				if err != nil {
					return err
				}
				dec := json.NewDecoder(bytes.NewReader(js))
				dec.DisallowUnknownFields()
				if err := dec.Decode(newObj()); err != nil {
					t.Errorf("%s: item %d (%s %v): %v", path, i, key, m["metadata"].(map[string]any)["name"], err)
				}
				seen[key]++
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for k := range seen {
		got = append(got, k)
	}
	sort.Strings(got)
	var want []string
	for k := range kinds {
		want = append(want, k)
	}
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("the export holds kinds %v, want every one of %v", got, want)
	}
}
