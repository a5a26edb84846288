package failover_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/fleetover/fleetover/failover"
)

var healthT0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

var (
	probeOK          = failover.ProbeResult{Reachable: true, Healthy: true}
	probeUnreachable = failover.ProbeResult{Reachable: false}
	probeUnhealthy   = failover.ProbeResult{Reachable: true, Healthy: false}
)

// healthStep is one event of a scenario, at an offset from healthT0.
type healthStep struct {
	at     time.Duration
	probe  *failover.ProbeResult // nil: only check
	lease  bool                  // a lease renewal at this instant
	status metav1.ConditionStatus
	reason string
	ltt    time.Duration // expected LastTransitionTime offset; -1: don't check
}

func runHealthScenario(t *testing.T, mode failover.ClusterSyncMode, steps []healthStep) {
	t.Helper()
	clk := clocktesting.NewFakePassiveClock(healthT0)
	tr := mustOK(failover.NewClusterHealthTracker(clk, failover.ClusterHealthConfig{}))
	tr.Register("m1", mode)
	for i, s := range steps {
		clk.SetTime(healthT0.Add(s.at))
		if s.probe != nil {
			if _, err := tr.ObserveProbe("m1", *s.probe); err != nil {
				t.Fatal(err)
			}
		}
		if s.lease {
			if err := tr.ObserveLease("m1", clk.Now()); err != nil {
				t.Fatal(err)
			}
		}
		cond, ok := tr.Ready("m1")
		if s.status == "" {
			if ok {
				t.Fatalf("step %d (+%v): want no condition, got %s/%s", i, s.at, cond.Status, cond.Reason)
			}
			continue
		}
		if !ok || cond.Status != s.status || cond.Reason != s.reason {
			t.Fatalf("step %d (+%v): got %v %s/%s, want %s/%s", i, s.at, ok, cond.Status, cond.Reason, s.status, s.reason)
		}
		if cond.Type != failover.ConditionTypeReady || cond.Message == "" {
			t.Fatalf("step %d: malformed condition %+v", i, cond)
		}
		if s.ltt >= 0 && !cond.LastTransitionTime.Time.Equal(healthT0.Add(s.ltt)) {
			t.Fatalf("step %d (+%v): LastTransitionTime +%v, want +%v", i, s.at, cond.LastTransitionTime.Sub(healthT0), s.ltt)
		}
	}
}

func p(r failover.ProbeResult) *failover.ProbeResult { return &r }

func TestClusterHealthTracker(t *testing.T) {
	const (
		T  = metav1.ConditionTrue
		F  = metav1.ConditionFalse
		U  = metav1.ConditionUnknown
		s  = time.Second
		ok = failover.ReasonClusterReady
	)
	cases := []struct {
		name  string
		mode  failover.ClusterSyncMode
		steps []healthStep
	}{
		{name: "first report applies at once, failure needs 30 s", mode: failover.ClusterSyncModePush, steps: []healthStep{
			{at: 0, probe: p(probeOK), status: T, reason: ok, ltt: 0},
			{at: 10 * s, probe: p(probeUnreachable), status: T, reason: ok, ltt: 0},
			{at: 39*s + 999*time.Millisecond, probe: p(probeUnreachable), status: T, reason: ok, ltt: 0},
			{at: 40 * s, probe: p(probeUnreachable), status: F, reason: failover.ReasonClusterNotReachable, ltt: 40 * s},
		}},
		{name: "a cluster that flaps inside the threshold never flips", mode: failover.ClusterSyncModePush, steps: func() []healthStep {
			steps := []healthStep{{at: 0, probe: p(probeOK), status: T, reason: ok, ltt: 0}}
			for i := 1; i <= 60; i++ {
				r := probeUnreachable
				if i%3 == 0 { // 20 s failing, then one success, for 10 minutes
					r = probeOK
				}
				steps = append(steps, healthStep{at: time.Duration(i) * 10 * s, probe: p(r), status: T, reason: ok, ltt: 0})
			}
			return steps
		}()},
		{name: "changes between False reasons are immediate", mode: failover.ClusterSyncModePush, steps: []healthStep{
			{at: 0, probe: p(probeUnreachable), status: F, reason: failover.ReasonClusterNotReachable, ltt: 0},
			{at: 5 * s, probe: p(probeUnhealthy), status: F, reason: failover.ReasonClusterNotReady, ltt: 0},
			{at: 6 * s, probe: p(probeUnreachable), status: F, reason: failover.ReasonClusterNotReachable, ltt: 0},
		}},
		{name: "recovery needs the success threshold, a failure restarts it", mode: failover.ClusterSyncModePush, steps: []healthStep{
			{at: 0, probe: p(probeUnreachable), status: F, reason: failover.ReasonClusterNotReachable, ltt: 0},
			{at: 10 * s, probe: p(probeOK), status: F, reason: failover.ReasonClusterNotReachable, ltt: 0},
			{at: 30 * s, probe: p(probeUnhealthy), status: F, reason: failover.ReasonClusterNotReady, ltt: 0},
			{at: 40 * s, probe: p(probeOK), status: F, reason: failover.ReasonClusterNotReady, ltt: 0},
			{at: 69 * s, probe: p(probeOK), status: F, reason: failover.ReasonClusterNotReady, ltt: 0},
			{at: 70 * s, probe: p(probeOK), status: T, reason: ok, ltt: 70 * s},
		}},
		{name: "pull: Unknown after 40 s of silence, at the deadline", mode: failover.ClusterSyncModePull, steps: []healthStep{
			{at: 0, probe: p(probeOK), status: T, reason: ok, ltt: 0},
			{at: 39 * s, status: T, reason: ok, ltt: 0},
			{at: 40 * s, status: U, reason: failover.ReasonClusterStatusUnknown, ltt: 40 * s},
			{at: 90 * s, status: U, reason: failover.ReasonClusterStatusUnknown, ltt: 40 * s},
		}},
		{name: "pull: checked late, Unknown still dates from the deadline", mode: failover.ClusterSyncModePull, steps: []healthStep{
			{at: 0, probe: p(probeOK), status: T, reason: ok, ltt: 0},
			{at: 10 * time.Minute, status: U, reason: failover.ReasonClusterStatusUnknown, ltt: 40 * s},
		}},
		{name: "pull: lease renewals keep the cluster from Unknown", mode: failover.ClusterSyncModePull, steps: []healthStep{
			{at: 0, probe: p(probeOK), status: T, reason: ok, ltt: 0},
			{at: 30 * s, lease: true, status: T, reason: ok, ltt: 0},
			{at: 60 * s, lease: true, status: T, reason: ok, ltt: 0},
			{at: 99 * s, status: T, reason: ok, ltt: 0},
			{at: 100 * s, status: U, reason: failover.ReasonClusterStatusUnknown, ltt: 100 * s},
		}},
		{name: "pull: a lease renewal does not clear Unknown, a status does after the threshold", mode: failover.ClusterSyncModePull, steps: []healthStep{
			{at: 0, probe: p(probeOK), status: T, reason: ok, ltt: 0},
			{at: 40 * s, status: U, reason: failover.ReasonClusterStatusUnknown, ltt: 40 * s},
			{at: 50 * s, lease: true, status: U, reason: failover.ReasonClusterStatusUnknown, ltt: 40 * s},
			{at: 60 * s, probe: p(probeOK), status: U, reason: failover.ReasonClusterStatusUnknown, ltt: 40 * s},
			{at: 90 * s, probe: p(probeOK), status: T, reason: ok, ltt: 90 * s},
		}},
		{name: "pull: from Unknown a failure report is immediate (both not Ready)", mode: failover.ClusterSyncModePull, steps: []healthStep{
			{at: 0, probe: p(probeOK), status: T, reason: ok, ltt: 0},
			{at: 45 * s, status: U, reason: failover.ReasonClusterStatusUnknown, ltt: 40 * s},
			{at: 46 * s, probe: p(probeUnhealthy), status: F, reason: failover.ReasonClusterNotReady, ltt: 46 * s},
		}},
		{name: "pull: never reported, Unknown after the 60 s startup grace", mode: failover.ClusterSyncModePull, steps: []healthStep{
			{at: 0},
			{at: 59 * s},
			{at: 60 * s, status: U, reason: failover.ReasonClusterStatusUnknown, ltt: 60 * s},
		}},
		{name: "push: silence never makes a cluster Unknown", mode: failover.ClusterSyncModePush, steps: []healthStep{
			{at: 0, probe: p(probeOK), status: T, reason: ok, ltt: 0},
			{at: time.Minute, status: T, reason: ok, ltt: 0},
			{at: 24 * time.Hour, status: T, reason: ok, ltt: 0},
		}},
		{name: "push: never probed, no condition however long", mode: failover.ClusterSyncModePush, steps: []healthStep{
			{at: 0},
			{at: 24 * time.Hour},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { runHealthScenario(t, tc.mode, tc.steps) })
	}
}

func TestClusterHealthTrackerRestartContinuesTheDebounce(t *testing.T) {
	for _, viaJSON := range []bool{false, true} {
		t.Run(fmt.Sprintf("json=%v", viaJSON), func(t *testing.T) {
			clk := clocktesting.NewFakePassiveClock(healthT0)
			before := mustOK(failover.NewClusterHealthTracker(clk, failover.ClusterHealthConfig{}))
			before.Register("m1", failover.ClusterSyncModePull)
			mustProbe(t, before, "m1", probeOK)
			clk.SetTime(healthT0.Add(10 * time.Second))
			mustProbe(t, before, "m1", probeUnreachable) // failure pending since +10 s

			clk.SetTime(healthT0.Add(25 * time.Second))
			states := before.ExportAll()
			if viaJSON {
				raw, err := json.Marshal(states)
				if err != nil {
					t.Fatal(err)
				}
				states = nil
				if err := json.Unmarshal(raw, &states); err != nil {
					t.Fatal(err)
				}
			}
			after := mustOK(failover.NewClusterHealthTracker(clk, failover.ClusterHealthConfig{}))
			for name, st := range states {
				if err := after.Import(name, st); err != nil {
					t.Fatal(err)
				}
			}
			if next, ok := after.NextCheck("m1"); !ok || !next.Equal(healthT0.Add(40*time.Second)) {
				t.Fatalf("NextCheck after import = %v %v, want +40s (pending failure since +10 s)", next, ok)
			}
			clk.SetTime(healthT0.Add(39 * time.Second))
			if c := mustProbe(t, after, "m1", probeUnreachable); c.Status != metav1.ConditionTrue {
				t.Fatalf("flipped before the threshold: %+v", c)
			}
			clk.SetTime(healthT0.Add(40 * time.Second))
			if c := mustProbe(t, after, "m1", probeUnreachable); c.Status != metav1.ConditionFalse {
				t.Fatalf("debounce was reset by the restart: %+v", c)
			}
		})
	}
}

func TestClusterHealthTrackerFirstProbeAfterRestartCannotFlip(t *testing.T) {
	// Karmada #7408: a restarted controller applied the first probe at once.
	clk := clocktesting.NewFakePassiveClock(healthT0)
	persisted := metav1.Condition{Type: failover.ConditionTypeReady, Status: metav1.ConditionTrue, Reason: failover.ReasonClusterReady, LastTransitionTime: metav1.NewTime(healthT0.Add(-time.Hour))}
	tr := mustOK(failover.NewClusterHealthTracker(clk, failover.ClusterHealthConfig{}))
	if err := tr.Import("m1", failover.ClusterHealthState{SyncMode: failover.ClusterSyncModePush, Ready: &persisted}); err != nil {
		t.Fatal(err)
	}
	if c := mustProbe(t, tr, "m1", probeUnreachable); c.Status != metav1.ConditionTrue || !c.LastTransitionTime.Equal(&persisted.LastTransitionTime) {
		t.Fatalf("first probe after a restart flipped the cluster: %+v", c)
	}
	// Without the import it would have: the control case.
	fresh := mustOK(failover.NewClusterHealthTracker(clk, failover.ClusterHealthConfig{}))
	fresh.Register("m1", failover.ClusterSyncModePush)
	if c := mustProbe(t, fresh, "m1", probeUnreachable); c.Status != metav1.ConditionFalse {
		t.Fatalf("a never-seen cluster takes its first report as is, got %+v", c)
	}
}

func TestClusterHealthTrackerRestartContinuesSilenceCountdown(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(healthT0)
	before := mustOK(failover.NewClusterHealthTracker(clk, failover.ClusterHealthConfig{}))
	before.Register("m1", failover.ClusterSyncModePull)
	mustProbe(t, before, "m1", probeOK)
	clk.SetTime(healthT0.Add(30 * time.Second))
	st, _ := before.Export("m1")
	after := mustOK(failover.NewClusterHealthTracker(clk, failover.ClusterHealthConfig{}))
	if err := after.Import("m1", st); err != nil {
		t.Fatal(err)
	}
	clk.SetTime(healthT0.Add(40 * time.Second))
	if c, _ := after.Ready("m1"); c.Status != metav1.ConditionUnknown {
		t.Fatalf("silence countdown restarted on import: %+v", c)
	}
}

// A controller that looks late (restarted, or behind on its queue) sees
// only the latest lease renewal: the cluster renewed every few seconds,
// but the last renewal the tracker heard is past the grace period. A
// renewal within the grace period of now keeps the cluster Ready; one older
// than that does not (found by the crash campaign, docs/reliability.md).
func TestClusterHealthTrackerLateLookAtAFreshRenewal(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(healthT0)
	tr := mustOK(failover.NewClusterHealthTracker(clk, failover.ClusterHealthConfig{}))
	tr.Register("m1", failover.ClusterSyncModePull)
	tr.Register("m2", failover.ClusterSyncModePull)
	mustProbe(t, tr, "m1", probeOK)
	mustProbe(t, tr, "m2", probeOK)
	clk.SetTime(healthT0.Add(45 * time.Second))
	if err := tr.ObserveLease("m1", healthT0.Add(44*time.Second)); err != nil {
		t.Fatal(err)
	}
	if c, _ := tr.Ready("m1"); c.Status != metav1.ConditionTrue {
		t.Fatalf("a renewal a second ago counted as 45 s of silence: %+v", c)
	}
	if err := tr.ObserveLease("m2", healthT0.Add(2*time.Second)); err != nil {
		t.Fatal(err)
	}
	if c, _ := tr.Ready("m2"); c.Status != metav1.ConditionUnknown || !c.LastTransitionTime.Time.Equal(healthT0.Add(40*time.Second)) {
		t.Fatalf("a renewal 43 s old kept the cluster from going Unknown at +40s: %+v", c)
	}
}

func TestClusterHealthTrackerNextCheck(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(healthT0)
	tr := mustOK(failover.NewClusterHealthTracker(clk, failover.ClusterHealthConfig{FailureThreshold: 5 * time.Second, MonitorGracePeriod: 20 * time.Second}))
	tr.Register("pull", failover.ClusterSyncModePull)
	tr.Register("push", failover.ClusterSyncModePush)
	if next, ok := tr.NextCheck("pull"); !ok || !next.Equal(healthT0.Add(failover.DefaultClusterStartupGracePeriod)) {
		t.Fatalf("pull before any report: %v %v", next, ok)
	}
	mustProbe(t, tr, "pull", probeOK)
	mustProbe(t, tr, "push", probeOK)
	if _, ok := tr.NextCheck("push"); ok {
		t.Fatal("a healthy push cluster has nothing scheduled")
	}
	if next, _ := tr.NextCheck("pull"); !next.Equal(healthT0.Add(20 * time.Second)) {
		t.Fatalf("pull silence deadline: %v", next)
	}
	clk.SetTime(healthT0.Add(time.Second))
	mustProbe(t, tr, "push", probeUnreachable)
	if next, _ := tr.NextCheck("push"); !next.Equal(healthT0.Add(6 * time.Second)) {
		t.Fatalf("pending failure: %v", next)
	}
	if _, ok := tr.NextCheck("nope"); ok {
		t.Fatal("unknown cluster")
	}
}

func TestClusterHealthTrackerErrors(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(healthT0)
	tr := mustOK(failover.NewClusterHealthTracker(clk, failover.ClusterHealthConfig{}))
	if _, err := tr.ObserveProbe("ghost", probeOK); !errors.Is(err, failover.ErrClusterNotRegistered) {
		t.Fatalf("probe of an unregistered cluster: %v", err)
	}
	if err := tr.ObserveLease("ghost", healthT0); !errors.Is(err, failover.ErrClusterNotRegistered) {
		t.Fatalf("lease of an unregistered cluster: %v", err)
	}
	ready := &metav1.Condition{Type: failover.ConditionTypeReady, Status: metav1.ConditionTrue, LastTransitionTime: metav1.NewTime(healthT0)}
	for name, st := range map[string]failover.ClusterHealthState{
		"mode":              {SyncMode: "Sideways"},
		"type":              {SyncMode: failover.ClusterSyncModePush, Ready: &metav1.Condition{Type: "Alive", Status: metav1.ConditionTrue, LastTransitionTime: metav1.NewTime(healthT0)}},
		"status":            {SyncMode: failover.ClusterSyncModePush, Ready: &metav1.Condition{Type: failover.ConditionTypeReady, Status: "Maybe", LastTransitionTime: metav1.NewTime(healthT0)}},
		"ltt":               {SyncMode: failover.ClusterSyncModePush, Ready: &metav1.Condition{Type: failover.ConditionTypeReady, Status: metav1.ConditionTrue}},
		"pending same side": {SyncMode: failover.ClusterSyncModePush, Ready: ready, Pending: &failover.PendingReadiness{Status: metav1.ConditionTrue, Since: metav1.NewTime(healthT0)}},
		"pending no since":  {SyncMode: failover.ClusterSyncModePush, Ready: ready, Pending: &failover.PendingReadiness{Status: metav1.ConditionFalse}},
		"pending no ready":  {SyncMode: failover.ClusterSyncModePush, Pending: &failover.PendingReadiness{Status: metav1.ConditionFalse, Since: metav1.NewTime(healthT0)}},
	} {
		if err := tr.Import("m1", st); !errors.Is(err, failover.ErrInvalidClusterHealthState) {
			t.Errorf("%s: Import = %v, want ErrInvalidClusterHealthState", name, err)
		}
	}
	if _, ok := tr.Export("m1"); ok {
		t.Fatal("a refused import registered the cluster")
	}
}

func TestClusterHealthTrackerForgetAndExportIsACopy(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(healthT0)
	tr := mustOK(failover.NewClusterHealthTracker(clk, failover.ClusterHealthConfig{}))
	tr.Register("m1", failover.ClusterSyncModePush)
	mustProbe(t, tr, "m1", probeOK)
	st, _ := tr.Export("m1")
	st.Ready.Status = metav1.ConditionFalse
	if c, _ := tr.Ready("m1"); c.Status != metav1.ConditionTrue {
		t.Fatal("Export shares memory with the tracker")
	}
	tr.Forget("m1")
	if _, ok := tr.Ready("m1"); ok {
		t.Fatal("Forget kept the cluster")
	}
}

func TestClusterHealthTrackerConcurrentUse(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(healthT0)
	tr := mustOK(failover.NewClusterHealthTracker(clk, failover.ClusterHealthConfig{}))
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		name := fmt.Sprintf("m%d", w)
		tr.Register(name, failover.ClusterSyncModePull)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 200; i++ {
				mustProbe(t, tr, name, failover.ProbeResult{Reachable: i%2 == 0, Healthy: true})
				_ = tr.ObserveLease(name, healthT0)
				tr.Ready(name)
				tr.NextCheck(name)
				tr.ExportAll()
			}
		}()
	}
	wg.Wait()
	if got := len(tr.ExportAll()); got != 8 {
		t.Fatalf("tracked %d clusters, want 8", got)
	}
}

func mustProbe(t *testing.T, tr failover.ClusterHealthTracker, cluster string, r failover.ProbeResult) metav1.Condition {
	t.Helper()
	c, err := tr.ObserveProbe(cluster, r)
	if err != nil {
		t.Error(err)
	}
	return c
}

func TestClusterHealthTrackerSubSecondTimesSurviveJSON(t *testing.T) {
	half := 500 * time.Millisecond
	clk := clocktesting.NewFakePassiveClock(healthT0.Add(half))
	before := mustOK(failover.NewClusterHealthTracker(clk, failover.ClusterHealthConfig{}))
	before.Register("m1", failover.ClusterSyncModePush)
	c := mustProbe(t, before, "m1", probeOK)
	if !c.LastTransitionTime.Time.Equal(healthT0) {
		t.Fatalf("LastTransitionTime %v, want rounded down to a whole second", c.LastTransitionTime)
	}
	clk.SetTime(healthT0.Add(10*time.Second + half))
	mustProbe(t, before, "m1", probeUnreachable) // pending since +11 s (rounded up)
	inMemory, _ := before.Export("m1")
	raw, err := json.Marshal(inMemory)
	if err != nil {
		t.Fatal(err)
	}
	var restored failover.ClusterHealthState
	if err := json.Unmarshal(raw, &restored); err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(restored)
	if string(again) != string(raw) {
		t.Fatalf("JSON round trip changed the state:\n%s\n%s", raw, again)
	}
	after := mustOK(failover.NewClusterHealthTracker(clk, failover.ClusterHealthConfig{}))
	if err := after.Import("m1", restored); err != nil {
		t.Fatal(err)
	}
	for _, tr := range []failover.ClusterHealthTracker{before, after} {
		clk.SetTime(healthT0.Add(40*time.Second + half)) // 30 s after the failure, not after the rounded start
		if c := mustProbe(t, tr, "m1", probeUnreachable); c.Status != metav1.ConditionTrue {
			t.Fatalf("ended early: %+v", c)
		}
		clk.SetTime(healthT0.Add(41 * time.Second))
		if c := mustProbe(t, tr, "m1", probeUnreachable); c.Status != metav1.ConditionFalse {
			t.Fatalf("did not end at the rounded-up threshold: %+v", c)
		}
	}
}

// A pull-mode cluster's agent posts the Ready condition it decided: the
// tracker publishes it as it is, without its own debounce, keeps the
// cluster alive with it, and still turns it Unknown when the agent falls
// silent.
func TestClusterHealthTrackerObserveStatus(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(healthT0)
	tr := mustOK(failover.NewClusterHealthTracker(clk, failover.ClusterHealthConfig{MonitorGracePeriod: 40 * time.Second}))
	tr.Register("m1", failover.ClusterSyncModePull)
	mustProbe(t, tr, "m1", probeOK)

	clk.SetTime(healthT0.Add(10 * time.Second))
	notReady := metav1.Condition{Type: failover.ConditionTypeReady, Status: metav1.ConditionFalse, Reason: "ClusterNotReady",
		Message: "cluster is reachable but health endpoint responded without ok", LastTransitionTime: metav1.NewTime(healthT0.Add(8 * time.Second))}
	if err := tr.ObserveStatus("m1", notReady); err != nil {
		t.Fatal(err)
	}
	got, _ := tr.Ready("m1")
	if got.Status != metav1.ConditionFalse || got.Reason != notReady.Reason || got.Message != notReady.Message ||
		!got.LastTransitionTime.Equal(&notReady.LastTransitionTime) {
		t.Fatalf("published %+v, want the agent's condition %+v at once", got, notReady)
	}
	// A probe that lands on the other side afterwards waits for its
	// threshold again: the agent's word stands until then.
	mustProbe(t, tr, "m1", probeOK)
	if got, _ := tr.Ready("m1"); got.Status != metav1.ConditionFalse {
		t.Fatalf("a single probe overrode the posted status: %+v", got)
	}
	// The post was a sign of life: 40 s later, not before, silence makes
	// the cluster Unknown.
	clk.SetTime(healthT0.Add(49 * time.Second))
	if got, _ := tr.Ready("m1"); got.Status != metav1.ConditionFalse {
		t.Fatalf("Unknown before the grace period: %+v", got)
	}
	clk.SetTime(healthT0.Add(50 * time.Second))
	if got, _ := tr.Ready("m1"); got.Status != metav1.ConditionUnknown || got.Reason != failover.ReasonClusterStatusUnknown {
		t.Fatalf("after the grace period: %+v, want Unknown", got)
	}
	// The agent comes back with Ready True, stamped in the future by a
	// clock that runs ahead: published now.
	clk.SetTime(healthT0.Add(60 * time.Second))
	ready := metav1.Condition{Type: failover.ConditionTypeReady, Status: metav1.ConditionTrue, Reason: "ClusterReady", Message: "ok",
		LastTransitionTime: metav1.NewTime(healthT0.Add(time.Hour))}
	if err := tr.ObserveStatus("m1", ready); err != nil {
		t.Fatal(err)
	}
	if got, _ := tr.Ready("m1"); got.Status != metav1.ConditionTrue || !got.LastTransitionTime.Time.Equal(healthT0.Add(60*time.Second)) {
		t.Fatalf("after the agent's return: %+v, want True since now", got)
	}
}

func TestClusterHealthTrackerObserveStatusRefusesBadConditions(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(healthT0)
	tr := mustOK(failover.NewClusterHealthTracker(clk, failover.ClusterHealthConfig{}))
	tr.Register("m1", failover.ClusterSyncModePull)
	mustProbe(t, tr, "m1", probeOK)
	for name, c := range map[string]metav1.Condition{
		"type":   {Type: "Alive", Status: metav1.ConditionFalse},
		"status": {Type: failover.ConditionTypeReady, Status: "Maybe"},
	} {
		if err := tr.ObserveStatus("m1", c); !errors.Is(err, failover.ErrInvalidPostedStatus) {
			t.Errorf("%s: ObserveStatus = %v, want ErrInvalidPostedStatus", name, err)
		}
	}
	if got, _ := tr.Ready("m1"); got.Status != metav1.ConditionTrue {
		t.Fatalf("a refused status changed the condition: %+v", got)
	}
	if err := tr.ObserveStatus("ghost", metav1.Condition{Type: failover.ConditionTypeReady, Status: metav1.ConditionTrue}); !errors.Is(err, failover.ErrClusterNotRegistered) {
		t.Fatalf("status of an unregistered cluster: %v", err)
	}
}
