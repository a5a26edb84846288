package why_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/preservation"
	"github.com/fleetover/fleetover/why"
)

// notReady is a cluster Ready=False since `since` with only the NoSchedule
// health taint, as Karmada's cluster controller leaves it.
func notReady(name string, since time.Time) why.Cluster {
	return why.Cluster{Name: name,
		Conditions: []metav1.Condition{{Type: "Ready", Status: metav1.ConditionFalse, Reason: "ClusterNotReachable", LastTransitionTime: metav1.Time{Time: since}}},
		Taints:     []corev1.Taint{{Key: failover.TaintKeyClusterNotReady, Effect: corev1.TaintEffectNoSchedule, TimeAdded: &metav1.Time{Time: since}}}}
}

func karmadaPolicy() failover.ConditionTaintPolicy {
	return failover.ConditionTaintPolicy{Name: "not-ready",
		AddOnConditions: []failover.ConditionMatch{{ConditionType: "Ready", Operator: failover.MatchIn, StatusValues: []metav1.ConditionStatus{"False", "Unknown"}}},
		Taints:          []corev1.Taint{{Key: failover.TaintKeyClusterNotReady, Effect: corev1.TaintEffectNoExecute}}}
}

// "My workload did not fail over although the cluster is NotReady": on
// Karmada's taint configuration (no timed NoExecute health taint, no
// ClusterTaintPolicy), the explanation is a warning naming the object to
// create; with the timed taint it holds until the taint is due; with a
// matching policy it names the policy.
func TestNothingEvictsWithoutANoExecuteTaintSource(t *testing.T) {
	since := now.Add(-10 * time.Minute)
	in := why.Input{Targets: []eviction.TargetCluster{{Name: "a"}}, Clusters: []why.Cluster{notReady("a", since)},
		Tolerations: defaultTolerations(), Now: now}

	in.ClusterTaints = &failover.ClusterTaintConfig{} // Karmada's
	held, ok := why.Workload(in).Held()
	if !ok || held.Reason != why.ReasonNoNoExecuteTaintSource || !held.Warning {
		t.Fatalf("held = %+v, want a NoNoExecuteTaintSource warning", held)
	}
	for _, want := range []string{"nothing will evict the workload until a ClusterTaintPolicy adds one", "kind: ClusterTaintPolicy", "effect: NoExecute"} {
		if !strings.Contains(held.Message, want) {
			t.Errorf("message %q lacks %q", held.Message, want)
		}
	}

	in.ClusterTaints = &failover.ClusterTaintConfig{NoExecuteAfterTimeout: true, EvictionTimeout: 15 * time.Minute}
	held, _ = why.Workload(in).Held()
	if held.Reason != why.ReasonClusterNotReadyNoTaint || held.Warning || !held.Until.Equal(since.Add(15*time.Minute)) {
		t.Errorf("timed taint: held = %+v, want a wait until %s", held, since.Add(15*time.Minute))
	}

	in.ClusterTaints = &failover.ClusterTaintConfig{Policies: []failover.ConditionTaintPolicy{karmadaPolicy()}}
	held, _ = why.Workload(in).Held()
	if held.Reason != why.ReasonClusterNotReadyNoTaint || held.Warning || !strings.Contains(held.Message, "ClusterTaintPolicy not-ready adds a NoExecute taint") {
		t.Errorf("policy: held = %+v", held)
	}

	// The same answer at admission.
	pin := why.PolicyInput{ClusterTaints: &failover.ClusterTaintConfig{}}
	if ws := why.Warnings(pin); len(ws) != 1 || ws[0].Reason != why.ReasonNoNoExecuteTaintSource || ws[0].Field != "failover" {
		t.Errorf("Warnings = %v, want one NoNoExecuteTaintSource on failover", ws)
	}
	pin.ClusterTaints = &failover.ClusterTaintConfig{Policies: []failover.ConditionTaintPolicy{karmadaPolicy()}}
	if ws := why.Warnings(pin); len(ws) != 0 {
		t.Errorf("with the policy, Warnings = %v", ws)
	}
	pin.Gates.ClusterFailoverOff = true
	pin.ClusterTaints = &failover.ClusterTaintConfig{}
	for _, w := range why.Warnings(pin) {
		if w.Reason == why.ReasonNoNoExecuteTaintSource {
			t.Errorf("cluster failover off: %v (the gate is the reason, not the taint)", w)
		}
	}
}

var flinkKind = schema.GroupVersionKind{Group: "flink.apache.org", Version: "v1beta1", Kind: "FlinkDeployment"}

// "My Flink job restarted from scratch": a FlinkDeployment whose failover
// preserved no state gets NoStateToCarry with the field to add, in the
// chain and at admission.
func TestFlinkWithoutStatePreservation(t *testing.T) {
	task := eviction.GracefulEvictionTask{FromCluster: "a", PurgeMode: eviction.PurgeDirectly, Reason: eviction.ReasonTaintUntolerated,
		Producer: eviction.ProducerTaintManager, CreationTimestamp: &metav1.Time{Time: now}}
	in := why.Input{Targets: []eviction.TargetCluster{{Name: "b"}}, Tasks: []eviction.GracefulEvictionTask{task},
		Clusters: []why.Cluster{notReady("a", now), readyCluster("b", "")}, Kind: flinkKind,
		Injection: &preservation.InjectionPolicy{}, Dispatched: []string{"b"}, Now: now}
	c := why.Workload(in)
	var state *why.Explanation
	for i := range c.Steps {
		if c.Steps[i].Step == why.StepState {
			state = &c.Steps[i]
		}
	}
	if state == nil || state.Reason != why.ReasonNoStateToCarry || !state.Warning || !strings.Contains(state.Message, "failover.cluster.statePreservation") {
		t.Fatalf("state step %+v, want a NoStateToCarry warning naming failover.cluster.statePreservation", state)
	}
	in.Kind = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	for _, s := range why.Workload(in).Steps {
		if s.Step == why.StepState {
			t.Errorf("a Deployment has no state to lose: %+v", s)
		}
	}
	ws := why.Warnings(why.PolicyInput{Kind: flinkKind, Policy: &failover.FailoverBehavior{Cluster: &failover.ClusterFailoverBehavior{PurgeMode: eviction.PurgeDirectly}}})
	if len(ws) != 1 || ws[0].Reason != why.ReasonNoStateToCarry || ws[0].Field != "failover.cluster.statePreservation" {
		t.Errorf("Warnings = %v", ws)
	}
}

// State withheld while the old copy runs is what holds the workload: the
// binding condition reports it, not WaitingForHealthyReplacement.
func TestStateWithheldHolds(t *testing.T) {
	task := eviction.GracefulEvictionTask{FromCluster: "a", PurgeMode: eviction.PurgeGracefully, Reason: eviction.ReasonTaintUntolerated,
		Producer: eviction.ProducerTaintManager, CreationTimestamp: &metav1.Time{Time: now.Add(-time.Minute)},
		PreservedLabelState: map[string]string{"failover.fleetover.io/jobid": "j1"}}
	in := why.Input{Targets: []eviction.TargetCluster{{Name: "b"}}, Tasks: []eviction.GracefulEvictionTask{task},
		Clusters: []why.Cluster{notReady("a", now), readyCluster("b", "")}, Kind: flinkKind,
		Injection: &preservation.InjectionPolicy{}, Now: now}
	held, ok := why.Workload(in).Held()
	if !ok || held.Reason != why.ReasonStateWhileOldCopyRuns {
		t.Errorf("held = %+v, want StateWithheldWhileOldCopyRuns", held)
	}
}

// One clock: a pacer on another clock (the real one, months ahead) is
// explained on Input.Now's; an eviction due now has no "until".
func TestOneClock(t *testing.T) {
	pacerClock := clocktesting.NewFakeClock(time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC))
	p, err := eviction.NewPacer(eviction.PacerConfig{Clock: pacerClock, Rate: 0.1, Burst: 1})
	if err != nil {
		t.Fatal(err)
	}
	p.Observe([]eviction.ClusterHealthView{{Name: "a"}, {Name: "b", Healthy: true}, {Name: "c", Healthy: true}})
	if !p.TryAccept("") {
		t.Fatal("the first eviction is refused")
	}
	inNow := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	in := why.Input{Targets: []eviction.TargetCluster{{Name: "a"}}, Clusters: []why.Cluster{downCluster("a", "", inNow.Add(-time.Hour))},
		Tolerations: defaultTolerations(), Pacer: p, Now: inNow}
	held, ok := why.Workload(in).Held()
	if !ok || held.Reason != why.ReasonEvictionPaced {
		t.Fatalf("held = %+v, want EvictionPaced", held)
	}
	if want := inNow.Add(10 * time.Second); !held.Until.Equal(want) {
		t.Errorf("paced until %s, want %s (Input.Now plus the bucket's wait)", held.Until, want)
	}
	due := why.Pacing("a", eviction.DisruptionState{Mode: eviction.DisruptionNormal, Rate: 1}, time.Time{}, true, inNow)
	if due.Reason != why.ReasonEvictionDue || !due.Until.IsZero() || strings.Contains(due.String(), "until") {
		t.Errorf("due = %q, want no until", due.String())
	}
}

// Evict and why agree: the zero Eviction is an InvalidEvictionError, and
// its zero result is explained as refused, never as "not placed".
func TestEvictValidationAgrees(t *testing.T) {
	res, err := eviction.Evict([]eviction.TargetCluster{{Name: "a"}}, nil, eviction.Eviction{})
	var inv *eviction.InvalidEvictionError
	if !errors.As(err, &inv) {
		t.Fatalf("Evict(zero) err = %v, want an InvalidEvictionError", err)
	}
	for _, e := range []why.Explanation{why.Evict("", res), why.EvictFailed("", err)} {
		if e.Reason != why.ReasonInvalidEviction || !e.Holds || !e.Warning {
			t.Errorf("explanation %+v, want InvalidEviction", e)
		}
	}
	if e := why.EvictFailed("", err); !strings.Contains(e.Message, "fromCluster") {
		t.Errorf("message %q does not name the field", e.Message)
	}
	mistyped := eviction.Eviction{Cluster: "a", PurgeMode: "Sometimes", Reason: eviction.ReasonTaintUntolerated, Producer: eviction.ProducerTaintManager}
	if _, err := eviction.Evict([]eviction.TargetCluster{{Name: "a"}}, nil, mistyped); !errors.As(err, &inv) {
		t.Errorf("a mistyped purge mode: err = %v, want an InvalidEvictionError too", err)
	}
}
