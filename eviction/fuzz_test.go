package eviction

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/fleetover/fleetover/failover/health"
)

// FuzzValidateGracefulEvictionTask decodes arbitrary JSON into a task and
// validates it; a task that validates must also go through Evict and
// Assess without trouble.
func FuzzValidateGracefulEvictionTask(f *testing.F) {
	f.Add([]byte(`{"fromCluster":"member1","reason":"TaintUntolerated","producer":"TaintManager"}`))
	f.Add([]byte(`{"fromCluster":"m1","purgeMode":"Immediately","reason":"A:B","producer":"p","gracePeriodSeconds":5,"suppressDeletion":true}`))
	f.Add([]byte(`{"fromCluster":"m1","reason":"R","producer":"p","preservedLabelState":{"a/b":"c","":"x"},"clustersBeforeFailover":["m1",""],"creationTimestamp":"2026-01-01T00:00:00Z"}`))
	f.Add([]byte(`[{"fromCluster":"m1"}]`))
	f.Add([]byte(`{"replicas":-1,"gracePeriodSeconds":-2147483648}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var task GracefulEvictionTask
		if err := json.Unmarshal(data, &task); err != nil {
			return
		}
		errs := ValidateGracefulEvictionTask(&task, field.NewPath("task"))
		for _, e := range errs {
			if !strings.HasPrefix(e.Field, "task") {
				t.Fatalf("error outside the task's path: %v", e)
			}
		}
		_ = ValidateGracefulEvictionTasks([]GracefulEvictionTask{task, task}, field.NewPath("tasks"))
		if len(errs) > 0 {
			return
		}
		if !task.PurgeMode.Normalize().IsValid() && task.PurgeMode != "" {
			t.Fatalf("invalid purge mode %q accepted", task.PurgeMode)
		}
		now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		a := Assess(AssessInput{
			Tasks:   []GracefulEvictionTask{task},
			Targets: []TargetCluster{{Name: "other"}},
			Health:  HealthLookupFunc(func(string) health.Status { return health.Healthy }),
			Now:     now,
		}, AssessOptions{})
		if len(a.Kept)+len(a.Removed) != 1 {
			t.Fatalf("task lost: %+v", a)
		}
		ev := Eviction{
			Cluster: task.FromCluster, Producer: task.Producer, Reason: task.Reason, Message: task.Message,
			PurgeMode: task.PurgeMode, GracePeriodSeconds: task.GracePeriodSeconds, SuppressDeletion: task.SuppressDeletion,
			PreservedLabelState: task.PreservedLabelState,
		}
		res, err := Evict([]TargetCluster{{Name: task.FromCluster}}, nil, ev)
		if err != nil || res.Outcome != EvictTaskAdded || len(res.Targets) != 0 {
			t.Fatalf("evicting with a valid task's fields: %v %+v", err, res)
		}
	})
}

// FuzzParsePurgeMode checks that parsing accepts exactly the five spellings
// and always returns a current name.
func FuzzParsePurgeMode(f *testing.F) {
	for _, s := range []string{"Directly", "Gracefully", "Never", "Immediately", "Graciously", "", "directly", "Never "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParsePurgeMode(s)
		known := s == "Directly" || s == "Gracefully" || s == "Never" || s == "Immediately" || s == "Graciously"
		if known != (err == nil) {
			t.Fatalf("ParsePurgeMode(%q) err=%v", s, err)
		}
		if err != nil {
			if m != "" {
				t.Fatalf("mode %q returned with an error", m)
			}
			return
		}
		if m != PurgeDirectly && m != PurgeGracefully && m != PurgeNever {
			t.Fatalf("ParsePurgeMode(%q) = %q, not a current name", s, m)
		}
		if again, err := ParsePurgeMode(string(m)); err != nil || again != m {
			t.Fatalf("not idempotent: %q -> %q (%v)", m, again, err)
		}
	})
}

// FuzzEvictionHistory decodes a history and runs every operation on it.
func FuzzEvictionHistory(f *testing.F) {
	f.Add([]byte(`[{"clusterName":"m1","creationTimestamp":"2026-01-01T00:00:00Z"},{"clusterName":"m1"}]`), int32(600), int64(0))
	f.Add([]byte(`[]`), int32(0), int64(1e18))
	f.Fuzz(func(t *testing.T, data []byte, window int32, offset int64) {
		var h EvictionHistory
		if err := json.Unmarshal(data, &h); err != nil {
			return
		}
		_ = ValidateEvictionHistory(h, field.NewPath("history"))
		now := time.Unix(0, offset)
		for _, e := range h {
			until, blocked, forever := h.BlockedUntil(e.ClusterName, &window, now)
			if forever && !blocked || blocked && !forever && !now.Before(until) {
				t.Fatalf("inconsistent block: %v %v %v", until, blocked, forever)
			}
		}
		n := len(h)
		removed, _ := h.GC(&window, now)
		if removed+len(h) != n {
			t.Fatalf("GC lost entries: %d + %d != %d", removed, len(h), n)
		}
		h.Record("m1", now)
	})
}

// FuzzPacerImport restores arbitrary states: Import either rejects them or
// leaves a pacer that never accepts more than its burst at once.
func FuzzPacerImport(f *testing.F) {
	f.Add([]byte(`{"zones":[{"zone":"","mode":"Normal","rate":5,"tokens":3,"countedAt":"2026-01-01T00:00:00Z"}]}`))
	f.Add([]byte(`{"zones":[{"zone":"a","mode":"FullDisruption","rate":0,"tokens":1e308},{"zone":"a","mode":"Normal","rate":1e300,"tokens":-1}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var s PacerState
		if err := json.Unmarshal(data, &s); err != nil {
			return
		}
		clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		p := mustNewPacer(t, PacerConfig{Clock: clk, Rate: 1, Burst: 3, PerZone: true})
		if err := p.Import(s); err != nil {
			return
		}
		// A zone whose every entry lacks a count time restores no tokens.
		counted := map[string]bool{}
		for _, z := range s.Zones {
			counted[z.Zone] = counted[z.Zone] || !z.CountedAt.IsZero()
		}
		now := clk.Now()
		for _, z := range s.Zones {
			if at, ok := p.When(z.Zone); ok && at.Sub(now) > 24*time.Hour+time.Second {
				t.Fatalf("zone %q: next token at %v, more than a day away at the slowest rate", z.Zone, at)
			}
			accepted := 0
			for range 10 {
				if p.TryAccept(z.Zone) {
					accepted++
				}
			}
			if accepted > 3 {
				t.Fatalf("zone %q accepted %d at once with a burst of 3", z.Zone, accepted)
			}
			if !counted[z.Zone] && accepted > 0 {
				t.Fatalf("zone %q restored without a count time granted %d", z.Zone, accepted)
			}
		}
	})
}

// FuzzValidatePacerConfig builds pacers from arbitrary settings: a setting
// ValidatePacerConfig accepts makes a pacer that admits no more than its
// burst at once and never promises a token more than a day away; one it
// refuses makes NewPacer fail with an error naming a field of the config.
func FuzzValidatePacerConfig(f *testing.F) {
	f.Add(50.0, 50, 5.0, 0.55, 3, false)
	f.Add(math.NaN(), 1, math.NaN(), math.NaN(), 0, true)
	f.Add(1e-300, 1<<30, -1.0, 2.0, -1, true)
	f.Add(MinEvictionRate, MaxEvictionBurst, MaxEvictionRate, 1.0, 1, false)
	f.Fuzz(func(t *testing.T, rate float64, burst int, secondary, threshold float64, minUnhealthy int, perZone bool) {
		clk := clocktesting.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
		cfg := PacerConfig{Clock: clk, Rate: rate, Burst: burst, SecondaryRate: secondary,
			UnhealthyThreshold: threshold, MinUnhealthyClusters: minUnhealthy, PerZone: perZone}
		errs := ValidatePacerConfig(cfg, field.NewPath("pacerConfig"))
		p, err := NewPacer(cfg)
		if len(errs) > 0 {
			if err == nil || p != nil {
				t.Fatalf("refused config %+v built a pacer", cfg)
			}
			for _, e := range errs {
				if !strings.HasPrefix(e.Field, "pacerConfig.") {
					t.Fatalf("error %v names no field", e)
				}
			}
			return
		}
		if err != nil {
			t.Fatalf("valid config %+v refused: %v", cfg, err)
		}
		wantBurst := burst
		if wantBurst == 0 {
			wantBurst = DefaultEvictionBurst
		}
		for _, views := range [][]ClusterHealthView{fleet(5, 0, "a"), fleet(1, 4, "a"), fleet(0, 5, "a"), append(fleet(0, 5, "a"), fleet(3, 0, "b")...)} {
			p.Observe(views)
			clk.Step(time.Hour)
			if at, ok := p.When("a"); ok && at.Sub(clk.Now()) > 24*time.Hour+time.Second {
				t.Fatalf("next token at %v, more than a day away", at)
			}
			accepted := 0
			for range min(wantBurst, 1000) + 1 {
				if p.TryAccept("a") {
					accepted++
				}
			}
			if accepted > wantBurst {
				t.Fatalf("admitted %d at once with a burst of %d", accepted, wantBurst)
			}
		}
	})
}
