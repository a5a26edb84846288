package controllers

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/api/policy/v1alpha1"

	"github.com/fleetover/fleetover/scheduling"
)

// Field selector keys of a ClusterAffinity, as Karmada names them.
const (
	fieldProvider = "provider"
	fieldRegion   = "region"
	fieldZone     = "zone"
)

// clusterSelector is a ClusterAffinity made ready to match a fleet: its
// label selector is parsed once, not once per cluster.
type clusterSelector struct {
	aff    *policyv1alpha1.ClusterAffinity
	labels labels.Selector // nil when the affinity has no label selector
	broken bool            // the label selector does not parse
}

// compileAffinity prepares aff for matching. A nil affinity selects every
// cluster; a label selector that does not parse selects none.
func compileAffinity(aff *policyv1alpha1.ClusterAffinity) clusterSelector {
	s := clusterSelector{aff: aff}
	if aff != nil && aff.LabelSelector != nil {
		sel, err := metav1.LabelSelectorAsSelector(aff.LabelSelector)
		s.labels, s.broken = sel, err != nil
	}
	return s
}

// matches reports whether cl is one of the clusters the affinity selects,
// by Karmada's rule (its scheduler's ClusterMatches): ExcludeClusters leave
// a cluster out; LabelSelector, FieldSelector and ClusterNames must each
// hold when set.
func (s clusterSelector) matches(cl *clusterv1alpha1.Cluster) bool {
	aff := s.aff
	if aff == nil {
		return true
	}
	if s.broken || slices.Contains(aff.ExcludeClusters, cl.Name) {
		return false
	}
	if s.labels != nil && !s.labels.Matches(labels.Set(cl.Labels)) {
		return false
	}
	if fs := aff.FieldSelector; fs != nil {
		for _, req := range fs.MatchExpressions {
			if !fieldMatches(req, cl) {
				return false
			}
		}
	}
	return len(aff.ClusterNames) == 0 || slices.Contains(aff.ClusterNames, cl.Name)
}

// fieldMatches applies one field selector requirement to cl as Karmada
// does. provider and region are fields a cluster may leave empty: In
// needs the field set to one of the values, NotIn holds when it is not.
// zone is read from spec.zones (spec.zone is not consulted): In needs every
// zone of the cluster among the values (and at least one zone), NotIn
// needs none of them there. Karmada's validation admits only these keys
// and the In and NotIn operators; anything else matches nothing.
func fieldMatches(req corev1.NodeSelectorRequirement, cl *clusterv1alpha1.Cluster) bool {
	var in bool
	switch req.Key {
	case fieldProvider, fieldRegion:
		v := cl.Spec.Provider
		if req.Key == fieldRegion {
			v = cl.Spec.Region
		}
		in = v != "" && slices.Contains(req.Values, v)
	case fieldZone:
		zones := cl.Spec.Zones
		if req.Operator == corev1.NodeSelectorOpIn {
			return len(zones) > 0 && !slices.ContainsFunc(zones, func(z string) bool { return !slices.Contains(req.Values, z) })
		}
		in = slices.ContainsFunc(zones, func(z string) bool { return slices.Contains(req.Values, z) })
	default:
		return false
	}
	switch req.Operator {
	case corev1.NodeSelectorOpIn:
		return in
	case corev1.NodeSelectorOpNotIn:
		return !in
	default:
		return false
	}
}

// staticWeights is each cluster's weight under a static weight list: the
// highest weight of the rules whose target selects it, as Karmada's
// division reads the list. A cluster no rule selects is absent (weight 0).
func staticWeights(list []policyv1alpha1.StaticClusterWeight, clusters []clusterv1alpha1.Cluster) map[string]int64 {
	targets := make([]clusterSelector, len(list))
	for r := range list {
		targets[r] = compileAffinity(&list[r].TargetCluster)
	}
	out := map[string]int64{}
	for i := range clusters {
		cl := &clusters[i]
		for r, rule := range list {
			if rule.Weight > out[cl.Name] && targets[r].matches(cl) {
				out[cl.Name] = rule.Weight
			}
		}
		if out[cl.Name] == 0 {
			delete(out, cl.Name)
		}
	}
	return out
}

// affinityTerm is one cluster affinity a placement offers: its
// clusterAffinity (name empty), or one term of its clusterAffinities.
// A nil affinity selects every cluster.
type affinityTerm struct {
	name     string
	affinity *policyv1alpha1.ClusterAffinity
}

// affinityTerms lists the affinities a re-placement tries, in order, as
// Karmada's scheduler tries them: the placement's clusterAffinity alone
// (every cluster without a placement); or its clusterAffinities from the
// term the scheduler last placed by (status.schedulerObservingAffinityName,
// the first when it names none of them) to the last. It never goes back to
// an earlier term: a workload moved to a backup group stays there until
// its placement changes. The list is never empty.
func affinityTerms(p *policyv1alpha1.Placement, observed string) []affinityTerm {
	if p == nil {
		return []affinityTerm{{}}
	}
	if p.ClusterAffinities == nil {
		return []affinityTerm{{affinity: p.ClusterAffinity}}
	}
	start := 0
	for i := range p.ClusterAffinities {
		if p.ClusterAffinities[i].AffinityName == observed {
			start = i
			break
		}
	}
	terms := make([]affinityTerm, 0, len(p.ClusterAffinities)-start)
	for i := start; i < len(p.ClusterAffinities); i++ {
		t := &p.ClusterAffinities[i]
		terms = append(terms, affinityTerm{name: t.AffinityName, affinity: &t.ClusterAffinity})
	}
	return terms
}

// selected returns the clusters of fl the term selects, matched once.
func (t affinityTerm) selected(fl *fleet) map[string]bool {
	out := make(map[string]bool, len(fl.clusters))
	sel := compileAffinity(t.affinity)
	for i := range fl.clusters {
		if sel.matches(&fl.clusters[i]) {
			out[fl.clusters[i].Name] = true
		}
	}
	return out
}

// fleet is the clusters as read, with the view scheduling takes of them,
// built once: a taint manager reconcile re-places every binding it evicts
// over the same fleet. Neither is modified after newFleet.
type fleet struct {
	clusters   []clusterv1alpha1.Cluster
	scheduling []scheduling.Cluster
	index      map[string]int
}

func newFleet(clusters []clusterv1alpha1.Cluster) *fleet {
	f := &fleet{clusters: clusters, scheduling: make([]scheduling.Cluster, len(clusters)), index: make(map[string]int, len(clusters))}
	for i := range clusters {
		cl := &clusters[i]
		f.scheduling[i] = scheduling.Cluster{Name: cl.Name, Taints: cl.Spec.Taints, Labels: cl.Labels, Region: cl.Spec.Region, Zones: cl.Spec.Zones}
		f.index[cl.Name] = i
	}
	return f
}

// cluster returns the cluster named name as read, or nil.
func (f *fleet) cluster(name string) *clusterv1alpha1.Cluster {
	if i, ok := f.index[name]; ok {
		return &f.clusters[i]
	}
	return nil
}
