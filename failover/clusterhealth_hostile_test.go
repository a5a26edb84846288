package failover_test

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/fleetover/fleetover/failover"
)

// mustOK unwraps a constructor given a configuration the test knows valid.
func mustOK[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

var hostileT0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// A restored state dated in year 9999 must not keep an unreachable
// pull-mode cluster Ready for ever: every future time is clamped to now, so
// the cluster goes Unknown one grace period after the restart.
func TestHostileClusterHealthImportClampsFutureTimes(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(hostileT0)
	tr := mustOK(failover.NewClusterHealthTracker(clk, failover.ClusterHealthConfig{}))
	future := metav1.NewTime(time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC))
	st := failover.ClusterHealthState{
		SyncMode: failover.ClusterSyncModePull,
		Ready: &metav1.Condition{Type: failover.ConditionTypeReady, Status: metav1.ConditionTrue,
			Reason: failover.ReasonClusterReady, LastTransitionTime: future},
		Pending: &failover.PendingReadiness{Status: metav1.ConditionFalse,
			Reason: failover.ReasonClusterNotReachable, Since: future},
		LastHeard:    &future,
		RegisteredAt: future,
	}
	if err := tr.Import("m1", st); err != nil {
		t.Fatal(err)
	}
	got, _ := tr.Export("m1")
	for name, ts := range map[string]time.Time{
		"ready.lastTransitionTime": got.Ready.LastTransitionTime.Time,
		"pending.since":            got.Pending.Since.Time,
		"lastHeard":                got.LastHeard.Time,
		"registeredAt":             got.RegisteredAt.Time,
	} {
		if !ts.Equal(hostileT0) {
			t.Errorf("%s = %s after import, want clamped to now %s", name, ts, hostileT0)
		}
	}
	// The pending failure completes its threshold from the restart.
	if next, ok := tr.NextCheck("m1"); !ok || !next.Equal(hostileT0.Add(failover.DefaultClusterFailureThreshold)) {
		t.Errorf("NextCheck = %s, %v; want %s", next, ok, hostileT0.Add(failover.DefaultClusterFailureThreshold))
	}
	clk.SetTime(hostileT0.Add(failover.DefaultClusterMonitorGracePeriod))
	if c, _ := tr.Ready("m1"); c.Status != metav1.ConditionUnknown {
		t.Errorf("Ready one grace period after the restart = %s, want Unknown", c.Status)
	}
}

// A zero LastHeard would make the cluster Unknown at once: it is refused
// and the tracker keeps nothing.
func TestHostileClusterHealthImportRejectsZeroLastHeard(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(hostileT0)
	tr := mustOK(failover.NewClusterHealthTracker(clk, failover.ClusterHealthConfig{}))
	err := tr.Import("m1", failover.ClusterHealthState{SyncMode: failover.ClusterSyncModePull, LastHeard: &metav1.Time{}})
	if !errors.Is(err, failover.ErrInvalidClusterHealthState) || !strings.Contains(err.Error(), "lastHeard") {
		t.Fatalf("Import error = %v, want ErrInvalidClusterHealthState naming lastHeard", err)
	}
	if _, ok := tr.Export("m1"); ok {
		t.Fatal("a refused state was imported")
	}
}

func TestHostileClusterHealthConfigValidation(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   failover.ClusterHealthConfig
		field string
	}{
		{"huge failure threshold", failover.ClusterHealthConfig{FailureThreshold: math.MaxInt64}, "clusterHealth.failureThreshold"},
		{"huge success threshold", failover.ClusterHealthConfig{SuccessThreshold: 25 * time.Hour}, "clusterHealth.successThreshold"},
		{"huge monitor grace", failover.ClusterHealthConfig{MonitorGracePeriod: math.MaxInt64}, "clusterHealth.monitorGracePeriod"},
		{"huge startup grace", failover.ClusterHealthConfig{StartupGracePeriod: failover.MaxClusterHealthPeriod + 1}, "clusterHealth.startupGracePeriod"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := failover.ValidateClusterHealthConfig(tc.cfg, field.NewPath("clusterHealth"))
			if len(errs) != 1 || errs[0].Field != tc.field {
				t.Fatalf("errors = %v, want one on %s", errs, tc.field)
			}
			tr, err := failover.NewClusterHealthTracker(clocktesting.NewFakePassiveClock(hostileT0), tc.cfg)
			if !errors.Is(err, failover.ErrInvalidClusterHealthConfig) || tr != nil || !strings.Contains(err.Error(), tc.field) {
				t.Fatalf("NewClusterHealthTracker = %v, %v; want ErrInvalidClusterHealthConfig naming %s", tr, err, tc.field)
			}
		})
	}
	ok := failover.ClusterHealthConfig{FailureThreshold: -1, SuccessThreshold: failover.MaxClusterHealthPeriod}
	if errs := failover.ValidateClusterHealthConfig(ok, field.NewPath("clusterHealth")); len(errs) != 0 {
		t.Fatalf("valid config refused: %v", errs)
	}
}

// FuzzClusterHealthConfig: any durations are refused with a field error, or
// give a tracker whose deadlines lie ahead of now and within the bound (a
// huge period must not overflow into a deadline already past).
func FuzzClusterHealthConfig(f *testing.F) {
	f.Add(int64(0), int64(0), int64(0), int64(0))
	f.Add(int64(math.MaxInt64), int64(-1), int64(math.MinInt64), int64(time.Hour))
	f.Add(int64(failover.MaxClusterHealthPeriod), int64(1), int64(1), int64(failover.MaxClusterHealthPeriod))
	f.Fuzz(func(t *testing.T, failure, success, monitor, startup int64) {
		cfg := failover.ClusterHealthConfig{FailureThreshold: time.Duration(failure), SuccessThreshold: time.Duration(success),
			MonitorGracePeriod: time.Duration(monitor), StartupGracePeriod: time.Duration(startup)}
		errs := failover.ValidateClusterHealthConfig(cfg, field.NewPath("c"))
		clk := clocktesting.NewFakePassiveClock(hostileT0)
		tr, err := failover.NewClusterHealthTracker(clk, cfg)
		if (len(errs) == 0) != (err == nil) {
			t.Fatalf("Validate gave %v but the constructor %v", errs, err)
		}
		if err != nil {
			return
		}
		tr.Register("m1", failover.ClusterSyncModePull)
		// Without a grace period the cluster is Unknown at once and
		// nothing is scheduled.
		if next, ok := tr.NextCheck("m1"); ok && (next.Before(hostileT0) || next.After(hostileT0.Add(failover.MaxClusterHealthPeriod))) {
			t.Fatalf("NextCheck %s out of [now, now+MaxClusterHealthPeriod]", next)
		}
	})
}
