package controllers

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation/field"

	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
)

// clusterPredicates are a Placement's predicates, compiled once. As OCM's
// placement controller reads them, a cluster is selected when any
// predicate selects it, and a predicate selects a cluster that matches its
// label selector and its claim selector (an empty selector matches every
// cluster). A Placement without predicates selects every cluster; so does
// a nil clusterPredicates.
type clusterPredicates []clusterPredicate

type clusterPredicate struct {
	labels, claims labels.Selector
}

// compilePredicates compiles the predicates of a Placement. A selector
// that does not parse, or a CEL selector (which this example does not
// evaluate), is an error naming its field: better no re-placement than
// one outside what the Placement asks.
func compilePredicates(predicates []clusterv1beta1.ClusterPredicate) (clusterPredicates, error) {
	if len(predicates) == 0 {
		return nil, nil
	}
	out := make(clusterPredicates, len(predicates))
	for i := range predicates {
		sel := &predicates[i].RequiredClusterSelector
		p := field.NewPath("spec", "predicates").Index(i).Child("requiredClusterSelector")
		if len(sel.CelSelector.CelExpressions) > 0 {
			return nil, field.Forbidden(p.Child("celSelector"), "this example does not evaluate CEL selectors, and a re-placement must not land outside them")
		}
		ls, err := metav1.LabelSelectorAsSelector(&sel.LabelSelector)
		if err != nil {
			return nil, field.Invalid(p.Child("labelSelector"), sel.LabelSelector, err.Error())
		}
		cs, err := metav1.LabelSelectorAsSelector(&metav1.LabelSelector{MatchExpressions: sel.ClaimSelector.MatchExpressions})
		if err != nil {
			return nil, field.Invalid(p.Child("claimSelector"), sel.ClaimSelector, err.Error())
		}
		out[i] = clusterPredicate{labels: ls, claims: cs}
	}
	return out, nil
}

// selects reports whether the predicates select c.
func (ps clusterPredicates) selects(c *fleetCluster) bool {
	if len(ps) == 0 {
		return true
	}
	for _, p := range ps {
		if p.labels.Matches(labels.Set(c.Labels)) && p.claims.Matches(labels.Set(c.Claims)) {
			return true
		}
	}
	return false
}

// selected returns the clusters of fleet the predicates select, or nil
// when there are no predicates (every cluster).
func (ps clusterPredicates) selected(fleet []fleetCluster) map[string]bool {
	if len(ps) == 0 {
		return nil
	}
	out := make(map[string]bool, len(fleet))
	for i := range fleet {
		if ps.selects(&fleet[i]) {
			out[fleet[i].Name] = true
		}
	}
	return out
}
