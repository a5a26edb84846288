package failover

import (
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover/health"
)

// TestZeroValues holds every struct a caller fills in this package to its
// documented zero value: a safe default, or an error at the first call.
func TestZeroValues(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	notReady := []metav1.Condition{{Type: ConditionTypeReady, Status: metav1.ConditionFalse, LastTransitionTime: metav1.NewTime(now)}}
	noExecute := []corev1.Taint{{Key: TaintKeyClusterUnreachable, Effect: corev1.TaintEffectNoExecute, TimeAdded: &metav1.Time{Time: now.Add(-time.Hour)}}}

	cases := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"ClusterHealthConfig: the default thresholds", func(t *testing.T) {
			if errs := ValidateClusterHealthConfig(ClusterHealthConfig{}, field.NewPath("cfg")); len(errs) != 0 {
				t.Fatal(errs)
			}
			clk := clocktesting.NewFakeClock(now)
			tr, err := NewClusterHealthTracker(clk, ClusterHealthConfig{})
			if err != nil {
				t.Fatal(err)
			}
			tr.Register("m1", ClusterSyncModePush)
			if _, err := tr.ObserveProbe("m1", ProbeResult{Reachable: true, Healthy: true}); err != nil {
				t.Fatal(err)
			}
			// Failing for less than DefaultClusterFailureThreshold keeps it Ready.
			clk.Step(time.Second)
			if c, _ := tr.ObserveProbe("m1", ProbeResult{}); c.Status != metav1.ConditionTrue {
				t.Fatalf("flipped at once: %+v", c)
			}
			clk.Step(DefaultClusterFailureThreshold)
			if c, _ := tr.ObserveProbe("m1", ProbeResult{}); c.Status != metav1.ConditionFalse {
				t.Fatalf("not flipped after the threshold: %+v", c)
			}
		}},
		{"ProbeResult: an unreachable cluster", func(t *testing.T) {
			clk := clocktesting.NewFakeClock(now)
			tr, err := NewClusterHealthTracker(clk, ClusterHealthConfig{FailureThreshold: -1})
			if err != nil {
				t.Fatal(err)
			}
			tr.Register("m1", ClusterSyncModePush)
			c, err := tr.ObserveProbe("m1", ProbeResult{})
			if err != nil || c.Status != metav1.ConditionFalse || c.Reason != ReasonClusterNotReachable {
				t.Fatalf("%+v %v", c, err)
			}
		}},
		{"ClusterTaintConfig: NoSchedule health taints under Karmada's keys, no NoExecute", func(t *testing.T) {
			d, err := ComputeClusterTaints(ClusterTaintConfig{}, notReady, nil, now.Add(time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Result) != 1 || d.Result[0].Key != TaintKeyClusterNotReady || d.Result[0].Effect != corev1.TaintEffectNoSchedule {
				t.Fatalf("%+v", d.Result)
			}
		}},
		{"ConditionTaintPolicy: rejected by validation, and adds or removes nothing", func(t *testing.T) {
			cfg := ClusterTaintConfig{Policies: []ConditionTaintPolicy{{}}}
			if errs := ValidateClusterTaintConfig(cfg, field.NewPath("cfg")); len(errs) == 0 {
				t.Fatal("a zero policy was accepted")
			}
			current := []corev1.Taint{{Key: "user", Effect: corev1.TaintEffectNoSchedule}}
			d, err := ComputeClusterTaints(cfg, []metav1.Condition{{Type: ConditionTypeReady, Status: metav1.ConditionTrue}}, current, now)
			if err != nil || d.Changed {
				t.Fatalf("%+v %v", d, err)
			}
		}},
		{"ConditionMatch: never matches", func(t *testing.T) {
			if (ConditionMatch{}).Matches(notReady) {
				t.Fatal("the zero match matched")
			}
		}},
		{"ObservedHealth: an empty status counts as Unknown", func(t *testing.T) {
			in := DetectorInput{
				Policy:   &ApplicationFailoverBehavior{},
				Clusters: []string{"m1"},
				Health:   []ObservedHealth{{ClusterName: "m1"}},
			}
			d, err := DetectApplicationFailure(in, now, DetectorConfig{})
			if err != nil || len(d.Evictions) != 0 {
				t.Fatalf("%+v %v", d, err)
			}
		}},
		{"DetectorInput: no policy, no decision", func(t *testing.T) {
			d, err := DetectApplicationFailure(DetectorInput{}, now, DetectorConfig{})
			if err != nil || len(d.Evictions) != 0 || !d.NextCheck.IsZero() {
				t.Fatalf("%+v %v", d, err)
			}
		}},
		{"DetectorConfig: valid, Unknown does not reset a countdown", func(t *testing.T) {
			if errs := ValidateDetectorConfig(DetectorConfig{}, field.NewPath("cfg")); len(errs) != 0 {
				t.Fatal(errs)
			}
			if (DetectorConfig{}).UnknownResetsCountdown {
				t.Fatal("the zero config resets countdowns on Unknown")
			}
			if _, err := NewDetector(clocktesting.NewFakeClock(now), DetectorConfig{}); err != nil {
				t.Fatal(err)
			}
		}},
		{"DetectorRecord: rejected by Import", func(t *testing.T) {
			det, err := NewDetector(clocktesting.NewFakeClock(now), DetectorConfig{})
			if err != nil {
				t.Fatal(err)
			}
			if err := det.Import([]DetectorRecord{{}}); !errors.Is(err, ErrInvalidDetectorRecord) {
				t.Fatalf("err = %v", err)
			}
		}},
		{"ClusterFailoverPlanner, ClusterBinding: no toleration leaves Gracefully with the default grace period", func(t *testing.T) {
			plan := ClusterFailoverPlanner{}.Plan(noExecute, []ClusterBinding{{}}, now)
			if len(plan.Evict) != 1 {
				t.Fatalf("%+v", plan)
			}
			e := plan.Evict[0]
			if e.PurgeMode != eviction.PurgeGracefully || e.GracePeriodSeconds != eviction.DefaultGracePeriodSeconds {
				t.Fatalf("%+v", e.ResolvedClusterFailover)
			}
		}},
		{"ClusterFailoverDefaults, ClusterFailoverBehavior: Gracefully, the default grace period", func(t *testing.T) {
			r := ClusterFailoverDefaults{}.Resolve(&ClusterFailoverBehavior{})
			if r.PurgeMode != eviction.PurgeGracefully || r.GracePeriodSeconds != eviction.DefaultGracePeriodSeconds {
				t.Fatalf("%+v", r)
			}
			if errs := ValidateClusterFailoverBehavior(&ClusterFailoverBehavior{}, field.NewPath("cluster")); len(errs) != 0 {
				t.Fatal(errs)
			}
		}},
		{"TolerationOptions: Lt and Gt match nothing", func(t *testing.T) {
			tol := []corev1.Toleration{{Key: "k", Operator: "Gt", Value: "1", Effect: corev1.TaintEffectNoExecute}}
			taint := []corev1.Taint{{Key: "k", Value: "2", Effect: corev1.TaintEffectNoExecute, TimeAdded: &metav1.Time{Time: now}}}
			if d := (TolerationOptions{}).Evaluate(taint, tol, now); d.Action != EvictNow {
				t.Fatalf("%+v", d)
			}
		}},
		{"DefaultTolerationsConfig: Karmada's defaults", func(t *testing.T) {
			tols := DefaultClusterTolerations(DefaultTolerationsConfig{})
			if len(tols) != 2 {
				t.Fatalf("%+v", tols)
			}
			for _, tol := range tols {
				if tol.TolerationSeconds == nil || *tol.TolerationSeconds != DefaultTolerationSeconds || tol.Effect != corev1.TaintEffectNoExecute {
					t.Fatalf("%+v", tol)
				}
			}
		}},
		{"FailoverBehavior: valid, defaults nothing it does not have", func(t *testing.T) {
			fb := &FailoverBehavior{}
			SetDefaultsFailoverBehavior(fb)
			if fb.Application != nil || fb.Cluster != nil {
				t.Fatalf("%+v", fb)
			}
			if errs := ValidateFailoverBehavior(fb, field.NewPath("failover")); len(errs) != 0 {
				t.Fatal(errs)
			}
		}},
		{"ApplicationFailoverBehavior, PreConditions, DecisionConditions: the documented defaults", func(t *testing.T) {
			a := &ApplicationFailoverBehavior{}
			SetDefaultsApplicationFailoverBehavior(a)
			if a.PurgeMode != eviction.PurgeGracefully ||
				*a.DecisionConditions.TolerationSeconds != DefaultApplicationTolerationSeconds ||
				*a.GracePeriodSeconds != eviction.DefaultGracePeriodSeconds ||
				*a.BlockPredecessorSeconds != eviction.DefaultBlockPredecessorSeconds ||
				a.PreConditions != nil {
				t.Fatalf("%+v", a)
			}
			if errs := ValidateApplicationFailoverBehavior(a, field.NewPath("application")); len(errs) != 0 {
				t.Fatal(errs)
			}
			// Undefaulted, the detector applies the same defaults: a workload
			// Unhealthy for less than the default toleration stays.
			in := DetectorInput{Policy: &ApplicationFailoverBehavior{}, Clusters: []string{"m1"},
				Health: []ObservedHealth{{ClusterName: "m1", Status: health.Unhealthy, CollectedSince: metav1.NewTime(now.Add(-time.Hour))}}}
			d, err := DetectApplicationFailure(in, now, DetectorConfig{})
			if err != nil || len(d.Evictions) != 0 || !d.NextCheck.Equal(now.Add(time.Duration(DefaultApplicationTolerationSeconds)*time.Second)) {
				t.Fatalf("%+v %v", d, err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}
