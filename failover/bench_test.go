package failover_test

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
)

// BenchmarkEvaluateTolerations: 2 taints x 2 tolerations. Target <= 25
// ns/op and 0 allocs.
func BenchmarkEvaluateTolerations(b *testing.B) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tolerations := failover.DefaultClusterTolerations(failover.DefaultTolerationsConfig{})
	variants := map[string][]corev1.Taint{
		// The legacy mode's cluster after the eviction timeout.
		"NoSchedule+NoExecute": {
			{Key: failover.TaintKeyClusterNotReady, Effect: corev1.TaintEffectNoSchedule},
			{Key: failover.TaintKeyClusterNotReady, Effect: corev1.TaintEffectNoExecute, TimeAdded: &metav1.Time{Time: now.Add(-time.Minute)}},
		},
		// Two NoExecute taints, the second matched by the second toleration.
		"NoExecute+NoExecute": {
			{Key: failover.TaintKeyClusterNotReady, Effect: corev1.TaintEffectNoExecute, TimeAdded: &metav1.Time{Time: now.Add(-time.Minute)}},
			{Key: failover.TaintKeyClusterUnreachable, Effect: corev1.TaintEffectNoExecute, TimeAdded: &metav1.Time{Time: now.Add(-2 * time.Minute)}},
		},
	}
	for name, taints := range variants {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var d failover.TolerationDecision
			cpu := startCPU()
			for b.Loop() {
				d = failover.EvaluateTolerations(taints, tolerations, now)
			}
			cpu.report(b)
			if d.Action != failover.EvictAfter {
				b.Fatalf("unexpected decision %s", d.Action)
			}
		})
	}
}

// BenchmarkClusterFailoverPlanner100k plans one cluster outage over 100,000
// bindings: a third untolerating, a third on the default 300 s tolerations,
// a third tolerating forever; half with a cluster failover policy.
func BenchmarkClusterFailoverPlanner100k(b *testing.B) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	taints := []corev1.Taint{
		{Key: failover.TaintKeyClusterNotReady, Effect: corev1.TaintEffectNoSchedule},
		{Key: failover.TaintKeyClusterNotReady, Effect: corev1.TaintEffectNoExecute, TimeAdded: &metav1.Time{Time: now.Add(-time.Minute)}},
	}
	defaults := failover.DefaultClusterTolerations(failover.DefaultTolerationsConfig{})
	forever := []corev1.Toleration{{Key: failover.TaintKeyClusterNotReady, Operator: corev1.TolerationOpExists}}
	policy := &failover.ClusterFailoverBehavior{PurgeMode: eviction.PurgeGracefully, GracePeriodSeconds: ptr.To[int32](100)}
	bindings := make([]failover.ClusterBinding, 100_000)
	for i := range bindings {
		bindings[i].Key = fmt.Sprintf("ns-%d/binding-%d", i%100, i)
		switch i % 3 {
		case 1:
			bindings[i].Tolerations = defaults
		case 2:
			bindings[i].Tolerations = forever
		}
		if i%2 == 0 {
			bindings[i].Failover = policy
		}
	}
	planner := failover.ClusterFailoverPlanner{}
	var plan failover.ClusterFailoverPlan
	b.ReportAllocs()
	for b.Loop() {
		planner.PlanInto(&plan, taints, bindings, now)
	}
	if len(plan.Evict) != 33_334 || plan.Waiting != 33_333 {
		b.Fatalf("evict %d waiting %d", len(plan.Evict), plan.Waiting)
	}
}

// BenchmarkComputeClusterTaintsReady: a Ready cluster with no taints and one
// policy that does not match, the steady state of a fleet. Target 0 allocs.
func BenchmarkComputeClusterTaintsReady(b *testing.B) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	cfg := failover.ClusterTaintConfig{NoExecuteAfterTimeout: true, Policies: []failover.ConditionTaintPolicy{{
		Name:            "network",
		AddOnConditions: []failover.ConditionMatch{{ConditionType: "NetworkAvailable", Operator: failover.MatchIn, StatusValues: []metav1.ConditionStatus{metav1.ConditionFalse}}},
		Taints:          []corev1.Taint{{Key: "network", Effect: corev1.TaintEffectNoExecute}},
	}}}
	conds := []metav1.Condition{
		{Type: failover.ConditionTypeReady, Status: metav1.ConditionTrue, LastTransitionTime: metav1.NewTime(now.Add(-time.Hour))},
		{Type: "NetworkAvailable", Status: metav1.ConditionTrue},
	}
	b.ReportAllocs()
	for b.Loop() {
		if d, err := failover.ComputeClusterTaints(cfg, conds, nil, now); err != nil || d.Changed {
			b.Fatal(d, err)
		}
	}
}

// BenchmarkComputeClusterTaints: a legacy-mode cluster past its eviction
// timeout with one policy.
func BenchmarkComputeClusterTaints(b *testing.B) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	cfg := failover.ClusterTaintConfig{NoExecuteAfterTimeout: true, Policies: []failover.ConditionTaintPolicy{{
		Name:            "net",
		AddOnConditions: []failover.ConditionMatch{{ConditionType: "NetworkAvailable", Operator: failover.MatchIn, StatusValues: []metav1.ConditionStatus{metav1.ConditionFalse}}},
		Taints:          []corev1.Taint{{Key: "network", Effect: corev1.TaintEffectNoExecute}},
	}}}
	conds := []metav1.Condition{
		{Type: failover.ConditionTypeReady, Status: metav1.ConditionFalse, LastTransitionTime: metav1.NewTime(now.Add(-time.Hour))},
		{Type: "NetworkAvailable", Status: metav1.ConditionTrue},
	}
	current := []corev1.Taint{
		{Key: failover.TaintKeyClusterNotReady, Effect: corev1.TaintEffectNoSchedule},
		{Key: failover.TaintKeyClusterNotReady, Effect: corev1.TaintEffectNoExecute, TimeAdded: &metav1.Time{Time: now.Add(-time.Minute)}},
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := failover.ComputeClusterTaints(cfg, conds, current, now); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkClusterHealthObserveProbe: one report on a tracked cluster.
func BenchmarkClusterHealthObserveProbe(b *testing.B) {
	clk := clocktesting.NewFakePassiveClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	tr := mustOK(failover.NewClusterHealthTracker(clk, failover.ClusterHealthConfig{}))
	tr.Register("m1", failover.ClusterSyncModePull)
	probe := failover.ProbeResult{Reachable: true, Healthy: true}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tr.ObserveProbe("m1", probe); err != nil {
			b.Fatal(err)
		}
	}
}
