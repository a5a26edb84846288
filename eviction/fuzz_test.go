package eviction

import (
	"encoding/json"
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
		p := NewPacer(PacerConfig{Clock: clk, Rate: 1, Burst: 3, PerZone: true})
		if err := p.Import(s); err != nil {
			return
		}
		for _, z := range s.Zones {
			accepted := 0
			for range 10 {
				if p.TryAccept(z.Zone) {
					accepted++
				}
			}
			if accepted > 3 {
				t.Fatalf("zone %q accepted %d at once with a burst of 3", z.Zone, accepted)
			}
			p.When(z.Zone)
		}
	})
}
