package failover_test

import (
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
)

// A detector follows one binding on two clusters. The workload fails on
// member2; after TolerationSeconds the detector evicts it from there, and
// the eviction becomes a graceful eviction task.
func ExampleDetector() {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clk := clocktesting.NewFakePassiveClock(start)
	detector, err := failover.NewDetector(clk, failover.DetectorConfig{})
	if err != nil {
		fmt.Println(err)
		return
	}

	policy := &failover.ApplicationFailoverBehavior{
		DecisionConditions: failover.DecisionConditions{TolerationSeconds: ptr.To[int32](120)},
		PurgeMode:          eviction.PurgeGracefully,
	}
	clusters := []string{"member1", "member2"}
	observe := func(member2 health.Status) {
		d, err := detector.Detect("shop/web", policy, clusters, []failover.ObservedHealth{
			{ClusterName: "member1", Status: health.Healthy},
			{ClusterName: "member2", Status: member2},
		})
		if err != nil {
			panic(err)
		}
		after, pending := d.RequeueAfter(clk.Now())
		fmt.Printf("t=%-4v member2 %-9s evict %d, look again: %v after %v\n",
			clk.Now().Sub(start), member2, len(d.Evictions), pending, after)
		for _, e := range d.Evictions {
			res, err := eviction.Evict([]eviction.TargetCluster{{Name: "member1"}, {Name: "member2"}}, nil, e.Eviction(nil))
			if err != nil {
				panic(err)
			}
			task := res.Tasks[0]
			fmt.Printf("task: from %s, %s, grace %ds, reason %s, producer %s\n",
				task.FromCluster, task.PurgeMode, *task.GracePeriodSeconds, task.Reason, task.Producer)
		}
	}

	observe(health.Unhealthy) // the countdown starts
	clk.SetTime(start.Add(60 * time.Second))
	observe(health.Unknown) // a blip: the countdown keeps running
	clk.SetTime(start.Add(120 * time.Second))
	observe(health.Unhealthy) // TolerationSeconds reached
	// Output:
	// t=0s   member2 Unhealthy evict 0, look again: true after 2m0s
	// t=1m0s member2 Unknown   evict 0, look again: true after 1m0s
	// t=2m0s member2 Unhealthy evict 1, look again: false after 0s
	// task: from member2, Gracefully, grace 600s, reason ApplicationFailure, producer ApplicationFailover
}

// Callers that store the records on the binding use the pure function and
// hand the records back at the next look.
func ExampleDetectApplicationFailure() {
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	in := failover.DetectorInput{
		Policy: &failover.ApplicationFailoverBehavior{
			PreConditions:      &failover.PreConditions{DelaySeconds: ptr.To[int32](300)},
			DecisionConditions: failover.DecisionConditions{TolerationSeconds: ptr.To[int32](60)},
			PurgeMode:          eviction.PurgeNever,
		},
		Clusters: []string{"member1"},
		Health: []failover.ObservedHealth{
			{ClusterName: "member1", Status: health.Unhealthy, CollectedSince: metav1.NewTime(start)},
		},
	}
	for _, at := range []time.Duration{30 * time.Second, 300 * time.Second, 360 * time.Second} {
		d, err := failover.DetectApplicationFailure(in, start.Add(at), failover.DetectorConfig{})
		if err != nil {
			panic(err)
		}
		in.Records = d.Records // persisted on the binding in a real controller
		next := "none"
		if !d.NextCheck.IsZero() {
			next = d.NextCheck.Sub(start).String()
		}
		fmt.Printf("t=%v: evict %d, next check %s\n", at, len(d.Evictions), next)
		for _, e := range d.Evictions {
			fmt.Printf("evict %s, %s, suppress deletion %v\n", e.FromCluster, e.PurgeMode, *e.SuppressDeletion)
		}
	}
	// Output:
	// t=30s: evict 0, next check 5m0s
	// t=5m0s: evict 0, next check 6m0s
	// t=6m0s: evict 1, next check none
	// evict member1, Never, suppress deletion true
}
