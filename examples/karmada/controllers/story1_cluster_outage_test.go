package controllers_test

import (
	"slices"
	"testing"
	"time"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"

	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// Story 1: a pull-mode cluster stops renewing its lease. It turns Ready
// Unknown after the monitor grace period, gets the unreachable NoSchedule
// taint at once and the NoExecute one after the eviction timeout; once the
// binding's toleration of it runs out the binding leaves the cluster with a
// graceful eviction task, the scheduler moves it to the healthy cluster,
// and the task completes when the workload is healthy there.
func TestStory1ClusterOutageEvictsGracefully(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *controllers.Config) {
		c.Prober = newProbes()
		c.ClusterTaints = failover.ClusterTaintConfig{NoExecuteAfterTimeout: true}
	})
	f.start()
	failing, healthy := f.clusterName("pull"), f.clusterName("push")
	f.createCluster(failing, clusterv1alpha1.Pull)
	f.createCluster(healthy, clusterv1alpha1.Push)
	f.renewLease(failing)
	f.waitReady(failing, metav1.ConditionTrue)
	f.waitReady(healthy, metav1.ConditionTrue)

	f.createTemplate(deployment("web", 2))
	f.createBinding(deploymentBinding(f.ns, "web", 2, workv1alpha2.TargetCluster{Name: failing}))
	rb := f.binding("web")
	f.waitWork(rb, failing, true)
	f.setHealth("web", healthItem(failing, "Healthy", nil))

	// The agent goes silent: Unknown once the monitor grace period (40 s)
	// has passed since the last renewal, not before.
	key := types.NamespacedName{Name: failing}
	silence := f.waitPending("silence deadline", f.ctrls.ClusterHealth.Schedule, key)
	if want := epoch.Add(failover.DefaultClusterMonitorGracePeriod); !silence.Equal(want) {
		t.Fatalf("silence deadline = %v, want %v (last renewal + monitor grace period)", silence, want)
	}
	f.stepTo(silence)
	f.waitReady(failing, metav1.ConditionUnknown)
	f.eventually("unreachable NoSchedule taint", func() (bool, string) {
		cl := f.cluster(failing)
		return hasTaint(cl, clusterv1alpha1.TaintClusterUnreachable, string(corev1.TaintEffectNoSchedule)) &&
			!hasTaint(cl, clusterv1alpha1.TaintClusterUnreachable, string(corev1.TaintEffectNoExecute)), "taints " + taintString(cl)
	})
	unknownSince := f.clock.Now()

	// NoExecute follows after the eviction timeout, counted from the
	// condition's transition.
	f.eventually("NoExecute deadline", func() (bool, string) {
		at, ok := f.ctrls.ClusterHealth.Schedule.Pending(key)
		return ok && at.Equal(unknownSince.Add(failover.DefaultEvictionTimeout)), at.String()
	})
	f.stepTo(unknownSince.Add(failover.DefaultEvictionTimeout))
	f.eventually("unreachable NoExecute taint", func() (bool, string) {
		cl := f.cluster(failing)
		return hasTaint(cl, clusterv1alpha1.TaintClusterUnreachable, string(corev1.TaintEffectNoExecute)), "taints " + taintString(cl)
	})
	noExecuteAt := f.clock.Now()

	// The default toleration (300 s) holds the binding until it runs out.
	evictAt := f.waitPending("toleration deadline", f.ctrls.TaintManager.Schedule, key)
	if want := noExecuteAt.Add(time.Duration(failover.DefaultTolerationSeconds) * time.Second); !evictAt.Equal(want) {
		t.Fatalf("taint manager looks again at %v, want %v (taint added + default toleration)", evictAt, want)
	}
	if got := clusterNames(f.binding("web")); !slices.Equal(got, []string{failing}) {
		t.Fatalf("binding left before its toleration ran out: clusters %v", got)
	}
	f.stepTo(evictAt)
	rb = f.waitBinding("web", "eviction to the healthy cluster", func(rb *workv1alpha2.ResourceBinding) bool {
		return slices.Equal(clusterNames(rb), []string{healthy}) && slices.Equal(taskClusters(rb), []string{failing})
	})
	task := rb.Spec.GracefulEvictionTasks[0]
	if task.Reason != eviction.ReasonTaintUntolerated || task.Producer != eviction.ProducerTaintManager {
		t.Fatalf("task = %+v, want reason TaintUntolerated from the taint manager", task)
	}
	// Both copies exist while the new one is not healthy yet.
	f.waitWork(rb, healthy, true)
	f.waitWork(rb, failing, true)
	f.waitBinding("web", "task stamped", func(rb *workv1alpha2.ResourceBinding) bool {
		return len(rb.Spec.GracefulEvictionTasks) == 1 && rb.Spec.GracefulEvictionTasks[0].CreationTimestamp != nil
	})

	// The new copy reports Healthy: the task completes and the old copy goes.
	f.setHealth("web", healthItem(failing, "Unknown", nil), healthItem(healthy, "Healthy", nil))
	f.waitBinding("web", "task completed", func(rb *workv1alpha2.ResourceBinding) bool {
		return len(rb.Spec.GracefulEvictionTasks) == 0
	})
	f.waitWork(rb, failing, false)
	if f.work(rb, healthy) == nil {
		t.Fatal("the new cluster's Work is gone")
	}
}

func taintString(cl *clusterv1alpha1.Cluster) string {
	s := ""
	for _, t := range cl.Spec.Taints {
		s += t.ToString() + " "
	}
	return s
}
