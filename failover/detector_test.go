package failover_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
)

// detT0 is the start of every detector timeline; whole seconds, as
// persisted timestamps are.
var detT0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func detAt(seconds int) time.Time { return detT0.Add(time.Duration(seconds) * time.Second) }

func detPolicy(tolerationSeconds int32) *failover.ApplicationFailoverBehavior {
	return &failover.ApplicationFailoverBehavior{
		DecisionConditions: failover.DecisionConditions{TolerationSeconds: ptr.To(tolerationSeconds)},
	}
}

// detTimeline feeds one cluster's health observations, one per step, to the
// pure decision function, carrying the records from step to step as a
// caller persisting them would.
type detStep struct {
	at        int // seconds after detT0
	health    health.Status
	wantEvict bool
	wantNext  int // seconds after detT0; -1: nothing pending
}

func detRunTimeline(t *testing.T, policy *failover.ApplicationFailoverBehavior, cfg failover.DetectorConfig, wh failover.ObservedHealth, steps []detStep) {
	t.Helper()
	var records []failover.WorkloadHealthRecord
	for _, s := range steps {
		wh.Status = s.health
		d, err := failover.DetectApplicationFailure(failover.DetectorInput{
			Policy:   policy,
			Clusters: []string{wh.ClusterName},
			Health:   []failover.ObservedHealth{wh},
			Records:  records,
		}, detAt(s.at), cfg)
		if err != nil {
			t.Fatalf("t=%ds: %v", s.at, err)
		}
		if got := len(d.Evictions) == 1; got != s.wantEvict {
			t.Fatalf("t=%ds %s: evict = %v, want %v (records %+v)", s.at, s.health, got, s.wantEvict, records)
		}
		wantNext := time.Time{}
		if s.wantNext >= 0 {
			wantNext = detAt(s.wantNext)
		}
		if !d.NextCheck.Equal(wantNext) {
			t.Fatalf("t=%ds %s: NextCheck = %v, want %v", s.at, s.health, d.NextCheck, wantNext)
		}
		records = d.Records
	}
}

func TestDetectorToleration(t *testing.T) {
	wh := failover.ObservedHealth{ClusterName: "member1", CollectedSince: metav1.NewTime(detT0)}
	detRunTimeline(t, detPolicy(60), failover.DetectorConfig{}, wh, []detStep{
		{at: 0, health: health.Healthy, wantNext: -1},
		{at: 10, health: health.Unhealthy, wantNext: 70},                  // countdown starts
		{at: 69, health: health.Unhealthy, wantNext: 70},                  // just below TolerationSeconds
		{at: 70, health: health.Unhealthy, wantEvict: true, wantNext: -1}, // exactly at it
	})
}

func TestDetectorHealthyResetsCountdown(t *testing.T) {
	wh := failover.ObservedHealth{ClusterName: "member1", CollectedSince: metav1.NewTime(detT0)}
	detRunTimeline(t, detPolicy(60), failover.DetectorConfig{}, wh, []detStep{
		{at: 0, health: health.Unhealthy, wantNext: 60},
		{at: 50, health: health.Healthy, wantNext: -1},
		{at: 55, health: health.Unhealthy, wantNext: 115}, // counts from 55, not 0
		{at: 60, health: health.Unhealthy, wantNext: 115},
		{at: 115, health: health.Unhealthy, wantEvict: true, wantNext: -1},
	})
}

func TestDetectorUnknownBlipDoesNotResetByDefault(t *testing.T) {
	wh := failover.ObservedHealth{ClusterName: "member1", CollectedSince: metav1.NewTime(detT0)}
	detRunTimeline(t, detPolicy(60), failover.DetectorConfig{}, wh, []detStep{
		{at: 0, health: health.Unhealthy, wantNext: 60},
		{at: 30, health: health.Unknown, wantNext: 60}, // countdown kept, still due at 60
		{at: 45, health: health.Unhealthy, wantNext: 60},
		{at: 59, health: health.Unknown, wantNext: 60},
		{at: 60, health: health.Unknown, wantNext: -1},                    // Unknown is not failing: no eviction
		{at: 75, health: health.Unhealthy, wantEvict: true, wantNext: -1}, // failing again past the deadline
	})
}

func TestDetectorInvalidHealthIsUnknown(t *testing.T) {
	wh := failover.ObservedHealth{ClusterName: "member1", CollectedSince: metav1.NewTime(detT0)}
	policy := detPolicy(60)
	policy.DecisionConditions.HealthyState = []health.Status{health.Unknown}
	detRunTimeline(t, policy, failover.DetectorConfig{}, wh, []detStep{
		{at: 0, health: "", wantNext: 60},
		{at: 30, health: "Degraded", wantNext: 60},
		{at: 60, health: "", wantEvict: true, wantNext: -1},
	})
}

func TestDetectorUnknownResetsWithKarmadaOption(t *testing.T) {
	wh := failover.ObservedHealth{ClusterName: "member1", CollectedSince: metav1.NewTime(detT0)}
	detRunTimeline(t, detPolicy(60), failover.DetectorConfig{UnknownResetsCountdown: true}, wh, []detStep{
		{at: 0, health: health.Unhealthy, wantNext: 60},
		{at: 30, health: health.Unknown, wantNext: -1},
		{at: 60, health: health.Unhealthy, wantNext: 120},
		{at: 90, health: health.Unknown, wantNext: -1},
		{at: 120, health: health.Unhealthy, wantNext: 180}, // flapping never fails over: Karmada #7431
	})
}

func TestDetectorUnknownListedAsFailing(t *testing.T) {
	policy := detPolicy(60)
	policy.DecisionConditions.HealthyState = []health.Status{health.Unhealthy, health.Unknown}
	wh := failover.ObservedHealth{ClusterName: "member1", CollectedSince: metav1.NewTime(detT0)}
	detRunTimeline(t, policy, failover.DetectorConfig{}, wh, []detStep{
		{at: 0, health: health.Unknown, wantNext: 60},
		{at: 30, health: health.Unhealthy, wantNext: 60},
		{at: 60, health: health.Unknown, wantEvict: true, wantNext: -1},
	})

	// Listing only Unknown makes Unhealthy not failing.
	policy.DecisionConditions.HealthyState = []health.Status{health.Unknown}
	detRunTimeline(t, policy, failover.DetectorConfig{}, wh, []detStep{
		{at: 0, health: health.Unhealthy, wantNext: -1},
		{at: 100, health: health.Unhealthy, wantNext: -1},
	})
}

func TestDetectorDelaySeconds(t *testing.T) {
	policy := detPolicy(30)
	policy.PreConditions = &failover.PreConditions{DelaySeconds: ptr.To[int32](100)}
	wh := failover.ObservedHealth{ClusterName: "member1", CollectedSince: metav1.NewTime(detAt(20))}
	detRunTimeline(t, policy, failover.DetectorConfig{}, wh, []detStep{
		{at: 25, health: health.Unhealthy, wantNext: 120},  // delay not reached: no countdown, look at its end
		{at: 119, health: health.Unhealthy, wantNext: 120}, // still not
		{at: 120, health: health.Unhealthy, wantNext: 150}, // delay over: the countdown starts now
		{at: 149, health: health.Unhealthy, wantNext: 150},
		{at: 150, health: health.Unhealthy, wantEvict: true, wantNext: -1},
	})
}

func TestDetectorDelayWithoutCollectionTime(t *testing.T) {
	policy := detPolicy(30)
	policy.PreConditions = &failover.PreConditions{DelaySeconds: ptr.To[int32](100)}
	wh := failover.ObservedHealth{ClusterName: "member1"}
	detRunTimeline(t, policy, failover.DetectorConfig{}, wh, []detStep{
		{at: 0, health: health.Unhealthy, wantNext: -1},
		{at: 1000, health: health.Unhealthy, wantNext: -1},
	})
}

func TestDetectorHealthyStatePrecondition(t *testing.T) {
	policy := detPolicy(30)
	policy.PreConditions = &failover.PreConditions{HealthyState: health.Healthy}
	wh := failover.ObservedHealth{ClusterName: "member1", CollectedSince: metav1.NewTime(detT0)}
	// Never healthy: never moves, and nothing to wait for.
	detRunTimeline(t, policy, failover.DetectorConfig{}, wh, []detStep{
		{at: 0, health: health.Unhealthy, wantNext: -1},
		{at: 500, health: health.Unhealthy, wantNext: -1},
		// Once healthy, the detector remembers it.
		{at: 600, health: health.Healthy, wantNext: -1},
		{at: 610, health: health.Unhealthy, wantNext: 640},
		{at: 640, health: health.Unhealthy, wantEvict: true, wantNext: -1},
	})
	// Settled reported by the caller counts the same.
	wh.Settled = true
	detRunTimeline(t, policy, failover.DetectorConfig{}, wh, []detStep{
		{at: 0, health: health.Unhealthy, wantNext: 30},
		{at: 30, health: health.Unhealthy, wantEvict: true, wantNext: -1},
	})
}

func TestDetectorZeroToleration(t *testing.T) {
	wh := failover.ObservedHealth{ClusterName: "member1", CollectedSince: metav1.NewTime(detT0)}
	detRunTimeline(t, detPolicy(0), failover.DetectorConfig{}, wh, []detStep{
		{at: 0, health: health.Healthy, wantNext: -1},
		{at: 5, health: health.Unhealthy, wantEvict: true, wantNext: -1},
	})
	// With a delay, the delay's end is still a pending look.
	policy := detPolicy(0)
	policy.PreConditions = &failover.PreConditions{DelaySeconds: ptr.To[int32](10)}
	detRunTimeline(t, policy, failover.DetectorConfig{}, wh, []detStep{
		{at: 5, health: health.Unhealthy, wantNext: 10},
		{at: 10, health: health.Unhealthy, wantEvict: true, wantNext: -1},
	})
}

func TestDetectionRequeueAfter(t *testing.T) {
	now := detAt(100)
	if _, ok := (failover.Detection{}).RequeueAfter(now); ok {
		t.Error("empty detection asks for a requeue")
	}
	for next, want := range map[int]time.Duration{130: 30 * time.Second, 100: 0, 90: 0} {
		got, ok := failover.Detection{NextCheck: detAt(next)}.RequeueAfter(now)
		if !ok || got != want {
			t.Errorf("NextCheck t=%d: RequeueAfter = %v, %v; want %v, true", next, got, ok, want)
		}
	}
}

func TestDetectorDefaultToleration(t *testing.T) {
	d, err := failover.DetectApplicationFailure(failover.DetectorInput{
		Policy:   &failover.ApplicationFailoverBehavior{},
		Clusters: []string{"member1"},
		Health:   []failover.ObservedHealth{{ClusterName: "member1", Status: health.Unhealthy}},
	}, detT0, failover.DetectorConfig{})
	if err != nil {
		t.Fatal(err)
	}
	want := detT0.Add(time.Duration(failover.DefaultApplicationTolerationSeconds) * time.Second)
	if !d.NextCheck.Equal(want) {
		t.Errorf("NextCheck = %v, want %v (DefaultApplicationTolerationSeconds)", d.NextCheck, want)
	}
}

func TestDetectorCountdownStampsWholeSeconds(t *testing.T) {
	d, err := failover.DetectApplicationFailure(failover.DetectorInput{
		Policy:   detPolicy(10),
		Clusters: []string{"member1"},
		Health:   []failover.ObservedHealth{{ClusterName: "member1", Status: health.Unhealthy}},
	}, detT0.Add(700*time.Millisecond), failover.DetectorConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Records) != 1 || !d.Records[0].FailingSince.Time.Equal(detT0) {
		t.Fatalf("records %+v, want FailingSince %v", d.Records, detT0)
	}
	if !d.NextCheck.Equal(detAt(10)) {
		t.Errorf("NextCheck = %v, want %v", d.NextCheck, detAt(10))
	}
}

func TestDetectorEvictionFields(t *testing.T) {
	clusters := []string{"member1", "member2", "member3"}
	healthAll := []failover.ObservedHealth{
		{ClusterName: "member1", Status: health.Unhealthy},
		{ClusterName: "member2", Status: health.Healthy},
		{ClusterName: "member3", Status: health.Unhealthy},
		{ClusterName: "member9", Status: health.Unhealthy}, // not a target: ignored
	}
	cases := []struct {
		name      string
		mode      eviction.PurgeMode
		grace     *int32
		block     *int32
		wantMode  eviction.PurgeMode
		wantGrace *int32
		wantSupp  *bool
		wantBlock *int32
	}{
		{"defaults", "", nil, nil, eviction.PurgeGracefully, ptr.To(eviction.DefaultGracePeriodSeconds), nil, ptr.To(eviction.DefaultBlockPredecessorSeconds)},
		{"gracefully", eviction.PurgeGracefully, ptr.To[int32](120), ptr.To[int32](0), eviction.PurgeGracefully, ptr.To[int32](120), nil, ptr.To[int32](0)},
		{"legacy graciously", eviction.LegacyPurgeGraciously, ptr.To[int32](120), nil, eviction.PurgeGracefully, ptr.To[int32](120), nil, ptr.To(eviction.DefaultBlockPredecessorSeconds)},
		{"directly", eviction.PurgeDirectly, nil, ptr.To[int32](60), eviction.PurgeDirectly, nil, nil, ptr.To[int32](60)},
		{"legacy immediately", eviction.LegacyPurgeImmediately, nil, nil, eviction.PurgeDirectly, nil, nil, ptr.To(eviction.DefaultBlockPredecessorSeconds)},
		{"never", eviction.PurgeNever, nil, nil, eviction.PurgeNever, nil, ptr.To(true), ptr.To(eviction.DefaultBlockPredecessorSeconds)},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			policy := detPolicy(0)
			policy.PurgeMode, policy.GracePeriodSeconds, policy.BlockPredecessorSeconds = tc.mode, tc.grace, tc.block
			d, err := failover.DetectApplicationFailure(failover.DetectorInput{
				Policy: policy, Clusters: clusters, Health: healthAll,
			}, detT0, failover.DetectorConfig{})
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Evictions) != 2 || d.Evictions[0].FromCluster != "member1" || d.Evictions[1].FromCluster != "member3" {
				t.Fatalf("evictions %+v, want member1 and member3", d.Evictions)
			}
			e := d.Evictions[0]
			want := failover.ApplicationEviction{
				FromCluster:             "member1",
				PurgeMode:               tc.wantMode,
				GracePeriodSeconds:      tc.wantGrace,
				SuppressDeletion:        tc.wantSupp,
				BlockPredecessorSeconds: tc.wantBlock,
				Reason:                  eviction.ReasonApplicationFailure,
				Message:                 e.Message,
				ClustersBeforeFailover:  clusters,
			}
			if diff := cmp.Diff(want, e); diff != "" {
				t.Errorf("eviction (-want +got):\n%s", diff)
			}
			if !strings.Contains(e.Message, "member1") || !strings.Contains(e.Message, "Unhealthy") {
				t.Errorf("message %q names neither cluster nor health", e.Message)
			}

			task := evictionTask(t, e.Eviction(map[string]string{"failover.example/jobid": "44cc"}), clusters...)
			wantTask := eviction.GracefulEvictionTask{
				FromCluster:            "member1",
				PurgeMode:              tc.wantMode,
				Reason:                 eviction.ReasonApplicationFailure,
				Message:                e.Message,
				Producer:               eviction.ProducerApplicationFailover,
				GracePeriodSeconds:     tc.wantGrace,
				SuppressDeletion:       tc.wantSupp,
				PreservedLabelState:    map[string]string{"failover.example/jobid": "44cc"},
				ClustersBeforeFailover: clusters,
			}
			if diff := cmp.Diff(wantTask, task); diff != "" {
				t.Errorf("task (-want +got):\n%s", diff)
			}
			if errs := eviction.ValidateGracefulEvictionTask(&task, field.NewPath("gracefulEvictionTasks").Index(0)); len(errs) > 0 {
				t.Errorf("task does not validate: %v", errs)
			}
		})
	}
}

func TestDetectorTaskOwnsItsData(t *testing.T) {
	clusters := []string{"member1", "member2"}
	d, err := failover.DetectApplicationFailure(failover.DetectorInput{
		Policy: detPolicy(0), Clusters: clusters,
		Health: []failover.ObservedHealth{{ClusterName: "member1", Status: health.Unhealthy}},
	}, detT0, failover.DetectorConfig{})
	if err != nil || len(d.Evictions) != 1 {
		t.Fatalf("%+v, %v", d, err)
	}
	preserved := map[string]string{"k": "v"}
	task := evictionTask(t, d.Evictions[0].Eviction(preserved), clusters...)
	clusters[0] = "changed"
	preserved["k"] = "changed"
	if task.ClustersBeforeFailover[0] != "member1" || task.PreservedLabelState["k"] != "v" {
		t.Errorf("task shares memory with the caller: %+v", task)
	}
}

func TestDetectorRecordsFollowTargets(t *testing.T) {
	since := metav1.NewTime(detT0)
	in := failover.DetectorInput{
		Policy:   detPolicy(60),
		Clusters: []string{"member1", "member2"},
		Health: []failover.ObservedHealth{
			{ClusterName: "member1", Status: health.Unhealthy},
			{ClusterName: "member2", Status: health.Healthy},
		},
		Records: []failover.WorkloadHealthRecord{
			{ClusterName: "member1", FailingSince: &since},
			{ClusterName: "gone", FailingSince: &since},
		},
	}
	d, err := failover.DetectApplicationFailure(in, detAt(30), failover.DetectorConfig{})
	if err != nil {
		t.Fatal(err)
	}
	want := []failover.WorkloadHealthRecord{
		{ClusterName: "member1", FailingSince: &since},
		{ClusterName: "member2", Settled: true},
	}
	if diff := cmp.Diff(want, d.Records); diff != "" {
		t.Errorf("records (-want +got):\n%s", diff)
	}
	if !d.RecordsChanged {
		t.Error("RecordsChanged = false after dropping a record")
	}
	// Feeding the output back changes nothing.
	in.Records = d.Records
	d2, err := failover.DetectApplicationFailure(in, detAt(31), failover.DetectorConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if d2.RecordsChanged {
		t.Errorf("RecordsChanged = true for a steady state: %+v", d2.Records)
	}
	// A target with no health entry is Unknown: the countdown stays.
	in.Health = nil
	d3, err := failover.DetectApplicationFailure(in, detAt(90), failover.DetectorConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d3.Evictions) != 0 || d3.RecordsChanged {
		t.Errorf("missing health: %+v", d3)
	}
}

func TestDetectorNilPolicyDisables(t *testing.T) {
	since := metav1.NewTime(detT0)
	d, err := failover.DetectApplicationFailure(failover.DetectorInput{
		Clusters: []string{"member1"},
		Health:   []failover.ObservedHealth{{ClusterName: "member1", Status: health.Unhealthy}},
		Records:  []failover.WorkloadHealthRecord{{ClusterName: "member1", FailingSince: &since}},
	}, detAt(1000), failover.DetectorConfig{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Evictions) != 0 || len(d.Records) != 0 || !d.RecordsChanged || !d.NextCheck.IsZero() {
		t.Errorf("nil policy: %+v, want nothing and the records dropped", d)
	}
}

func TestDetectorRejectsInvalidPolicy(t *testing.T) {
	cases := []struct {
		name      string
		mutate    func(*failover.ApplicationFailoverBehavior)
		wantField string
		wantAlso  error
	}{
		{"negative toleration", func(p *failover.ApplicationFailoverBehavior) {
			p.DecisionConditions.TolerationSeconds = ptr.To[int32](-1)
		}, "decisionConditions.tolerationSeconds", nil},
		{"negative delay", func(p *failover.ApplicationFailoverBehavior) {
			p.PreConditions = &failover.PreConditions{DelaySeconds: ptr.To[int32](-5)}
		}, "preConditions.delaySeconds", nil},
		{"precondition state", func(p *failover.ApplicationFailoverBehavior) {
			p.PreConditions = &failover.PreConditions{HealthyState: health.Unhealthy}
		}, "preConditions.healthyState", nil},
		{"decision state", func(p *failover.ApplicationFailoverBehavior) {
			p.DecisionConditions.HealthyState = []health.Status{health.Healthy}
		}, "decisionConditions.healthyState[0]", nil},
		{"grace period", func(p *failover.ApplicationFailoverBehavior) {
			p.GracePeriodSeconds = ptr.To[int32](0)
		}, "gracePeriodSeconds", nil},
		{"block", func(p *failover.ApplicationFailoverBehavior) {
			p.BlockPredecessorSeconds = ptr.To[int32](-3)
		}, "blockPredecessorSeconds", nil},
		{"purge mode", func(p *failover.ApplicationFailoverBehavior) {
			p.PurgeMode = "Later"
		}, "purgeMode", eviction.ErrUnknownPurgeMode},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			policy := detPolicy(10)
			tc.mutate(policy)
			_, err := failover.DetectApplicationFailure(failover.DetectorInput{
				Policy: policy, Clusters: []string{"member1"},
				Health: []failover.ObservedHealth{{ClusterName: "member1", Status: health.Unhealthy}},
			}, detT0, failover.DetectorConfig{})
			if !errors.Is(err, failover.ErrInvalidDetectorInput) || !strings.Contains(err.Error(), tc.wantField) {
				t.Fatalf("error %v, want ErrInvalidDetectorInput naming %s", err, tc.wantField)
			}
			if tc.wantAlso != nil && !errors.Is(err, tc.wantAlso) {
				t.Errorf("error %v does not wrap %v", err, tc.wantAlso)
			}
		})
	}
}

// TestDetectorRestartContinuesCountdown exports a detector's records,
// carries them through JSON as a controller would persist them, and imports
// them into a new detector: the countdown neither restarts nor skips.
func TestDetectorRestartContinuesCountdown(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(detT0)
	policy := detPolicy(60)
	clusters := []string{"member1", "member2"}
	wh := []failover.ObservedHealth{
		{ClusterName: "member1", Status: health.Unhealthy},
		{ClusterName: "member2", Status: health.Healthy},
	}
	before := mustOK(failover.NewDetector(clk, failover.DetectorConfig{}))
	if _, err := before.Detect("shop/web", policy, clusters, wh); err != nil {
		t.Fatal(err)
	}
	clk.SetTime(detAt(40))
	if d, err := before.Detect("shop/web", policy, clusters, wh); err != nil || len(d.Evictions) != 0 {
		t.Fatalf("t=40: %+v, %v", d, err)
	}

	saved, err := json.Marshal(before.Export())
	if err != nil {
		t.Fatal(err)
	}
	var restored []failover.DetectorRecord
	if err := json.Unmarshal(saved, &restored); err != nil {
		t.Fatal(err)
	}
	clk.SetTime(detAt(50))
	after := mustOK(failover.NewDetector(clk, failover.DetectorConfig{}))
	if err := after.Import(restored); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before.Export(), after.Export()); diff != "" {
		t.Fatalf("records changed through export and import (-before +after):\n%s", diff)
	}

	d, err := after.Detect("shop/web", policy, clusters, wh)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Evictions) != 0 || !d.NextCheck.Equal(detAt(60)) {
		t.Fatalf("t=50 after restart: %+v, want no eviction and NextCheck at t=60 (not reset to t=110)", d)
	}
	clk.SetTime(detAt(60))
	d, err = after.Detect("shop/web", policy, clusters, wh)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Evictions) != 1 || d.Evictions[0].FromCluster != "member1" {
		t.Fatalf("t=60 after restart: %+v, want member1 evicted", d)
	}
	// The eviction is a proposal: member1's record stays until member1
	// leaves the targets.
	if len(after.Export()) != 2 {
		t.Fatalf("records after the proposal: %+v", after.Export())
	}
	// The eviction took effect: member1 is no target any more, its record
	// goes; member2 stays settled.
	if _, err := after.Detect("shop/web", policy, []string{"member2"}, wh); err != nil {
		t.Fatal(err)
	}
	want := []failover.DetectorRecord{{Binding: "shop/web",
		WorkloadHealthRecord: failover.WorkloadHealthRecord{ClusterName: "member2", Settled: true}}}
	if diff := cmp.Diff(want, after.Export()); diff != "" {
		t.Errorf("records after the eviction (-want +got):\n%s", diff)
	}
}

// An eviction the caller could not carry out (the pacer refused it) is not
// forgotten: the next look proposes it again at once, without a new
// toleration, and a healthy-once precondition stays met.
func TestDetectorKeepsARefusedEviction(t *testing.T) {
	policy := &failover.ApplicationFailoverBehavior{
		DecisionConditions: failover.DecisionConditions{TolerationSeconds: ptr.To[int32](60)},
		PreConditions:      &failover.PreConditions{HealthyState: health.Healthy},
	}
	clusters := []string{"member1", "member2"}
	healthy := []failover.ObservedHealth{{ClusterName: "member1", Status: health.Healthy}, {ClusterName: "member2", Status: health.Healthy}}
	failing := []failover.ObservedHealth{{ClusterName: "member1", Status: health.Unhealthy}, {ClusterName: "member2", Status: health.Healthy}}
	in := failover.DetectorInput{Policy: policy, Clusters: clusters, Health: healthy}
	d, err := failover.DetectApplicationFailure(in, detT0, failover.DetectorConfig{})
	if err != nil {
		t.Fatal(err)
	}
	in.Records, in.Health = d.Records, failing
	if d, err = failover.DetectApplicationFailure(in, detAt(1), failover.DetectorConfig{}); err != nil || len(d.Evictions) != 0 {
		t.Fatalf("countdown start: %+v %v", d, err)
	}
	in.Records = d.Records
	d, err = failover.DetectApplicationFailure(in, detAt(61), failover.DetectorConfig{})
	if err != nil || len(d.Evictions) != 1 || !d.Evictions[0].Settled {
		t.Fatalf("toleration over: %+v %v", d, err)
	}
	// The pacer refuses; the caller keeps the records as returned. Every
	// later look proposes the eviction again at once.
	for _, at := range []int{62, 90, 600} {
		in.Records = d.Records
		d, err = failover.DetectApplicationFailure(in, detAt(at), failover.DetectorConfig{})
		if err != nil || len(d.Evictions) != 1 || d.Evictions[0].FromCluster != "member1" {
			t.Fatalf("t=%d after a refusal: %+v %v", at, d, err)
		}
		if ev := d.Evictions[0].Eviction(nil); !ev.Settled {
			t.Fatalf("t=%d: the eviction forgot the copy settled: %+v", at, ev)
		}
	}
}

func TestDetectorImportForgetAndErrors(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(detT0)
	det := mustOK(failover.NewDetector(clk, failover.DetectorConfig{}))
	since := metav1.NewTime(detT0)
	_ = det.Import([]failover.DetectorRecord{
		{Binding: "a", WorkloadHealthRecord: failover.WorkloadHealthRecord{ClusterName: "m1", FailingSince: &since}},
		{Binding: "b", WorkloadHealthRecord: failover.WorkloadHealthRecord{ClusterName: "m1", Settled: true}},
	})
	// A second import replaces binding a only.
	_ = det.Import([]failover.DetectorRecord{
		{Binding: "a", WorkloadHealthRecord: failover.WorkloadHealthRecord{ClusterName: "m2", Settled: true}},
	})
	want := []failover.DetectorRecord{
		{Binding: "a", WorkloadHealthRecord: failover.WorkloadHealthRecord{ClusterName: "m2", Settled: true}},
		{Binding: "b", WorkloadHealthRecord: failover.WorkloadHealthRecord{ClusterName: "m1", Settled: true}},
	}
	if diff := cmp.Diff(want, det.Export()); diff != "" {
		t.Fatalf("after imports (-want +got):\n%s", diff)
	}
	// An invalid policy leaves the records alone.
	if _, err := det.Detect("b", detPolicy(-1), []string{"m1"}, nil); !errors.Is(err, failover.ErrInvalidDetectorInput) {
		t.Fatalf("error %v", err)
	}
	if diff := cmp.Diff(want, det.Export()); diff != "" {
		t.Fatalf("after a failed Detect (-want +got):\n%s", diff)
	}
	det.Forget("a")
	if diff := cmp.Diff(want[1:], det.Export()); diff != "" {
		t.Errorf("after Forget (-want +got):\n%s", diff)
	}
}

// BenchmarkDetectApplicationFailure decides for one binding on three
// clusters: one healthy, one counting down, one Unknown with a running
// countdown — the steady state a controller re-evaluates most.
func BenchmarkDetectApplicationFailure(b *testing.B) {
	since := metav1.NewTime(detT0)
	in := failover.DetectorInput{
		Policy:   detPolicy(300),
		Clusters: []string{"member1", "member2", "member3"},
		Health: []failover.ObservedHealth{
			{ClusterName: "member1", Status: health.Healthy, Settled: true},
			{ClusterName: "member2", Status: health.Unhealthy, Settled: true},
			{ClusterName: "member3", Status: health.Unknown, Settled: true},
		},
		Records: []failover.WorkloadHealthRecord{
			{ClusterName: "member1", Settled: true},
			{ClusterName: "member2", FailingSince: &since, Settled: true},
			{ClusterName: "member3", FailingSince: &since, Settled: true},
		},
	}
	now := detAt(100)
	b.ReportAllocs()
	for b.Loop() {
		d, err := failover.DetectApplicationFailure(in, now, failover.DetectorConfig{})
		if err != nil || len(d.Evictions) != 0 || d.RecordsChanged {
			b.Fatalf("%+v, %v", d, err)
		}
	}
}

// FuzzDetectApplicationFailure checks the detector's invariants on random
// policies, health and records: no panic, evictions only of distinct target
// clusters, records only for targets, and a NextCheck no later than the end
// of every running countdown.
func FuzzDetectApplicationFailure(f *testing.F) {
	f.Add(int32(60), int32(0), false, false, []byte{1, 2, 0}, int64(30), int64(-10), int64(100))
	f.Add(int32(0), int32(100), true, true, []byte{2, 2, 2, 3}, int64(500), int64(5), int64(-1))
	f.Add(int32(-1), int32(5), false, false, []byte{}, int64(0), int64(0), int64(0))
	states := []health.Status{health.Healthy, health.Unhealthy, health.Unknown, "", "Bogus"}
	clusters := []string{"m0", "m1", "m2", "m0"}
	f.Fuzz(func(t *testing.T, toleration, delay int32, needSettled, unknownResets bool, codes []byte, nowOffset, sinceOffset, collectedOffset int64) {
		policy := detPolicy(toleration)
		policy.PreConditions = &failover.PreConditions{DelaySeconds: ptr.To(delay)}
		if needSettled {
			policy.PreConditions.HealthyState = health.Healthy
		}
		now := detT0.Add(time.Duration(nowOffset%1e9) * time.Second)
		since := metav1.NewTime(detT0.Add(time.Duration(sinceOffset%1e9) * time.Second))
		in := failover.DetectorInput{Policy: policy, Clusters: clusters}
		for n, b := range codes {
			c := clusters[n%len(clusters)]
			in.Health = append(in.Health, failover.ObservedHealth{
				ClusterName:    c,
				Status:         states[int(b)%len(states)],
				CollectedSince: metav1.NewTime(detT0.Add(time.Duration(collectedOffset%1e9) * time.Second)),
				Settled:        b&0x80 != 0,
			})
			if b&0x40 != 0 {
				in.Records = append(in.Records, failover.WorkloadHealthRecord{ClusterName: c, FailingSince: &since, Settled: b&0x20 != 0})
			}
		}
		d, err := failover.DetectApplicationFailure(in, now, failover.DetectorConfig{UnknownResetsCountdown: unknownResets})
		if err != nil {
			if !errors.Is(err, failover.ErrInvalidDetectorInput) {
				t.Fatalf("error %v does not wrap ErrInvalidDetectorInput", err)
			}
			return
		}
		evicted := map[string]bool{}
		for _, e := range d.Evictions {
			if evicted[e.FromCluster] || !slicesContains(clusters, e.FromCluster) {
				t.Fatalf("eviction of %q: duplicate or not a target", e.FromCluster)
			}
			evicted[e.FromCluster] = true
		}
		recorded := map[string]bool{}
		for _, r := range d.Records {
			if recorded[r.ClusterName] || !slicesContains(clusters, r.ClusterName) {
				t.Fatalf("record for %q: duplicate or not a target", r.ClusterName)
			}
			recorded[r.ClusterName] = true
		}
		// An eviction is a proposal until the cluster leaves the targets:
		// its record stays, so one the caller cannot carry out comes back
		// with its countdown.
		for cluster := range evicted {
			if !recorded[cluster] {
				t.Fatalf("eviction of %q without its record: refused, it would lose its countdown", cluster)
			}
		}
		for _, r := range d.Records {
			if r.FailingSince == nil {
				continue
			}
			deadline := r.FailingSince.Add(time.Duration(toleration) * time.Second)
			if deadline.After(now) && (d.NextCheck.IsZero() || d.NextCheck.After(deadline)) {
				t.Fatalf("countdown of %s runs until %v but NextCheck is %v", r.ClusterName, deadline, d.NextCheck)
			}
		}
	})
}

func slicesContains(s []string, v string) bool {
	for _, e := range s {
		if e == v {
			return true
		}
	}
	return false
}
