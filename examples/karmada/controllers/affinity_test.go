package controllers

import (
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/api/policy/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/examples/karmada/carrier"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/scheduling"
	"github.com/fleetover/fleetover/why"
)

func affinityCluster(name, provider, region, zone string, zones []string, labels map[string]string) clusterv1alpha1.Cluster {
	return clusterv1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Spec:       clusterv1alpha1.ClusterSpec{Provider: provider, Region: region, Zone: zone, Zones: zones},
	}
}

// The cases follow Karmada v1.17's ClusterMatches (pkg/util/selector.go)
// on what its validation admits.
func TestAffinityMatchesReadsTheWholeAffinity(t *testing.T) {
	east := affinityCluster("east", "aws", "us-east", "us-east-1a", nil, map[string]string{"tier": "gold"})
	multi := affinityCluster("multi", "gcp", "eu", "", []string{"eu-1", "eu-2"}, nil)
	bare := affinityCluster("bare", "", "", "", nil, nil)
	field := func(key string, op corev1.NodeSelectorOperator, values ...string) *policyv1alpha1.FieldSelector {
		return &policyv1alpha1.FieldSelector{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: key, Operator: op, Values: values}}}
	}
	cases := []struct {
		name string
		aff  *policyv1alpha1.ClusterAffinity
		cl   clusterv1alpha1.Cluster
		want bool
	}{
		{"nil affinity", nil, east, true},
		{"empty affinity", &policyv1alpha1.ClusterAffinity{}, east, true},
		{"named", &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"east"}}, east, true},
		{"not named", &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"west"}}, east, false},
		{"excluded though named", &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"east"}, ExcludeClusters: []string{"east"}}, east, false},
		{"label selector", &policyv1alpha1.ClusterAffinity{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "gold"}}}, east, true},
		{"label selector misses", &policyv1alpha1.ClusterAffinity{LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"tier": "gold"}}}, multi, false},
		{"bad label selector", &policyv1alpha1.ClusterAffinity{LabelSelector: &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "tier", Operator: "Near"}}}}, east, false},
		{"provider in", &policyv1alpha1.ClusterAffinity{FieldSelector: field("provider", corev1.NodeSelectorOpIn, "aws")}, east, true},
		{"region not in", &policyv1alpha1.ClusterAffinity{FieldSelector: field("region", corev1.NodeSelectorOpNotIn, "us-east")}, east, false},
		{"not in holds for an empty field", &policyv1alpha1.ClusterAffinity{FieldSelector: field("provider", corev1.NodeSelectorOpNotIn, "aws")}, bare, true},
		{"in fails for an empty field", &policyv1alpha1.ClusterAffinity{FieldSelector: field("region", corev1.NodeSelectorOpIn, "")}, bare, false},
		{"zone in needs every zone listed", &policyv1alpha1.ClusterAffinity{FieldSelector: field("zone", corev1.NodeSelectorOpIn, "eu-2")}, multi, false},
		{"zone in with every zone listed", &policyv1alpha1.ClusterAffinity{FieldSelector: field("zone", corev1.NodeSelectorOpIn, "eu-1", "eu-2", "eu-3")}, multi, true},
		{"zone not in, one zone listed", &policyv1alpha1.ClusterAffinity{FieldSelector: field("zone", corev1.NodeSelectorOpNotIn, "eu-2")}, multi, false},
		{"zone in needs a zone", &policyv1alpha1.ClusterAffinity{FieldSelector: field("zone", corev1.NodeSelectorOpIn, "eu-1")}, bare, false},
		{"spec.zone is not read", &policyv1alpha1.ClusterAffinity{FieldSelector: field("zone", corev1.NodeSelectorOpIn, "us-east-1a")}, east, false},
		{"operator Karmada refuses", &policyv1alpha1.ClusterAffinity{FieldSelector: field("zone", corev1.NodeSelectorOpExists)}, multi, false},
		{"unknown field", &policyv1alpha1.ClusterAffinity{FieldSelector: field("rack", corev1.NodeSelectorOpNotIn, "a")}, east, false},
		{"every part must hold", &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"east"}, FieldSelector: field("provider", corev1.NodeSelectorOpIn, "gcp")}, east, false},
	}
	for _, tc := range cases {
		if got := compileAffinity(tc.aff).matches(&tc.cl); got != tc.want {
			t.Errorf("%s: matches = %t, want %t", tc.name, got, tc.want)
		}
	}
}

// Karmada's static weights: the highest weight of the rules that select a
// cluster; a cluster no rule selects weighs nothing.
func TestStaticWeightsTakeTheHighestRule(t *testing.T) {
	clusters := []clusterv1alpha1.Cluster{
		affinityCluster("a", "", "", "", []string{"z1"}, nil),
		affinityCluster("b", "", "", "", []string{"z1"}, nil),
		affinityCluster("c", "", "", "", []string{"z2"}, nil),
	}
	list := []policyv1alpha1.StaticClusterWeight{
		{TargetCluster: policyv1alpha1.ClusterAffinity{FieldSelector: &policyv1alpha1.FieldSelector{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: "zone", Operator: corev1.NodeSelectorOpIn, Values: []string{"z1"}}}}}, Weight: 1},
		{TargetCluster: policyv1alpha1.ClusterAffinity{ClusterNames: []string{"b"}}, Weight: 3},
		{TargetCluster: policyv1alpha1.ClusterAffinity{ClusterNames: []string{"b"}}, Weight: 2},
	}
	got := staticWeights(list, clusters)
	if want := map[string]int64{"a": 1, "b": 3}; !maps.Equal(got, want) {
		t.Fatalf("staticWeights = %v, want %v", got, want)
	}
}

// The weights divide only when a Ready cluster the replicas can go to has
// one; otherwise every cluster weighs the same.
func TestUsableWeightsNeedAWeightedDestination(t *testing.T) {
	ready := func(cl clusterv1alpha1.Cluster, status metav1.ConditionStatus) clusterv1alpha1.Cluster {
		cl.Status.Conditions = []metav1.Condition{{Type: clusterv1alpha1.ClusterConditionReady, Status: status}}
		return cl
	}
	clusters := []clusterv1alpha1.Cluster{
		ready(affinityCluster("lost", "", "", "", nil, nil), metav1.ConditionFalse),
		ready(affinityCluster("down", "", "", "", nil, nil), metav1.ConditionUnknown),
		ready(affinityCluster("up", "", "", "", nil, nil), metav1.ConditionTrue),
	}
	all := map[string]bool{"lost": true, "down": true, "up": true}
	weights := map[string]int64{"lost": 2, "down": 1}
	if got := usableWeights(weights, all, clusters, []string{"lost"}); got != nil {
		t.Fatalf("usableWeights = %v, want nil: only a lost and a not-ready cluster have weights", got)
	}
	weights["up"] = 1
	if got := usableWeights(weights, all, clusters, []string{"lost"}); !maps.Equal(got, weights) {
		t.Fatalf("usableWeights = %v, want the weights", got)
	}
	if got := usableWeights(weights, map[string]bool{"lost": true, "down": true}, clusters, []string{"lost"}); got != nil {
		t.Fatalf("usableWeights = %v, want nil: the weighted Ready cluster is outside the affinity", got)
	}
}

// A spread by zone reaches the re-placement: with the workload on a (z1)
// and c (z2) and c lost, at most two zones leave room for z3 only, and a
// cluster there is chosen before b in the zone a already covers.
func TestFailoverRequestReadsTheZoneSpread(t *testing.T) {
	clusters := []clusterv1alpha1.Cluster{
		affinityCluster("a", "", "", "", []string{"z1"}, nil),
		affinityCluster("b", "", "", "", []string{"z1"}, nil),
		affinityCluster("c", "", "", "", []string{"z2"}, nil),
		affinityCluster("d", "", "", "", []string{"z3"}, nil),
		affinityCluster("e", "", "", "", nil, nil),
	}
	rb := &workv1alpha2.ResourceBinding{Spec: workv1alpha2.ResourceBindingSpec{
		Replicas: 1,
		Placement: &policyv1alpha1.Placement{SpreadConstraints: []policyv1alpha1.SpreadConstraint{
			{SpreadByField: policyv1alpha1.SpreadByFieldCluster, MinGroups: 2, MaxGroups: 2},
			{SpreadByField: policyv1alpha1.SpreadByFieldZone, MinGroups: 2, MaxGroups: 2},
		}},
	}}
	req := failoverRequest(rb, newFleet(clusters), nil, nil, defaultTolerations{}, failover.TolerationOptions{}, time.Now())
	if req.ZoneSpread == nil || *req.ZoneSpread != (scheduling.SpreadConstraint{MinGroups: 2, MaxGroups: 2}) {
		t.Fatalf("ZoneSpread = %+v, want 2..2", req.ZoneSpread)
	}
	req.Targets = []eviction.TargetCluster{{Name: "a", Replicas: 1}}
	req.Evicted = []eviction.TargetCluster{{Name: "c", Replicas: 1}}
	plan, err := scheduling.Replace(req)
	if err != nil {
		t.Fatal(err)
	}
	want := []eviction.TargetCluster{{Name: "a", Replicas: 1}, {Name: "d", Replicas: 1}}
	if !slices.Equal(plan.Targets, want) {
		t.Fatalf("targets %v, want %v", plan.Targets, want)
	}
}

// Karmada's scheduler selects by region (spec.region) within the bounds of
// a region spread; so does the failover scheduler, through the library.
func TestFailoverRequestReadsTheRegionSpread(t *testing.T) {
	clusters := []clusterv1alpha1.Cluster{
		affinityCluster("a", "", "eu", "", nil, nil),
		affinityCluster("b", "", "eu", "", nil, nil),
		affinityCluster("c", "", "us", "", nil, nil),
		affinityCluster("d", "", "ap", "", nil, nil),
		affinityCluster("e", "", "", "", nil, nil),
	}
	rb := &workv1alpha2.ResourceBinding{Spec: workv1alpha2.ResourceBindingSpec{
		Replicas: 1,
		Placement: &policyv1alpha1.Placement{SpreadConstraints: []policyv1alpha1.SpreadConstraint{
			{SpreadByField: policyv1alpha1.SpreadByFieldCluster, MinGroups: 2, MaxGroups: 2},
			{SpreadByField: policyv1alpha1.SpreadByFieldRegion, MinGroups: 2, MaxGroups: 2},
		}},
	}}
	req := failoverRequest(rb, newFleet(clusters), nil, nil, defaultTolerations{}, failover.TolerationOptions{}, time.Now())
	if req.RegionSpread == nil || *req.RegionSpread != (scheduling.SpreadConstraint{MinGroups: 2, MaxGroups: 2}) {
		t.Fatalf("RegionSpread = %+v, want 2..2", req.RegionSpread)
	}
	// c (us) fails: b, first by name, stays in eu with a and would leave
	// one region; d opens ap. e has no region and is filtered out.
	req.Targets = []eviction.TargetCluster{{Name: "a", Replicas: 1}}
	req.Evicted = []eviction.TargetCluster{{Name: "c", Replicas: 1}}
	plan, err := scheduling.Replace(req)
	if err != nil {
		t.Fatal(err)
	}
	want := []eviction.TargetCluster{{Name: "a", Replicas: 1}, {Name: "d", Replicas: 1}}
	if !slices.Equal(plan.Targets, want) {
		t.Fatalf("targets %v, want %v", plan.Targets, want)
	}
	if r, ok := plan.Filtered.Rejected["e"]; !ok || r.Filter != filterSpreadConstraint || !strings.Contains(r.Reason, "no region") {
		t.Errorf("e rejected by %+v, want the %s filter naming the region", r, filterSpreadConstraint)
	}
}

// A provider spread groups nothing in Karmada's scheduler: it only needs
// every candidate to name its provider.
func TestFailoverRequestProviderSpreadNeedsAProvider(t *testing.T) {
	clusters := []clusterv1alpha1.Cluster{
		affinityCluster("a", "aws", "", "", nil, nil),
		affinityCluster("b", "", "", "", nil, nil),
		affinityCluster("c", "gcp", "", "", nil, nil),
		affinityCluster("d", "aws", "", "", nil, nil),
	}
	rb := &workv1alpha2.ResourceBinding{Spec: workv1alpha2.ResourceBindingSpec{
		Replicas: 1,
		Placement: &policyv1alpha1.Placement{SpreadConstraints: []policyv1alpha1.SpreadConstraint{
			{SpreadByField: policyv1alpha1.SpreadByFieldCluster, MinGroups: 2, MaxGroups: 2},
			{SpreadByField: policyv1alpha1.SpreadByFieldProvider, MinGroups: 2, MaxGroups: 2},
		}},
	}}
	req := failoverRequest(rb, newFleet(clusters), nil, nil, defaultTolerations{}, failover.TolerationOptions{}, time.Now())
	req.Targets = []eviction.TargetCluster{{Name: "a", Replicas: 1}}
	req.Evicted = []eviction.TargetCluster{{Name: "c", Replicas: 1}}
	plan, err := scheduling.Replace(req)
	if err != nil {
		t.Fatal(err)
	}
	// b comes first by name but has no provider; d takes the place, though
	// a runs on aws already: there are no provider groups to keep apart.
	want := []eviction.TargetCluster{{Name: "a", Replicas: 1}, {Name: "d", Replicas: 1}}
	if !slices.Equal(plan.Targets, want) {
		t.Fatalf("targets %v, want %v", plan.Targets, want)
	}
	if r, ok := plan.Filtered.Rejected["b"]; !ok || !strings.Contains(r.Reason, "no provider") {
		t.Errorf("b rejected by %+v, want the provider named", r)
	}
}

// Karmada's scheduler ignores the spread constraints of a Divided
// placement weighted by a static list or not weighted at all (its
// admission makes an empty division preference Weighted); its filter still
// needs the fields. A dynamic weight or an aggregated division keeps them.
func TestFailoverRequestIgnoresSpreadOfAStaticOrEvenDivision(t *testing.T) {
	clusters := []clusterv1alpha1.Cluster{
		affinityCluster("a", "", "", "", []string{"z1"}, nil),
		affinityCluster("b", "", "", "", []string{"z2"}, nil),
		affinityCluster("c", "", "", "", nil, nil),
	}
	static := &policyv1alpha1.ClusterPreferences{StaticWeightList: []policyv1alpha1.StaticClusterWeight{
		{TargetCluster: policyv1alpha1.ClusterAffinity{ClusterNames: []string{"a"}}, Weight: 1},
	}}
	for _, tc := range []struct {
		name    string
		rs      *policyv1alpha1.ReplicaSchedulingStrategy
		ignored bool
	}{
		{"duplicated", &policyv1alpha1.ReplicaSchedulingStrategy{ReplicaSchedulingType: policyv1alpha1.ReplicaSchedulingTypeDuplicated}, false},
		{"divided, no preference", &policyv1alpha1.ReplicaSchedulingStrategy{ReplicaSchedulingType: policyv1alpha1.ReplicaSchedulingTypeDivided}, true},
		{"weighted evenly", &policyv1alpha1.ReplicaSchedulingStrategy{ReplicaSchedulingType: policyv1alpha1.ReplicaSchedulingTypeDivided,
			ReplicaDivisionPreference: policyv1alpha1.ReplicaDivisionPreferenceWeighted}, true},
		{"weighted statically", &policyv1alpha1.ReplicaSchedulingStrategy{ReplicaSchedulingType: policyv1alpha1.ReplicaSchedulingTypeDivided,
			ReplicaDivisionPreference: policyv1alpha1.ReplicaDivisionPreferenceWeighted, WeightPreference: static}, true},
		{"weighted dynamically", &policyv1alpha1.ReplicaSchedulingStrategy{ReplicaSchedulingType: policyv1alpha1.ReplicaSchedulingTypeDivided,
			ReplicaDivisionPreference: policyv1alpha1.ReplicaDivisionPreferenceWeighted,
			WeightPreference:          &policyv1alpha1.ClusterPreferences{DynamicWeight: policyv1alpha1.DynamicWeightByAvailableReplicas}}, false},
		{"aggregated", &policyv1alpha1.ReplicaSchedulingStrategy{ReplicaSchedulingType: policyv1alpha1.ReplicaSchedulingTypeDivided,
			ReplicaDivisionPreference: policyv1alpha1.ReplicaDivisionPreferenceAggregated}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rb := &workv1alpha2.ResourceBinding{Spec: workv1alpha2.ResourceBindingSpec{
				Replicas: 4,
				Placement: &policyv1alpha1.Placement{ReplicaScheduling: tc.rs, SpreadConstraints: []policyv1alpha1.SpreadConstraint{
					{SpreadByField: policyv1alpha1.SpreadByFieldCluster, MinGroups: 1, MaxGroups: 1},
					{SpreadByField: policyv1alpha1.SpreadByFieldZone, MinGroups: 1, MaxGroups: 1},
				}},
			}}
			req := failoverRequest(rb, newFleet(clusters), nil, nil, defaultTolerations{}, failover.TolerationOptions{}, time.Now())
			if got := req.ZoneSpread == nil && req.Spread == nil; got != tc.ignored {
				t.Errorf("spreads ignored = %v (zone %+v, cluster %+v), want %v", got, req.ZoneSpread, req.Spread, tc.ignored)
			}
			res := scheduling.RunFilters(req.Workload, req.Clusters, req.Filters...)
			if r, ok := res.Rejected["c"]; !ok || r.Filter != filterSpreadConstraint {
				t.Errorf("c, without zones, rejected by %+v; want the %s filter either way", r, filterSpreadConstraint)
			}
		})
	}
}

// groupedBinding: a Duplicated workload on two clusters that may run in
// a primary group (p1, p2) or, failing that, a backup group (b1, b2); it
// lost p1, and p2 stayed.
func groupedBinding(observed string) *workv1alpha2.ResourceBinding {
	return &workv1alpha2.ResourceBinding{
		Spec: workv1alpha2.ResourceBindingSpec{
			Replicas: 1,
			Clusters: []workv1alpha2.TargetCluster{{Name: "p2", Replicas: 1}},
			GracefulEvictionTasks: []workv1alpha2.GracefulEvictionTask{
				{FromCluster: "p1", ClustersBeforeFailover: []string{"p1", "p2"}},
			},
			Placement: &policyv1alpha1.Placement{
				ClusterAffinities: []policyv1alpha1.ClusterAffinityTerm{
					{AffinityName: "primary", ClusterAffinity: policyv1alpha1.ClusterAffinity{ClusterNames: []string{"p1", "p2"}}},
					{AffinityName: "backup", ClusterAffinity: policyv1alpha1.ClusterAffinity{ClusterNames: []string{"b1", "b2"}}},
				},
				SpreadConstraints: []policyv1alpha1.SpreadConstraint{
					{SpreadByField: policyv1alpha1.SpreadByFieldCluster, MinGroups: 2, MaxGroups: 2},
				},
			},
		},
		Status: workv1alpha2.ResourceBindingStatus{SchedulerObservedAffinityName: observed},
	}
}

func TestAffinityTermsStartFromTheTermInUse(t *testing.T) {
	p := groupedBinding("").Spec.Placement
	for _, tc := range []struct {
		observed string
		want     []string
	}{
		{"", []string{"primary", "backup"}},
		{"primary", []string{"primary", "backup"}},
		{"backup", []string{"backup"}},
		{"gone", []string{"primary", "backup"}}, // a term since removed: from the first, as Karmada
	} {
		var got []string
		for _, term := range affinityTerms(p, tc.observed) {
			got = append(got, term.name)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("observed %q: terms %v, want %v", tc.observed, got, tc.want)
		}
	}
	if terms := affinityTerms(nil, ""); len(terms) != 1 || terms[0] != (affinityTerm{}) {
		t.Errorf("no placement: terms %+v, want one that selects every cluster", terms)
	}
	single := &policyv1alpha1.Placement{ClusterAffinity: &policyv1alpha1.ClusterAffinity{ClusterNames: []string{"a"}}}
	if terms := affinityTerms(single, "backup"); len(terms) != 1 || terms[0].name != "" || terms[0].affinity != single.ClusterAffinity {
		t.Errorf("clusterAffinity: terms %+v, want the one affinity, unnamed", terms)
	}
}

// With no room left in the primary group the workload moves whole to the
// backup group, p2 included, and the binding records the term; from there
// it does not go back, though p2 could take a copy again.
func TestReplaceLostMovesToTheNextAffinityGroup(t *testing.T) {
	clusters := []clusterv1alpha1.Cluster{
		affinityCluster("b1", "", "", "", nil, nil),
		affinityCluster("b2", "", "", "", nil, nil),
		affinityCluster("b3", "", "", "", nil, nil),
		affinityCluster("p1", "", "", "", nil, nil),
		affinityCluster("p2", "", "", "", nil, nil),
	}
	rb := groupedBinding("")
	plan, name, placed, err := replaceLost(rb, newFleet(clusters), nil, nil, nil, defaultTolerations{}, failover.TolerationOptions{}, time.Now())
	if err != nil || !placed || name != "backup" {
		t.Fatalf("placed %v by %q (%v), want placed by backup", placed, name, err)
	}
	if got := names(rb.Spec.Clusters); !slices.Equal(got, []string{"b1", "b2"}) {
		t.Fatalf("clusters %v, want [b1 b2]; plan %+v", got, plan)
	}

	// Later b1 fails too. In the backup group b3 takes its place; p1 and
	// p2 are not tried again.
	rb = groupedBinding("backup")
	rb.Spec.Placement.ClusterAffinities[1].ClusterNames = []string{"b1", "b2", "b3"}
	rb.Spec.Clusters = []workv1alpha2.TargetCluster{{Name: "b2", Replicas: 1}}
	rb.Spec.GracefulEvictionTasks = []workv1alpha2.GracefulEvictionTask{{FromCluster: "b1", ClustersBeforeFailover: []string{"b1", "b2"}}}
	_, name, placed, err = replaceLost(rb, newFleet(clusters), nil, nil, nil, defaultTolerations{}, failover.TolerationOptions{}, time.Now())
	if err != nil || !placed || name != "backup" {
		t.Fatalf("placed %v by %q (%v), want placed by backup", placed, name, err)
	}
	if got := names(rb.Spec.Clusters); !slices.Equal(got, []string{"b2", "b3"}) {
		t.Fatalf("clusters %v, want [b2 b3]", got)
	}

	// With no group left that has room, nothing changes.
	rb = groupedBinding("backup")
	rb.Spec.Clusters = []workv1alpha2.TargetCluster{{Name: "b2", Replicas: 1}}
	rb.Spec.GracefulEvictionTasks = []workv1alpha2.GracefulEvictionTask{{FromCluster: "b1", ClustersBeforeFailover: []string{"b1", "b2"}}}
	plan, name, placed, err = replaceLost(rb, newFleet(clusters), nil, nil, nil, defaultTolerations{}, failover.TolerationOptions{}, time.Now())
	if err != nil || placed || name != "" || plan.Reason != scheduling.ReasonInsufficientCandidates {
		t.Fatalf("placed %v by %q, reason %q (%v); want nothing placed, InsufficientCandidates", placed, name, plan.Reason, err)
	}
	if got := names(rb.Spec.Clusters); !slices.Equal(got, []string{"b2"}) {
		t.Fatalf("clusters %v, want [b2] unchanged", got)
	}
}

func names(targets []workv1alpha2.TargetCluster) []string {
	out := make([]string, len(targets))
	for i, t := range targets {
		out[i] = t.Name
	}
	return out
}

// The explanation tries the later affinity groups as the scheduler does:
// with p1 tainted and no room left in the primary group, the placement
// step says the workload is placed elsewhere, in the backup group.
func TestExplainTriesTheLaterAffinityGroups(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	taintedAt := metav1.NewTime(now.Add(-time.Minute))
	clusters := []clusterv1alpha1.Cluster{
		affinityCluster("b1", "", "", "", nil, nil),
		affinityCluster("b2", "", "", "", nil, nil),
		affinityCluster("p1", "", "", "", nil, nil),
		affinityCluster("p2", "", "", "", nil, nil),
	}
	for i := range clusters {
		clusters[i].Status.Conditions = []metav1.Condition{{Type: clusterv1alpha1.ClusterConditionReady, Status: metav1.ConditionTrue}}
	}
	clusters[2].Spec.Taints = []corev1.Taint{{Key: "maintenance", Effect: corev1.TaintEffectNoExecute, TimeAdded: &taintedAt}}
	for _, tc := range []struct {
		name   string
		groups int
		placed bool
	}{
		{"primary group only", 1, false},
		{"with the backup group", 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rb := groupedBinding("")
			rb.Spec.Clusters = []workv1alpha2.TargetCluster{{Name: "p1", Replicas: 1}, {Name: "p2", Replicas: 1}}
			rb.Spec.GracefulEvictionTasks = nil
			rb.Spec.Placement.ClusterAffinities = rb.Spec.Placement.ClusterAffinities[:tc.groups]
			in := whyInput(&explainFacts{binding: rb, clusters: clusters}, ExplainConfig{ClusterFailover: true}, now)
			chain := why.Workload(in)
			placed := slices.ContainsFunc(chain.Steps, func(e why.Explanation) bool { return e.Reason == why.ReasonPlacementDue })
			if placed != tc.placed {
				var b strings.Builder
				_ = chain.Render(&b)
				t.Fatalf("placement due %v, want %v:\n%s", placed, tc.placed, b.String())
			}
			// The warning that an evicted copy has nowhere to go holds
			// only when no group has room.
			warned := slices.ContainsFunc(policyWarnings(&explainFacts{binding: rb, clusters: clusters}, ExplainConfig{ClusterFailover: true}, now),
				func(w why.Warning) bool { return w.Reason == why.ReasonNoClusterLeft })
			if warned == tc.placed {
				t.Errorf("NoClusterToMoveTo warning %v, want %v", warned, !tc.placed)
			}
		})
	}
}

// A held re-placement undoes the eviction on the binding: the cluster whose
// dispatching became suspended while its Work still ran is back in
// spec.clusters, and its task and its eviction history entry are gone; the
// other cluster's task and entry stay. A cluster whose Work is gone is
// replaced instead.
func TestReplaceLostUndoesAHeldEviction(t *testing.T) {
	clusters := []clusterv1alpha1.Cluster{
		affinityCluster("a", "", "", "", nil, nil),
		affinityCluster("b", "", "", "", nil, nil),
		affinityCluster("c", "", "", "", nil, nil),
	}
	now := time.Date(2026, 11, 27, 5, 0, 0, 0, time.UTC)
	binding := func() *workv1alpha2.ResourceBinding {
		rb := &workv1alpha2.ResourceBinding{Spec: workv1alpha2.ResourceBindingSpec{
			Replicas: 1,
			Clusters: []workv1alpha2.TargetCluster{{Name: "b", Replicas: 1}},
			GracefulEvictionTasks: []workv1alpha2.GracefulEvictionTask{
				{FromCluster: "a", Reason: "ApplicationFailure", ClustersBeforeFailover: []string{"a", "b", "x"}},
				{FromCluster: "x", Reason: "ApplicationFailure", ClustersBeforeFailover: []string{"a", "b", "x"}},
			},
			Suspension: &workv1alpha2.Suspension{Suspension: policyv1alpha1.Suspension{
				DispatchingOnClusters: &policyv1alpha1.SuspendClusters{ClusterNames: []string{"a"}},
			}},
		}}
		return rb
	}
	var history eviction.EvictionHistory
	history.Record("a", now.Add(-time.Minute))
	history.Record("x", now.Add(-time.Minute))
	running := eviction.OldCopyLookupFunc(func(string) eviction.OldCopy { return eviction.OldCopy{} })

	rb := binding()
	plan, _, placed, err := replaceLost(rb, newFleet(clusters), running, history, ptr.To[int32](0),
		defaultTolerations{}, failover.TolerationOptions{}, now)
	if err != nil || !placed || !slices.Equal(plan.Held, []string{"a"}) {
		t.Fatalf("placed %v, held %v (%v); want a held", placed, plan.Held, err)
	}
	if got := names(rb.Spec.Clusters); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("clusters %v, want a back, and c for x", got)
	}
	if len(rb.Spec.GracefulEvictionTasks) != 1 || rb.Spec.GracefulEvictionTasks[0].FromCluster != "x" {
		t.Fatalf("tasks %+v, want x's alone", rb.Spec.GracefulEvictionTasks)
	}
	got, err := carrier.DecodeEvictionHistory(rb.GetAnnotations())
	if err != nil || len(got) != 1 || got[0].ClusterName != "x" {
		t.Fatalf("history %+v (%v), want x's entry alone", got, err)
	}
	if len(history) != 2 {
		t.Fatalf("the caller's history changed: %+v", history)
	}

	// a's Work is gone: nothing to hold, a is replaced as x is.
	rb = binding()
	gone := eviction.OldCopyLookupFunc(func(string) eviction.OldCopy { return eviction.OldCopy{Gone: true} })
	clusters = append(clusters, affinityCluster("d", "", "", "", nil, nil))
	plan, _, placed, err = replaceLost(rb, newFleet(clusters), gone, history, ptr.To[int32](0),
		defaultTolerations{}, failover.TolerationOptions{}, now)
	if err != nil || !placed || len(plan.Held) > 0 {
		t.Fatalf("placed %v, held %v (%v); want nothing held", placed, plan.Held, err)
	}
	if got := names(rb.Spec.Clusters); !slices.Equal(got, []string{"b", "c", "d"}) {
		t.Fatalf("clusters %v, want c and d for a and x", got)
	}
	if len(rb.Spec.GracefulEvictionTasks) != 2 || rb.GetAnnotations()[EvictionHistoryAnnotation] != "" {
		t.Fatalf("tasks %+v, history annotation %q: want both tasks kept, the history untouched", rb.Spec.GracefulEvictionTasks, rb.GetAnnotations()[EvictionHistoryAnnotation])
	}
}
