package conformance

import (
	"context"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
	"time"

	clusterv1alpha1 "github.com/karmada-io/karmada/pkg/apis/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/karmada/pkg/apis/policy/v1alpha1"
	clustercontroller "github.com/karmada-io/karmada/pkg/controllers/cluster"
	"github.com/karmada-io/karmada/pkg/controllers/taint"
	"github.com/karmada-io/karmada/pkg/util/helper"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/record"
	controllerruntime "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	"github.com/fleetover/fleetover/failover"
)

// karmadaHealthTaints repeats Karmada's cluster controller step
// (Controller.taintClusterByCondition, unexported; the controller's
// Reconcile also probes the member cluster and manages leases, which a
// generated case has no use for): the same switch over the Ready condition
// with the exported templates and helper.SetCurrentClusterTaints.
func karmadaHealthTaints(cluster *clusterv1alpha1.Cluster) []corev1.Taint {
	notReady, unreachable := clustercontroller.NotReadyTaintTemplateForSched, clustercontroller.UnreachableTaintTemplateForSched
	ready := meta.FindStatusCondition(cluster.Status.Conditions, clusterv1alpha1.ClusterConditionReady)
	var add, remove []*corev1.Taint
	switch {
	case ready == nil:
		add = []*corev1.Taint{notReady}
	case ready.Status == metav1.ConditionFalse:
		add, remove = []*corev1.Taint{notReady}, []*corev1.Taint{unreachable}
	case ready.Status == metav1.ConditionUnknown:
		add, remove = []*corev1.Taint{unreachable}, []*corev1.Taint{notReady}
	case ready.Status == metav1.ConditionTrue:
		remove = []*corev1.Taint{notReady, unreachable}
	}
	// SetCurrentClusterTaints stamps the taints it adds through the
	// templates' pointers; hand it copies so one case does not leak into
	// the next.
	for i := range add {
		add[i] = add[i].DeepCopy()
	}
	return helper.SetCurrentClusterTaints(add, remove, cluster)
}

var taintScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clusterv1alpha1.AddToScheme(s); err != nil {
		panic(err)
	}
	if err := policyv1alpha1.AddToScheme(s); err != nil {
		panic(err)
	}
	return s
}()

// karmadaPolicyTaints drives Karmada's ClusterTaintPolicyController.Reconcile
// on a controller-runtime fake client holding the cluster and the policies,
// and returns the cluster's taints afterwards.
func karmadaPolicyTaints(t *testing.T, cluster *clusterv1alpha1.Cluster, policies []policyv1alpha1.ClusterTaintPolicy) []corev1.Taint {
	objs := []client.Object{cluster.DeepCopy()}
	for i := range policies {
		objs = append(objs, policies[i].DeepCopy())
	}
	c := fake.NewClientBuilder().WithScheme(taintScheme).WithObjects(objs...).Build()
	ctrl := &taint.ClusterTaintPolicyController{Client: c, EventRecorder: record.NewFakeRecorder(16)}
	if _, err := ctrl.Reconcile(context.Background(), controllerruntime.Request{NamespacedName: types.NamespacedName{Name: cluster.Name}}); err != nil {
		t.Fatalf("Karmada's Reconcile: %v", err)
	}
	got := &clusterv1alpha1.Cluster{}
	if err := c.Get(context.Background(), types.NamespacedName{Name: cluster.Name}, got); err != nil {
		t.Fatal(err)
	}
	return got.Spec.Taints
}

func genConditions(r *rand.Rand, now time.Time) []metav1.Condition {
	var conds []metav1.Condition
	if r.Intn(6) != 0 {
		conds = append(conds, metav1.Condition{Type: "Ready", Status: pick(r, metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown),
			LastTransitionTime: metav1.NewTime(now.Add(-time.Duration(r.Intn(900)) * time.Second))})
	}
	if r.Intn(3) != 0 {
		conds = append(conds, metav1.Condition{Type: "NetworkAvailable", Status: pick(r, metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown)})
	}
	r.Shuffle(len(conds), func(i, j int) { conds[i], conds[j] = conds[j], conds[i] })
	return conds
}

var taintPool = []corev1.Taint{
	{Key: failover.TaintKeyClusterNotReady, Effect: corev1.TaintEffectNoSchedule},
	{Key: failover.TaintKeyClusterUnreachable, Effect: corev1.TaintEffectNoSchedule},
	{Key: failover.TaintKeyClusterNotReady, Effect: corev1.TaintEffectNoExecute},
	{Key: "network", Effect: corev1.TaintEffectNoExecute},
	{Key: "network", Effect: corev1.TaintEffectNoSchedule},
	{Key: "team", Effect: corev1.TaintEffectNoSchedule},
}

// genTaintSet returns distinct taints (by key and effect) from the pool.
func genTaintSet(r *rand.Rand, max int) []corev1.Taint {
	var out []corev1.Taint
	for _, i := range r.Perm(len(taintPool))[:r.Intn(max+1)] {
		t := taintPool[i]
		t.Value = pick(r, "", "", "down")
		out = append(out, t)
	}
	return out
}

func genMatches(r *rand.Rand, n int) []policyv1alpha1.MatchCondition {
	out := make([]policyv1alpha1.MatchCondition, n)
	for i := range out {
		vals := []metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown}
		r.Shuffle(len(vals), func(a, b int) { vals[a], vals[b] = vals[b], vals[a] })
		out[i] = policyv1alpha1.MatchCondition{
			ConditionType: pick(r, "Ready", "NetworkAvailable"),
			Operator:      pick(r, policyv1alpha1.MatchConditionOpIn, policyv1alpha1.MatchConditionOpNotIn),
			StatusValues:  vals[:1+r.Intn(2)],
		}
	}
	return out
}

func toFleetoverMatches(ms []policyv1alpha1.MatchCondition) []failover.ConditionMatch {
	out := make([]failover.ConditionMatch, len(ms))
	for i, m := range ms {
		out[i] = failover.ConditionMatch{ConditionType: m.ConditionType, Operator: failover.MatchOperator(m.Operator), StatusValues: m.StatusValues}
	}
	return out
}

// fleetoverPolicies converts Karmada's policies; name gives each its name.
func fleetoverPolicies(ps []policyv1alpha1.ClusterTaintPolicy, name func(i int) string) []failover.ConditionTaintPolicy {
	out := make([]failover.ConditionTaintPolicy, len(ps))
	for i, p := range ps {
		fp := failover.ConditionTaintPolicy{Name: name(i), AddOnConditions: toFleetoverMatches(p.Spec.AddOnConditions),
			RemoveOnConditions: toFleetoverMatches(p.Spec.RemoveOnConditions)}
		for _, t := range p.Spec.Taints {
			fp.Taints = append(fp.Taints, corev1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
		}
		out[i] = fp
	}
	return out
}

// taintIDs are the taints without their times, each with where its
// TimeAdded came from: "kept" (the value it had), "carried" (another current
// taint's), "new" (stamped in this round) or "none".
func taintIDs(taints, current []corev1.Taint) []string {
	out := make([]string, len(taints))
	for i, t := range taints {
		origin := "none"
		if t.TimeAdded != nil {
			origin = "new"
			for _, c := range current {
				if c.TimeAdded == nil || !c.TimeAdded.Equal(t.TimeAdded) {
					continue
				}
				if c.Key == t.Key && c.Effect == t.Effect {
					origin = "kept"
				} else if origin == "new" {
					origin = "carried"
				}
			}
		}
		out[i] = fmt.Sprintf("%s=%s:%s@%s", t.Key, t.Value, t.Effect, origin)
	}
	return out
}

// TestClusterTaints: Karmada's cluster controller step (repeated from its
// exported helper and templates, see karmadaHealthTaints) followed by
// ClusterTaintPolicyController.Reconcile on a fake client, against
// failover.ComputeClusterTaints with the zero ClusterTaintConfig plus the
// same policies, on generated conditions, current taints and policies.
func TestClusterTaints(t *testing.T) {
	r := rng(t.Name())
	ty := newTally(t)
	for range *cases {
		now := base
		conds := genConditions(r, now)
		current := genTaintSet(r, 3)
		for i := range current {
			if r.Intn(4) != 0 {
				current[i].TimeAdded = &metav1.Time{Time: now.Add(-time.Duration(1+r.Intn(600)) * time.Second)}
			}
		}
		policies := make([]policyv1alpha1.ClusterTaintPolicy, r.Intn(4))
		created := r.Perm(len(policies))
		for i := range policies {
			policies[i] = policyv1alpha1.ClusterTaintPolicy{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p%d", i), CreationTimestamp: metav1.NewTime(now.Add(-time.Duration(10-created[i]) * time.Hour))},
				Spec: policyv1alpha1.ClusterTaintPolicySpec{
					AddOnConditions:    genMatches(r, 1+r.Intn(2)),
					RemoveOnConditions: genMatches(r, r.Intn(3)),
				},
			}
			for _, tt := range genTaintSet(r, 2) {
				policies[i].Spec.Taints = append(policies[i].Spec.Taints, policyv1alpha1.Taint{Key: tt.Key, Value: tt.Value, Effect: tt.Effect})
			}
			if len(policies[i].Spec.Taints) == 0 {
				policies[i].Spec.Taints = []policyv1alpha1.Taint{{Key: "team", Effect: corev1.TaintEffectNoSchedule}}
			}
		}

		cluster := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "member1"},
			Spec: clusterv1alpha1.ClusterSpec{Taints: slices.Clone(current)}, Status: clusterv1alpha1.ClusterStatus{Conditions: conds}}
		cluster.Spec.Taints = karmadaHealthTaints(cluster)
		want := taintIDs(karmadaPolicyTaints(t, cluster, policies), current)

		byName := func(i int) string { return policies[i].Name }
		diff, err := failover.ComputeClusterTaints(failover.ClusterTaintConfig{Policies: fleetoverPolicies(policies, byName)}, conds, current, now)
		if err != nil {
			t.Fatal(err)
		}
		// The library's own promise, which Karmada does not keep for
		// conflicting policies: its result is a fixed point.
		if again, _ := failover.ComputeClusterTaints(failover.ClusterTaintConfig{Policies: fleetoverPolicies(policies, byName)}, conds, diff.Result, now); again.Changed {
			t.Errorf("not a fixed point: %v then %v", diff.Result, again.Result)
		}
		got := taintIDs(diff.Result, current)
		if slices.Equal(want, got) {
			ty.agree(fmt.Sprintf("%d policies", min(len(policies), 1)))
			continue
		}
		// Karmada's order: name the policies so that name order is
		// creation order.
		byCreation := func(i int) string { return fmt.Sprintf("c%d", created[i]) }
		ordered, _ := failover.ComputeClusterTaints(failover.ClusterTaintConfig{Policies: fleetoverPolicies(policies, byCreation)}, conds, current, now)
		if slices.Equal(want, taintIDs(ordered.Result, current)) {
			ty.differ("policy-order", "")
			continue
		}
		ty.differ(classifyTaints(want, ordered, current), "conditions %v current %v policies %+v: Karmada %v, fleetover %v",
			conds, current, policies, want, taintIDs(ordered.Result, current))
	}
	ty.report("0 policies", "1 policies")
}

// classifyTaints explains a disagreement that remains once the policies
// run in Karmada's order. It undoes each documented rule on the library's
// side in turn (stamped NoExecute taints, a carried health-taint time,
// taints kept rather than re-created) and names the first rule after which
// the lists agree.
func classifyTaints(want []string, d failover.ClusterTaintDiff, current []corev1.Taint) string {
	got := taintIDs(d.Result, current)
	if len(got) != len(want) {
		return "cluster-taints"
	}
	var ids []string
	for i, t := range d.Result {
		id := fmt.Sprintf("%s=%s:%s@", t.Key, t.Value, t.Effect)
		switch {
		case got[i] == want[i]:
		case got[i] == id+"new" && slices.ContainsFunc(d.Stamped, func(s corev1.Taint) bool { return s.Key == t.Key && s.Effect == t.Effect }) &&
			slices.Contains(want, id+"none"):
			got[i] = id + "none"
			ids = append(ids, "noexecute-taint-stamped")
		case got[i] == id+"carried" && t.Effect == corev1.TaintEffectNoSchedule &&
			(t.Key == failover.TaintKeyClusterNotReady || t.Key == failover.TaintKeyClusterUnreachable) && slices.Contains(want, id+"new"):
			got[i] = id + "new"
			ids = append(ids, "health-taint-swap-timeadded")
		}
	}
	if slices.Equal(want, got) && len(ids) > 0 {
		return ids[0]
	}
	if readdKept(want, got) {
		return "policy-readd-keeps-timeadded"
	}
	return "cluster-taints"
}

// readdKept: the lists hold the same taints, except that taints Karmada
// removed and added back (new, at the end) are kept in place here, with the
// time they had (or none, or the one a health-taint swap carried).
func readdKept(want, got []string) bool {
	w, g := slices.Clone(want), slices.Clone(got)
	for i := range g {
		for _, origin := range []string{"@kept", "@none", "@carried"} {
			if k, ok := strings.CutSuffix(g[i], origin); ok && slices.Contains(w, k+"@new") && !slices.Contains(w, g[i]) {
				g[i] = k + "@new"
			}
		}
	}
	slices.Sort(w)
	slices.Sort(g)
	return slices.Equal(w, g)
}
