package karmadafleet

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

const exportDir = "../testdata/karmada-export"

func TestLoadExport(t *testing.T) {
	f, err := Load(exportDir)
	if err != nil {
		t.Fatal(err)
	}
	var clusters []string
	for _, c := range f.Clusters {
		clusters = append(clusters, c.Name)
	}
	if want := []string{"aws-use1-a", "aws-use1-b", "aws-use1-c", "gcp-euw1-b", "gcp-euw1-c", "onprem-fra"}; !slices.Equal(clusters, want) {
		t.Errorf("clusters %v, want %v", clusters, want)
	}
	byName := map[string]Cluster{}
	for _, c := range f.Clusters {
		byName[c.Name] = c
	}
	if c := byName["gcp-euw1-c"]; c.Ready != metav1.ConditionFalse || c.ReadyReason != "ClusterNotReachable" || len(c.Taints) != 1 || c.SyncMode != "Push" {
		t.Errorf("gcp-euw1-c = %+v; want Ready False (ClusterNotReachable), Push, one taint", c)
	}
	if c := byName["aws-use1-a"]; c.Zone != "" || !slices.Equal(c.Zones, []string{"us-east-1a"}) || c.Provider != "aws" || c.Region != "us-east-1" || c.Labels["env"] != "prod" {
		t.Errorf("aws-use1-a = %+v; want zones [us-east-1a], provider aws, region us-east-1, label env=prod", c)
	}
	if c := byName["onprem-fra"]; len(c.Taints) != 1 || c.Taints[0] != (corev1.Taint{Key: "dedicated", Value: "batch", Effect: corev1.TaintEffectNoSchedule}) {
		t.Errorf("onprem-fra taints = %v", c.Taints)
	}
	if len(f.Policies) != 6 {
		t.Errorf("%d policies, want 6", len(f.Policies))
	}
	wl := map[string]Workload{}
	for _, w := range f.Workloads {
		wl[w.Binding.String()] = w
	}
	if len(wl) != 7 {
		t.Fatalf("%d workloads, want 7: %v", len(wl), wl)
	}
	pay := wl["ResourceBinding shop/payments-deployment"]
	if !pay.PlacementFromPolicy || !pay.FailoverFromPolicy || pay.Policy == nil || pay.Policy.Name != "payments" {
		t.Errorf("payments: placement and failover should come from PropagationPolicy shop/payments: %+v", pay)
	}
	if pay.Placement == nil || pay.Placement.ReplicaScheduling.ReplicaSchedulingType != "Divided" || len(pay.Placement.ReplicaScheduling.WeightPreference.StaticWeightList) != 2 {
		t.Errorf("payments placement = %+v", pay.Placement)
	}
	if want := []TargetCluster{{"aws-use1-a", 3}, {"aws-use1-b", 2}, {"gcp-euw1-b", 1}}; !slices.Equal(pay.Clusters, want) {
		t.Errorf("payments clusters %v, want %v", pay.Clusters, want)
	}
	web := wl["ResourceBinding shop/web-deployment"]
	if len(web.Status) != 2 || web.Status[1].ClusterName != "gcp-euw1-b" || web.Status[1].Health != "Unhealthy" || web.Status[1].Status["readyReplicas"] != float64(0) {
		t.Errorf("web status = %+v", web.Status)
	}
	flink := wl["ResourceBinding analytics/fraud-detector-flinkdeployment"]
	if flink.FailoverFromPolicy || flink.Failover == nil || flink.Failover.Cluster.StatePreservation.Rules[0].JSONPath != "{ .jobStatus.jobId }" || flink.Resource.Kind != "FlinkDeployment" {
		t.Errorf("fraud-detector: failover from the binding with a state preservation rule: %+v", flink.Failover)
	}
	search := wl["ResourceBinding search/search-api-deployment"]
	if len(search.EvictionTasks) != 1 || search.EvictionTasks[0].FromCluster != "gcp-euw1-c" || search.EvictionTasks[0].CreationTimestamp == nil {
		t.Errorf("search-api eviction tasks = %+v", search.EvictionTasks)
	}
	gw := wl["ResourceBinding platform/ingress-gateway-deployment"]
	if gw.Policy == nil || *gw.Policy != (Ref{Kind: KindClusterPropagationPolicy, Name: "platform-defaults"}) {
		t.Errorf("ingress-gateway policy = %v, want the ClusterPropagationPolicy", gw.Policy)
	}
	crb := wl["ClusterResourceBinding platform-reader-clusterrole"]
	if crb.Policy == nil || crb.Policy.Name != "platform-defaults" || crb.Replicas != 0 || crb.Resource.Kind != "ClusterRole" {
		t.Errorf("cluster-scoped binding = %+v", crb)
	}
	var got []string
	for _, fd := range f.Findings {
		got = append(got, fd.Object.String()+" "+fd.Field)
	}
	for _, want := range []string{
		"OverridePolicy shop/web-eu-image ",
		"PropagationPolicy shop/web spec.propagateDeps",
		"ResourceBinding shop/web-deployment spec.propagateDeps",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("findings %q lack %q", got, want)
		}
	}
	// search/search spreads by region, which is modelled: no finding.
	if len(got) != 3 {
		t.Errorf("findings %q, want exactly the 3 above", got)
	}
}

const clusterDoc = `apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: m1, labels: {env: prod}}
spec: {syncMode: Push, zone: z1, provider: aws, region: r1}
status:
  conditions: [{type: Ready, status: "True", reason: ClusterReady, message: ok, lastTransitionTime: "2026-01-01T00:00:00Z"}]
`

const bindingDoc = `apiVersion: work.karmada.io/v1alpha2
kind: ResourceBinding
metadata:
  name: web-deployment
  namespace: shop
  labels: {propagationpolicy.karmada.io/permanent-id: id-1}
spec:
  resource: {apiVersion: apps/v1, kind: Deployment, namespace: shop, name: web}
  replicas: 2
  clusters: [{name: m1, replicas: 2}]
`

const policyDoc = `apiVersion: policy.karmada.io/v1alpha1
kind: PropagationPolicy
metadata:
  name: web
  namespace: shop
  labels: {propagationpolicy.karmada.io/permanent-id: id-1}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]
  placement:
    clusterAffinity: {clusterNames: [m1]}
    spreadConstraints: [{spreadByField: cluster, minGroups: 1, maxGroups: 1}]
  failover:
    cluster: {purgeMode: Directly}
`

// The forms kubectl writes: one object, several documents, a List (also
// of Lists), JSON; comments and empty documents are skipped.
func TestParseForms(t *testing.T) {
	list := "apiVersion: v1\nkind: List\nitems:\n" + indentItem(clusterDoc) + indentItem(bindingDoc) + indentItem(policyDoc)
	nested := "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items:\n" + indent(indentItem(clusterDoc), "  ") +
		indentItem(bindingDoc) + indentItem(policyDoc)
	for name, data := range map[string]string{
		"documents": "# an export\n---\n" + clusterDoc + "---\n---\n# nothing\n" + bindingDoc + "---\n" + policyDoc,
		"list":      list,
		"nested":    nested,
		"json": `{"apiVersion":"v1","kind":"List","items":[` +
			`{"apiVersion":"cluster.karmada.io/v1alpha1","kind":"Cluster","metadata":{"name":"m1"},"spec":{"syncMode":"Push","zone":"z1"},"status":{"conditions":[{"type":"Ready","status":"True","reason":"ClusterReady","message":"ok","lastTransitionTime":"2026-01-01T00:00:00Z"}]}},` +
			`{"apiVersion":"work.karmada.io/v1alpha2","kind":"ResourceBinding","metadata":{"name":"web-deployment","namespace":"shop","labels":{"propagationpolicy.karmada.io/permanent-id":"id-1"}},"spec":{"resource":{"apiVersion":"apps/v1","kind":"Deployment","namespace":"shop","name":"web"},"replicas":2,"clusters":[{"name":"m1","replicas":2}]}},` +
			`{"apiVersion":"policy.karmada.io/v1alpha1","kind":"PropagationPolicy","metadata":{"name":"web","namespace":"shop","labels":{"propagationpolicy.karmada.io/permanent-id":"id-1"}},"spec":{"resourceSelectors":[],"placement":{"clusterAffinity":{"clusterNames":["m1"]},"spreadConstraints":[{"spreadByField":"cluster","minGroups":1,"maxGroups":1}]},"failover":{"cluster":{"purgeMode":"Directly"}}}}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			f, err := Parse(name+".yaml", []byte(data))
			if err != nil {
				t.Fatal(err)
			}
			if len(f.Clusters) != 1 || f.Clusters[0].Ready != metav1.ConditionTrue || len(f.Workloads) != 1 || len(f.Findings) != 0 {
				t.Fatalf("got %+v", f)
			}
			w := f.Workloads[0]
			// The binding lacks placement and failover: the policy, found
			// by its permanent id, gives them.
			if w.Policy == nil || w.Policy.Name != "web" || !w.PlacementFromPolicy || w.Failover.Cluster.PurgeMode != "Directly" ||
				w.Placement.SpreadConstraints[0].MaxGroups != 1 || w.Replicas != 2 {
				t.Errorf("workload %+v", w)
			}
		})
	}
}

func indentItem(doc string) string {
	lines := strings.Split(strings.TrimRight(doc, "\n"), "\n")
	for i := range lines {
		if i == 0 {
			lines[i] = "- " + lines[i]
		} else {
			lines[i] = "  " + lines[i]
		}
	}
	return strings.Join(lines, "\n") + "\n"
}

func indent(s, by string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i := range lines {
		lines[i] = by + lines[i]
	}
	return strings.Join(lines, "\n") + "\n"
}

// Bad input: an error naming the file, the document, the object and the
// field; never a panic.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		want       []string // substrings of the error
	}{
		{"not yaml", "a: [b\n", []string{"in.yaml (document 1)", "not valid YAML"}},
		{"scalar", "just text\n", []string{"in.yaml (document 1)", "a Kubernetes object"}},
		{"no kind", "apiVersion: v1\nmetadata: {name: x}\n", []string{"kind: Required value"}},
		{"no name", "apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {}\n", []string{"Cluster", "metadata.name: Required value"}},
		{"label not a string", "apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: m1, labels: {a: [1]}}\n", []string{"metadata.labels[a]"}},
		{"sync mode", strings.Replace(clusterDoc, "Push", "Sideways", 1), []string{"in.yaml (document 1): Cluster m1: spec.syncMode: Unsupported value: \"Sideways\""}},
		{"taint effect", strings.Replace(clusterDoc, "zone: z1", "taints: [{key: a, effect: Sometimes}]", 1), []string{"Cluster m1: spec.taints[0].effect: Unsupported value"}},
		{"cluster name", strings.Replace(clusterDoc, "name: m1", "name: M_1", 1), []string{"Cluster M_1: metadata.name: Invalid value"}},
		{"replicas type", strings.Replace(bindingDoc, "replicas: 2\n", "replicas: three\n", 1), []string{"ResourceBinding shop/web-deployment: spec.replicas: Invalid value: \"string\": must be an integer"}},
		{"negative replicas", strings.Replace(bindingDoc, "replicas: 2\n", "replicas: -1\n", 1), []string{"spec.replicas: Invalid value: -1"}},
		{"no resource", strings.Replace(bindingDoc, "kind: Deployment, ", "", 1), []string{"spec.resource.kind: Required value"}},
		{"target name", strings.Replace(bindingDoc, "{name: m1, replicas: 2}", "{replicas: 2}", 1), []string{"spec.clusters[0].name: Required value"}},
		{"binding without namespace", strings.Replace(bindingDoc, "  namespace: shop\n", "", 1), []string{"metadata.namespace: Required value"}},
		{"cluster with namespace", strings.Replace(clusterDoc, "name: m1,", "name: m1, namespace: x,", 1), []string{"metadata.namespace: Invalid value"}},
		{"duplicate", clusterDoc + "---\n" + clusterDoc, []string{"(document 2): Cluster m1: metadata.name: Duplicate value"}},
		{"duplicate key", "apiVersion: v1\napiVersion: v1\nkind: List\n", []string{"not valid YAML"}},
		{"items not a list", "apiVersion: v1\nkind: List\nitems: {a: 1}\n", []string{"items: Invalid value"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("in.yaml", []byte(tc.data))
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrInvalidInput) {
				t.Errorf("%v does not wrap ErrInvalidInput", err)
			}
			var fe *field.Error
			if !errors.As(err, &fe) {
				t.Errorf("%v is not a *field.Error", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestParseBounded(t *testing.T) {
	_, err := parse("big.yaml", []byte(strings.Repeat("#\n", 100)), 100)
	if !errors.Is(err, ErrInvalidInput) || !strings.Contains(err.Error(), "larger than 100 bytes") {
		t.Errorf("err = %v", err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.yaml"), []byte(clusterDoc), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readBounded(filepath.Join(dir, "a.yaml"), 10); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("readBounded past its limit: %v", err)
	}
}

// What the reader cannot describe is reported by object and field path.
func TestFindings(t *testing.T) {
	policy := strings.Replace(policyDoc, "    spreadConstraints: [{spreadByField: cluster, minGroups: 1, maxGroups: 1}]\n",
		"    spreadConstraints: [{spreadByField: provider, minGroups: 1, maxGroups: 1}, {spreadByLabel: rack}]\n"+
			"    clusterAffinities: [{affinityName: primary, clusterNames: [m1]}, {affinityName: backup}]\n"+
			"    workloadAffinity: {affinity: {groupByLabelKey: app}}\n"+
			"    replicaScheduling: {replicaSchedulingType: Divided, replicaDivisionPreference: Aggregated, weightPreference: {dynamicWeight: AvailableReplicas}}\n", 1)
	policy += "  dependentOverrides: [o1]\n  schedulerName: other\n  suspension: {scheduling: true}\n"
	binding := strings.Replace(bindingDoc, "  replicas: 2\n", "  replicas: 2\n  components: [{name: jm, replicas: 1}]\n  requiredBy: [{name: x}]\n  workloadAffinityGroups: {affinityGroup: g}\n  futureField: 1\n", 1)
	binding = strings.Replace(binding, "permanent-id: id-1", "permanent-id: id-2", 1)
	other := "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\n"
	oldVersion := strings.Replace(bindingDoc, "v1alpha2", "v1alpha1", 1)
	f, err := Parse("in.yaml", []byte(clusterDoc+"---\n"+policy+"---\n"+binding+"---\n"+other+"---\n"+oldVersion))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, fd := range f.Findings {
		got = append(got, fd.Object.String()+" "+fd.Field)
		if fd.File != "in.yaml" || fd.Message == "" {
			t.Errorf("finding %+v lacks its file or message", fd)
		}
	}
	want := []string{
		"PropagationPolicy shop/web spec.placement.workloadAffinity",
		"PropagationPolicy shop/web spec.placement.spreadConstraints[0].spreadByField",
		"PropagationPolicy shop/web spec.placement.spreadConstraints[1].spreadByLabel",
		"PropagationPolicy shop/web spec.placement.replicaScheduling.replicaDivisionPreference",
		"PropagationPolicy shop/web spec.placement.replicaScheduling.weightPreference.dynamicWeight",
		"PropagationPolicy shop/web spec.suspension.scheduling",
		"PropagationPolicy shop/web spec.dependentOverrides",
		"PropagationPolicy shop/web spec.schedulerName",
		"ResourceBinding shop/web-deployment spec.futureField",
		"Deployment shop/web ",
		"ResourceBinding shop/web-deployment apiVersion",
		"ResourceBinding shop/web-deployment spec.requiredBy",
		"ResourceBinding shop/web-deployment spec.components",
		"ResourceBinding shop/web-deployment spec.workloadAffinityGroups",
		"ResourceBinding shop/web-deployment metadata.labels[propagationpolicy.karmada.io/permanent-id]",
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("findings:\n got %q\nwant %q", got, want)
	}
	if len(f.Workloads) != 1 || f.Workloads[0].Policy != nil {
		t.Errorf("the binding names no policy of the input: %+v", f.Workloads)
	}
}

func TestMatches(t *testing.T) {
	c := Cluster{Name: "m1", Labels: map[string]string{"env": "prod"}, Provider: "aws", Region: "r1", Zones: []string{"z1", "z2"}}
	sel := func(key string, op corev1.NodeSelectorOperator, values ...string) *FieldSelector {
		return &FieldSelector{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}}}
	}
	for _, tc := range []struct {
		name string
		a    ClusterAffinity
		want bool
		err  string
	}{
		{"empty", ClusterAffinity{}, true, ""},
		{"named", ClusterAffinity{ClusterNames: []string{"m0", "m1"}}, true, ""},
		{"not named", ClusterAffinity{ClusterNames: []string{"m0"}}, false, ""},
		{"excluded", ClusterAffinity{ExcludeClusters: []string{"m1"}}, false, ""},
		{"labels", ClusterAffinity{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}}, true, ""},
		{"labels differ", ClusterAffinity{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "dev"}}}, false, ""},
		// A cluster in several zones is In when one of them is listed
		// (Karmada v1.18; v1.17 wanted all of them),
		// and NotIn when none is.
		{"zone in, every zone listed", ClusterAffinity{FieldSelector: sel("zone", corev1.NodeSelectorOpIn, "z3", "z2", "z1")}, true, ""},
		{"zone in, one zone listed", ClusterAffinity{FieldSelector: sel("zone", corev1.NodeSelectorOpIn, "z2")}, true, ""},
		{"zone in, none listed", ClusterAffinity{FieldSelector: sel("zone", corev1.NodeSelectorOpIn, "z4")}, false, ""},
		{"zone not in, one zone listed", ClusterAffinity{FieldSelector: sel("zone", corev1.NodeSelectorOpNotIn, "z2")}, false, ""},
		{"zone not in, none listed", ClusterAffinity{FieldSelector: sel("zone", corev1.NodeSelectorOpNotIn, "z3")}, true, ""},
		{"provider", ClusterAffinity{FieldSelector: sel("provider", corev1.NodeSelectorOpIn, "gcp")}, false, ""},
		{"region", ClusterAffinity{FieldSelector: sel("region", corev1.NodeSelectorOpNotIn, "r2")}, true, ""},
		{"bad key", ClusterAffinity{FieldSelector: sel("rack", corev1.NodeSelectorOpIn, "a")}, false, "not provider, region or zone"},
		{"bad operator", ClusterAffinity{FieldSelector: sel("zone", corev1.NodeSelectorOpExists)}, false, "not In or NotIn"},
		{"bad label operator", ClusterAffinity{LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "a", Operator: "Near"}}}}, false, "labelSelector"},
	} {
		got, err := c.Matches(tc.a)
		if got != tc.want || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: Matches = %v, %v; want %v, error containing %q", tc.name, got, err, tc.want, tc.err)
		}
	}

	// A cluster without zones is never In a zone list and always NotIn it;
	// a lone spec.zone counts as the cluster's zones, as Karmada's API
	// server stores it.
	for _, tc := range []struct {
		name    string
		cluster Cluster
		a       ClusterAffinity
		want    bool
	}{
		{"no zones, in", Cluster{Name: "m2"}, ClusterAffinity{FieldSelector: sel("zone", corev1.NodeSelectorOpIn, "z1")}, false},
		{"no zones, not in", Cluster{Name: "m2"}, ClusterAffinity{FieldSelector: sel("zone", corev1.NodeSelectorOpNotIn, "z1")}, true},
		{"no provider, not in", Cluster{Name: "m2"}, ClusterAffinity{FieldSelector: sel("provider", corev1.NodeSelectorOpNotIn, "aws")}, true},
		{"spec.zone only, in", Cluster{Name: "m3", Zone: "z1"}, ClusterAffinity{FieldSelector: sel("zone", corev1.NodeSelectorOpIn, "z1")}, true},
		{"spec.zone only, not in", Cluster{Name: "m3", Zone: "z1"}, ClusterAffinity{FieldSelector: sel("zone", corev1.NodeSelectorOpNotIn, "z1")}, false},
		{"spec.zones wins over spec.zone", Cluster{Name: "m4", Zone: "z1", Zones: []string{"z2"}}, ClusterAffinity{FieldSelector: sel("zone", corev1.NodeSelectorOpIn, "z1")}, false},
	} {
		if got, err := tc.cluster.Matches(tc.a); got != tc.want || err != nil {
			t.Errorf("%s: Matches = %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}
