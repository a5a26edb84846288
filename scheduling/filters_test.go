package scheduling

import (
	"testing"
	"time"

	"k8s.io/utils/ptr"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/fleetover/fleetover/eviction"
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
		opts     TaintTolerationOptions
		rejected bool
	}{
		{"no taints", nil, nil, false, TaintTolerationOptions{}, false},
		{"NoSchedule blocks new placement", []corev1.Taint{notReadyNoSchedule}, nil, false, TaintTolerationOptions{}, true},
		{"NoSchedule keeps what runs", []corev1.Taint{notReadyNoSchedule}, nil, true, TaintTolerationOptions{}, false},
		{"NoExecute rejects new placement", []corev1.Taint{notReadyNoExecute}, nil, false, TaintTolerationOptions{}, true},
		{"NoExecute rejects placed cluster too", []corev1.Taint{notReadyNoSchedule, notReadyNoExecute}, nil, true, TaintTolerationOptions{}, true},
		{"tolerated by Exists", []corev1.Taint{notReadyNoSchedule, notReadyNoExecute}, tolerateNotReady, false, TaintTolerationOptions{}, false},
		{"toleration for another effect", []corev1.Taint{notReadyNoExecute},
			[]corev1.Toleration{{Key: notReadyNoExecute.Key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}, false, TaintTolerationOptions{}, true},
		{"Equal needs the value", []corev1.Taint{{Key: "k", Value: "a", Effect: corev1.TaintEffectNoSchedule}},
			[]corev1.Toleration{{Key: "k", Value: "b"}}, false, TaintTolerationOptions{}, true},
		{"Equal with the value", []corev1.Taint{{Key: "k", Value: "a", Effect: corev1.TaintEffectNoSchedule}},
			[]corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpEqual, Value: "a"}}, false, TaintTolerationOptions{}, false},
		{"PreferNoSchedule never rejects", []corev1.Taint{{Key: "k", Effect: corev1.TaintEffectPreferNoSchedule}}, nil, false, TaintTolerationOptions{}, false},
		{"Gt off by default", []corev1.Taint{{Key: "tier", Value: "5", Effect: corev1.TaintEffectNoSchedule}},
			[]corev1.Toleration{{Key: "tier", Operator: corev1.TolerationOpGt, Value: "3"}}, false, TaintTolerationOptions{}, true},
		{"Gt when enabled", []corev1.Taint{{Key: "tier", Value: "5", Effect: corev1.TaintEffectNoSchedule}},
			[]corev1.Toleration{{Key: "tier", Operator: corev1.TolerationOpGt, Value: "3"}}, false, TaintTolerationOptions{EnableComparisonOperators: true}, false},
		{"Gt with a bad value does not match", []corev1.Taint{{Key: "tier", Value: "x", Effect: corev1.TaintEffectNoSchedule}},
			[]corev1.Toleration{{Key: "tier", Operator: corev1.TolerationOpGt, Value: "3"}}, false, TaintTolerationOptions{EnableComparisonOperators: true}, true},
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
	h := HistoryRecords{
		History:                 []eviction.EvictionHistoryEntry{{ClusterName: "member2", CreationTimestamp: metav1.NewTime(evictedAt)}},
		BlockPredecessorSeconds: ptr.To[int32](600),
	}
	fleet := []Cluster{{Name: "member1"}, {Name: "member2"}}
	run := func() Result {
		return RunFilters(&Workload{History: h, Now: clk.Now()}, fleet, EvictionHistoryFilter())
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

func TestHistoryRecordsBlockedUntil(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	rec := func(c string, at time.Time) eviction.EvictionHistoryEntry {
		return eviction.EvictionHistoryEntry{ClusterName: c, CreationTimestamp: metav1.NewTime(at)}
	}
	tests := []struct {
		name    string
		h       HistoryRecords
		now     time.Time
		until   time.Time
		blocked bool
	}{
		{"no records", HistoryRecords{BlockPredecessorSeconds: ptr.To[int32](600)}, t0, time.Time{}, false},
		{"other cluster", HistoryRecords{History: []eviction.EvictionHistoryEntry{rec("x", t0)}, BlockPredecessorSeconds: ptr.To[int32](600)}, t0, time.Time{}, false},
		{"zero blocks for good", HistoryRecords{History: []eviction.EvictionHistoryEntry{rec("c", t0)}, BlockPredecessorSeconds: ptr.To[int32](0)}, t0.Add(1000 * time.Hour), time.Time{}, true},
		{"nil means the 600 s default", HistoryRecords{History: []eviction.EvictionHistoryEntry{rec("c", t0)}}, t0.Add(599 * time.Second), t0.Add(600 * time.Second), true},
		{"negative (invalid) means the default", HistoryRecords{History: []eviction.EvictionHistoryEntry{rec("c", t0)}, BlockPredecessorSeconds: ptr.To[int32](-1)}, t0.Add(time.Hour), time.Time{}, false},
		{"unstamped record blocks for good", HistoryRecords{History: []eviction.EvictionHistoryEntry{{ClusterName: "c"}}, BlockPredecessorSeconds: ptr.To[int32](600)}, t0, time.Time{}, true},
		{"latest eviction wins", HistoryRecords{History: []eviction.EvictionHistoryEntry{rec("c", t0), rec("c", t0.Add(5*time.Minute))}, BlockPredecessorSeconds: ptr.To[int32](600)},
			t0.Add(time.Minute), t0.Add(15 * time.Minute), true},
		{"expired old, live new", HistoryRecords{History: []eviction.EvictionHistoryEntry{rec("c", t0.Add(5*time.Minute)), rec("c", t0)}, BlockPredecessorSeconds: ptr.To[int32](600)},
			t0.Add(11 * time.Minute), t0.Add(15 * time.Minute), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			until, blocked := tt.h.BlockedUntil("c", tt.now)
			if blocked != tt.blocked || !until.Equal(tt.until) {
				t.Errorf("BlockedUntil = %v, %v; want %v, %v", until, blocked, tt.until, tt.blocked)
			}
		})
	}
}

func TestEvictionHistoryFunc(t *testing.T) {
	until := time.Unix(500, 0)
	w := &Workload{Now: time.Unix(100, 0), History: EvictionHistoryFunc(func(c string, now time.Time) (time.Time, bool) {
		return until, c == "c" && now.Before(until)
	})}
	if st := EvictionHistoryFilter().Filter(w, &Cluster{Name: "c"}); !st.Rejected || !st.Until.Equal(until) {
		t.Errorf("blocked cluster: %+v", st)
	}
	if st := EvictionHistoryFilter().Filter(w, &Cluster{Name: "d"}); st.Rejected {
		t.Errorf("unblocked cluster: %+v", st)
	}
}

func TestEvictionHistoryForever(t *testing.T) {
	w := &Workload{History: HistoryRecords{History: []eviction.EvictionHistoryEntry{{ClusterName: "c", CreationTimestamp: metav1.NewTime(time.Unix(0, 0))}}, BlockPredecessorSeconds: ptr.To[int32](0)}, Now: time.Unix(1e9, 0)}
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
