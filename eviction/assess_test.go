package eviction

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/fleetover/fleetover/failover/health"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func stampedTask(cluster string, created time.Time) GracefulEvictionTask {
	task := validTask()
	task.FromCluster = cluster
	task.CreationTimestamp = &metav1.Time{Time: created}
	return task
}

func healthMap(m map[string]health.Status) HealthLookup {
	return HealthLookupFunc(func(c string) health.Status {
		if h, ok := m[c]; ok {
			return h
		}
		return health.Unknown
	})
}

func reasons(a Assessment) map[string]RemovalReason {
	out := map[string]RemovalReason{}
	for _, r := range a.Removed {
		out[r.Task.FromCluster] = r.Reason
	}
	return out
}

func keptNames(a Assessment) []string {
	var out []string
	for _, k := range a.Kept {
		out = append(out, k.FromCluster)
	}
	return out
}

func TestAssessStampsNewTaskWithoutJudging(t *testing.T) {
	expiredLooking := validTask()
	expiredLooking.FromCluster = "old"
	direct := validTask()
	direct.FromCluster = "direct"
	direct.PurgeMode = PurgeDirectly
	in := AssessInput{
		Tasks:     []GracefulEvictionTask{expiredLooking, direct},
		Targets:   []TargetCluster{{Name: "new"}},
		Health:    healthMap(map[string]health.Status{"new": health.Healthy}),
		OldCopies: copies{"direct": {Gone: true}},
		Now:       t0,
	}
	a := Assess(in, AssessOptions{})
	if len(a.Removed) != 0 || len(a.Kept) != 2 || !a.Stamped || !a.Changed() {
		t.Fatalf("kept %v removed %v stamped %v", keptNames(a), reasons(a), a.Stamped)
	}
	for _, k := range a.Kept {
		if k.CreationTimestamp == nil || !k.CreationTimestamp.Time.Equal(t0) {
			t.Fatalf("%s not stamped with now: %v", k.FromCluster, k.CreationTimestamp)
		}
	}
	if in.Tasks[0].CreationTimestamp != nil || in.Tasks[1].CreationTimestamp != nil {
		t.Fatal("input tasks were modified")
	}
	// The Directly task can be judged right away in the next round.
	if !a.NextAssessment.Equal(t0) {
		t.Fatalf("next %v", a.NextAssessment)
	}
	// Next round: both judged; the graceful one leaves because the
	// replacement is healthy, the direct one because its old copy is gone
	// and the replacement is healthy.
	in.Tasks = a.Kept
	in.Now = t0.Add(time.Second)
	b := Assess(in, AssessOptions{})
	want := map[string]RemovalReason{"old": RemovedReplacementHealthy, "direct": RemovedPurgedDirectly}
	if got := reasons(b); len(got) != 2 || got["old"] != want["old"] || got["direct"] != want["direct"] {
		t.Fatalf("removed %v", got)
	}
}

func TestAssessSuppressDeletion(t *testing.T) {
	keep := stampedTask("keep", t0.Add(-24*time.Hour))
	keep.SuppressDeletion = ptr.To(true)
	release := stampedTask("release", t0)
	release.SuppressDeletion = ptr.To(false)
	a := Assess(AssessInput{
		Tasks: []GracefulEvictionTask{keep, release}, Targets: []TargetCluster{{Name: "x"}}, Now: t0,
	}, AssessOptions{})
	if names := keptNames(a); len(names) != 1 || names[0] != "keep" {
		t.Fatalf("kept %v", names)
	}
	if reasons(a)["release"] != RemovedDeletionAllowed {
		t.Fatalf("removed %v", reasons(a))
	}
	if !a.NextAssessment.IsZero() {
		t.Fatalf("a suppressed task needs no timed look: %v", a.NextAssessment)
	}
	if _, ok := a.RequeueAfter(t0); ok {
		t.Fatal("RequeueAfter reported a delay")
	}
}

func TestAssessTimeoutsAndCustomGraceDoesNotLeak(t *testing.T) {
	custom := stampedTask("custom", t0)
	custom.GracePeriodSeconds = ptr.To[int32](30)
	plain := stampedTask("plain", t0)
	in := AssessInput{
		Tasks:   []GracefulEvictionTask{custom, plain},
		Targets: []TargetCluster{{Name: "new"}},
		Health:  healthMap(map[string]health.Status{"new": health.Unhealthy}),
	}

	in.Now = t0.Add(29 * time.Second)
	a := Assess(in, AssessOptions{})
	if len(a.Removed) != 0 || !a.NextAssessment.Equal(t0.Add(30*time.Second)) {
		t.Fatalf("removed %v next %v", reasons(a), a.NextAssessment)
	}
	if d, ok := a.RequeueAfter(in.Now); !ok || d != time.Second {
		t.Fatalf("requeue %v %v", d, ok)
	}

	// The custom task expires at 30 s; the next one keeps the global 10 min.
	in.Now = t0.Add(30 * time.Second)
	a = Assess(in, AssessOptions{})
	if got := reasons(a); len(got) != 1 || got["custom"] != RemovedGracePeriodExpired {
		t.Fatalf("removed %v", got)
	}
	if !a.NextAssessment.Equal(t0.Add(time.Duration(DefaultGracePeriodSeconds) * time.Second)) {
		t.Fatalf("next %v", a.NextAssessment)
	}

	in.Now = t0.Add(time.Duration(DefaultGracePeriodSeconds)*time.Second - time.Nanosecond)
	if a = Assess(in, AssessOptions{}); reasons(a)["plain"] != "" {
		t.Fatal("plain removed before the global timeout")
	}
	in.Now = t0.Add(time.Duration(DefaultGracePeriodSeconds) * time.Second)
	if a = Assess(in, AssessOptions{}); reasons(a)["plain"] != RemovedGracePeriodExpired {
		t.Fatalf("removed %v", reasons(a))
	}
	// A configured global timeout replaces the default.
	in.Now = t0.Add(2 * time.Minute)
	if a = Assess(in, AssessOptions{Timeout: time.Minute}); reasons(a)["plain"] != RemovedGracePeriodExpired {
		t.Fatalf("removed %v", reasons(a))
	}
}

func TestAssessHealthGate(t *testing.T) {
	task := stampedTask("old", t0)
	states := map[string]health.Status{"a": health.Healthy, "b": health.Healthy}
	in := AssessInput{
		Tasks:           []GracefulEvictionTask{task},
		Targets:         []TargetCluster{{Name: "a"}, {Name: "b"}},
		Health:          healthMap(states),
		Now:             t0.Add(time.Minute),
		SchedulerBehind: true,
	}
	if a := Assess(in, AssessOptions{}); len(a.Removed) != 0 {
		t.Fatal("removed before the scheduler observed the latest generation")
	}
	// The zero value means the scheduler caught up: healthy-removal is on
	// without the caller having to say so.
	in.SchedulerBehind = false
	if a := Assess(in, AssessOptions{}); reasons(a)["old"] != RemovedReplacementHealthy {
		t.Fatalf("removed %v", reasons(a))
	}
	for _, h := range []health.Status{health.Unhealthy, health.Unknown, ""} {
		states["b"] = h
		if a := Assess(in, AssessOptions{}); len(a.Removed) != 0 {
			t.Fatalf("removed while b is %q", h)
		}
	}
	in.Health = nil
	if a := Assess(in, AssessOptions{}); len(a.Removed) != 0 {
		t.Fatal("removed with no health lookup")
	}
}

func TestAssessEmptyTargetsKeepLastCopy(t *testing.T) {
	graceful := stampedTask("graceful", t0)
	direct := stampedTask("direct", t0)
	direct.PurgeMode = PurgeDirectly
	in := AssessInput{
		Tasks:     []GracefulEvictionTask{graceful, direct},
		Health:    healthMap(nil),
		OldCopies: copies{"direct": {Gone: true}},
		Now:       t0.Add(time.Hour), // long past the timeout
	}
	a := Assess(in, AssessOptions{})
	if len(a.Removed) != 0 || len(a.Kept) != 2 {
		t.Fatalf("removed %v", reasons(a))
	}
	// Karmada's behaviour on request: an empty list counts as healthy.
	in.Now = t0.Add(time.Minute)
	a = Assess(in, AssessOptions{EmptyTargetsAreHealthy: true})
	if got := reasons(a); got["graceful"] != RemovedReplacementHealthy || got["direct"] != RemovedPurgedDirectly {
		t.Fatalf("removed %v", got)
	}
	// Once the scheduler places the workload, time counts again.
	in.Targets = []TargetCluster{{Name: "new"}}
	in.Now = t0.Add(time.Hour)
	a = Assess(in, AssessOptions{})
	if got := reasons(a); got["graceful"] != RemovedGracePeriodExpired || got["direct"] != RemovedPurgedDirectly {
		t.Fatalf("removed %v", got)
	}
}

func TestAssessNeverKeeps(t *testing.T) {
	task := stampedTask("old", t0)
	task.PurgeMode = PurgeNever
	a := Assess(AssessInput{
		Tasks: []GracefulEvictionTask{task}, Targets: []TargetCluster{{Name: "n"}},
		Health: healthMap(map[string]health.Status{"n": health.Healthy}),
		Now:    t0.Add(100 * time.Hour),
	}, AssessOptions{})
	if len(a.Kept) != 1 || len(a.Removed) != 0 || !a.NextAssessment.IsZero() {
		t.Fatalf("kept %v removed %v next %v", keptNames(a), reasons(a), a.NextAssessment)
	}
}

func TestAssessCancelOnRecovery(t *testing.T) {
	back := stampedTask("back", t0)
	healthy := stampedTask("healthy", t0)
	still := stampedTask("still", t0)
	in := AssessInput{
		Tasks:   []GracefulEvictionTask{back, healthy, still},
		Targets: []TargetCluster{{Name: "back"}, {Name: "new"}},
		Health:  healthMap(map[string]health.Status{"healthy": health.Healthy, "still": health.Unhealthy}),
		Now:     t0.Add(time.Minute),
	}
	if a := Assess(in, AssessOptions{}); len(a.Removed) != 0 {
		t.Fatalf("cancelled without the option: %v", reasons(a))
	}
	a := Assess(in, AssessOptions{CancelOnRecovery: true})
	got := reasons(a)
	if len(got) != 2 || got["back"] != RemovedClusterRecovered || got["healthy"] != RemovedClusterRecovered {
		t.Fatalf("removed %v", got)
	}
	if names := keptNames(a); len(names) != 1 || names[0] != "still" {
		t.Fatalf("kept %v", names)
	}
}

func TestAssessIntoReusesBuffersWithoutAllocating(t *testing.T) {
	in := benchInput()
	var dst Assessment
	opts := AssessOptions{}
	AssessInto(&dst, &in, &opts)
	allocs := testing.AllocsPerRun(100, func() { AssessInto(&dst, &in, &opts) })
	if allocs != 0 {
		t.Fatalf("AssessInto allocated %.1f times per run", allocs)
	}
	if len(dst.Kept)+len(dst.Removed) != len(in.Tasks) {
		t.Fatalf("kept %d removed %d", len(dst.Kept), len(dst.Removed))
	}
}

// benchInput is a binding with 3 stamped tasks and 5 targets, one of them
// not yet healthy, so every task is judged in full and kept.
func benchInput() AssessInput {
	targets := []TargetCluster{{Name: "m1", Replicas: 1}, {Name: "m2", Replicas: 1}, {Name: "m3", Replicas: 1}, {Name: "m4", Replicas: 1}, {Name: "m5", Replicas: 1}}
	// Health as a binding's aggregated status holds it: a short list.
	type item struct {
		cluster string
		health  health.Status
	}
	status := []item{{"m1", health.Healthy}, {"m2", health.Healthy}, {"m3", health.Healthy}, {"m4", health.Healthy}, {"m5", health.Unhealthy}}
	lookup := HealthLookupFunc(func(c string) health.Status {
		for i := range status {
			if status[i].cluster == c {
				return status[i].health
			}
		}
		return health.Unknown
	})
	custom := stampedTask("old1", t0)
	custom.GracePeriodSeconds = ptr.To[int32](300)
	return AssessInput{
		Tasks:   []GracefulEvictionTask{custom, stampedTask("old2", t0), stampedTask("old3", t0)},
		Targets: targets,
		Health:  lookup,
		Now:     t0.Add(time.Minute),
	}
}

func TestAssessCancelOnRecoveryRespectsSuppressionAndLastCopy(t *testing.T) {
	suppressed := stampedTask("suppressed", t0)
	suppressed.SuppressDeletion = ptr.To(true)
	never := stampedTask("never", t0)
	never.PurgeMode = PurgeNever
	lastCopy := stampedTask("last", t0)
	health := healthMap(map[string]health.Status{"suppressed": health.Healthy, "never": health.Healthy, "last": health.Healthy})
	a := Assess(AssessInput{
		Tasks: []GracefulEvictionTask{suppressed, never}, Targets: []TargetCluster{{Name: "x"}},
		Health: health, Now: t0.Add(time.Minute),
	}, AssessOptions{CancelOnRecovery: true})
	if len(a.Removed) != 0 {
		t.Fatalf("recovery overrode a person's choice: %v", reasons(a))
	}
	// With no targets the healthy old copy is the only copy: kept.
	a = Assess(AssessInput{Tasks: []GracefulEvictionTask{lastCopy}, Health: health, Now: t0.Add(time.Minute)},
		AssessOptions{CancelOnRecovery: true})
	if len(a.Removed) != 0 {
		t.Fatalf("last copy released: %v", reasons(a))
	}
}

func TestAssessIntoNilArguments(t *testing.T) {
	AssessInto(nil, nil, nil)
	dst := Assessment{Kept: []GracefulEvictionTask{validTask()}, Stamped: true}
	AssessInto(&dst, nil, nil)
	if len(dst.Kept) != 0 || dst.Stamped {
		t.Fatalf("not reset: %+v", dst)
	}
	in := AssessInput{Tasks: []GracefulEvictionTask{stampedTask("x", t0)}, Targets: []TargetCluster{{Name: "y"}}, Now: t0.Add(time.Hour)}
	AssessInto(&dst, &in, nil)
	if reasons(dst)["x"] != RemovedGracePeriodExpired {
		t.Fatalf("default options not applied: %v", reasons(dst))
	}
}

func TestAssessIntoDropsReferencesFromLongerRound(t *testing.T) {
	in := benchInput()
	var dst Assessment
	AssessInto(&dst, &in, &AssessOptions{})
	if len(dst.Kept) != 3 {
		t.Fatalf("kept %d", len(dst.Kept))
	}
	short := AssessInput{Tasks: in.Tasks[:1], Targets: in.Targets, Health: in.Health, Now: in.Now}
	AssessInto(&dst, &short, &AssessOptions{})
	if len(dst.Kept) != 1 {
		t.Fatalf("kept %d", len(dst.Kept))
	}
	for i, old := range dst.Kept[1:3] {
		if old.FromCluster != "" || old.CreationTimestamp != nil {
			t.Fatalf("slot %d still holds %+v", i+1, old)
		}
	}
}
