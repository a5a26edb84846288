package beside_test

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/api/policy/v1alpha1"
)

// The cluster failover scenarios of Karmada v1.18.1's e2e suite
// (test/e2e/suites/base/failover_test.go, "cluster failover testing"),
// each with its setup, fault and expected outcome, run on Karmada alone
// and with fleetover beside it.

// failoverPlacement is the e2e's placement: the first two clusters, one of
// them at a time, tolerating toleration.
func failoverPlacement(s *stage, toleration corev1.Toleration) policyv1alpha1.Placement {
	return policyv1alpha1.Placement{
		ClusterAffinity:    &policyv1alpha1.ClusterAffinity{ClusterNames: s.clusters[:2]},
		ClusterTolerations: []corev1.Toleration{toleration},
		SpreadConstraints: []policyv1alpha1.SpreadConstraint{{
			SpreadByField: policyv1alpha1.SpreadByFieldCluster, MaxGroups: 1, MinGroups: 1,
		}},
	}
}

// "Cluster failover testing with nil failover behavior": the cluster the
// Deployment runs on gets the not-ready NoExecute taint (tolerated for
// 2 s); the Deployment moves to the other cluster, and once the taint is
// gone it is gone from the cluster it left.
func TestE2EClusterFailoverNilBehavior(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, s *stage) {
		s.deployment("web", 1, "nginx:1.19.0")
		s.policy("web", failoverPlacement(s, corev1.Toleration{
			Key: clusterv1alpha1.TaintClusterNotReady, Operator: corev1.TolerationOpExists,
			Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](2),
		}), nil)
		from := s.waitScheduled("web", 1)
		s.waitOnMember(from[0], "web", true)
		taint := corev1.Taint{Key: clusterv1alpha1.TaintClusterNotReady, Effect: corev1.TaintEffectNoExecute}
		s.taint(from[0], taint, true)
		s.eventually("web rescheduled off "+from[0], func() (bool, string) {
			now := s.targets("web")
			return len(now) == 1 && outside(now, from), fmt.Sprint(now)
		})
		s.taint(from[0], taint, false)
		s.waitOnMember(from[0], "web", false)
	})
}

// failTest is the e2e's own NoExecute taint, tolerated for 3 s.
var failTest = corev1.Taint{Key: "fail-test", Effect: corev1.TaintEffectNoExecute}

func failTestToleration() corev1.Toleration {
	return corev1.Toleration{Key: failTest.Key, Effect: corev1.TaintEffectNoExecute, Operator: corev1.TolerationOpExists, TolerationSeconds: ptr.To[int64](3)}
}

// "Cluster failover testing with purgeMode gracefully": a NoExecute taint
// of the test's own moves the Deployment with a graceful eviction, the
// eviction is an EvictWorkloadFromClusterSucceed event on the Deployment,
// and the copy left behind is gone once the taint is removed.
func TestE2EClusterFailoverGracefully(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, s *stage) {
		s.deployment("web", 1, "nginx:1.19.0")
		s.policy("web", failoverPlacement(s, failTestToleration()), &policyv1alpha1.FailoverBehavior{
			Cluster: &policyv1alpha1.ClusterFailoverBehavior{PurgeMode: policyv1alpha1.PurgeModeGracefully},
		})
		from := s.waitScheduled("web", 1)
		s.waitOnMember(from[0], "web", true)
		s.taint(from[0], failTest, true)
		s.eventually("web rescheduled off "+from[0], func() (bool, string) {
			now := s.targets("web")
			return len(now) == 1 && outside(now, from), fmt.Sprint(now)
		})
		s.waitEvent("Deployment", "web", "EvictWorkloadFromClusterSucceed", nil)
		s.taint(from[0], failTest, false)
		s.waitOnMember(from[0], "web", false)
	})
}

// "Cluster failover testing with purgeMode directly": both clusters run an
// image that never becomes ready, so the Deployment moves once and stays;
// the new copy carries the preserved state (the status' replicas, under
// the label test-alias), and the old copy is gone.
func TestE2EClusterFailoverDirectly(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, s *stage) {
		s.deployment("web", 1, "fake/nginx:1.19.0")
		s.policy("web", failoverPlacement(s, failTestToleration()), &policyv1alpha1.FailoverBehavior{
			Cluster: &policyv1alpha1.ClusterFailoverBehavior{
				PurgeMode: policyv1alpha1.PurgeModeDirectly,
				StatePreservation: &policyv1alpha1.StatePreservation{Rules: []policyv1alpha1.StatePreservationRule{
					{AliasLabelName: "test-alias", JSONPath: "{.replicas}"},
				}},
			},
		})
		from := s.waitScheduled("web", 1)
		s.waitOnMember(from[0], "web", true)
		s.taint(from[0], failTest, true)
		var to []string
		s.eventually("web rescheduled off "+from[0], func() (bool, string) {
			to = s.targets("web")
			return len(to) == 1 && outside(to, from), fmt.Sprint(to)
		})
		s.eventually("the new copy with the preserved state", func() (bool, string) {
			d := s.onMember(to[0], "web")
			if d == nil {
				return false, "no copy on " + to[0]
			}
			_, ok := d.Labels["test-alias"]
			return ok, fmt.Sprint(d.Labels)
		})
		if d := s.onMember(from[0], "web"); d != nil {
			t.Errorf("the old copy on %s is still there beside the new one", from[0])
		}
		s.taint(from[0], failTest, false)
	})
}

func reasons(evs []corev1.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.InvolvedObject.Kind+"/"+e.Reason)
	}
	return out
}
