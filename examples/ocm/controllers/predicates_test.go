package controllers

import (
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
)

func labelPredicate(matchLabels map[string]string) clusterv1beta1.ClusterPredicate {
	return clusterv1beta1.ClusterPredicate{RequiredClusterSelector: clusterv1beta1.ClusterSelector{
		LabelSelector: metav1.LabelSelector{MatchLabels: matchLabels},
	}}
}

func claimPredicate(key string, values ...string) clusterv1beta1.ClusterPredicate {
	return clusterv1beta1.ClusterPredicate{RequiredClusterSelector: clusterv1beta1.ClusterSelector{
		ClaimSelector: clusterv1beta1.ClusterClaimSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
			{Key: key, Operator: metav1.LabelSelectorOpIn, Values: values},
		}},
	}}
}

// The predicates are ORed, each ANDs its label and claim selectors, and an
// empty predicate, or none at all, selects every cluster: as OCM's
// placement controller selects.
func TestClusterPredicatesSelectAsOCM(t *testing.T) {
	fleet := []fleetCluster{
		{Name: "east", Labels: map[string]string{"region": "east"}, Claims: map[string]string{"platform.open-cluster-management.io": "AWS"}},
		{Name: "west", Labels: map[string]string{"region": "west"}, Claims: map[string]string{"platform.open-cluster-management.io": "GCP"}},
		{Name: "north", Labels: map[string]string{"region": "north"}},
	}
	both := labelPredicate(map[string]string{"region": "east"})
	both.RequiredClusterSelector.ClaimSelector = claimPredicate("platform.open-cluster-management.io", "GCP").RequiredClusterSelector.ClaimSelector
	for _, tc := range []struct {
		name       string
		predicates []clusterv1beta1.ClusterPredicate
		want       []string
	}{
		{"no predicates", nil, []string{"east", "north", "west"}},
		{"one label predicate", []clusterv1beta1.ClusterPredicate{labelPredicate(map[string]string{"region": "east"})}, []string{"east"}},
		// Before, only the first predicate was read: west was left out.
		{"two predicates, either", []clusterv1beta1.ClusterPredicate{
			labelPredicate(map[string]string{"region": "east"}), labelPredicate(map[string]string{"region": "west"}),
		}, []string{"east", "west"}},
		{"a claim predicate", []clusterv1beta1.ClusterPredicate{claimPredicate("platform.open-cluster-management.io", "GCP")}, []string{"west"}},
		{"labels and claims, both", []clusterv1beta1.ClusterPredicate{both}, nil},
		// An empty predicate selects every cluster, whatever the others say.
		{"an empty predicate", []clusterv1beta1.ClusterPredicate{labelPredicate(map[string]string{"region": "east"}), {}}, []string{"east", "north", "west"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ps, err := compilePredicates(tc.predicates)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for i := range fleet {
				if ps.selects(&fleet[i]) {
					got = append(got, fleet[i].Name)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("selected %v, want %v", got, tc.want)
			}
		})
	}
}

func TestClusterPredicatesRefuseWhatTheyCannotRead(t *testing.T) {
	cel := clusterv1beta1.ClusterPredicate{RequiredClusterSelector: clusterv1beta1.ClusterSelector{
		CelSelector: clusterv1beta1.ClusterCelSelector{CelExpressions: []string{`managedCluster.metadata.name == "east"`}},
	}}
	badLabels := labelPredicate(map[string]string{"not a key!": "x"})
	badClaims := claimPredicate("platform", "x")
	badClaims.RequiredClusterSelector.ClaimSelector.MatchExpressions[0].Operator = "Near"
	for _, tc := range []struct {
		predicates []clusterv1beta1.ClusterPredicate
		field      string
	}{
		{[]clusterv1beta1.ClusterPredicate{{}, cel}, "spec.predicates[1].requiredClusterSelector.celSelector"},
		{[]clusterv1beta1.ClusterPredicate{badLabels}, "spec.predicates[0].requiredClusterSelector.labelSelector"},
		{[]clusterv1beta1.ClusterPredicate{badClaims}, "spec.predicates[0].requiredClusterSelector.claimSelector"},
	} {
		if _, err := compilePredicates(tc.predicates); err == nil || !strings.Contains(err.Error(), tc.field) {
			t.Errorf("error %v, want one naming %s", err, tc.field)
		}
	}
}

// FuzzCompilePredicates: any label or claim requirement compiles or is
// refused with an error naming its field, never a panic.
func FuzzCompilePredicates(f *testing.F) {
	f.Add("region", "In", "east", "platform", "Exists", "")
	f.Add("", "NotIn", "", "k", "Gt", "1")
	f.Fuzz(func(t *testing.T, labelKey, labelOp, labelValue, claimKey, claimOp, claimValue string) {
		p := clusterv1beta1.ClusterPredicate{RequiredClusterSelector: clusterv1beta1.ClusterSelector{
			LabelSelector: metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: labelKey, Operator: metav1.LabelSelectorOperator(labelOp), Values: []string{labelValue}},
			}},
			ClaimSelector: clusterv1beta1.ClusterClaimSelector{MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: claimKey, Operator: metav1.LabelSelectorOperator(claimOp), Values: []string{claimValue}},
			}},
		}}
		ps, err := compilePredicates([]clusterv1beta1.ClusterPredicate{p})
		if err != nil {
			if !strings.Contains(err.Error(), "spec.predicates[0].requiredClusterSelector.") {
				t.Fatalf("error %v names no field", err)
			}
			return
		}
		ps.selects(&fleetCluster{Name: "c", Labels: map[string]string{labelKey: labelValue}, Claims: map[string]string{claimKey: claimValue}})
	})
}
