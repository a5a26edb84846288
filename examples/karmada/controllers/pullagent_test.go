package controllers_test

import (
	"testing"
	"time"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/fleetover/fleetover/failover"

	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// A pull-mode cluster's agent, as Karmada's does, keeps renewing its lease
// and posts Ready False once its own API server fails. The controller
// leaves the posted condition as it is (a renewal is no healthy report
// against it), taints the cluster not-ready, and still turns it Unknown
// when the agent falls silent.
func TestPullAgentPostedReadyStands(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *controllers.Config) {
		c.Prober = newProbes()
		c.ClusterTaints = failover.ClusterTaintConfig{NoExecuteAfterTimeout: true}
	})
	f.start()
	name := f.clusterName("pull")
	f.createCluster(name, clusterv1alpha1.Pull)
	f.renewLease(name)
	f.waitReady(name, metav1.ConditionTrue)

	notReady := metav1.Condition{Type: clusterv1alpha1.ClusterConditionReady, Status: metav1.ConditionFalse, Reason: "ClusterNotReady",
		Message: "cluster is reachable but health endpoint responded without ok", LastTransitionTime: metav1.NewTime(f.clock.Now())}
	f.postCondition(name, notReady)
	f.eventually("not-ready NoSchedule taint", func() (bool, string) {
		cl := f.cluster(name)
		return hasTaint(cl, clusterv1alpha1.TaintClusterNotReady, string(corev1.TaintEffectNoSchedule)), "taints " + taintString(cl)
	})
	// Renewals go on; the agent's False stands through them.
	for range 3 {
		f.stepTo(f.clock.Now().Add(10 * time.Second))
		f.renewLease(name)
		f.eventually("the posted condition after a renewal", func() (bool, string) {
			got := meta.FindStatusCondition(f.cluster(name).Status.Conditions, clusterv1alpha1.ClusterConditionReady)
			return got != nil && got.Status == metav1.ConditionFalse && got.Reason == notReady.Reason, "Ready " + string(readyStatus(f.cluster(name)))
		})
		if at, ok := f.ctrls.ClusterHealth.Schedule.Pending(types.NamespacedName{Name: name}); !ok || at.IsZero() {
			t.Fatal("no silence deadline scheduled")
		}
	}
	// The agent falls silent: Unknown after the monitor grace period.
	f.stepTo(f.clock.Now().Add(failover.DefaultClusterMonitorGracePeriod))
	f.waitReady(name, metav1.ConditionUnknown)
}
