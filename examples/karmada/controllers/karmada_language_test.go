package controllers_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/api/policy/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/suspension"

	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// notReadyTaintPolicy is a ClusterTaintPolicy as Karmada's documentation
// writes one to fail clusters over on health: the not-ready NoExecute
// taint while Ready is False or Unknown, removed once it is True.
func notReadyTaintPolicy(name string, targets *policyv1alpha1.ClusterAffinity) *policyv1alpha1.ClusterTaintPolicy {
	return &policyv1alpha1.ClusterTaintPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: policyv1alpha1.ClusterTaintPolicySpec{
			TargetClusters: targets,
			AddOnConditions: []policyv1alpha1.MatchCondition{{ConditionType: clusterv1alpha1.ClusterConditionReady,
				Operator: policyv1alpha1.MatchConditionOpIn, StatusValues: []metav1.ConditionStatus{metav1.ConditionFalse, metav1.ConditionUnknown}}},
			RemoveOnConditions: []policyv1alpha1.MatchCondition{{ConditionType: clusterv1alpha1.ClusterConditionReady,
				Operator: policyv1alpha1.MatchConditionOpIn, StatusValues: []metav1.ConditionStatus{metav1.ConditionTrue}}},
			Taints: []policyv1alpha1.Taint{{Key: clusterv1alpha1.TaintClusterNotReady, Effect: corev1.TaintEffectNoExecute}},
		},
	}
}

func (f *fixture) createTaintPolicy(p *policyv1alpha1.ClusterTaintPolicy) {
	f.t.Helper()
	p.Name = f.ns + "-" + p.Name
	if err := f.c.Create(f.ctx, p); err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { _ = f.c.Delete(f.ctx, p) })
}

// readyCondition is a pull-mode agent's post of Ready.
func readyCondition(status metav1.ConditionStatus, at time.Time) metav1.Condition {
	reason := "ClusterReady"
	if status != metav1.ConditionTrue {
		reason = "ClusterNotReady"
	}
	return metav1.Condition{Type: clusterv1alpha1.ClusterConditionReady, Status: status, Reason: reason, Message: "posted by the agent", LastTransitionTime: metav1.NewTime(at)}
}

// A ClusterTaintPolicy created as Karmada's docs show taints the clusters
// its targetClusters select, and only those, while their Ready condition
// is False; the taint goes when Ready is True again, and Karmada's
// TaintClusterSucceed event says so in Karmada's words. Deleting the
// policy leaves its taints, as in Karmada.
func TestClusterTaintPolicyTaintsTheClustersItTargets(t *testing.T) {
	t.Parallel()
	events := &eventLog{}
	f := newFixture(t, func(c *controllers.Config) {
		c.Prober = newProbes()
		c.EventRecorder = events
	})
	f.start()
	prod1, prod2, dev := f.clusterName("prod1"), f.clusterName("prod2"), f.clusterName("dev")
	env := map[string]string{prod1: "prod", prod2: "prod", dev: "dev"}
	for _, name := range []string{prod1, prod2, dev} {
		cl := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"env": env[name]}},
			Spec: clusterv1alpha1.ClusterSpec{SyncMode: clusterv1alpha1.Pull}}
		if err := f.c.Create(f.ctx, cl); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = f.c.Delete(f.ctx, cl) })
		f.renewLease(name)
		f.postCondition(name, readyCondition(metav1.ConditionTrue, f.clock.Now()))
	}
	f.createTaintPolicy(notReadyTaintPolicy("prod-not-ready", &policyv1alpha1.ClusterAffinity{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"env": "prod"}}}))

	// prod1 and dev fail; only prod1 is the policy's.
	f.clock.Step(time.Second)
	failedAt := f.clock.Now()
	f.postCondition(prod1, readyCondition(metav1.ConditionFalse, failedAt))
	f.postCondition(dev, readyCondition(metav1.ConditionFalse, failedAt))
	f.eventually("the not-ready NoExecute taint on "+prod1, func() (bool, string) {
		cl := f.cluster(prod1)
		return hasTaint(cl, clusterv1alpha1.TaintClusterNotReady, string(corev1.TaintEffectNoExecute)), taintString(cl)
	})
	f.settle()
	cl := f.cluster(prod1)
	i := slices.IndexFunc(cl.Spec.Taints, func(tn corev1.Taint) bool { return tn.Effect == corev1.TaintEffectNoExecute })
	if at := cl.Spec.Taints[i].TimeAdded; at == nil || !at.Time.Equal(failedAt) {
		t.Errorf("taint %v: want TimeAdded %v, when the policy added it", cl.Spec.Taints[i], failedAt)
	}
	for _, name := range []string{prod2, dev} {
		if cl := f.cluster(name); hasTaint(cl, clusterv1alpha1.TaintClusterNotReady, string(corev1.TaintEffectNoExecute)) {
			t.Errorf("%s carries the policy's taint (%s); the policy targets env=prod clusters that are not Ready", name, taintString(cl))
		}
	}
	// The policy's event, in the words of Karmada's ClusterTaintPolicy
	// controller (the health taint's event has the cluster controller's).
	// Karmada's message lists every taint the cluster has after the
	// update: the health controller's NoSchedule taint is there or not yet,
	// depending on which controller wrote first.
	succeeded := events.of("/"+prod1, controllers.EventReasonTaintClusterSucceed)
	policyMessage := func(taints ...string) string {
		return "Update Cluster(" + prod1 + ") with taints(cluster now has taints([" + strings.Join(taints, ",") + "])) succeed"
	}
	noExecute := "{Key:" + clusterv1alpha1.TaintClusterNotReady + ",Effect:NoExecute}"
	noSchedule := "{Key:" + clusterv1alpha1.TaintClusterNotReady + ",Effect:NoSchedule}"
	want := []string{policyMessage(noExecute), policyMessage(noSchedule, noExecute)}
	if !slices.ContainsFunc(succeeded, func(e recordedEvent) bool { return slices.Contains(want, e.Note) }) {
		t.Errorf("TaintClusterSucceed events on %s: %+v, want one saying one of %q", prod1, succeeded, want)
	}

	// Ready again: the policy removes the taint.
	f.clock.Step(time.Minute)
	f.postCondition(prod1, readyCondition(metav1.ConditionTrue, f.clock.Now()))
	f.eventually("the policy's taint gone from "+prod1, func() (bool, string) {
		cl := f.cluster(prod1)
		return !hasTaint(cl, clusterv1alpha1.TaintClusterNotReady, string(corev1.TaintEffectNoExecute)), taintString(cl)
	})

	// A policy deleted leaves what it put, as Karmada's does.
	f.clock.Step(time.Minute)
	f.postCondition(prod2, readyCondition(metav1.ConditionFalse, f.clock.Now()))
	f.eventually("the policy's taint on "+prod2, func() (bool, string) {
		cl := f.cluster(prod2)
		return hasTaint(cl, clusterv1alpha1.TaintClusterNotReady, string(corev1.TaintEffectNoExecute)), taintString(cl)
	})
	list := &policyv1alpha1.ClusterTaintPolicyList{}
	if err := f.c.List(f.ctx, list, client.MatchingLabels{"fleetover.test/scope": f.ns}); err != nil || len(list.Items) != 1 {
		t.Fatalf("policies: %v, %v", list.Items, err)
	}
	if err := f.c.Delete(f.ctx, &list.Items[0]); err != nil {
		t.Fatal(err)
	}
	f.settle()
	f.clock.Step(time.Minute)
	f.postCondition(prod2, readyCondition(metav1.ConditionTrue, f.clock.Now()))
	f.settle()
	if cl := f.cluster(prod2); !hasTaint(cl, clusterv1alpha1.TaintClusterNotReady, string(corev1.TaintEffectNoExecute)) {
		t.Errorf("%s lost the deleted policy's taint (%s); Karmada leaves it", prod2, taintString(cl))
	}
}

// Two policies on the same taint, the older one removing it while Ready is
// False and the newer one adding it: Karmada removes and re-adds the taint
// at every look, with a new timeAdded each time; fleetover keeps the first
// one, so a toleration's countdown does not restart.
func TestClusterTaintPoliciesApplyOldestFirst(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *controllers.Config) { c.Prober = newProbes() })
	f.start()
	name := f.clusterName("a")
	f.createCluster(name, clusterv1alpha1.Pull)
	f.renewLease(name)
	f.postCondition(name, readyCondition(metav1.ConditionTrue, f.clock.Now()))
	targets := &policyv1alpha1.ClusterAffinity{ClusterNames: []string{name}}
	// Karmada applies policies oldest first; within one second (creation
	// times are kept to the second) fleetover takes them by name, so the
	// remover comes first either way.
	remover := notReadyTaintPolicy("a-remover", targets)
	remover.Spec.AddOnConditions, remover.Spec.RemoveOnConditions = remover.Spec.RemoveOnConditions, remover.Spec.AddOnConditions
	f.createTaintPolicy(remover)
	f.createTaintPolicy(notReadyTaintPolicy("b-adder", targets))
	// While Ready is True the remover adds the taint and the adder, applied
	// after it, takes it away. The controller may look while its cache
	// holds the remover alone and add the taint; the look with both takes
	// it away again, and must come before Ready turns False: under load
	// one look could see the adder and Ready False at once, and keep the
	// remover-only taint's earlier TimeAdded.
	f.settle()
	if cl := f.cluster(name); hasTaint(cl, clusterv1alpha1.TaintClusterNotReady, string(corev1.TaintEffectNoExecute)) {
		t.Fatalf("taints %s while Ready is True: want none, the newer policy removes what the older one adds", taintString(cl))
	}

	f.clock.Step(time.Second)
	notReadyAt := f.clock.Now()
	f.postCondition(name, readyCondition(metav1.ConditionFalse, notReadyAt))
	f.eventually("the taint added by the newer policy", func() (bool, string) {
		cl := f.cluster(name)
		return hasTaint(cl, clusterv1alpha1.TaintClusterNotReady, string(corev1.TaintEffectNoExecute)), taintString(cl)
	})
	// A later look (a condition change of another kind) keeps the taint as
	// it was.
	f.clock.Step(time.Minute)
	f.postCondition(name, metav1.Condition{Type: "Synced", Status: metav1.ConditionTrue, Reason: "Synced", LastTransitionTime: metav1.NewTime(f.clock.Now())})
	f.settle()
	cl := f.cluster(name)
	i := slices.IndexFunc(cl.Spec.Taints, func(tn corev1.Taint) bool { return tn.Effect == corev1.TaintEffectNoExecute })
	if i < 0 || cl.Spec.Taints[i].TimeAdded == nil || !cl.Spec.Taints[i].TimeAdded.Time.Equal(notReadyAt) {
		var added any
		if i >= 0 {
			added = cl.Spec.Taints[i].TimeAdded
		}
		t.Fatalf("taints %s (NoExecute added %v; conditions %+v): want the NoExecute taint kept with TimeAdded %v", taintString(cl), added, cl.Status.Conditions, notReadyAt)
	}
}

// Karmada's reasons and messages: an eviction is EvictWorkloadFromCluster-
// Succeed on the binding and on its resource template; a Work whose
// dispatching is suspended carries Karmada's Dispatching condition message
// and a WorkDispatching event.
func TestKarmadaEventReasons(t *testing.T) {
	t.Parallel()
	events := &eventLog{}
	f := newFixture(t, func(c *controllers.Config) {
		c.Prober = newProbes()
		c.EventRecorder = events
	})
	f.start()
	failing, healthy := f.clusterName("a"), f.clusterName("b")
	f.readyClusters(clusterv1alpha1.Push, failing, healthy)
	for _, name := range []string{"web", "api"} {
		f.createTemplate(deployment(name, 1))
		rb := deploymentBinding(f.ns, name, 1, workv1alpha2.TargetCluster{Name: failing})
		rb.Spec.Placement = &policyv1alpha1.Placement{ClusterAffinity: &policyv1alpha1.ClusterAffinity{ClusterNames: []string{failing, healthy}}}
		f.createBinding(rb)
		f.waitWork(f.binding(name), failing, true)
		f.setHealth(name, healthItem(failing, "Healthy", nil))
	}

	// web's dispatching to its cluster is suspended.
	rb := f.binding("web")
	rb.Spec.Suspension = &workv1alpha2.Suspension{Suspension: policyv1alpha1.Suspension{DispatchingOnClusters: &policyv1alpha1.SuspendClusters{ClusterNames: []string{failing}}}}
	if err := f.c.Update(f.ctx, rb); err != nil {
		t.Fatal(err)
	}
	f.eventually("the Dispatching condition of web's suspended Work", func() (bool, string) {
		c := meta.FindStatusCondition(f.work(f.binding("web"), failing).Status.Conditions, suspension.ConditionDispatching)
		return c != nil && c.Status == metav1.ConditionFalse, fmt.Sprintf("%+v", c)
	})
	f.settle()
	work := f.work(f.binding("web"), failing)
	c := meta.FindStatusCondition(work.Status.Conditions, suspension.ConditionDispatching)
	if c.Reason != "SuspendDispatching" || c.Message != "Work dispatching is in a suspended state." || !ptr.Deref(work.Spec.SuspendDispatching, false) {
		t.Errorf("Work %s: suspended %v, Dispatching condition %s / %q; want Karmada's SuspendDispatching and its message",
			work.Name, work.Spec.SuspendDispatching, c.Reason, c.Message)
	}
	dispatching := events.of(work.Namespace+"/"+work.Name, controllers.EventReasonWorkDispatching)
	if len(dispatching) != 1 || dispatching[0].Note != "Work dispatching is in a suspended state." {
		t.Errorf("WorkDispatching events %+v, want one with Karmada's message", dispatching)
	}

	// api is evicted (web's failover is paused where its dispatching is).
	f.taint(failing, "maintenance", corev1.TaintEffectNoExecute)
	f.waitBinding("api", "evicted from "+failing, func(rb *workv1alpha2.ResourceBinding) bool {
		return slices.Contains(taskClusters(rb), failing)
	})
	f.settle()
	// The binding and its Deployment share namespace and name: one event
	// each.
	got := events.of(f.ns+"/api", controllers.EventReasonEvictWorkloadFromClusterSucceed)
	if len(got) != 2 || got[0].Note != "Evict from cluster "+failing+" succeed." || got[1].Note != got[0].Note {
		t.Errorf("eviction events of api: %+v, want Karmada's on the binding and on the Deployment", got)
	}
	if got := events.of(f.ns+"/web", controllers.EventReasonEvictWorkloadFromClusterSucceed); len(got) != 0 {
		t.Errorf("web was evicted although its failover is paused: %+v", got)
	}
}
