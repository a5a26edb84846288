package eviction_test

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover/health"
)

var now = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func ExampleEvict() {
	targets := []eviction.TargetCluster{{Name: "member1", Replicas: 2}, {Name: "member2", Replicas: 1}}
	res, err := eviction.Evict(targets, nil, eviction.Eviction{
		Cluster:             "member1",
		Producer:            eviction.ProducerTaintManager,
		Reason:              eviction.ReasonTaintUntolerated,
		PurgeMode:           eviction.PurgeGracefully,
		PreservedLabelState: map[string]string{"example.io/job-id": "j-1"},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Outcome, res.Targets)
	t := res.Tasks[0]
	fmt.Println(t.FromCluster, *t.Replicas, t.ClustersBeforeFailover)

	// A chained failover keeps the original state and adds new keys only.
	again, _ := eviction.Evict(res.Targets, res.Tasks, eviction.Eviction{
		Cluster:             "member1",
		PreservedLabelState: map[string]string{"example.io/job-id": "j-2", "example.io/epoch": "3"},
	})
	fmt.Println(again.Outcome, len(again.Tasks), again.Tasks[0].PreservedLabelState)
	// Output:
	// TaskAdded [{member2 1}]
	// member1 2 [member1 member2]
	// AlreadyInProgress 1 map[example.io/epoch:3 example.io/job-id:j-1]
}

func ExampleAssess() {
	states := map[string]health.Status{"member2": health.Healthy, "member3": health.Unhealthy}
	in := eviction.AssessInput{
		Tasks: []eviction.GracefulEvictionTask{{
			FromCluster: "member1", Reason: eviction.ReasonTaintUntolerated, Producer: eviction.ProducerTaintManager,
		}},
		Targets: []eviction.TargetCluster{{Name: "member2"}, {Name: "member3"}},
		Health:  eviction.HealthLookupFunc(func(c string) health.Status { return states[c] }),
		Now:     now,
	}
	// First look: the task is stamped, not judged.
	a := eviction.Assess(in, eviction.AssessOptions{})
	fmt.Println("stamped:", a.Stamped, "kept:", len(a.Kept), "next:", a.NextAssessment.Sub(now))

	// Later, member3 is still unhealthy: the task waits for its deadline.
	in.Tasks, in.Now = a.Kept, now.Add(time.Minute)
	a = eviction.Assess(in, eviction.AssessOptions{})
	after, _ := a.RequeueAfter(in.Now)
	fmt.Println("kept:", len(a.Kept), "look again in:", after)

	// Every target healthy: the old copy may go.
	states["member3"] = health.Healthy
	a = eviction.Assess(in, eviction.AssessOptions{})
	fmt.Println("removed:", a.Removed[0].Task.FromCluster, a.Removed[0].Reason)
	// Output:
	// stamped: true kept: 1 next: 10m0s
	// kept: 1 look again in: 9m0s
	// removed: member1 ReplacementHealthy
}

// A Directly eviction holds the new copy back until the old one is gone;
// an unreachable old cluster is given up on a while after its deletion
// started.
func ExampleDispatchBlocked() {
	res, err := eviction.Evict([]eviction.TargetCluster{{Name: "member1"}}, nil, eviction.Eviction{
		Cluster: "member1", PurgeMode: eviction.PurgeDirectly,
		Producer: eviction.ProducerTaintManager, Reason: eviction.ReasonTaintUntolerated,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	opts := eviction.AssessOptions{DirectlyEscapeTimeout: 5 * time.Minute}
	running := eviction.OldCopyLookupFunc(func(string) eviction.OldCopy { return eviction.OldCopy{} })
	g := eviction.DispatchBlocked("member2", res.Tasks, running, now, opts)
	fmt.Println("old copy running:", g.Blocked, "by", g.BlockedBy)

	partitioned := eviction.OldCopyLookupFunc(func(string) eviction.OldCopy {
		return eviction.OldCopy{Unreachable: true, DeletingSince: now}
	})
	g = eviction.DispatchBlocked("member2", res.Tasks, partitioned, now.Add(time.Minute), opts)
	fmt.Println("partitioned, deleting for 1m:", g.Blocked, "until +", g.Until.Sub(now))
	g = eviction.DispatchBlocked("member2", res.Tasks, partitioned, now.Add(5*time.Minute), opts)
	fmt.Println("partitioned, deleting for 5m:", g.Blocked, "escaped", g.Escaped)

	gone := eviction.OldCopyLookupFunc(func(string) eviction.OldCopy { return eviction.OldCopy{Gone: true} })
	fmt.Println("old copy gone:", eviction.DispatchBlocked("member2", res.Tasks, gone, now, opts).Blocked)
	// Output:
	// old copy running: true by member1
	// partitioned, deleting for 1m: true until + 5m0s
	// partitioned, deleting for 5m: false escaped true
	// old copy gone: false
}

func ExampleNewDeadlineQueue() {
	clk := clocktesting.NewFakeClock(now)
	q, err := eviction.NewDeadlineQueue[string](eviction.DeadlineQueueConfig{Clock: clk})
	if err != nil {
		fmt.Println(err)
		return
	}
	q.AddAfter("default/web", 10*time.Minute)
	q.AddAfter("default/db", 2*time.Minute)
	q.AddAfter("default/web", 30*time.Minute) // later: ignored
	q.AddAfter("default/web", time.Minute)    // earlier: moves it up

	clk.Step(5 * time.Minute)
	for {
		key, ok := q.TryGet()
		if !ok {
			break
		}
		fmt.Println(key)
	}
	fmt.Println("pending:", q.Len())
	// Output:
	// default/web
	// default/db
	// pending: 0
}

func ExampleNewPacer() {
	clk := clocktesting.NewFakeClock(now)
	p, err := eviction.NewPacer(eviction.PacerConfig{Clock: clk, Rate: 1, Burst: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fleet := []eviction.ClusterHealthView{
		{Name: "a", Healthy: true}, {Name: "b"}, {Name: "c"}, {Name: "d"},
	}
	s := p.Observe(fleet)[0]
	fmt.Println(s.Mode, s.Changed, s.Message)

	for i := range fleet {
		fleet[i].Healthy = false
	}
	s = p.Observe(fleet)[0]
	fmt.Println(s.Mode, s.Changed, p.TryAccept(""))
	// Output:
	// PartialDisruption true 3 of 4 clusters are unhealthy (threshold 55%): evictions slowed
	// FullDisruption true false
}

func ExampleEvictionHistory_BlockedUntil() {
	var h eviction.EvictionHistory
	h.Record("member1", now)

	until, blocked, forever := h.BlockedUntil("member1", nil, now.Add(time.Minute))
	fmt.Println(blocked, forever, until.Sub(now))
	_, blocked, forever = h.BlockedUntil("member1", ptr.To[int32](0), now.Add(24*time.Hour))
	fmt.Println(blocked, forever)
	// Output:
	// true false 10m0s
	// true true
}

func ExampleValidateGracefulEvictionTask() {
	task := &eviction.GracefulEvictionTask{
		FromCluster:        "member1",
		Reason:             "not camel case",
		GracePeriodSeconds: ptr.To[int32](0),
	}
	for _, err := range eviction.ValidateGracefulEvictionTask(task, field.NewPath("spec", "gracefulEvictionTasks").Index(0)) {
		fmt.Println(err.Type, err.Field)
	}
	// Output:
	// Invalid value spec.gracefulEvictionTasks[0].reason
	// Required value spec.gracefulEvictionTasks[0].producer
	// Invalid value spec.gracefulEvictionTasks[0].gracePeriodSeconds
}

func ExampleParsePurgeMode() {
	for _, s := range []string{"Immediately", "Gracefully", "Sometimes"} {
		m, err := eviction.ParsePurgeMode(s)
		fmt.Printf("%q %v\n", m, err != nil)
	}
	// Output:
	// "Directly" false
	// "Gracefully" false
	// "" true
}
