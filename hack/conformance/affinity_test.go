package conformance

import (
	"encoding/json"
	"math/rand"
	"testing"

	clusterapis "github.com/karmada-io/karmada/pkg/apis/cluster"
	"github.com/karmada-io/karmada/pkg/apis/cluster/mutation"
	clusterv1alpha1 "github.com/karmada-io/karmada/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/karmada/pkg/apis/policy/v1alpha1"
	"github.com/karmada-io/karmada/pkg/util"
	"github.com/karmada-io/karmada/pkg/util/validation"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetover/fleetover/examples/fleetsim/karmadafleet"
)

// The simulator reads a Karmada export's placements with
// karmadafleet.Cluster.Matches, which must select the clusters Karmada's
// scheduler selects (util.ClusterMatches). The Karmada side sees each
// cluster as its API server stores it (mutation.MutateCluster on create and
// update: a lone spec.zone moves into spec.zones), and only affinities its
// validation admits (ValidateClusterAffinity) are compared.
func TestClusterAffinityMatchesKarmada(t *testing.T) {
	r := rng(t.Name())
	ty := newTally(t)
	for n := 0; n < *cases; n++ {
		ours := genAffinityCluster(r)
		karmadaCluster, err := storedCluster(ours)
		if err != nil {
			t.Fatalf("case %d: %v", n, err)
		}
		aff := genClusterAffinity(r)
		if errs := validation.ValidateClusterAffinity(&aff, nil); len(errs) > 0 {
			t.Fatalf("case %d: the generator made an affinity Karmada refuses: %v", n, errs)
		}
		want := util.ClusterMatches(karmadaCluster, aff)
		got, err := ours.Matches(karmadafleet.ClusterAffinity{
			LabelSelector:   aff.LabelSelector,
			FieldSelector:   fieldSelector(aff.FieldSelector),
			ClusterNames:    aff.ClusterNames,
			ExcludeClusters: aff.ExcludeClusters,
		})
		switch {
		case err != nil:
			ty.differ("affinity-error", "cluster %+v, affinity %s: %v", ours, asJSON(aff), err)
		case got != want:
			ty.differ("affinity-selects", "cluster %+v, affinity %s: fleetover %v, Karmada %v", ours, asJSON(aff), got, want)
		case aff.FieldSelector != nil && len(ours.Zones) > 1 && want:
			ty.agree("multi-zone selected")
		case aff.FieldSelector != nil && len(ours.Zones) > 1:
			ty.agree("multi-zone left out")
		case ours.Zone != "" && len(ours.Zones) == 0 && aff.FieldSelector != nil:
			ty.agree("lone spec.zone")
		case want:
			ty.agree("selected")
		default:
			ty.agree("left out")
		}
	}
	ty.report("multi-zone selected", "multi-zone left out", "lone spec.zone", "selected", "left out")
}

// storedCluster is c as Karmada's API server stores it, in Karmada's own
// type: built in the internal version, canonicalised by the server's
// mutation, converted to v1alpha1.
func storedCluster(c karmadafleet.Cluster) (*clusterv1alpha1.Cluster, error) {
	internal := &clusterapis.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: c.Name, Labels: c.Labels},
		Spec: clusterapis.ClusterSpec{
			Provider: c.Provider,
			Region:   c.Region,
			Zone:     c.Zone,
			Zones:    append([]string(nil), c.Zones...),
		},
	}
	mutation.MutateCluster(internal)
	out := &clusterv1alpha1.Cluster{}
	err := clusterv1alpha1.Convert_cluster_Cluster_To_v1alpha1_Cluster(internal, out, nil)
	return out, err
}

func asJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}

func fieldSelector(fs *policyv1alpha1.FieldSelector) *karmadafleet.FieldSelector {
	if fs == nil {
		return nil
	}
	return &karmadafleet.FieldSelector{MatchExpressions: fs.MatchExpressions}
}

var (
	affinityClusters  = []string{"m1", "m2", "m3", "m4"}
	affinityZones     = []string{"z1", "z2", "z3"}
	affinityProviders = []string{"aws", "gcp"}
	affinityRegions   = []string{"r1", "r2"}
)

func genAffinityCluster(r *rand.Rand) karmadafleet.Cluster {
	c := karmadafleet.Cluster{Name: pick(r, affinityClusters...)}
	if r.Intn(3) > 0 {
		c.Labels = map[string]string{"env": pick(r, "prod", "dev")}
	}
	if r.Intn(4) > 0 {
		c.Provider = pick(r, affinityProviders...)
	}
	if r.Intn(4) > 0 {
		c.Region = pick(r, affinityRegions...)
	}
	switch r.Intn(5) {
	case 0: // no zone at all
	case 1: // only the deprecated field
		c.Zone = pick(r, affinityZones...)
	case 2: // both: spec.zones wins
		c.Zone = pick(r, affinityZones...)
		c.Zones = someOf(r, affinityZones, 1)
	default:
		c.Zones = someOf(r, affinityZones, 1)
	}
	return c
}

func genClusterAffinity(r *rand.Rand) policyv1alpha1.ClusterAffinity {
	var a policyv1alpha1.ClusterAffinity
	if r.Intn(4) == 0 {
		a.ClusterNames = someOf(r, affinityClusters, 1)
	}
	if r.Intn(5) == 0 {
		a.ExcludeClusters = someOf(r, affinityClusters, 1)
	}
	if r.Intn(4) == 0 {
		if r.Intn(2) == 0 {
			a.LabelSelector = &metav1.LabelSelector{MatchLabels: map[string]string{"env": pick(r, "prod", "dev")}}
		} else {
			a.LabelSelector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{
				Key: "env", Operator: pick(r, metav1.LabelSelectorOpIn, metav1.LabelSelectorOpNotIn), Values: someOf(r, []string{"prod", "dev"}, 1),
			}}}
		}
	}
	if r.Intn(3) > 0 {
		a.FieldSelector = &policyv1alpha1.FieldSelector{}
		for range 1 + r.Intn(2) {
			req := corev1.NodeSelectorRequirement{
				Key:      pick(r, util.ProviderField, util.RegionField, util.ZoneField, util.ZoneField),
				Operator: pick(r, corev1.NodeSelectorOpIn, corev1.NodeSelectorOpNotIn),
			}
			switch req.Key {
			case util.ProviderField:
				req.Values = someOf(r, affinityProviders, 1)
			case util.RegionField:
				req.Values = someOf(r, affinityRegions, 1)
			default:
				req.Values = someOf(r, affinityZones, 1)
			}
			a.FieldSelector.MatchExpressions = append(a.FieldSelector.MatchExpressions, req)
		}
	}
	return a
}

// someOf returns at least min distinct elements of xs, in random order.
func someOf(r *rand.Rand, xs []string, min int) []string {
	n := min + r.Intn(len(xs)-min+1)
	out := make([]string, 0, n)
	for _, i := range r.Perm(len(xs))[:n] {
		out = append(out, xs[i])
	}
	return out
}
