package controllers_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/api/policy/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// Story 3: an application stays unhealthy on its cluster past its
// toleration and moves; the eviction history then keeps it away from that
// cluster for BlockPredecessorSeconds even when it has nowhere else to go,
// and the cluster is eligible again exactly when the window ends.
func TestStory3ApplicationFailoverBlocksPredecessor(t *testing.T) {
	t.Parallel()
	const toleration, block = 30, 120
	f := newFixture(t, func(c *controllers.Config) { c.Prober = newProbes() })
	f.start()
	first, second := f.clusterName("a"), f.clusterName("b")
	f.readyClusters(clusterv1alpha1.Push, first, second)

	f.createTemplate(deployment("api", 1))
	// blockPredecessorSeconds is not in Karmada's API: it comes from the
	// fleetover extension on the propagation policy the binding names.
	pp := &policyv1alpha1.PropagationPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: "api", Annotations: map[string]string{
			controllers.PolicyExtensionAnnotation: fmt.Sprintf(`{"version":%q,"application":{"blockPredecessorSeconds":%d}}`, controllers.AnnotationSchemaVersion, block),
		}},
		Spec: policyv1alpha1.PropagationSpec{
			ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", Name: "api"}},
		},
	}
	if err := f.c.Create(f.ctx, pp); err != nil {
		t.Fatal(err)
	}
	rb := deploymentBinding(f.ns, "api", 1, workv1alpha2.TargetCluster{Name: first})
	rb.Annotations = map[string]string{
		policyv1alpha1.PropagationPolicyNamespaceAnnotation: f.ns,
		policyv1alpha1.PropagationPolicyNameAnnotation:      "api",
	}
	rb.Spec.Failover = &policyv1alpha1.FailoverBehavior{Application: &policyv1alpha1.ApplicationFailoverBehavior{
		DecisionConditions: policyv1alpha1.DecisionConditions{TolerationSeconds: ptr.To[int32](toleration)},
		PurgeMode:          policyv1alpha1.PurgeModeGracefully,
		GracePeriodSeconds: ptr.To[int32](600),
	}}
	f.createBinding(rb)
	key := client.ObjectKey{Namespace: f.ns, Name: "api"}
	f.setHealth("api", healthItem(first, "Unhealthy", nil))

	// The countdown runs for exactly the toleration.
	started := f.clock.Now()
	f.eventually("toleration countdown", func() (bool, string) {
		at, ok := f.ctrls.ApplicationFailover.Schedule.Pending(key)
		return ok && at.Equal(started.Add(toleration*time.Second)), at.String()
	})
	f.stepTo(started.Add(toleration * time.Second))
	rb = f.waitBinding("api", "moved to the second cluster", func(rb *workv1alpha2.ResourceBinding) bool {
		return slices.Equal(clusterNames(rb), []string{second})
	})
	evictedFirst := f.clock.Now()
	if h, err := controllers.EvictionHistoryOf(rb); err != nil || len(h) != 1 || h[0].ClusterName != first {
		t.Fatalf("eviction history = %v (%v), want the first cluster", h, err)
	}

	// Healthy on the second cluster: the first copy goes.
	f.setHealth("api", healthItem(second, "Healthy", nil))
	f.waitBinding("api", "first task completed", func(rb *workv1alpha2.ResourceBinding) bool {
		return len(rb.Spec.GracefulEvictionTasks) == 0
	})

	// Then it fails on the second cluster too. The first cluster is
	// healthy and untainted but still blocked: the workload waits with no
	// target, and its last copy stays (no replacement exists).
	f.setHealth("api", healthItem(second, "Unhealthy", nil))
	f.eventually("second countdown", func() (bool, string) {
		at, ok := f.ctrls.ApplicationFailover.Schedule.Pending(key)
		return ok && at.Equal(f.clock.Now().Add(toleration*time.Second)), at.String()
	})
	f.stepTo(f.clock.Now().Add(toleration * time.Second))
	blockEnds := evictedFirst.Add(block * time.Second)
	f.eventually("scheduler waits for the block to end", func() (bool, string) {
		at, ok := f.ctrls.Scheduler.Schedule.Pending(key)
		return ok && at.Equal(blockEnds), at.String()
	})
	rb = f.waitBinding("api", "no target while the predecessor is blocked", func(rb *workv1alpha2.ResourceBinding) bool {
		return len(rb.Spec.Clusters) == 0 && slices.Equal(taskClusters(rb), []string{second}) &&
			rb.Status.SchedulerObservedGeneration == rb.Generation
	})
	if f.work(rb, second) == nil {
		t.Fatal("the last copy was deleted although no replacement exists")
	}

	// One second before the window ends the first cluster is still
	// blocked; at its end the workload goes back there.
	// A reschedule request at that moment makes the scheduler look again
	// (a spec change: it must report the new generation as observed).
	f.stepTo(blockEnds.Add(-time.Second))
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		b := f.binding("api")
		now := metav1.NewTime(f.clock.Now())
		b.Spec.RescheduleTriggeredAt = &now
		return f.c.Update(f.ctx, b)
	}); err != nil {
		t.Fatal(err)
	}
	rb = f.waitBinding("api", "scheduler looked again inside the window", func(rb *workv1alpha2.ResourceBinding) bool {
		return rb.Spec.RescheduleTriggeredAt != nil && rb.Status.SchedulerObservedGeneration == rb.Generation
	})
	if got := clusterNames(rb); len(got) != 0 {
		t.Fatalf("placed on %v inside the block window", got)
	}
	f.stepTo(blockEnds)
	f.waitBinding("api", "back on the first cluster once the block ended", func(rb *workv1alpha2.ResourceBinding) bool {
		return slices.Equal(clusterNames(rb), []string{first})
	})
}
