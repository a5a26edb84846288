package failover_test

import (
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/preservation"
)

// The examples of this file back docs/migrating.md: each shows the call that
// replaces one of 583b264's.

// failover.WorkloadHealth is ObservedHealth, and its field Health is Status.
func ExampleObservedHealth() {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	// Before: []failover.WorkloadHealth{{ClusterName: "member1", Health: health.Unhealthy, ...}}
	observed := []failover.ObservedHealth{
		{ClusterName: "member1", Status: health.Unhealthy, CollectedSince: metav1.NewTime(now.Add(-time.Hour))},
	}
	d, err := failover.DetectApplicationFailure(failover.DetectorInput{
		Policy:   &failover.ApplicationFailoverBehavior{DecisionConditions: failover.DecisionConditions{TolerationSeconds: ptr.To[int32](0)}},
		Clusters: []string{"member1", "member2"},
		Health:   observed,
	}, now, failover.DetectorConfig{})
	fmt.Println(len(d.Evictions), err)
	// Output:
	// 1 <nil>
}

// NewDetector and NewClusterHealthTracker return an error for a
// configuration their validator rejects; Detector.Import returns one for a
// record it refuses.
func ExampleNewDetector_errors() {
	clk := clocktesting.NewFakeClock(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	// Before: det := failover.NewDetector(clk, failover.DetectorConfig{})
	det, err := failover.NewDetector(clk, failover.DetectorConfig{})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Before: det.Import(records)
	err = det.Import([]failover.DetectorRecord{{Binding: "", WorkloadHealthRecord: failover.WorkloadHealthRecord{ClusterName: "member1"}}})
	fmt.Println(errors.Is(err, failover.ErrInvalidDetectorRecord))

	// Before: tracker := failover.NewClusterHealthTracker(clk, cfg)
	_, err = failover.NewClusterHealthTracker(clk, failover.ClusterHealthConfig{FailureThreshold: 48 * time.Hour})
	fmt.Println(errors.Is(err, failover.ErrInvalidClusterHealthConfig))
	// Output:
	// true
	// true
}

// The grace period and the block window have one constant each, in the
// eviction package.
func ExampleSetDefaultsApplicationFailoverBehavior_constants() {
	// Before: failover.DefaultGracePeriodSeconds, failover.DefaultBlockPredecessorSeconds
	a := &failover.ApplicationFailoverBehavior{}
	failover.SetDefaultsApplicationFailoverBehavior(a)
	fmt.Println(*a.GracePeriodSeconds == eviction.DefaultGracePeriodSeconds,
		*a.BlockPredecessorSeconds == eviction.DefaultBlockPredecessorSeconds)
	// Output:
	// true true
}

// WarningsForStatePreservation takes the controller's injection policy and
// also warns when the purge mode means the state will not be injected.
func ExampleWarningsForStatePreservation() {
	fb := &failover.FailoverBehavior{Cluster: &failover.ClusterFailoverBehavior{
		PurgeMode: eviction.PurgeGracefully,
		StatePreservation: &preservation.StatePreservation{Rules: []preservation.StatePreservationRule{
			{AliasLabelName: "failover.example.io/job-id", JSONPath: "{.jobStatus.jobID}"},
		}},
	}}
	// Before: failover.WarningsForStatePreservationSpread(fb, 1, field.NewPath("spec", "failover"))
	warnings := failover.WarningsForStatePreservation(fb, 1, preservation.InjectionPolicy{}, field.NewPath("spec", "failover"))
	fmt.Println(len(warnings))
	// Output:
	// 1
}

// Tolerations with Lt and Gt match nothing by default, in failover's
// decisions as in the scheduler's filter; TolerationOptions turns numeric
// matching on for both.
func ExampleTolerationOptions_comparisonOperators() {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	taints := []corev1.Taint{{Key: "example.io/generation", Value: "3", Effect: corev1.TaintEffectNoExecute, TimeAdded: &metav1.Time{Time: now}}}
	tolerations := []corev1.Toleration{{Key: "example.io/generation", Operator: "Gt", Value: "2", Effect: corev1.TaintEffectNoExecute}}

	fmt.Println(failover.EvaluateTolerations(taints, tolerations, now).Action)
	fmt.Println(failover.TolerationOptions{EnableComparisonOperators: true}.Evaluate(taints, tolerations, now).Action)
	// The planner takes the same options.
	planner := failover.ClusterFailoverPlanner{Tolerations: failover.TolerationOptions{EnableComparisonOperators: true}}
	plan := planner.Plan(taints, []failover.ClusterBinding{{Key: "shop/web", Tolerations: tolerations}}, now)
	fmt.Println(len(plan.Evict))
	// Output:
	// EvictNow
	// TolerateForever
	// 0
}
