package failover_test

import (
	"math"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/fleetover/fleetover/failover"
)

var tolNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func noExecute(key string, added time.Time) corev1.Taint {
	t := corev1.Taint{Key: key, Effect: corev1.TaintEffectNoExecute}
	if !added.IsZero() {
		t.TimeAdded = &metav1.Time{Time: added}
	}
	return t
}

func tolerate(key string, secs *int64) corev1.Toleration {
	return corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: secs}
}

func TestEvaluateTolerations(t *testing.T) {
	const nr, ur = failover.TaintKeyClusterNotReady, failover.TaintKeyClusterUnreachable
	cases := []struct {
		name        string
		taints      []corev1.Taint
		tolerations []corev1.Toleration
		wantAction  failover.EvictionAction
		wantAfter   time.Duration
		wantTaint   int // index into taints, -1 for none
		wantTol     int // index into tolerations, -1 for none
		unstamped   bool
	}{
		{name: "no taints", wantAction: failover.TolerateForever, wantTaint: -1, wantTol: -1},
		{name: "NoSchedule and PreferNoSchedule never evict",
			taints:     []corev1.Taint{{Key: nr, Effect: corev1.TaintEffectNoSchedule}, {Key: "x", Effect: corev1.TaintEffectPreferNoSchedule}},
			wantAction: failover.TolerateForever, wantTaint: -1, wantTol: -1},
		{name: "untolerated NoExecute evicts now",
			taints: []corev1.Taint{noExecute(nr, tolNow)}, tolerations: []corev1.Toleration{tolerate(ur, ptr.To[int64](300))},
			wantAction: failover.EvictNow, wantTaint: 0, wantTol: -1},
		{name: "added 1 s ago with a 60 s toleration: after 59 s",
			taints: []corev1.Taint{noExecute(nr, tolNow.Add(-time.Second))}, tolerations: []corev1.Toleration{tolerate(nr, ptr.To[int64](60))},
			wantAction: failover.EvictAfter, wantAfter: 59 * time.Second, wantTaint: 0, wantTol: 0},
		{name: "expired toleration: now",
			taints: []corev1.Taint{noExecute(nr, tolNow.Add(-61*time.Second))}, tolerations: []corev1.Toleration{tolerate(nr, ptr.To[int64](60))},
			wantAction: failover.EvictNow, wantTaint: 0, wantTol: 0},
		{name: "toleration ends exactly now: now",
			taints: []corev1.Taint{noExecute(nr, tolNow.Add(-60*time.Second))}, tolerations: []corev1.Toleration{tolerate(nr, ptr.To[int64](60))},
			wantAction: failover.EvictNow, wantTaint: 0, wantTol: 0},
		{name: "one nanosecond before the end: after 1ns",
			taints: []corev1.Taint{noExecute(nr, tolNow.Add(-60*time.Second+time.Nanosecond))}, tolerations: []corev1.Toleration{tolerate(nr, ptr.To[int64](60))},
			wantAction: failover.EvictAfter, wantAfter: time.Nanosecond, wantTaint: 0, wantTol: 0},
		{name: "zero toleration seconds: now",
			taints: []corev1.Taint{noExecute(nr, tolNow)}, tolerations: []corev1.Toleration{tolerate(nr, ptr.To[int64](0))},
			wantAction: failover.EvictNow, wantTaint: 0, wantTol: 0},
		{name: "negative toleration seconds: now",
			taints: []corev1.Taint{noExecute(nr, tolNow)}, tolerations: []corev1.Toleration{tolerate(nr, ptr.To[int64](-3))},
			wantAction: failover.EvictNow, wantTaint: 0, wantTol: 0},
		{name: "no toleration seconds: forever",
			taints: []corev1.Taint{noExecute(nr, tolNow)}, tolerations: []corev1.Toleration{tolerate(nr, nil)},
			wantAction: failover.TolerateForever, wantTaint: -1, wantTol: -1},
		{name: "first matching toleration wins, not the longest",
			taints:      []corev1.Taint{noExecute(nr, tolNow)},
			tolerations: []corev1.Toleration{tolerate(nr, ptr.To[int64](10)), tolerate(nr, nil)},
			wantAction:  failover.EvictAfter, wantAfter: 10 * time.Second, wantTaint: 0, wantTol: 0},
		{name: "first matching toleration wins, forever first",
			taints:      []corev1.Taint{noExecute(nr, tolNow)},
			tolerations: []corev1.Toleration{tolerate(nr, nil), tolerate(nr, ptr.To[int64](10))},
			wantAction:  failover.TolerateForever, wantTaint: -1, wantTol: -1},
		{name: "earliest deadline over taints",
			taints:      []corev1.Taint{noExecute(nr, tolNow.Add(-10*time.Second)), noExecute(ur, tolNow.Add(-50*time.Second))},
			tolerations: []corev1.Toleration{tolerate(nr, ptr.To[int64](60)), tolerate(ur, ptr.To[int64](60))},
			wantAction:  failover.EvictAfter, wantAfter: 10 * time.Second, wantTaint: 1, wantTol: 1},
		{name: "one forever, one limited: limited decides",
			taints:      []corev1.Taint{noExecute(nr, tolNow), noExecute(ur, tolNow)},
			tolerations: []corev1.Toleration{tolerate(nr, nil), tolerate(ur, ptr.To[int64](30))},
			wantAction:  failover.EvictAfter, wantAfter: 30 * time.Second, wantTaint: 1, wantTol: 1},
		{name: "one untolerated among tolerated: now",
			taints:      []corev1.Taint{noExecute(nr, tolNow), {Key: "maintenance", Value: "x", Effect: corev1.TaintEffectNoExecute}},
			tolerations: []corev1.Toleration{tolerate(nr, nil)},
			wantAction:  failover.EvictNow, wantTaint: 1, wantTol: -1},
		{name: "wildcard toleration (empty key, Exists) tolerates everything",
			taints:      []corev1.Taint{{Key: "anything", Value: "v", Effect: corev1.TaintEffectNoExecute}},
			tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
			wantAction:  failover.TolerateForever, wantTaint: -1, wantTol: -1},
		{name: "Equal operator compares the value",
			taints:      []corev1.Taint{{Key: "zone", Value: "a", Effect: corev1.TaintEffectNoExecute}},
			tolerations: []corev1.Toleration{{Key: "zone", Value: "b", Effect: corev1.TaintEffectNoExecute}},
			wantAction:  failover.EvictNow, wantTaint: 0, wantTol: -1},
		{name: "Lt operator matches nothing by default, as in Kubernetes and Karmada",
			taints:      []corev1.Taint{{Key: "level", Value: "5", Effect: corev1.TaintEffectNoExecute}},
			tolerations: []corev1.Toleration{{Key: "level", Operator: corev1.TolerationOpLt, Value: "7", Effect: corev1.TaintEffectNoExecute}},
			wantAction:  failover.EvictNow, wantTaint: 0, wantTol: -1},
		{name: "NoSchedule toleration does not tolerate NoExecute",
			taints:      []corev1.Taint{noExecute(nr, tolNow)},
			tolerations: []corev1.Toleration{{Key: nr, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}},
			wantAction:  failover.EvictNow, wantTaint: 0, wantTol: -1},
		{name: "missing TimeAdded counts from now and asks for a stamp",
			taints:      []corev1.Taint{noExecute(nr, time.Time{})},
			tolerations: []corev1.Toleration{tolerate(nr, ptr.To[int64](300))},
			wantAction:  failover.EvictAfter, wantAfter: 300 * time.Second, wantTaint: 0, wantTol: 0, unstamped: true},
		{name: "TimeAdded in the future waits from that time, as Karmada",
			taints:      []corev1.Taint{noExecute(nr, tolNow.Add(time.Hour))},
			tolerations: []corev1.Toleration{tolerate(nr, ptr.To[int64](300))},
			wantAction:  failover.EvictAfter, wantAfter: time.Hour + 300*time.Second, wantTaint: 0, wantTol: 0},
		{name: "zero seconds with TimeAdded in the future waits until TimeAdded",
			taints:      []corev1.Taint{noExecute(nr, tolNow.Add(time.Minute))},
			tolerations: []corev1.Toleration{tolerate(nr, ptr.To[int64](0))},
			wantAction:  failover.EvictAfter, wantAfter: time.Minute, wantTaint: 0, wantTol: 0},
		{name: "a toleration in use counts against every taint it tolerates",
			// The 600 s wildcard is in use for the unreachable taint and
			// also tolerates the not-ready taint, whose own toleration is
			// forever: 600 s after the not-ready taint, as Karmada.
			taints: []corev1.Taint{noExecute(nr, tolNow.Add(-5*time.Minute)), noExecute(ur, tolNow)},
			tolerations: []corev1.Toleration{tolerate(nr, nil),
				{Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](600)}},
			wantAction: failover.EvictAfter, wantAfter: 5 * time.Minute, wantTaint: 0, wantTol: 1},
		{name: "a toleration not in use does not count",
			taints:      []corev1.Taint{noExecute(nr, tolNow.Add(-5*time.Minute))},
			tolerations: []corev1.Toleration{tolerate(nr, nil), tolerate(nr, ptr.To[int64](60))},
			wantAction:  failover.TolerateForever, wantTaint: -1, wantTol: -1},
		{name: "absurd toleration seconds do not overflow",
			taints:      []corev1.Taint{noExecute(nr, tolNow)},
			tolerations: []corev1.Toleration{tolerate(nr, ptr.To[int64](math.MaxInt64))},
			wantAction:  failover.EvictAfter, wantAfter: time.Duration(math.MaxInt64), wantTaint: 0, wantTol: 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := failover.EvaluateTolerations(tc.taints, tc.tolerations, tolNow)
			if d.Action != tc.wantAction || d.After != tc.wantAfter || d.Unstamped != tc.unstamped {
				t.Fatalf("got %s after %s unstamped=%v, want %s after %s unstamped=%v", d.Action, d.After, d.Unstamped, tc.wantAction, tc.wantAfter, tc.unstamped)
			}
			switch tc.wantAction {
			case failover.EvictNow:
				if !d.At.Equal(tolNow) {
					t.Errorf("At = %v, want now", d.At)
				}
			case failover.EvictAfter:
				if !d.At.Equal(tolNow.Add(tc.wantAfter)) && tc.wantAfter != time.Duration(math.MaxInt64) {
					t.Errorf("At = %v, want now + %s", d.At, tc.wantAfter)
				}
			case failover.TolerateForever:
				if !d.At.IsZero() {
					t.Errorf("At = %v, want zero", d.At)
				}
			}
			if got := indexOfTaint(tc.taints, d.Taint); got != tc.wantTaint {
				t.Errorf("deciding taint #%d, want #%d", got, tc.wantTaint)
			}
			if got := indexOfToleration(tc.tolerations, d.Toleration); got != tc.wantTol {
				t.Errorf("matching toleration #%d, want #%d", got, tc.wantTol)
			}
		})
	}
}

func indexOfTaint(s []corev1.Taint, p *corev1.Taint) int {
	for i := range s {
		if &s[i] == p {
			return i
		}
	}
	return -1
}

func indexOfToleration(s []corev1.Toleration, p *corev1.Toleration) int {
	for i := range s {
		if &s[i] == p {
			return i
		}
	}
	return -1
}

func TestEvaluateTolerationsDoesNotAllocate(t *testing.T) {
	taints := []corev1.Taint{noExecute(failover.TaintKeyClusterNotReady, tolNow.Add(-time.Minute)), {Key: failover.TaintKeyClusterNotReady, Effect: corev1.TaintEffectNoSchedule}}
	tolerations := failover.DefaultClusterTolerations(failover.DefaultTolerationsConfig{})
	if n := testing.AllocsPerRun(100, func() { failover.EvaluateTolerations(taints, tolerations, tolNow) }); n != 0 {
		t.Fatalf("EvaluateTolerations allocates %v times per call", n)
	}
}

func TestDefaultClusterTolerations(t *testing.T) {
	got := failover.DefaultClusterTolerations(failover.DefaultTolerationsConfig{})
	want := []corev1.Toleration{
		tolerate(failover.TaintKeyClusterNotReady, ptr.To[int64](300)),
		tolerate(failover.TaintKeyClusterUnreachable, ptr.To[int64](300)),
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("defaults (-want +got):\n%s", diff)
	}
	custom := failover.DefaultClusterTolerations(failover.DefaultTolerationsConfig{
		NotReadyTaintKey: "example.com/not-ready", UnreachableTolerationSeconds: ptr.To[int64](0),
	})
	want = []corev1.Toleration{
		tolerate("example.com/not-ready", ptr.To[int64](300)),
		tolerate(failover.TaintKeyClusterUnreachable, ptr.To[int64](0)),
	}
	if diff := cmp.Diff(want, custom); diff != "" {
		t.Fatalf("custom (-want +got):\n%s", diff)
	}
}

func TestAddDefaultClusterTolerations(t *testing.T) {
	own := []corev1.Toleration{tolerate(failover.TaintKeyClusterNotReady, ptr.To[int64](30))}
	got := failover.AddDefaultClusterTolerations(own, failover.DefaultTolerationsConfig{})
	want := []corev1.Toleration{own[0], tolerate(failover.TaintKeyClusterUnreachable, ptr.To[int64](300))}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if len(own) != 1 || *own[0].TolerationSeconds != 30 {
		t.Fatal("input modified")
	}
	// An Equal toleration covers only the empty value: the default still
	// comes after it for not-ready taints with other values.
	equal := []corev1.Toleration{{Key: failover.TaintKeyClusterNotReady, Operator: corev1.TolerationOpEqual, Effect: corev1.TaintEffectNoExecute}}
	if got := failover.AddDefaultClusterTolerations(equal, failover.DefaultTolerationsConfig{}); len(got) != 3 {
		t.Fatalf("an Equal toleration does not cover every value, want both defaults after it, got %v", got)
	}
	wildcard := []corev1.Toleration{{Operator: corev1.TolerationOpExists}}
	if got := failover.AddDefaultClusterTolerations(wildcard, failover.DefaultTolerationsConfig{}); len(got) != 1 {
		t.Fatalf("a wildcard toleration already covers the defaults, got %v", got)
	}
	if got := failover.AddDefaultClusterTolerations(nil, failover.DefaultTolerationsConfig{}); len(got) != 2 {
		t.Fatalf("want both defaults, got %v", got)
	}
}

func TestEvaluateTolerationsFarPastTimeAdded(t *testing.T) {
	// A TimeAdded centuries ago (beyond the longest time.Duration) must not
	// wrap around into "tolerated".
	taints := []corev1.Taint{noExecute(failover.TaintKeyClusterNotReady, time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC))}
	tolerations := []corev1.Toleration{tolerate(failover.TaintKeyClusterNotReady, ptr.To[int64](3600))}
	if d := failover.EvaluateTolerations(taints, tolerations, tolNow); d.Action != failover.EvictNow {
		t.Fatalf("got %s after %s, want EvictNow", d.Action, d.After)
	}
	// The longest toleration from then still lies ahead: saturated, not
	// wrapped into the past.
	tolerations = []corev1.Toleration{tolerate(failover.TaintKeyClusterNotReady, ptr.To[int64](math.MaxInt64))}
	if d := failover.EvaluateTolerations(taints, tolerations, tolNow); d.Action != failover.EvictAfter || d.After != time.Duration(math.MaxInt64) {
		t.Fatalf("got %s after %s, want EvictAfter the longest duration", d.Action, d.After)
	}
	// Sub-second parts count: added 0.4 s before now with a 1 s toleration.
	taints = []corev1.Taint{noExecute(failover.TaintKeyClusterNotReady, tolNow.Add(-400*time.Millisecond))}
	tolerations = []corev1.Toleration{tolerate(failover.TaintKeyClusterNotReady, ptr.To[int64](1))}
	if d := failover.EvaluateTolerations(taints, tolerations, tolNow.Add(0)); d.Action != failover.EvictAfter || d.After != 600*time.Millisecond {
		t.Fatalf("got %s after %s, want EvictAfter 600ms", d.Action, d.After)
	}
}

func TestComparisonOperatorsOption(t *testing.T) {
	taints := []corev1.Taint{{Key: "level", Value: "5", Effect: corev1.TaintEffectNoExecute}}
	lt7 := []corev1.Toleration{{Key: "level", Operator: corev1.TolerationOpLt, Value: "7", Effect: corev1.TaintEffectNoExecute}}
	on := failover.TolerationOptions{EnableComparisonOperators: true}
	if d := on.Evaluate(taints, lt7, tolNow); d.Action != failover.TolerateForever {
		t.Fatalf("5 < 7 with comparison operators on: %s", d.Action)
	}
	gt7 := []corev1.Toleration{{Key: "level", Operator: corev1.TolerationOpGt, Value: "7", Effect: corev1.TaintEffectNoExecute}}
	if d := on.Evaluate(taints, gt7, tolNow); d.Action != failover.EvictNow {
		t.Fatalf("5 > 7 with comparison operators on: %s", d.Action)
	}
	// The planner takes the same option.
	bindings := []failover.ClusterBinding{{Key: "b", Tolerations: lt7}}
	if plan := (failover.ClusterFailoverPlanner{}).Plan(taints, bindings, tolNow); len(plan.Evict) != 1 {
		t.Fatalf("default planner keeps the Lt binding: %+v", plan)
	}
	if plan := (failover.ClusterFailoverPlanner{Tolerations: on}).Plan(taints, bindings, tolNow); len(plan.Evict) != 0 {
		t.Fatalf("planner with comparison operators evicts the Lt binding: %+v", plan)
	}
}
