package scheduling

import (
	"math/rand/v2"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
)

var (
	notReadyNoSchedule = corev1.Taint{Key: "cluster.karmada.io/not-ready", Effect: corev1.TaintEffectNoSchedule}
	notReadyNoExecute  = corev1.Taint{Key: "cluster.karmada.io/not-ready", Effect: corev1.TaintEffectNoExecute}
)

func TestTaintToleration(t *testing.T) {
	tolerateNotReady := []corev1.Toleration{{Key: "cluster.karmada.io/not-ready", Operator: corev1.TolerationOpExists}}
	tests := []struct {
		name     string
		taints   []corev1.Taint
		tols     []corev1.Toleration
		placed   bool
		opts     failover.TolerationOptions
		rejected bool
	}{
		{"no taints", nil, nil, false, failover.TolerationOptions{}, false},
		{"NoSchedule blocks new placement", []corev1.Taint{notReadyNoSchedule}, nil, false, failover.TolerationOptions{}, true},
		{"NoSchedule keeps what runs", []corev1.Taint{notReadyNoSchedule}, nil, true, failover.TolerationOptions{}, false},
		{"NoExecute rejects new placement", []corev1.Taint{notReadyNoExecute}, nil, false, failover.TolerationOptions{}, true},
		{"NoExecute rejects placed cluster too", []corev1.Taint{notReadyNoSchedule, notReadyNoExecute}, nil, true, failover.TolerationOptions{}, true},
		{"tolerated by Exists", []corev1.Taint{notReadyNoSchedule, notReadyNoExecute}, tolerateNotReady, false, failover.TolerationOptions{}, false},
		{"toleration for another effect", []corev1.Taint{notReadyNoExecute},
			[]corev1.Toleration{{Key: notReadyNoExecute.Key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}, false, failover.TolerationOptions{}, true},
		{"Equal needs the value", []corev1.Taint{{Key: "k", Value: "a", Effect: corev1.TaintEffectNoSchedule}},
			[]corev1.Toleration{{Key: "k", Value: "b"}}, false, failover.TolerationOptions{}, true},
		{"Equal with the value", []corev1.Taint{{Key: "k", Value: "a", Effect: corev1.TaintEffectNoSchedule}},
			[]corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpEqual, Value: "a"}}, false, failover.TolerationOptions{}, false},
		{"PreferNoSchedule never rejects", []corev1.Taint{{Key: "k", Effect: corev1.TaintEffectPreferNoSchedule}}, nil, false, failover.TolerationOptions{}, false},
		{"Gt off by default", []corev1.Taint{{Key: "tier", Value: "5", Effect: corev1.TaintEffectNoSchedule}},
			[]corev1.Toleration{{Key: "tier", Operator: corev1.TolerationOpGt, Value: "3"}}, false, failover.TolerationOptions{}, true},
		{"Gt when enabled", []corev1.Taint{{Key: "tier", Value: "5", Effect: corev1.TaintEffectNoSchedule}},
			[]corev1.Toleration{{Key: "tier", Operator: corev1.TolerationOpGt, Value: "3"}}, false, failover.TolerationOptions{EnableComparisonOperators: true}, false},
		{"Gt with a bad value does not match", []corev1.Taint{{Key: "tier", Value: "x", Effect: corev1.TaintEffectNoSchedule}},
			[]corev1.Toleration{{Key: "tier", Operator: corev1.TolerationOpGt, Value: "3"}}, false, failover.TolerationOptions{EnableComparisonOperators: true}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &Workload{Tolerations: tt.tols}
			if tt.placed {
				w.Placement = []string{"other", "member1"}
			}
			st := TaintToleration(tt.opts).Filter(w, &Cluster{Name: "member1", Taints: tt.taints})
			if st.Rejected != tt.rejected {
				t.Fatalf("Rejected = %v (%q), want %v", st.Rejected, st.Reason, tt.rejected)
			}
			if st.Rejected && (st.Reason == "" || st.Taint == nil || !st.Until.IsZero()) {
				t.Errorf("rejection %+v: want a reason, the taint and no expiry", st)
			}
			if st.Rejected && st.Taint.Effect == corev1.TaintEffectNoSchedule && tt.placed {
				t.Errorf("placed cluster rejected for NoSchedule taint %v", st.Taint)
			}
		})
	}
}

func TestEvictionInProgress(t *testing.T) {
	w := &Workload{EvictionTasks: []eviction.GracefulEvictionTask{{FromCluster: "member2", Reason: eviction.ReasonTaintUntolerated}}}
	if st := EvictionInProgress().Filter(w, &Cluster{Name: "member2"}); !st.Rejected {
		t.Error("cluster with an eviction task passed")
	}
	if st := EvictionInProgress().Filter(w, &Cluster{Name: "member3"}); st.Rejected {
		t.Errorf("cluster without a task rejected: %q", st.Reason)
	}
}

// TestEvictionHistoryWindow: evicted 10 s ago with BlockPredecessorSeconds
// 600, the cluster is filtered out until 600 s after the eviction, and passes
// from then on.
func TestEvictionHistoryWindow(t *testing.T) {
	evictedAt := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clk := clocktesting.NewFakeClock(evictedAt.Add(10 * time.Second))
	history := eviction.EvictionHistory{{ClusterName: "member2", CreationTimestamp: metav1.NewTime(evictedAt)}}
	fleet := []Cluster{{Name: "member1"}, {Name: "member2"}}
	run := func() Result {
		return RunFilters(&Workload{History: history, BlockPredecessorSeconds: ptr.To[int32](600), Now: clk.Now()}, fleet, EvictionHistoryFilter())
	}
	res := run()
	want := evictedAt.Add(600 * time.Second)
	rej, ok := res.Rejected["member2"]
	if !ok || rej.Filter != FilterEvictionHistory || !rej.Until.Equal(want) {
		t.Fatalf("at +10s: rejected = %+v, want member2 blocked until %v", res.Rejected, want)
	}
	if !res.RetryAt.Equal(want) || len(res.Feasible) != 1 || res.Feasible[0] != "member1" {
		t.Fatalf("at +10s: %+v", res)
	}
	clk.SetTime(want.Add(-time.Nanosecond))
	if res := run(); len(res.Feasible) != 1 {
		t.Fatalf("just before the end: feasible %v", res.Feasible)
	}
	clk.SetTime(want)
	if res := run(); len(res.Feasible) != 2 || res.Rejected != nil || !res.RetryAt.IsZero() {
		t.Fatalf("at +600s: %+v, want both feasible", res)
	}
}

func TestEvictionHistoryFilterFollowsTheHistoryRule(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	rec := func(c string, at time.Time) eviction.EvictionHistoryEntry {
		return eviction.EvictionHistoryEntry{ClusterName: c, CreationTimestamp: metav1.NewTime(at)}
	}
	tests := []struct {
		name    string
		w       Workload
		now     time.Time
		until   time.Time
		blocked bool
	}{
		{"no records", Workload{BlockPredecessorSeconds: ptr.To[int32](600)}, t0, time.Time{}, false},
		{"other cluster", Workload{History: []eviction.EvictionHistoryEntry{rec("x", t0)}, BlockPredecessorSeconds: ptr.To[int32](600)}, t0, time.Time{}, false},
		{"zero blocks for good", Workload{History: []eviction.EvictionHistoryEntry{rec("c", t0)}, BlockPredecessorSeconds: ptr.To[int32](0)}, t0.Add(1000 * time.Hour), time.Time{}, true},
		{"nil means the 600 s default", Workload{History: []eviction.EvictionHistoryEntry{rec("c", t0)}}, t0.Add(599 * time.Second), t0.Add(600 * time.Second), true},
		{"negative (invalid) means the default", Workload{History: []eviction.EvictionHistoryEntry{rec("c", t0)}, BlockPredecessorSeconds: ptr.To[int32](-1)}, t0.Add(time.Hour), time.Time{}, false},
		{"unstamped record blocks for good", Workload{History: []eviction.EvictionHistoryEntry{{ClusterName: "c"}}, BlockPredecessorSeconds: ptr.To[int32](600)}, t0, time.Time{}, true},
		{"latest eviction wins", Workload{History: []eviction.EvictionHistoryEntry{rec("c", t0), rec("c", t0.Add(5*time.Minute))}, BlockPredecessorSeconds: ptr.To[int32](600)},
			t0.Add(time.Minute), t0.Add(15 * time.Minute), true},
		{"expired old, live new", Workload{History: []eviction.EvictionHistoryEntry{rec("c", t0.Add(5*time.Minute)), rec("c", t0)}, BlockPredecessorSeconds: ptr.To[int32](600)},
			t0.Add(11 * time.Minute), t0.Add(15 * time.Minute), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := tt.w
			w.Now = tt.now
			st := EvictionHistoryFilter().Filter(&w, &Cluster{Name: "c"})
			if st.Rejected != tt.blocked || !st.Until.Equal(tt.until) {
				t.Errorf("filter = %+v; want rejected %v until %v", st, tt.blocked, tt.until)
			}
		})
	}
}

func TestEvictionHistoryForever(t *testing.T) {
	w := &Workload{History: eviction.EvictionHistory{{ClusterName: "c", CreationTimestamp: metav1.NewTime(time.Unix(0, 0))}}, BlockPredecessorSeconds: ptr.To[int32](0), Now: time.Unix(1e9, 0)}
	st := EvictionHistoryFilter().Filter(w, &Cluster{Name: "c"})
	if !st.Rejected || !st.Until.IsZero() {
		t.Errorf("BlockPredecessorSeconds 0: %+v, want a rejection with no expiry", st)
	}
}

func TestSuspendedFilter(t *testing.T) {
	w := &Workload{
		Placement:  []string{"member2"},
		Suspension: SuspensionFunc(func(c string) bool { return c == "member2" || c == "member3" }),
	}
	if st := Suspended().Filter(w, &Cluster{Name: "member3"}); !st.Rejected {
		t.Error("new placement on a suspended cluster passed")
	}
	if st := Suspended().Filter(w, &Cluster{Name: "member2"}); st.Rejected {
		t.Error("a suspended cluster the workload is on was rejected")
	}
	if st := Suspended().Filter(w, &Cluster{Name: "member1"}); st.Rejected {
		t.Error("an unsuspended cluster was rejected")
	}
	if st := Suspended().Filter(&Workload{}, &Cluster{Name: "member3"}); st.Rejected {
		t.Error("no suspension, still rejected")
	}
}

func TestAffinityFilters(t *testing.T) {
	names := ClusterNames("member1", "member3")
	for c, want := range map[string]bool{"member1": false, "member2": true, "member3": false} {
		if got := names.Filter(&Workload{}, &Cluster{Name: c}).Rejected; got != want {
			t.Errorf("ClusterNames on %s: rejected = %v", c, got)
		}
	}
	if ClusterNames().Filter(&Workload{}, &Cluster{Name: "x"}).Rejected {
		t.Error("empty ClusterNames rejected a cluster")
	}
	selected := SelectedClusters(map[string]bool{"member1": true, "member2": false})
	for c, want := range map[string]bool{"member1": false, "member2": true, "member3": true} {
		if got := selected.Filter(&Workload{}, &Cluster{Name: c}).Rejected; got != want {
			t.Errorf("SelectedClusters on %s: rejected = %v", c, got)
		}
	}
	if !SelectedClusters(nil).Filter(&Workload{}, &Cluster{Name: "x"}).Rejected || selected.Name() != FilterClusterAffinity {
		t.Error("an empty selection kept a cluster, or the filter is misnamed")
	}
	sel := LabelSelector(labels.SelectorFromSet(labels.Set{"region": "eu"}))
	if sel.Filter(&Workload{}, &Cluster{Name: "a", Labels: map[string]string{"region": "us"}}).Rejected != true {
		t.Error("selector let a non-matching cluster through")
	}
	if sel.Filter(&Workload{}, &Cluster{Name: "a", Labels: map[string]string{"region": "eu"}}).Rejected {
		t.Error("selector rejected a matching cluster")
	}
	if LabelSelector(nil).Filter(&Workload{}, &Cluster{Name: "a"}).Rejected {
		t.Error("nil selector rejected a cluster")
	}
}

// TestTaintTolerationAgreesWithFailover checks the one matching rule on
// random taints and tolerations: the filter rejects a cluster for a NoExecute
// taint exactly when failover finds that taint untolerated, under either
// setting of the comparison operators.
func TestTaintTolerationAgreesWithFailover(t *testing.T) {
	keys := []string{"a", "b", ""}
	values := []string{"1", "5", "x", ""}
	ops := []corev1.TolerationOperator{corev1.TolerationOpExists, corev1.TolerationOpEqual, corev1.TolerationOpLt, corev1.TolerationOpGt, ""}
	effects := []corev1.TaintEffect{corev1.TaintEffectNoExecute, corev1.TaintEffectNoSchedule, ""}
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func(n int) int { return rng.IntN(n) }
	now := time.Unix(1_000, 0)
	for i := 0; i < 20_000; i++ {
		taints := make([]corev1.Taint, 1+pick(2))
		for j := range taints {
			taints[j] = corev1.Taint{Key: keys[pick(2)], Value: values[pick(len(values))], Effect: corev1.TaintEffectNoExecute}
		}
		tolerations := make([]corev1.Toleration, pick(3))
		for j := range tolerations {
			tolerations[j] = corev1.Toleration{Key: keys[pick(len(keys))], Operator: ops[pick(len(ops))], Value: values[pick(len(values))], Effect: effects[pick(len(effects))]}
		}
		for _, opts := range []failover.TolerationOptions{{}, {EnableComparisonOperators: true}} {
			d := opts.Evaluate(taints, tolerations, now)
			untolerated := d.Action == failover.EvictNow && d.Toleration == nil
			st := TaintToleration(opts).Filter(&Workload{Tolerations: tolerations, Placement: []string{"c"}}, &Cluster{Name: "c", Taints: taints})
			if st.Rejected != untolerated {
				t.Fatalf("taints %v tolerations %v opts %+v: failover %s (toleration %v), filter rejected=%v", taints, tolerations, opts, d.Action, d.Toleration, st.Rejected)
			}
		}
	}
}

// TestExpiredToleration: a NoExecute taint tolerated for a time passes until
// that time is up and is rejected from then on, placed or not; a toleration
// without seconds, an untolerated taint (TaintToleration's to reject) and
// other effects never are.
func TestExpiredToleration(t *testing.T) {
	added := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	stamped := corev1.Taint{Key: notReadyNoExecute.Key, Effect: corev1.TaintEffectNoExecute, TimeAdded: &metav1.Time{Time: added}}
	for300 := []corev1.Toleration{{Key: stamped.Key, Operator: corev1.TolerationOpExists, TolerationSeconds: ptr.To[int64](300)}}
	for0 := []corev1.Toleration{{Key: stamped.Key, Operator: corev1.TolerationOpExists, TolerationSeconds: ptr.To[int64](0)}}
	forever := []corev1.Toleration{{Key: stamped.Key, Operator: corev1.TolerationOpExists}}
	tests := []struct {
		name     string
		taints   []corev1.Taint
		tols     []corev1.Toleration
		now      time.Time
		placed   bool
		rejected bool
	}{
		{"no taints", nil, for300, added, false, false},
		{"tolerated, time left", []corev1.Taint{stamped}, for300, added.Add(299 * time.Second), false, false},
		{"tolerated, time up", []corev1.Taint{stamped}, for300, added.Add(300 * time.Second), false, true},
		{"time up on a placed cluster", []corev1.Taint{stamped}, for300, added.Add(time.Hour), true, true},
		{"zero seconds: up at once", []corev1.Taint{stamped}, for0, added, false, true},
		{"zero seconds on an unstamped taint", []corev1.Taint{notReadyNoExecute}, for0, added, false, true},
		{"unstamped taint counts from now", []corev1.Taint{notReadyNoExecute}, for300, added.Add(time.Hour), false, false},
		{"tolerated forever", []corev1.Taint{stamped}, forever, added.Add(time.Hour), false, false},
		{"untolerated is TaintToleration's", []corev1.Taint{stamped}, nil, added.Add(time.Hour), false, false},
		{"NoSchedule has no deadline", []corev1.Taint{{Key: stamped.Key, Effect: corev1.TaintEffectNoSchedule, TimeAdded: stamped.TimeAdded}}, for0, added.Add(time.Hour), false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &Workload{Tolerations: tt.tols, Now: tt.now}
			if tt.placed {
				w.Placement = []string{"member1"}
			}
			st := ExpiredToleration(failover.TolerationOptions{}).Filter(w, &Cluster{Name: "member1", Taints: tt.taints})
			if st.Rejected != tt.rejected {
				t.Fatalf("Rejected = %v (%q), want %v", st.Rejected, st.Reason, tt.rejected)
			}
			if st.Rejected && (st.Reason == "" || st.Taint == nil || st.Taint.Effect != corev1.TaintEffectNoExecute || !st.Until.IsZero()) {
				t.Errorf("rejection %+v: want a reason, the NoExecute taint and no expiry", st)
			}
		})
	}
}

// TestExpiredTolerationAgreesWithFailover: on random taints, tolerations and
// times, the filter rejects exactly when failover's evaluation evicts now for
// a tolerated taint, and TaintToleration and ExpiredToleration together
// reject exactly when it evicts now.
func TestExpiredTolerationAgreesWithFailover(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	base := time.Unix(10_000, 0)
	seconds := []*int64{nil, ptr.To[int64](-1), ptr.To[int64](0), ptr.To[int64](60), ptr.To[int64](600)}
	for i := 0; i < 20_000; i++ {
		taints := make([]corev1.Taint, 1+rng.IntN(3))
		for j := range taints {
			taints[j] = corev1.Taint{Key: []string{"a", "b"}[rng.IntN(2)], Effect: corev1.TaintEffectNoExecute}
			if rng.IntN(4) > 0 {
				taints[j].TimeAdded = &metav1.Time{Time: base.Add(time.Duration(rng.IntN(1200)) * time.Second)}
			}
		}
		tolerations := make([]corev1.Toleration, rng.IntN(3))
		for j := range tolerations {
			tolerations[j] = corev1.Toleration{Key: []string{"a", "b", ""}[rng.IntN(3)], Operator: corev1.TolerationOpExists, TolerationSeconds: seconds[rng.IntN(len(seconds))]}
		}
		now := base.Add(time.Duration(rng.IntN(2400)) * time.Second)
		w := &Workload{Tolerations: tolerations, Now: now}
		c := &Cluster{Name: "c", Taints: taints}
		opts := failover.TolerationOptions{}
		d := opts.Evaluate(taints, tolerations, now)
		expired := ExpiredToleration(opts).Filter(w, c).Rejected
		either := expired || TaintToleration(opts).Filter(w, c).Rejected
		if expired != (d.Action == failover.EvictNow && d.Toleration != nil) || either != (d.Action == failover.EvictNow) {
			t.Fatalf("taints %v tolerations %v now %v: failover %s (toleration %v), expired rejected=%v, either=%v", taints, tolerations, now, d.Action, d.Toleration, expired, either)
		}
	}
}
