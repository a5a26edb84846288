package why_test

import (
	"fmt"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/scheduling"
	"github.com/fleetover/fleetover/why"
)

// A cluster has been unreachable for two minutes. Why is the workload still
// on it?
func ExampleWorkload() {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	down := metav1.Time{Time: now.Add(-2 * time.Minute)}
	clusters := []why.Cluster{
		{Name: "eu-1", Conditions: []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue}}},
		{Name: "eu-2", Conditions: []metav1.Condition{{Type: "Ready", Status: metav1.ConditionUnknown, Reason: "ClusterStatusUnknown", LastTransitionTime: down}},
			Taints: []corev1.Taint{{Key: failover.TaintKeyClusterUnreachable, Effect: corev1.TaintEffectNoExecute, TimeAdded: &down}}},
	}
	chain := why.Workload(why.Input{
		Targets:     []eviction.TargetCluster{{Name: "eu-2"}},
		Clusters:    clusters,
		Tolerations: failover.DefaultClusterTolerations(failover.DefaultTolerationsConfig{}),
		Placement:   &scheduling.Request{Type: scheduling.Duplicated, Clusters: []scheduling.Cluster{{Name: "eu-1"}, {Name: "eu-2", Taints: clusters[1].Taints}}},
		Now:         now,
	})
	step, _ := chain.Held()
	fmt.Println(step.Reason, "until", step.Until.Format(time.Kitchen))
	_ = chain.Render(os.Stdout)
	// Output:
	// TolerationNotExpired until 12:03PM
	//    ClusterHealth     ClusterUnreachable               cluster eu-2 is unreachable (ClusterStatusUnknown)
	// => Toleration        TolerationNotExpired             the workload tolerates taint cluster.karmada.io/unreachable:NoExecute of cluster eu-2 (until 2026-11-23T12:03:00Z)
	//    next change by itself at 2026-11-23T12:03:00Z
}
