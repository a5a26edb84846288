package controllers_test

import (
	"slices"
	"testing"
	"time"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/api/policy/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// Story 6: the controllers restart in the middle of an application
// failover countdown. The new process reads the unhealthy-since record
// from the binding: it neither starts the countdown again (the eviction
// would come late) nor treats it as run out (it would come early).
func TestStory6RestartKeepsCountdown(t *testing.T) {
	t.Parallel()
	const toleration = 60
	f := newFixture(t, func(c *controllers.Config) { c.Prober = newProbes() })
	f.start()
	sick, spare := f.clusterName("a"), f.clusterName("b")
	f.readyClusters(clusterv1alpha1.Push, sick, spare)

	f.createTemplate(deployment("batch", 1))
	rb := deploymentBinding(f.ns, "batch", 0, workv1alpha2.TargetCluster{Name: sick})
	rb.Spec.Failover = &policyv1alpha1.FailoverBehavior{Application: &policyv1alpha1.ApplicationFailoverBehavior{
		DecisionConditions: policyv1alpha1.DecisionConditions{TolerationSeconds: ptr.To[int32](toleration)},
	}}
	f.createBinding(rb)
	key := client.ObjectKey{Namespace: f.ns, Name: "batch"}
	f.setHealth("batch", healthItem(sick, "Unhealthy", nil))
	started := f.clock.Now()
	deadline := started.Add(toleration * time.Second)
	f.eventually("countdown persisted", func() (bool, string) {
		rb := f.binding("batch")
		_, ok := rb.Annotations[controllers.ApplicationHealthRecordsAnnotation]
		at, pending := f.ctrls.ApplicationFailover.Schedule.Pending(key)
		return ok && pending && at.Equal(deadline), at.String()
	})

	// 40 s into the countdown the process restarts.
	f.stepTo(started.Add(40 * time.Second))
	f.restart()
	f.eventually("countdown resumed after the restart", func() (bool, string) {
		at, ok := f.ctrls.ApplicationFailover.Schedule.Pending(key)
		return ok && at.Equal(deadline), "pending " + at.String() + ", want " + deadline.String()
	})
	if got := clusterNames(f.binding("batch")); !slices.Equal(got, []string{sick}) {
		t.Fatalf("evicted right after the restart, 20 s early: clusters %v", got)
	}

	f.stepTo(deadline.Add(-time.Second))
	if got := clusterNames(f.binding("batch")); !slices.Equal(got, []string{sick}) {
		t.Fatalf("evicted before the countdown ended: clusters %v", got)
	}
	f.stepTo(deadline)
	f.waitBinding("batch", "evicted when the countdown ends", func(rb *workv1alpha2.ResourceBinding) bool {
		return slices.Equal(taskClusters(rb), []string{sick}) && slices.Equal(clusterNames(rb), []string{spare})
	})
}
