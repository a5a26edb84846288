package why_test

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/preservation"
	"github.com/fleetover/fleetover/scheduling"
	"github.com/fleetover/fleetover/why"
)

func TestClusterHealthReasons(t *testing.T) {
	noExecute := downCluster("x", "", now).Taints
	cases := []struct {
		name   string
		conds  []metav1.Condition
		taints []corev1.Taint
		want   why.Reason
		holds  bool
	}{
		{"ready", []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue}}, nil, why.ReasonClusterReady, false},
		{"not ready, tainted", []metav1.Condition{{Type: "Ready", Status: metav1.ConditionFalse}}, noExecute, why.ReasonClusterNotReady, false},
		{"unknown, tainted", []metav1.Condition{{Type: "Ready", Status: metav1.ConditionUnknown}}, noExecute, why.ReasonClusterUnreachable, false},
		{"no Ready condition, tainted", nil, noExecute, why.ReasonClusterNoReadyStatus, false},
		{"not ready, no NoExecute taint yet", []metav1.Condition{{Type: "Ready", Status: metav1.ConditionFalse}}, nil, why.ReasonClusterNotReadyNoTaint, true},
	}
	for _, tc := range cases {
		e := why.ClusterHealth("x", tc.conds, tc.taints)
		if e.Reason != tc.want || e.Holds != tc.holds || e.Step != why.StepClusterHealth || e.Cluster != "x" {
			t.Errorf("%s: got %s holds=%v, want %s holds=%v", tc.name, e.Reason, e.Holds, tc.want, tc.holds)
		}
	}
}

func TestTolerationReasons(t *testing.T) {
	taints := downCluster("x", "", now.Add(-time.Minute)).Taints
	cases := []struct {
		name        string
		tolerations []corev1.Toleration
		want        why.Reason
		holds       bool
	}{
		{"forever", []corev1.Toleration{{Operator: corev1.TolerationOpExists}}, why.ReasonTaintToleratedForever, true},
		{"not expired", defaultTolerations(), why.ReasonTolerationNotExpired, true},
		{"expired", []corev1.Toleration{{Key: failover.TaintKeyClusterUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr(int64(30))}}, why.ReasonTolerationExpired, false},
		{"not tolerated", nil, why.ReasonTaintNotTolerated, false},
	}
	for _, tc := range cases {
		d := failover.TolerationOptions{}.Evaluate(taints, tc.tolerations, now)
		e := why.Toleration("x", d)
		if e.Reason != tc.want || e.Holds != tc.holds {
			t.Errorf("%s: got %s holds=%v, want %s holds=%v", tc.name, e.Reason, e.Holds, tc.want, tc.holds)
		}
	}
}

// TestTolerationExplanationAgreesWithDecision: on generated taints and
// tolerations, the explanation holds exactly when the decision keeps the
// workload, and names the decision's deadline.
func TestTolerationExplanationAgreesWithDecision(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	keys := []string{failover.TaintKeyClusterNotReady, failover.TaintKeyClusterUnreachable, "dedicated"}
	for i := 0; i < 20000; i++ {
		var taints []corev1.Taint
		for n := r.IntN(3); n >= 0; n-- {
			taints = append(taints, corev1.Taint{Key: keys[r.IntN(len(keys))], Effect: corev1.TaintEffectNoExecute,
				TimeAdded: &metav1.Time{Time: now.Add(-time.Duration(r.IntN(600)) * time.Second)}})
		}
		var tols []corev1.Toleration
		for n := r.IntN(3); n > 0; n-- {
			tol := corev1.Toleration{Key: keys[r.IntN(len(keys))], Operator: corev1.TolerationOpExists}
			if r.IntN(4) > 0 {
				tol.TolerationSeconds = ptr(int64(r.IntN(600)))
			}
			tols = append(tols, tol)
		}
		d := failover.TolerationOptions{}.Evaluate(taints, tols, now)
		e := why.Toleration("x", d)
		if e.Holds != (d.Action != failover.EvictNow) || !e.Until.Equal(map[bool]time.Time{true: d.At, false: {}}[d.Action == failover.EvictAfter]) {
			t.Fatalf("case %d: decision %v at %v, explanation %s holds=%v until %v", i, d.Action, d.At, e.Reason, e.Holds, e.Until)
		}
	}
}

func TestPacingReasons(t *testing.T) {
	if e := why.Pacing("x", eviction.DisruptionState{Mode: eviction.DisruptionFull}, time.Time{}, false, now); e.Reason != why.ReasonFullDisruption || !e.Holds {
		t.Errorf("full disruption: %s", e.Reason)
	}
	if e := why.Pacing("x", eviction.DisruptionState{Mode: eviction.DisruptionPartial}, now.Add(time.Second), true, now); e.Reason != why.ReasonEvictionPaced || !e.Until.Equal(now.Add(time.Second)) {
		t.Errorf("paced: %s until %v", e.Reason, e.Until)
	}
	if e := why.Pacing("x", eviction.DisruptionState{Mode: eviction.DisruptionNormal}, now, true, now); e.Reason != why.ReasonEvictionDue || e.Holds {
		t.Errorf("due: %s holds=%v", e.Reason, e.Holds)
	}
}

func TestApplicationHealthReasons(t *testing.T) {
	policy := &failover.ApplicationFailoverBehavior{DecisionConditions: failover.DecisionConditions{TolerationSeconds: ptr(int32(60))}}
	cases := []struct {
		name    string
		status  health.Status
		records []failover.WorkloadHealthRecord
		want    why.Reason
	}{
		{"healthy", health.Healthy, nil, why.ReasonWorkloadHealthy},
		{"unknown", health.Unknown, nil, why.ReasonHealthUnknown},
		{"countdown", health.Unhealthy, []failover.WorkloadHealthRecord{{ClusterName: "x", Settled: true, FailingSince: &metav1.Time{Time: now.Add(-30 * time.Second)}}}, why.ReasonUnhealthyNotExpired},
		{"due", health.Unhealthy, []failover.WorkloadHealthRecord{{ClusterName: "x", Settled: true, FailingSince: &metav1.Time{Time: now.Add(-2 * time.Minute)}}}, why.ReasonApplicationEvictionDue},
	}
	for _, tc := range cases {
		in := failover.DetectorInput{Policy: policy, Clusters: []string{"x", "y"}, Records: tc.records,
			Health: []failover.ObservedHealth{{ClusterName: "x", Status: tc.status}, {ClusterName: "y", Status: health.Healthy}}}
		det, err := failover.DetectApplicationFailure(in, now, failover.DetectorConfig{})
		if err != nil {
			t.Fatal(err)
		}
		if e := why.ApplicationHealth("x", in, det); e.Reason != tc.want {
			t.Errorf("%s: got %s, want %s", tc.name, e.Reason, tc.want)
		}
	}
	// Pre-conditions: a delay not yet run out keeps the countdown from
	// starting.
	delayed := &failover.ApplicationFailoverBehavior{PreConditions: &failover.PreConditions{DelaySeconds: ptr(int32(600))}}
	in := failover.DetectorInput{Policy: delayed, Clusters: []string{"x"},
		Health: []failover.ObservedHealth{{ClusterName: "x", Status: health.Unhealthy, CollectedSince: metav1.Time{Time: now.Add(-time.Second)}}}}
	det, err := failover.DetectApplicationFailure(in, now, failover.DetectorConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if e := why.ApplicationHealth("x", in, det); e.Reason != why.ReasonPreConditionsPending || !e.Holds {
		t.Errorf("delay: got %s", e.Reason)
	}
}

func TestDispatchReasons(t *testing.T) {
	if _, ok := why.Dispatch("x", false, eviction.DispatchGate{}); ok {
		t.Error("an open gate has nothing to say")
	}
	if e, _ := why.Dispatch("x", true, eviction.DispatchGate{}); e.Reason != why.ReasonDispatchSuspended || !e.Holds {
		t.Errorf("suspended: %s", e.Reason)
	}
	if e, _ := why.Dispatch("x", false, eviction.DispatchGate{Blocked: true, BlockedBy: "y"}); e.Reason != why.ReasonWaitingForOldCopy || !e.Holds {
		t.Errorf("blocked: %s", e.Reason)
	}
	if e, _ := why.Dispatch("x", false, eviction.DispatchGate{Escaped: true}); e.Reason != why.ReasonOldCopyEscaped || e.Holds || !e.Warning ||
		!strings.Contains(e.Message, "may still run behind a partition") {
		t.Errorf("escaped off a cluster that cannot fence: %+v", e)
	}
	if e, _ := why.Dispatch("x", false, eviction.DispatchGate{Escaped: true, Fenced: true}); e.Reason != why.ReasonOldCopyFenced || e.Holds || e.Warning {
		t.Errorf("escaped after a fence: %+v", e)
	}
}

func TestStateReasons(t *testing.T) {
	task := func(mode eviction.PurgeMode) []eviction.GracefulEvictionTask {
		return []eviction.GracefulEvictionTask{{FromCluster: "a", PurgeMode: mode, ClustersBeforeFailover: []string{"a"},
			PreservedLabelState: map[string]string{"job-id": "42"}}}
	}
	one := []eviction.TargetCluster{{Name: "b"}}
	two := []eviction.TargetCluster{{Name: "b"}, {Name: "c"}}
	cases := []struct {
		name    string
		targets []eviction.TargetCluster
		tasks   []eviction.GracefulEvictionTask
		policy  preservation.InjectionPolicy
		want    why.Reason
	}{
		{"none", one, nil, preservation.InjectionPolicy{}, why.ReasonNoStateToCarry},
		{"carried", one, task(eviction.PurgeDirectly), preservation.InjectionPolicy{}, why.ReasonStateCarried},
		{"old copy runs", one, task(eviction.PurgeGracefully), preservation.InjectionPolicy{}, why.ReasonStateWhileOldCopyRuns},
		{"opted in", one, task(eviction.PurgeGracefully), preservation.InjectionPolicy{WhileOldCopyRuns: true}, why.ReasonStateCarried},
		{"several targets", two, task(eviction.PurgeDirectly), preservation.InjectionPolicy{}, why.ReasonStateSeveralTargets},
	}
	for _, tc := range cases {
		e := why.State("b", tc.targets, tc.tasks, tc.policy)
		_, injected := tc.policy.StateFor("b", tc.targets, tc.tasks)
		if e.Reason != tc.want || injected != (e.Reason == why.ReasonStateCarried) {
			t.Errorf("%s: got %s (StateFor injects: %v), want %s", tc.name, e.Reason, injected, tc.want)
		}
	}
}

func TestGracefulEvictionReasons(t *testing.T) {
	a := eviction.Assessment{
		Removed:        []eviction.RemovedTask{{Task: eviction.GracefulEvictionTask{FromCluster: "a"}, Reason: eviction.RemovedReplacementHealthy}},
		Kept:           []eviction.GracefulEvictionTask{{FromCluster: "b"}, {FromCluster: "c", SuppressDeletion: ptr(true)}},
		NextAssessment: now.Add(time.Minute),
	}
	got := why.GracefulEviction(a)
	want := []why.Reason{why.ReasonGracefulEvictionDone, why.ReasonWaitingForReplacement, why.ReasonOldCopyKeptUntilRemoved}
	if len(got) != len(want) {
		t.Fatalf("got %d explanations, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Reason != want[i] {
			t.Errorf("explanation %d: got %s, want %s", i, got[i].Reason, want[i])
		}
	}
	if !got[1].Until.Equal(now.Add(time.Minute)) {
		t.Errorf("a kept task waits until the next assessment, got %v", got[1].Until)
	}
}

func TestEvictionTaskReason(t *testing.T) {
	e := why.EvictionTask(eviction.GracefulEvictionTask{FromCluster: "a", Reason: eviction.ReasonTaintUntolerated, CreationTimestamp: &metav1.Time{Time: now}})
	if e.Reason != why.ReasonEvictionInProgress || !e.Since.Equal(now) || e.Holds {
		t.Errorf("got %+v", e)
	}
}

func TestClusterTaintsReasons(t *testing.T) {
	cfg := failover.ClusterTaintConfig{NoExecuteAfterTimeout: true}
	ready := []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue}}
	diff, err := failover.ComputeClusterTaints(cfg, ready, nil, now)
	if err != nil {
		t.Fatal(err)
	}
	if e := why.ClusterTaints("x", diff); e.Reason != why.ReasonTaintsUnchanged {
		t.Errorf("ready: got %s", e.Reason)
	}
	down := []metav1.Condition{{Type: "Ready", Status: metav1.ConditionUnknown, LastTransitionTime: metav1.Time{Time: now}}}
	diff, err = failover.ComputeClusterTaints(cfg, down, nil, now)
	if err != nil {
		t.Fatal(err)
	}
	e := why.ClusterTaints("x", diff)
	if e.Reason != why.ReasonTaintsChanged || !e.Until.Equal(diff.NextCheck) || diff.NextCheck.IsZero() {
		t.Errorf("unreachable: got %s until %v, the NoExecute taint is due at %v", e.Reason, e.Until, diff.NextCheck)
	}
}

func TestEvictReasons(t *testing.T) {
	targets := []eviction.TargetCluster{{Name: "a"}, {Name: "b"}}
	evict := func(targets []eviction.TargetCluster, tasks []eviction.GracefulEvictionTask, cluster string) eviction.EvictResult {
		t.Helper()
		res, err := eviction.Evict(targets, tasks, eviction.Eviction{Cluster: cluster, Producer: eviction.ProducerTaintManager, Reason: eviction.ReasonTaintUntolerated})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	first := evict(targets, nil, "a")
	if e := why.Evict("a", first); e.Reason != why.ReasonEvictionTaskAdded {
		t.Errorf("first eviction: got %s (outcome %s)", e.Reason, first.Outcome)
	}
	again := evict(first.Targets, first.Tasks, "a")
	if e := why.Evict("a", again); e.Reason != why.ReasonEvictionAlreadyQueued {
		t.Errorf("second eviction: got %s (outcome %s)", e.Reason, again.Outcome)
	}
	if e := why.Evict("c", evict(targets, nil, "c")); e.Reason != why.ReasonEvictionNotPlaced {
		t.Errorf("not placed: got %s", e.Reason)
	}
}

func TestFiltersExplainEachRejection(t *testing.T) {
	down := downCluster("b", "", now).Taints
	res := scheduling.RunFilters(&scheduling.Workload{Now: now}, []scheduling.Cluster{{Name: "a"}, {Name: "b", Taints: down}, {Name: "c", Taints: down}},
		scheduling.TaintToleration(failover.TolerationOptions{}))
	got := why.Filters(res)
	if len(got) != 2 || got[0].Cluster != "b" || got[1].Cluster != "c" {
		t.Fatalf("got %v, want one explanation for b and one for c", got)
	}
	for _, e := range got {
		if e.Reason != why.ReasonClusterFiltered || !strings.Contains(e.Message, res.Rejected[e.Cluster].Filter) {
			t.Errorf("%s: %s %q does not name the filter %q", e.Cluster, e.Reason, e.Message, res.Rejected[e.Cluster].Filter)
		}
	}
}
