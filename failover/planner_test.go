package failover_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
)

var planNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestClusterFailoverPlanner(t *testing.T) {
	const nr = failover.TaintKeyClusterNotReady
	taints := []corev1.Taint{
		{Key: nr, Effect: corev1.TaintEffectNoSchedule},
		noExecute(nr, planNow.Add(-100*time.Second)),
	}
	defaults := failover.DefaultClusterTolerations(failover.DefaultTolerationsConfig{})
	bindings := []failover.ClusterBinding{
		{Key: "ns/untolerated"},
		{Key: "ns/default-300s", Tolerations: defaults},
		{Key: "ns/forever", Tolerations: []corev1.Toleration{tolerate(nr, nil)}},
		{Key: "ns/directly", Failover: &failover.ClusterFailoverBehavior{PurgeMode: eviction.PurgeDirectly}},
		{Key: "ns/expired", Tolerations: []corev1.Toleration{tolerate(nr, ptr.To[int64](60))},
			Failover: &failover.ClusterFailoverBehavior{PurgeMode: eviction.LegacyPurgeGraciously, GracePeriodSeconds: ptr.To[int32](100)}},
		{Key: "ns/150s", Tolerations: []corev1.Toleration{tolerate(nr, ptr.To[int64](150))}},
	}
	planner := failover.ClusterFailoverPlanner{Defaults: failover.ClusterFailoverDefaults{GracePeriodSeconds: 120}}
	plan := planner.Plan(taints, bindings, planNow)

	type row struct {
		Key   string
		Index int
		Mode  eviction.PurgeMode
		Grace int32
	}
	var got []row
	for _, e := range plan.Evict {
		got = append(got, row{e.Key, e.Index, e.PurgeMode, e.GracePeriodSeconds})
		if e.Taint != &taints[1] {
			t.Errorf("%s: deciding taint %v, want the NoExecute one of the input", e.Key, e.Taint)
		}
	}
	want := []row{
		{"ns/untolerated", 0, eviction.PurgeGracefully, 120},
		{"ns/directly", 3, eviction.PurgeDirectly, 0},
		{"ns/expired", 4, eviction.PurgeGracefully, 100},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("Evict (-want +got):\n%s", d)
	}
	if !plan.NextCheck.Equal(planNow.Add(50 * time.Second)) {
		t.Errorf("NextCheck = %v, want +50s (the 150 s toleration)", plan.NextCheck.Sub(planNow))
	}
	if plan.Waiting != 2 || plan.Unstamped {
		t.Errorf("Waiting = %d, Unstamped = %v; want 2, false", plan.Waiting, plan.Unstamped)
	}
}

func TestClusterFailoverPlannerForeverIsNotQueued(t *testing.T) {
	// Karmada #7612: a binding that tolerates forever must not be requeued.
	taints := []corev1.Taint{noExecute(failover.TaintKeyClusterUnreachable, planNow.Add(-time.Hour))}
	bindings := []failover.ClusterBinding{{Key: "a", Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}}}}
	plan := failover.ClusterFailoverPlanner{}.Plan(taints, bindings, planNow)
	if len(plan.Evict) != 0 || !plan.NextCheck.IsZero() || plan.Waiting != 0 {
		t.Fatalf("got %+v", plan)
	}
}

func TestClusterFailoverPlannerWithoutNoExecute(t *testing.T) {
	taints := []corev1.Taint{{Key: failover.TaintKeyClusterNotReady, Effect: corev1.TaintEffectNoSchedule}}
	plan := failover.ClusterFailoverPlanner{}.Plan(taints, []failover.ClusterBinding{{Key: "untolerating"}}, planNow)
	if len(plan.Evict) != 0 || !plan.NextCheck.IsZero() {
		t.Fatalf("NoSchedule must not evict: %+v", plan)
	}
}

func TestClusterFailoverPlannerUnstampedTaint(t *testing.T) {
	taints := []corev1.Taint{{Key: failover.TaintKeyClusterNotReady, Effect: corev1.TaintEffectNoExecute}}
	bindings := []failover.ClusterBinding{{Key: "a", Tolerations: failover.DefaultClusterTolerations(failover.DefaultTolerationsConfig{})}}
	plan := failover.ClusterFailoverPlanner{}.Plan(taints, bindings, planNow)
	if !plan.Unstamped || !plan.NextCheck.Equal(planNow.Add(300*time.Second)) {
		t.Fatalf("got %+v", plan)
	}
}

func TestClusterFailoverPlannerPlanIntoReuses(t *testing.T) {
	taints := []corev1.Taint{noExecute(failover.TaintKeyClusterNotReady, planNow)}
	bindings := make([]failover.ClusterBinding, 1000)
	for i := range bindings {
		bindings[i].Key = fmt.Sprintf("ns/b%d", i)
	}
	var plan failover.ClusterFailoverPlan
	planner := failover.ClusterFailoverPlanner{}
	planner.PlanInto(&plan, taints, bindings, planNow)
	if len(plan.Evict) != 1000 {
		t.Fatalf("evicted %d, want 1000", len(plan.Evict))
	}
	if n := testing.AllocsPerRun(10, func() { planner.PlanInto(&plan, taints, bindings, planNow) }); n != 0 {
		t.Fatalf("warm PlanInto allocates %v times", n)
	}
}

// evictionTask runs ev through eviction.Evict on a placement of clusters
// and returns the one task it adds.
func evictionTask(t *testing.T, ev eviction.Eviction, clusters ...string) eviction.GracefulEvictionTask {
	t.Helper()
	targets := make([]eviction.TargetCluster, len(clusters))
	for i, c := range clusters {
		targets[i] = eviction.TargetCluster{Name: c}
	}
	res, err := eviction.Evict(targets, nil, ev)
	if err != nil || res.Outcome != eviction.EvictTaskAdded || len(res.Tasks) != 1 {
		t.Fatalf("Evict(%+v) = %+v, %v; want one task added", ev, res, err)
	}
	return res.Tasks[0]
}

func TestClusterEvictionTask(t *testing.T) {
	taint := noExecute(failover.TaintKeyClusterNotReady, planNow)
	e := failover.ClusterEviction{Key: "ns/a", ResolvedClusterFailover: failover.ResolvedClusterFailover{PurgeMode: eviction.PurgeGracefully, GracePeriodSeconds: 100}, Taint: &taint}
	got := evictionTask(t, e.Eviction("member1"), "member1")
	want := eviction.GracefulEvictionTask{
		FromCluster: "member1", PurgeMode: eviction.PurgeGracefully, Reason: eviction.ReasonTaintUntolerated,
		Producer: eviction.ProducerTaintManager, GracePeriodSeconds: ptr.To[int32](100),
		Message:                "cluster taint cluster.karmada.io/not-ready:NoExecute is not tolerated",
		ClustersBeforeFailover: []string{"member1"},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
	e.ResolvedClusterFailover = failover.ResolvedClusterFailover{PurgeMode: eviction.PurgeDirectly}
	if got := evictionTask(t, e.Eviction("member1"), "member1"); got.GracePeriodSeconds != nil || got.PurgeMode != eviction.PurgeDirectly {
		t.Fatalf("Directly task: %+v", got)
	}
}
