package controllers_test

import (
	"fmt"
	"slices"
	"testing"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/api/policy/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// Story 13: an eviction that waits for its state spends none of the
// pacer's tokens. The pacer allows one eviction (a burst of one, then one
// a day). An operator drains a cluster running two bindings: "a-job", a
// Flink job whose status lacks the job id its rule reads, comes first in
// the planner's order; "b-web" comes after it. The one token goes to
// b-web, which moves; a-job stays where it is and says why.
func TestStory13UnreadableStateSpendsNoPacerToken(t *testing.T) {
	t.Parallel()
	events := &eventLog{}
	f := newFixture(t, func(c *controllers.Config) {
		c.Prober = newProbes()
		c.EventRecorder = events
		c.Pacer = eviction.PacerConfig{Rate: eviction.MinEvictionRate, Burst: 1}
		// The state is read at the eviction only with Karmada's gate on.
		c.StatefulFailoverInjection = true
	})
	f.start()
	drained, spare := f.clusterName("a"), f.clusterName("b")
	f.readyClusters(clusterv1alpha1.Push, drained, spare)

	f.createTemplate(&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "flink.apache.org/v1beta1",
		"kind":       "FlinkDeployment",
		"metadata":   map[string]any{"name": "a-job"},
		"spec":       map[string]any{"image": "flink:1.20", "flinkVersion": "v1_20"},
	}})
	f.createBinding(flinkJobBinding(f.ns, "a-job", policyv1alpha1.PurgeModeDirectly, workv1alpha2.TargetCluster{Name: drained}))
	f.createTemplate(deployment("b-web", 1))
	f.createBinding(deploymentBinding(f.ns, "b-web", 1, workv1alpha2.TargetCluster{Name: drained, Replicas: 1}))
	f.waitWork(f.binding("a-job"), drained, true)
	f.waitWork(f.binding("b-web"), drained, true)
	// The job reports no job id yet.
	f.setHealth("a-job", healthItem(drained, "Healthy", map[string]any{
		"jobStatus":      map[string]any{"state": "RECONCILING"},
		"lifecycleState": "DEPLOYED",
	}))

	f.taint(drained, "maintenance", corev1.TaintEffectNoExecute)

	f.waitBinding("b-web", "the web binding takes the one token and moves", func(rb *workv1alpha2.ResourceBinding) bool {
		return slices.Equal(clusterNames(rb), []string{spare})
	})
	f.eventually("the job's eviction says it waits for its state", func() (bool, string) {
		waits := events.of(f.ns+"/a-job", "StatePreservationFailed")
		return len(waits) > 0, fmt.Sprintf("events of a-job: %v", reasonsOf(events.of(f.ns+"/a-job", "StatePreservationFailed")))
	})
	if rb := f.binding("a-job"); !slices.Equal(clusterNames(rb), []string{drained}) || len(rb.Spec.GracefulEvictionTasks) != 0 {
		t.Fatalf("a-job on %v with %d tasks: evicted without its state", clusterNames(rb), len(rb.Spec.GracefulEvictionTasks))
	}
}
