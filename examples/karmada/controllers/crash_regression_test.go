package controllers_test

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"

	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// The crash campaign's findings, each held by a test that crashes at the
// point where it showed (docs/reliability.md).

// A Directly purge deletes the old Work, which its member holds (a
// finalizer) until the copy there is gone. The process dies right after
// that delete. The new process finds the Work terminating and leaves it:
// it sends no second delete, nor does any later look. Before, the
// dispatcher deleted a terminating Work again at every look at its
// binding: a write that changes nothing, and in the campaign's chain run
// every new process died at it, so the run never got past it.
func TestCrashAfterDeletingAHeldWork(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *controllers.Config) {
		c.Prober = newProbes()
		c.ClusterFailover = failover.ClusterFailoverDefaults{PurgeMode: eviction.PurgeDirectly}
	})
	from, to := f.clusterName("a"), f.clusterName("b")
	oldWork := "delete Work " + controllers.ExecutionNamespacePrefix + from + "/"
	inj := newCrashInjector(testScheme, f.clock, 0, false)
	inj.after = func(write string) bool { return strings.HasPrefix(write, oldWork) }
	f.injectCrashes(inj)
	f.start()
	f.readyClusters(clusterv1alpha1.Push, from, to)
	f.createTemplate(deployment("orders", 1))
	f.createBinding(deploymentBinding(f.ns, "orders", 0, workv1alpha2.TargetCluster{Name: from}))
	rb := f.binding("orders")
	f.waitWork(rb, from, true)
	f.holdWorkOn(rb, from)

	f.taint(from, "decommission", corev1.TaintEffectNoExecute)
	f.waitBinding("orders", "evicted, purged directly", func(rb *workv1alpha2.ResourceBinding) bool {
		return slices.Equal(clusterNames(rb), []string{to}) && slices.Equal(taskClusters(rb), []string{from})
	})
	f.eventually("the process killed after deleting the old Work", func() (bool, string) {
		return inj.killed() == 1 && !f.crashPending(), "alive"
	})
	f.settle()
	// More looks at the binding: its status, then the member letting go.
	f.setHealth("orders", healthItem(from, "Healthy", nil))
	f.settle()
	f.releaseWorkOn(rb, from)
	f.waitWork(rb, to, true)
	f.settle()
	deletes := 0
	for _, w := range inj.pointLog() {
		if strings.HasPrefix(w, oldWork) {
			deletes++
		}
	}
	if deletes != 1 {
		t.Fatalf("the held Work was deleted %d times, want once:\n  %s", deletes, strings.Join(inj.pointLog(), "\n  "))
	}
}
