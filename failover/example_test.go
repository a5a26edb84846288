package failover_test

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
)

// A policy's failover block decodes unchanged; defaulting fills the rest and
// validation reports mistakes by field, as an admission webhook would.
func ExampleValidateFailoverBehavior() {
	block := []byte(`
application:
  decisionConditions:
    tolerationSeconds: 120
  purgeMode: Immediately
  gracePeriodSeconds: 30
`)
	var fb failover.FailoverBehavior
	if err := yaml.UnmarshalStrict(block, &fb); err != nil {
		panic(err)
	}
	failover.SetDefaultsFailoverBehavior(&fb)
	fmt.Println("purge mode:", fb.Application.PurgeMode)
	for _, err := range failover.ValidateFailoverBehavior(&fb, field.NewPath("spec", "failover")) {
		fmt.Println(err)
	}
	// Output:
	// purge mode: Directly
	// spec.failover.application.gracePeriodSeconds: Forbidden: only allowed when purgeMode is Gracefully, not Directly
}

// The purge mode of a cluster failover comes from the policy, else from the
// controller's global setting, else Gracefully.
func ExampleResolveClusterPurgeMode() {
	fmt.Println(failover.ResolveClusterPurgeMode(nil, ""))
	fmt.Println(failover.ResolveClusterPurgeMode(nil, eviction.PurgeDirectly))
	fmt.Println(failover.ResolveClusterPurgeMode(&failover.ClusterFailoverBehavior{PurgeMode: eviction.LegacyPurgeGraciously}, eviction.PurgeDirectly))
	// Output:
	// Gracefully
	// Directly
	// Gracefully
}

// A NoExecute taint added a minute ago and the default 300 s toleration:
// the workload must leave in four minutes.
func ExampleEvaluateTolerations() {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	taints := []corev1.Taint{
		{Key: failover.TaintKeyClusterNotReady, Effect: corev1.TaintEffectNoSchedule},
		{Key: failover.TaintKeyClusterNotReady, Effect: corev1.TaintEffectNoExecute, TimeAdded: &metav1.Time{Time: now.Add(-time.Minute)}},
	}
	tolerations := failover.DefaultClusterTolerations(failover.DefaultTolerationsConfig{})

	d := failover.EvaluateTolerations(taints, tolerations, now)
	fmt.Println(d.Action, d.After, d.Taint.ToString())

	d = failover.EvaluateTolerations(taints, nil, now)
	fmt.Println(d.Action, d.Taint.ToString())
	// Output:
	// EvictAfter 4m0s cluster.karmada.io/not-ready:NoExecute
	// EvictNow cluster.karmada.io/not-ready:NoExecute
}

// A pull-mode cluster that goes silent becomes Unknown after the monitor
// grace period; a failing push-mode cluster becomes not Ready after the
// failure threshold.
func ExampleNewClusterHealthTracker() {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clk := clocktesting.NewFakePassiveClock(start)
	tracker, err := failover.NewClusterHealthTracker(clk, failover.ClusterHealthConfig{})
	if err != nil {
		fmt.Println(err)
		return
	}
	tracker.Register("pull-1", failover.ClusterSyncModePull)
	tracker.Register("push-1", failover.ClusterSyncModePush)
	healthy := failover.ProbeResult{Reachable: true, Healthy: true}
	_, _ = tracker.ObserveProbe("pull-1", healthy)
	_, _ = tracker.ObserveProbe("push-1", healthy)

	for _, at := range []time.Duration{10 * time.Second, 39 * time.Second, 40 * time.Second} {
		clk.SetTime(start.Add(at))
		push, _ := tracker.ObserveProbe("push-1", failover.ProbeResult{Reachable: false})
		pull, _ := tracker.Ready("pull-1")
		fmt.Printf("+%s push %s/%s, pull %s/%s\n", at, push.Status, push.Reason, pull.Status, pull.Reason)
	}
	// Output:
	// +10s push True/ClusterReady, pull True/ClusterReady
	// +39s push True/ClusterReady, pull True/ClusterReady
	// +40s push False/ClusterNotReachable, pull Unknown/ClusterStatusUnknown
}

// The legacy mode adds the NoExecute taint five minutes after the cluster
// stopped being Ready, and says when to look again until then.
func ExampleComputeClusterTaints() {
	notReadySince := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	conditions := []metav1.Condition{{
		Type: failover.ConditionTypeReady, Status: metav1.ConditionFalse,
		Reason: failover.ReasonClusterNotReachable, LastTransitionTime: metav1.NewTime(notReadySince),
	}}
	cfg := failover.ClusterTaintConfig{NoExecuteAfterTimeout: true}

	diff, _ := failover.ComputeClusterTaints(cfg, conditions, nil, notReadySince.Add(time.Minute))
	for _, t := range diff.Result {
		fmt.Println("+1m", t.ToString())
	}
	fmt.Println("look again at +" + diff.NextCheck.Sub(notReadySince).String())

	diff, _ = failover.ComputeClusterTaints(cfg, conditions, diff.Result, notReadySince.Add(5*time.Minute))
	for _, t := range diff.Result {
		fmt.Println("+5m", t.ToString())
	}
	// Output:
	// +1m cluster.karmada.io/not-ready:NoSchedule
	// look again at +5m0s
	// +5m cluster.karmada.io/not-ready:NoSchedule
	// +5m cluster.karmada.io/not-ready:NoExecute
}

// The planner picks the bindings that must leave a tainted cluster now and
// says when the next toleration runs out. A binding that tolerates the taint
// forever is neither evicted nor queued.
func ExampleClusterFailoverPlanner() {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	taints := []corev1.Taint{{Key: failover.TaintKeyClusterUnreachable, Effect: corev1.TaintEffectNoExecute, TimeAdded: &metav1.Time{Time: now.Add(-200 * time.Second)}}}
	bindings := []failover.ClusterBinding{
		{Key: "shop/web", Tolerations: failover.DefaultClusterTolerations(failover.DefaultTolerationsConfig{})},
		{Key: "shop/cache", Tolerations: []corev1.Toleration{{Key: failover.TaintKeyClusterUnreachable, Operator: corev1.TolerationOpExists, TolerationSeconds: ptr.To[int64](60)}},
			Failover: &failover.ClusterFailoverBehavior{PurgeMode: eviction.PurgeDirectly}},
		{Key: "shop/batch", Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}},
	}
	plan := failover.ClusterFailoverPlanner{}.Plan(taints, bindings, now)
	for _, e := range plan.Evict {
		fmt.Println("evict", e.Key, e.PurgeMode)
	}
	fmt.Println("look again in", plan.NextCheck.Sub(now))
	// Output:
	// evict shop/cache Directly
	// look again in 1m40s
}
