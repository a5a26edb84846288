package beside_test

import (
	"fmt"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/api/policy/v1alpha1"
)

// Karmada v1.18.1's e2e tainttoleration_test.go: every cluster carries a
// NoSchedule taint naming it, and the Deployment tolerates the first
// one's only: it is scheduled there alone.
func TestE2ETaintTolerationSchedulesToTheToleratedCluster(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, s *stage) {
		const key = "cluster-toleration.karmada.io"
		for _, c := range s.clusters {
			s.taint(c, corev1.Taint{Key: key, Value: c, Effect: corev1.TaintEffectNoSchedule}, true)
		}
		s.deployment("web", 1, "nginx:1.19.0")
		s.policy("web", policyv1alpha1.Placement{
			ClusterAffinity: &policyv1alpha1.ClusterAffinity{ClusterNames: s.clusters},
			ClusterTolerations: []corev1.Toleration{{
				Key: key, Operator: corev1.TolerationOpEqual, Value: s.clusters[0], Effect: corev1.TaintEffectNoSchedule,
			}},
		}, nil)
		s.eventually("web scheduled to "+s.clusters[0]+" only", func() (bool, string) {
			got := s.targets("web")
			return slices.Equal(got, s.clusters[:1]), fmt.Sprint(got)
		})
	})
}

// setCondition sets a condition on a cluster's status, as Karmada's e2e
// does.
func (s *stage) setCondition(cluster string, cond metav1.Condition) {
	s.t.Helper()
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cl := s.cluster(cluster)
		meta.SetStatusCondition(&cl.Status.Conditions, cond)
		return s.c.Status().Update(s.ctx, cl)
	}); err != nil {
		s.t.Fatal(err)
	}
}

func (s *stage) taintPolicy(spec policyv1alpha1.ClusterTaintPolicySpec) {
	s.t.Helper()
	p := &policyv1alpha1.ClusterTaintPolicy{ObjectMeta: metav1.ObjectMeta{Name: s.ns + "-taints"}, Spec: spec}
	if err := s.c.Create(s.ctx, p); err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { _ = s.c.Delete(s.ctx, p) })
}

func (s *stage) waitTaints(cluster string, present bool, taints ...corev1.Taint) {
	s.t.Helper()
	s.eventually(fmt.Sprintf("taints %v on %s present=%t", taints, cluster, present), func() (bool, string) {
		cl := s.cluster(cluster)
		for _, want := range taints {
			if slices.ContainsFunc(cl.Spec.Taints, func(t corev1.Taint) bool { return t.MatchTaint(&want) }) != present {
				return false, fmt.Sprint(cl.Spec.Taints)
			}
		}
		return true, ""
	})
}

func (s *stage) waitTaintEvent(cluster string) {
	s.t.Helper()
	s.waitEvent("Cluster", cluster, "TaintClusterSucceed", nil)
}

func inFalseUnknown(condition string) policyv1alpha1.MatchCondition {
	return policyv1alpha1.MatchCondition{ConditionType: condition, Operator: policyv1alpha1.MatchConditionOpIn,
		StatusValues: []metav1.ConditionStatus{metav1.ConditionFalse, metav1.ConditionUnknown}}
}

func inTrue(condition string) policyv1alpha1.MatchCondition {
	return policyv1alpha1.MatchCondition{ConditionType: condition, Operator: policyv1alpha1.MatchConditionOpIn,
		StatusValues: []metav1.ConditionStatus{metav1.ConditionTrue}}
}

func condition(t string, status metav1.ConditionStatus) metav1.Condition {
	return metav1.Condition{Type: t, Status: status, Reason: "Test", LastTransitionTime: metav1.Now()}
}

// Karmada v1.18.1's e2e clustertaintpolicy_test.go, "One condition
// match": NetworkReady False taints the targeted cluster, True removes
// the taint.
func TestE2EClusterTaintPolicyOneCondition(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, s *stage) {
		target := s.clusters[1]
		taint := corev1.Taint{Key: "testing/network-not-ready", Effect: corev1.TaintEffectNoSchedule}
		s.taintPolicy(policyv1alpha1.ClusterTaintPolicySpec{
			TargetClusters:     &policyv1alpha1.ClusterAffinity{ClusterNames: []string{target}},
			AddOnConditions:    []policyv1alpha1.MatchCondition{inFalseUnknown("NetworkReady")},
			RemoveOnConditions: []policyv1alpha1.MatchCondition{inTrue("NetworkReady")},
			Taints:             []policyv1alpha1.Taint{{Key: taint.Key, Effect: taint.Effect}},
		})
		s.setCondition(target, condition("NetworkReady", metav1.ConditionFalse))
		s.waitTaints(target, true, taint)
		s.waitTaintEvent(target)
		s.setCondition(target, condition("NetworkReady", metav1.ConditionTrue))
		s.waitTaints(target, false, taint)
	})
}

// "Multi conditions match": the taint needs NetworkReady and StorageReady
// both not True, and goes once both are True.
func TestE2EClusterTaintPolicyMultiConditions(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, s *stage) {
		target := s.clusters[0]
		taint := corev1.Taint{Key: "testing/all-not-ready", Effect: corev1.TaintEffectNoSchedule}
		s.taintPolicy(policyv1alpha1.ClusterTaintPolicySpec{
			TargetClusters:     &policyv1alpha1.ClusterAffinity{ClusterNames: []string{target}},
			AddOnConditions:    []policyv1alpha1.MatchCondition{inFalseUnknown("NetworkReady"), inFalseUnknown("StorageReady")},
			RemoveOnConditions: []policyv1alpha1.MatchCondition{inTrue("NetworkReady"), inTrue("StorageReady")},
			Taints:             []policyv1alpha1.Taint{{Key: taint.Key, Effect: taint.Effect}},
		})
		s.setCondition(target, condition("NetworkReady", metav1.ConditionFalse))
		s.setCondition(target, condition("StorageReady", metav1.ConditionFalse))
		s.waitTaints(target, true, taint)
		s.waitTaintEvent(target)
		s.setCondition(target, condition("NetworkReady", metav1.ConditionTrue))
		s.setCondition(target, condition("StorageReady", metav1.ConditionTrue))
		s.waitTaints(target, false, taint)
	})
}

// "Control with multiple taints": one policy adds and removes a NoSchedule
// and a NoExecute taint together.
func TestE2EClusterTaintPolicyMultipleTaints(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, s *stage) {
		target := s.clusters[1]
		noSchedule := corev1.Taint{Key: "testing/network-not-ready", Effect: corev1.TaintEffectNoSchedule}
		noExecute := corev1.Taint{Key: "testing/network-not-ready", Effect: corev1.TaintEffectNoExecute}
		s.taintPolicy(policyv1alpha1.ClusterTaintPolicySpec{
			TargetClusters:     &policyv1alpha1.ClusterAffinity{ClusterNames: []string{target}},
			AddOnConditions:    []policyv1alpha1.MatchCondition{inFalseUnknown("NetworkReady")},
			RemoveOnConditions: []policyv1alpha1.MatchCondition{inTrue("NetworkReady")},
			Taints:             []policyv1alpha1.Taint{{Key: noSchedule.Key, Effect: noSchedule.Effect}, {Key: noExecute.Key, Effect: noExecute.Effect}},
		})
		s.setCondition(target, condition("NetworkReady", metav1.ConditionFalse))
		s.waitTaints(target, true, noSchedule, noExecute)
		s.waitTaintEvent(target)
		s.setCondition(target, condition("NetworkReady", metav1.ConditionTrue))
		s.waitTaints(target, false, noSchedule, noExecute)
	})
}

// notReadyTaintPolicy is the ClusterTaintPolicy of Karmada's docs for the
// stage's clusters: the not-ready NoExecute taint while Ready is False or
// Unknown, removed when it is True again.
func (s *stage) notReadyTaintPolicy() {
	s.t.Helper()
	s.taintPolicy(policyv1alpha1.ClusterTaintPolicySpec{
		TargetClusters:     &policyv1alpha1.ClusterAffinity{LabelSelector: stageSelector(s)},
		AddOnConditions:    []policyv1alpha1.MatchCondition{inFalseUnknown(clusterv1alpha1.ClusterConditionReady)},
		RemoveOnConditions: []policyv1alpha1.MatchCondition{inTrue(clusterv1alpha1.ClusterConditionReady)},
		Taints:             []policyv1alpha1.Taint{{Key: clusterv1alpha1.TaintClusterNotReady, Effect: corev1.TaintEffectNoExecute}},
	})
}
