package failover_test

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
)

// Cluster failover end to end: a cluster has carried the unreachable
// NoExecute taint for five minutes; the planner picks the bindings whose
// toleration ran out, and eviction moves each one off the cluster with a
// graceful eviction task. This is the README's 30-second example.
func Example() {
	now := time.Date(2026, 3, 1, 12, 5, 0, 0, time.UTC)
	taints := []corev1.Taint{{
		Key:       failover.TaintKeyClusterUnreachable,
		Effect:    corev1.TaintEffectNoExecute,
		TimeAdded: &metav1.Time{Time: now.Add(-5 * time.Minute)},
	}}
	bindings := []failover.ClusterBinding{
		// The default tolerations: 300 s, which have just run out.
		{Key: "shop/web", Tolerations: failover.DefaultClusterTolerations(failover.DefaultTolerationsConfig{})},
		// Tolerates the taint forever: stays, and is not even queued.
		{Key: "shop/db", Tolerations: []corev1.Toleration{{Key: failover.TaintKeyClusterUnreachable, Operator: corev1.TolerationOpExists}}},
	}

	plan := failover.ClusterFailoverPlanner{}.Plan(taints, bindings, now)
	for _, e := range plan.Evict {
		targets := []eviction.TargetCluster{{Name: "member1", Replicas: 2}, {Name: "member2", Replicas: 2}}
		// e.Eviction carries the resolved purge mode and grace period.
		res, err := eviction.Evict(targets, nil, e.Eviction("member1"))
		if err != nil {
			panic(err)
		}
		task := res.Tasks[0]
		fmt.Printf("%s: %s, now on %v, old copy purged %s\n", e.Key, res.Outcome, res.Targets, task.PurgeMode)
	}
	fmt.Println("bindings still counting down:", plan.Waiting)
	// Output:
	// shop/web: TaskAdded, now on [{member2 2}], old copy purged Gracefully
	// bindings still counting down: 0
}
