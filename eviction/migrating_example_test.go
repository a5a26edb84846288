package eviction_test

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover/health"
)

// The examples of this file back docs/migrating.md: each shows the call that
// replaces one of 583b264's.

// SchedulerObservedLatest became SchedulerBehind, with the opposite meaning.
// The old field still compiles until v0.2.0, and ValidateAssessInput rejects
// it.
func ExampleAssessInput_schedulerBehind() {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	generation, observedGeneration := int64(7), int64(6)

	// Before: eviction.AssessInput{..., SchedulerObservedLatest: observedGeneration >= generation}
	in := eviction.AssessInput{
		Targets:         []eviction.TargetCluster{{Name: "member2"}},
		SchedulerBehind: observedGeneration < generation,
		Now:             now,
	}
	fmt.Println("valid:", len(eviction.ValidateAssessInput(&in, field.NewPath("in"))) == 0)

	old := eviction.AssessInput{SchedulerObservedLatest: true, Now: now}
	for _, err := range eviction.ValidateAssessInput(&old, field.NewPath("in")) {
		fmt.Println(err.Field, err.Type)
	}
	// Output:
	// valid: true
	// in.schedulerObservedLatest Forbidden
}

// eviction.WorkloadHealth and its constants are health.Status and its
// constants; HealthLookupFunc returns a health.Status.
func ExampleHealthLookupFunc_status() {
	// Before: eviction.HealthLookupFunc(func(string) eviction.WorkloadHealth { return eviction.WorkloadHealthy })
	lookup := eviction.HealthLookupFunc(func(cluster string) health.Status {
		if cluster == "member2" {
			return health.Healthy
		}
		return health.Unknown
	})
	fmt.Println(lookup.WorkloadHealth("member2"), lookup.WorkloadHealth("member3"))
	// Output:
	// Healthy Unknown
}

// DispatchBlocked reads the workload's tasks, as Evict returned them, and an
// OldCopyLookup, where it took a list of PendingPurge built with
// PendingPurgeFor.
func ExampleDispatchBlocked_tasks() {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	res, err := eviction.Evict([]eviction.TargetCluster{{Name: "member1"}}, nil, eviction.Eviction{
		Cluster: "member1", PurgeMode: eviction.PurgeDirectly,
		Producer: eviction.ProducerTaintManager, Reason: eviction.ReasonTaintUntolerated,
		CreatedAt: now,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Before: p, _ := eviction.PendingPurgeFor(removed, unreachable)
	//         eviction.DispatchBlocked("member2", []eviction.PendingPurge{p}, now, opts)
	old := eviction.OldCopyLookupFunc(func(cluster string) eviction.OldCopy {
		return eviction.OldCopy{} // the caller's view of the copy on cluster: still running
	})
	fmt.Println("old copy running:", eviction.DispatchBlocked("member2", res.Tasks, old, now, eviction.AssessOptions{}).Blocked)
	gone := eviction.OldCopyLookupFunc(func(string) eviction.OldCopy { return eviction.OldCopy{Gone: true} })
	fmt.Println("old copy gone:", eviction.DispatchBlocked("member2", res.Tasks, gone, now, eviction.AssessOptions{}).Blocked)

	// With no lookup the wait is bounded: DirectlyEscapeTimeout after the
	// task's CreationTimestamp (10 minutes by default).
	g := eviction.DispatchBlocked("member2", res.Tasks, nil, now, eviction.AssessOptions{})
	fmt.Println("no lookup:", g.Blocked, "until", g.Until.Sub(now))
	g = eviction.DispatchBlocked("member2", res.Tasks, nil, now.Add(10*time.Minute), eviction.AssessOptions{})
	fmt.Println("no lookup, 10 minutes later:", g.Blocked, "escaped", g.Escaped)
	// Output:
	// old copy running: true
	// old copy gone: false
	// no lookup: true until 10m0s
	// no lookup, 10 minutes later: false escaped true
}

// The grace period has one constant, in seconds: DefaultGracePeriodSeconds
// (DefaultGracefulEvictionTimeout was the same 10 minutes as a Duration).
func ExampleAssessOptions_gracePeriod() {
	// Before: eviction.AssessOptions{Timeout: eviction.DefaultGracefulEvictionTimeout}
	opts := eviction.AssessOptions{Timeout: time.Duration(eviction.DefaultGracePeriodSeconds) * time.Second}
	fmt.Println(opts.Timeout)
	// Output:
	// 10m0s
}

// NewPacer and NewDeadlineQueue refuse a bad configuration with an error.
func ExampleNewPacer_error() {
	clk := clocktesting.NewFakeClock(time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC))
	// Before: pacer := eviction.NewPacer(eviction.PacerConfig{Clock: clk})
	pacer, err := eviction.NewPacer(eviction.PacerConfig{Clock: clk})
	fmt.Println(pacer != nil, err)
	_, err = eviction.NewPacer(eviction.PacerConfig{Clock: clk, Rate: -1})
	fmt.Println(err != nil)

	// Before: q := eviction.NewDeadlineQueue[string](eviction.DeadlineQueueConfig{})
	q, err := eviction.NewDeadlineQueue[string](eviction.DeadlineQueueConfig{Clock: clk})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer q.ShutDown()
	fmt.Println(q.Len())
	// Output:
	// true <nil>
	// true
	// 0
}

// A Directly task stays until its old copy is gone; with no OldCopyLookup,
// until DirectlyEscapeTimeout after its CreationTimestamp, and then goes
// once the new copy is healthy (it used to stay forever).
func ExampleAssess_noOldCopyLookup() {
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	task := eviction.GracefulEvictionTask{
		FromCluster: "member1", PurgeMode: eviction.PurgeDirectly,
		Reason: eviction.ReasonTaintUntolerated, Producer: eviction.ProducerTaintManager,
		CreationTimestamp: &metav1.Time{Time: start},
	}
	healthy := eviction.HealthLookupFunc(func(string) health.Status { return health.Healthy })
	for _, at := range []time.Duration{time.Minute, 10 * time.Minute} {
		a := eviction.Assess(eviction.AssessInput{
			Tasks: []eviction.GracefulEvictionTask{task}, Targets: []eviction.TargetCluster{{Name: "member2"}},
			Health: healthy, Now: start.Add(at),
		}, eviction.AssessOptions{})
		for range a.Kept {
			fmt.Printf("t=%v kept, look again at t=%v\n", at, a.NextAssessment.Sub(start))
		}
		for _, r := range a.Removed {
			fmt.Printf("t=%v removed: %s\n", at, r.Reason)
		}
	}
	// Output:
	// t=1m0s kept, look again at t=10m0s
	// t=10m0s removed: PurgedDirectly
}
