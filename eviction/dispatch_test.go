package eviction

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetover/fleetover/failover/health"
)

// copies is an OldCopyLookup over a map.
type copies map[string]OldCopy

func (c copies) OldCopy(cluster string) OldCopy { return c[cluster] }

func directTask(from string, before ...string) GracefulEvictionTask {
	return GracefulEvictionTask{
		FromCluster: from, PurgeMode: PurgeDirectly, Reason: ReasonTaintUntolerated, Producer: ProducerTaintManager,
		ClustersBeforeFailover: before, PreservedLabelState: map[string]string{"job-id": "j-1"},
	}
}

func TestDispatchBlockedUntilOldCopyGone(t *testing.T) {
	tasks := []GracefulEvictionTask{directTask("old", "old", "kept")}
	g := DispatchBlocked("new", tasks, copies{}, t0.Add(time.Hour), AssessOptions{})
	if !g.Blocked || g.BlockedBy != "old" || !g.Until.IsZero() {
		t.Fatalf("reachable old copy still running: %+v", g)
	}
	if g := DispatchBlocked("kept", tasks, copies{}, t0, AssessOptions{}); g.Blocked {
		t.Fatal("a cluster that ran a copy before the failover was held")
	}
	if g := DispatchBlocked("old", tasks, copies{}, t0, AssessOptions{}); !g.Blocked {
		t.Fatal("dispatch back to the cluster being purged was not held")
	}
	if g := DispatchBlocked("new", tasks, copies{"old": {Gone: true}}, t0, AssessOptions{}); g.Blocked {
		t.Fatal("held after the old copy was confirmed gone")
	}
	if g := DispatchBlocked("new", nil, nil, t0, AssessOptions{}); g.Blocked {
		t.Fatal("held with no task")
	}
	// A nil lookup confirms nothing: the gate holds.
	if g := DispatchBlocked("new", tasks, nil, t0, AssessOptions{}); !g.Blocked {
		t.Fatal("a nil lookup let the dispatch through")
	}
	// Gracefully and Never tasks never hold a dispatch.
	graceful := directTask("old")
	graceful.PurgeMode = PurgeGracefully
	never := directTask("other")
	never.PurgeMode = PurgeNever
	if g := DispatchBlocked("new", []GracefulEvictionTask{graceful, never}, nil, t0, AssessOptions{}); g.Blocked {
		t.Fatal("a Gracefully or Never task held the dispatch")
	}
}

// Right after Evict, before any assessment has stamped the task, the new
// copy already waits (the gate used to open until the task was judged).
func TestDispatchBlockedFromTheEviction(t *testing.T) {
	res, err := Evict([]TargetCluster{{Name: "member1"}}, nil, Eviction{
		Cluster: "member1", PurgeMode: PurgeDirectly, Producer: ProducerTaintManager, Reason: ReasonTaintUntolerated,
		PreservedLabelState: map[string]string{"job-id": "j-1"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if g := DispatchBlocked("member2", res.Tasks, copies{}, t0, AssessOptions{}); !g.Blocked {
		t.Fatal("dispatch not held right after a Directly eviction")
	}
	// The first assessment stamps the task; the old copy still runs, so
	// the task stays and the gate still holds.
	a := Assess(AssessInput{Tasks: res.Tasks, Targets: []TargetCluster{{Name: "member2"}}, OldCopies: copies{}, Now: t0}, AssessOptions{})
	if len(a.Kept) != 1 {
		t.Fatalf("kept %v removed %v", keptNames(a), reasons(a))
	}
	if g := DispatchBlocked("member2", a.Kept, copies{}, t0.Add(time.Minute), AssessOptions{}); !g.Blocked {
		t.Fatal("dispatch not held after the first assessment")
	}
}

func TestDispatchBlockedUnreachableEscape(t *testing.T) {
	tasks := []GracefulEvictionTask{directTask("old")}
	deleting := copies{"old": {Unreachable: true, DeletingSince: t0}}
	opts := AssessOptions{DirectlyEscapeTimeout: 5 * time.Minute}
	g := DispatchBlocked("new", tasks, deleting, t0.Add(time.Minute), opts)
	if !g.Blocked || !g.Until.Equal(t0.Add(5*time.Minute)) {
		t.Fatalf("before the escape: %+v", g)
	}
	g = DispatchBlocked("new", tasks, deleting, t0.Add(5*time.Minute), opts)
	if g.Blocked || !g.Escaped {
		t.Fatalf("at the escape: %+v", g)
	}
	// The default escape is ten minutes.
	g = DispatchBlocked("new", tasks, deleting, t0.Add(time.Minute), AssessOptions{})
	if !g.Until.Equal(t0.Add(DefaultDirectlyEscapeTimeout)) {
		t.Fatalf("default escape: %+v", g)
	}
	// A negative escape never gives up.
	g = DispatchBlocked("new", tasks, deleting, t0.Add(1000*time.Hour), AssessOptions{DirectlyEscapeTimeout: -1})
	if !g.Blocked || !g.Until.IsZero() {
		t.Fatalf("no escape: %+v", g)
	}
	// A reachable old copy alongside an escaping one: wait for good.
	mixed := append(tasks, directTask("other"))
	g = DispatchBlocked("new", mixed, deleting, t0.Add(time.Minute), opts)
	if !g.Blocked || !g.Until.IsZero() {
		t.Fatalf("mixed: %+v", g)
	}
}

// The escape counts from the deletion, not from the task: a task kept for an
// hour while no replacement existed does not escape the moment one appears.
func TestDispatchEscapeCountsFromTheDeletion(t *testing.T) {
	task := directTask("old")
	task.CreationTimestamp = &metav1.Time{Time: t0}
	replacementAt := t0.Add(time.Hour)
	opts := AssessOptions{DirectlyEscapeTimeout: 5 * time.Minute}

	// While no target exists the old copy is the last one and stays.
	if DeleteOldCopy(&task, nil) {
		t.Fatal("the last copy was to be deleted")
	}
	// The replacement is placed: the deletion starts now.
	targets := []TargetCluster{{Name: "new"}}
	if !DeleteOldCopy(&task, targets) {
		t.Fatal("a Directly old copy with a replacement was to be kept")
	}
	partitioned := copies{"old": {Unreachable: true, DeletingSince: replacementAt}}
	g := DispatchBlocked("new", []GracefulEvictionTask{task}, partitioned, replacementAt, opts)
	if !g.Blocked || !g.Until.Equal(replacementAt.Add(5*time.Minute)) {
		t.Fatalf("escaped without waiting after the deletion started: %+v", g)
	}
	// Not deleting yet: no escape at all.
	g = DispatchBlocked("new", []GracefulEvictionTask{task}, copies{"old": {Unreachable: true}}, replacementAt.Add(time.Hour), opts)
	if !g.Blocked || !g.Until.IsZero() {
		t.Fatalf("escaped before any deletion started: %+v", g)
	}
}

// A Directly task carries the state until the new copy has it: it stays
// while the old copy runs, and goes once the old copy is gone and the new
// one is healthy (or the grace period ran out).
func TestAssessDirectlyCarriesStateUntilTheNewCopyHasIt(t *testing.T) {
	task := directTask("old", "old")
	task.CreationTimestamp = &metav1.Time{Time: t0}
	healthy := HealthLookupFunc(func(string) health.Status { return health.Healthy })
	unhealthy := HealthLookupFunc(func(string) health.Status { return health.Unhealthy })
	in := AssessInput{Tasks: []GracefulEvictionTask{task}, Targets: []TargetCluster{{Name: "new"}}, Health: healthy, Now: t0.Add(time.Minute)}

	in.OldCopies = copies{}
	if a := Assess(in, AssessOptions{}); len(a.Kept) != 1 || a.Kept[0].PreservedLabelState["job-id"] != "j-1" {
		t.Fatalf("old copy running: kept %v removed %v", keptNames(a), reasons(a))
	}
	in.OldCopies = copies{"old": {Gone: true}}
	in.Health = unhealthy
	a := Assess(in, AssessOptions{})
	if len(a.Kept) != 1 || !a.NextAssessment.Equal(t0.Add(time.Duration(DefaultGracePeriodSeconds)*time.Second)) {
		t.Fatalf("old copy gone, new one not healthy: kept %v removed %v next %v", keptNames(a), reasons(a), a.NextAssessment)
	}
	in.Health = healthy
	if a := Assess(in, AssessOptions{}); reasons(a)["old"] != RemovedPurgedDirectly {
		t.Fatalf("old copy gone, new one healthy: removed %v", reasons(a))
	}
	// The grace period does not end a task that still carries state: the
	// new copy never ran with it.
	in.Health = unhealthy
	in.Now = t0.Add(time.Duration(DefaultGracePeriodSeconds) * time.Second)
	if a := Assess(in, AssessOptions{}); len(a.Kept) != 1 || !a.NextAssessment.IsZero() {
		t.Fatalf("grace period over, state undelivered: removed %v next %v", reasons(a), a.NextAssessment)
	}
	// A task with nothing to carry goes at the grace period.
	stateless := task
	stateless.PreservedLabelState = nil
	in.Tasks = []GracefulEvictionTask{stateless}
	if a := Assess(in, AssessOptions{}); reasons(a)["old"] != RemovedPurgedDirectly {
		t.Fatalf("grace period over, no state: removed %v", reasons(a))
	}
	in.Tasks = []GracefulEvictionTask{task}
	// With no target the old copy is the last one: kept, whatever its age.
	in.Targets = nil
	in.Now = t0.Add(100 * time.Hour)
	if a := Assess(in, AssessOptions{}); len(a.Kept) != 1 {
		t.Fatalf("no target: removed %v", reasons(a))
	}
}

// member1 -> member2 -> member3, where member2's copy never became healthy:
// member3 resumes from member1's state, not from what member2 reported.
func TestChainedFailoverKeepsTheLastHealthyState(t *testing.T) {
	for _, mode := range []PurgeMode{PurgeDirectly, PurgeGracefully} {
		t.Run(string(mode), func(t *testing.T) {
			first, err := Evict([]TargetCluster{{Name: "member1"}}, nil, Eviction{
				Cluster: "member1", PurgeMode: mode, Producer: ProducerTaintManager, Reason: ReasonTaintUntolerated,
				PreservedLabelState: map[string]string{"job-id": "from-member1"}, CreatedAt: t0, Settled: true,
			})
			if err != nil {
				t.Fatal(err)
			}
			// member2 started from member1's state but never settled; it
			// reports a fresh job id.
			second, err := Evict(append(first.Targets, TargetCluster{Name: "member2"}), first.Tasks, Eviction{
				Cluster: "member2", PurgeMode: mode, Producer: ProducerTaintManager, Reason: ReasonTaintUntolerated,
				PreservedLabelState: map[string]string{"job-id": "fresh-on-member2", "attempt": "2"}, CreatedAt: t0.Add(time.Minute),
			})
			if err != nil {
				t.Fatal(err)
			}
			carrier := StateCarrier("member3", second.Tasks)
			if carrier == nil || carrier.PreservedLabelState["job-id"] != "from-member1" || carrier.PreservedLabelState["attempt"] != "2" {
				t.Fatalf("member3 would resume from %+v", carrier)
			}
			// Had member2's copy settled, its own state is the newest.
			settled, err := Evict(append(first.Targets, TargetCluster{Name: "member2"}), first.Tasks, Eviction{
				Cluster: "member2", PurgeMode: mode, Producer: ProducerTaintManager, Reason: ReasonTaintUntolerated,
				PreservedLabelState: map[string]string{"job-id": "progress-on-member2"}, CreatedAt: t0.Add(time.Minute), Settled: true,
			})
			if err != nil {
				t.Fatal(err)
			}
			if c := StateCarrier("member3", settled.Tasks); c == nil || c.PreservedLabelState["job-id"] != "progress-on-member2" {
				t.Fatalf("settled member2: member3 would resume from %+v", c)
			}
		})
	}
}
