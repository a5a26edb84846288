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

// affinityMatches reports whether cl is one of the clusters aff selects,
// reading every part of it as Karmada's scheduler does: ExcludeClusters
// leave a cluster out; LabelSelector, FieldSelector (provider, region,
// zone) and ClusterNames must each hold when set. A nil affinity selects
// every cluster; a selector that does not parse selects none.
func affinityMatches(aff *policyv1alpha1.ClusterAffinity, cl *clusterv1alpha1.Cluster) bool {
	if aff == nil {
		return true
	}
	if slices.Contains(aff.ExcludeClusters, cl.Name) {
		return false
	}
	if aff.LabelSelector != nil {
		sel, err := metav1.LabelSelectorAsSelector(aff.LabelSelector)
		if err != nil || !sel.Matches(labels.Set(cl.Labels)) {
			return false
		}
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

// fieldMatches applies one field selector requirement to cl. A cluster
// matches the zone key by any of its zones.
func fieldMatches(req corev1.NodeSelectorRequirement, cl *clusterv1alpha1.Cluster) bool {
	var values []string
	switch req.Key {
	case fieldProvider:
		values = nonEmpty(cl.Spec.Provider)
	case fieldRegion:
		values = nonEmpty(cl.Spec.Region)
	case fieldZone:
		values = append(nonEmpty(cl.Spec.Zone), cl.Spec.Zones...)
	default:
		return false
	}
	in := slices.ContainsFunc(values, func(v string) bool { return slices.Contains(req.Values, v) })
	switch req.Operator {
	case corev1.NodeSelectorOpIn:
		return in
	case corev1.NodeSelectorOpNotIn:
		return !in
	case corev1.NodeSelectorOpExists:
		return len(values) > 0
	case corev1.NodeSelectorOpDoesNotExist:
		return len(values) == 0
	default:
		return false
	}
}

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{s}
}

// staticWeights is each cluster's weight under a static weight list: the
// highest weight of the rules whose target selects it, as Karmada's
// division reads the list. A cluster no rule selects is absent (weight 0).
func staticWeights(list []policyv1alpha1.StaticClusterWeight, clusters []clusterv1alpha1.Cluster) map[string]int64 {
	out := map[string]int64{}
	for i := range clusters {
		cl := &clusters[i]
		for _, rule := range list {
			if rule.Weight > out[cl.Name] && affinityMatches(&rule.TargetCluster, cl) {
				out[cl.Name] = rule.Weight
			}
		}
		if out[cl.Name] == 0 {
			delete(out, cl.Name)
		}
	}
	return out
}

// schedulingFleet is the fleet as scheduling sees it.
func schedulingFleet(clusters []clusterv1alpha1.Cluster) []scheduling.Cluster {
	fleet := make([]scheduling.Cluster, len(clusters))
	for i := range clusters {
		cl := &clusters[i]
		fleet[i] = scheduling.Cluster{Name: cl.Name, Taints: cl.Spec.Taints, Labels: cl.Labels}
	}
	return fleet
}
