package scheduling

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/fleetover/fleetover/eviction"
)

func fleetOf(names ...string) []Cluster {
	out := make([]Cluster, len(names))
	for i, n := range names {
		out[i] = Cluster{Name: n}
	}
	return out
}

// seedDuplicated is the overview's Duplicated example: five clusters, an
// affinity to member1/2/3/5, spread 2..2, placed on member1 and member2;
// member2 fails (its not-ready taint is NoSchedule by then).
func seedDuplicated() *Request {
	fleet := fleetOf("member1", "member2", "member3", "member4", "member5")
	fleet[1].Taints = []corev1.Taint{notReadyNoSchedule}
	return &Request{
		Workload: &Workload{Name: "default/nginx"},
		Type:     Duplicated,
		Targets:  keptAfter([]eviction.TargetCluster{{Name: "member1", Replicas: 2}, {Name: "member2", Replicas: 2}}, "member2"),
		Evicted:  evictedFrom([]eviction.TargetCluster{{Name: "member1", Replicas: 2}, {Name: "member2", Replicas: 2}}, "member2"),
		Clusters: fleet,
		Filters:  append(DefaultFilters(), ClusterNames("member1", "member2", "member3", "member5")),
		Spread:   &SpreadConstraint{MinGroups: 2, MaxGroups: 2},
		Replicas: 2,
	}
}

func TestDuplicatedSeedExample(t *testing.T) {
	req := seedDuplicated()
	plan, err := Replace(req)
	if err != nil {
		t.Fatal(err)
	}
	want := []eviction.TargetCluster{{Name: "member1", Replicas: 2}, {Name: "member3", Replicas: 2}}
	if diff := cmp.Diff(want, plan.Targets); diff != "" {
		t.Errorf("targets (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Move{{From: "member2", To: "member3", Replicas: 2, Reason: ReasonClusterFailed}}, plan.Moves); diff != "" {
		t.Errorf("moves (-want +got):\n%s", diff)
	}
	if !plan.Changed || plan.Reason != "" {
		t.Errorf("Changed = %v, Reason = %q", plan.Changed, plan.Reason)
	}
	if r := plan.Filtered.Rejected["member4"]; r.Filter != FilterClusterAffinity {
		t.Errorf("member4 rejection = %+v, want the affinity", r)
	}

	// The other answer the overview allows: member5 when it scores higher.
	req.Scores = map[string]int64{"member5": 10}
	plan, err = Replace(req)
	if err != nil {
		t.Fatal(err)
	}
	want = []eviction.TargetCluster{{Name: "member1", Replicas: 2}, {Name: "member5", Replicas: 2}}
	if diff := cmp.Diff(want, plan.Targets); diff != "" {
		t.Errorf("with scores (-want +got):\n%s", diff)
	}
	for _, m := range plan.Moves {
		if m.From == "member1" || m.To == "member1" {
			t.Errorf("member1 was touched: %+v", m)
		}
	}
}

func TestDuplicatedTooFewCandidatesChangesNothing(t *testing.T) {
	req := seedDuplicated()
	placed := []eviction.TargetCluster{{Name: "member1", Replicas: 2}, {Name: "member2", Replicas: 2}}
	req.Targets, req.Evicted = keptAfter(placed, "member1", "member2"), evictedFrom(placed, "member1", "member2")
	// Candidates are member3 and member5: two, enough for two failures.
	plan, err := Replace(req)
	if err != nil || !plan.Changed || len(plan.Targets) != 2 {
		t.Fatalf("two candidates for two failures: %+v, %v", plan, err)
	}
	// member5 was evicted from recently: one candidate left for two failures.
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	req.Workload = &Workload{
		Now:                     now,
		History:                 eviction.EvictionHistory{{ClusterName: "member5", CreationTimestamp: metav1.NewTime(now.Add(-10 * time.Second))}},
		BlockPredecessorSeconds: ptr.To[int32](600),
	}
	plan, err = Replace(req)
	if err != nil {
		t.Fatal(err)
	}
	// The eviction stands and no replacement is added: the old copies stay
	// with their eviction tasks, which the assessment keeps while the
	// workload has no target.
	if plan.Reason != ReasonInsufficientCandidates || plan.Moves != nil || len(plan.Targets) != 0 {
		t.Errorf("plan = %+v, want no replacement for lack of candidates", plan)
	}
	if diff := cmp.Diff(sortedTargets(req.Targets), plan.Targets); diff != "" {
		t.Errorf("targets changed (-want +got):\n%s", diff)
	}
	if want := now.Add(590 * time.Second); !plan.Filtered.RetryAt.Equal(want) {
		t.Errorf("RetryAt = %v, want %v (when member5's block ends)", plan.Filtered.RetryAt, want)
	}
}

func TestDuplicatedSpreadBounds(t *testing.T) {
	base := func() *Request {
		return &Request{
			Type:     Duplicated,
			Targets:  keptAfter([]eviction.TargetCluster{{Name: "a"}, {Name: "b"}, {Name: "c"}}, "b", "c"),
			Evicted:  evictedFrom([]eviction.TargetCluster{{Name: "a"}, {Name: "b"}, {Name: "c"}}, "b", "c"),
			Clusters: fleetOf("a", "b", "c", "d", "e", "f"),
			Replicas: 1,
		}
	}
	req := base()
	req.Spread = &SpreadConstraint{MaxGroups: 2}
	plan, err := Replace(req)
	if err != nil {
		t.Fatal(err)
	}
	wantMoves := []Move{
		{From: "b", To: "d", Replicas: 1, Reason: ReasonClusterFailed},
		{From: "c", Replicas: 1, Reason: ReasonSpreadConstraint},
	}
	if diff := cmp.Diff(wantMoves, plan.Moves); diff != "" {
		t.Errorf("maxGroups 2 (-want +got):\n%s", diff)
	}
	if len(plan.Targets) != 2 {
		t.Errorf("targets %v, want 2 clusters", plan.Targets)
	}

	req = base()
	req.Spread = &SpreadConstraint{MinGroups: 4}
	plan, err = Replace(req)
	if err != nil {
		t.Fatal(err)
	}
	wantTargets := []eviction.TargetCluster{{Name: "a"}, {Name: "d", Replicas: 1}, {Name: "e", Replicas: 1}, {Name: "f", Replicas: 1}}
	if diff := cmp.Diff(wantTargets, plan.Targets); diff != "" {
		t.Errorf("minGroups 4 (-want +got):\n%s", diff)
	}
	if last := plan.Moves[len(plan.Moves)-1]; last.From != "" || last.To != "f" || last.Reason != ReasonSpreadConstraint {
		t.Errorf("top-up move = %+v", last)
	}
}

func TestDuplicatedFailedSuspendedClusterIsHeld(t *testing.T) {
	req := seedDuplicated()
	req.Workload.Suspension = SuspensionFunc(func(c string) bool { return c == "member2" })
	plan, err := Replace(req)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Changed || plan.Reason != ReasonFailoverPaused || !cmp.Equal(plan.Held, []string{"member2"}) {
		t.Errorf("plan = %+v, want member2 held and nothing changed", plan)
	}
	want := []eviction.TargetCluster{{Name: "member1", Replicas: 2}, {Name: "member2", Replicas: 2}}
	if diff := cmp.Diff(want, plan.Targets); diff != "" {
		t.Errorf("targets: the held cluster is not back (-want +got):\n%s", diff)
	}
}

// A suspension holds an evicted cluster only while its copy runs there:
// once the copy is gone, or its deletion has started, the failover there
// has happened, and the cluster is replaced as any other.
func TestSuspendedClusterWithoutItsCopyIsReplaced(t *testing.T) {
	for name, old := range map[string]eviction.OldCopy{
		"gone":     {Gone: true},
		"deleting": {DeletingSince: time.Date(2026, 11, 27, 4, 0, 0, 0, time.UTC)},
	} {
		t.Run(name, func(t *testing.T) {
			req := seedDuplicated()
			req.Workload.Suspension = SuspensionFunc(func(c string) bool { return c == "member2" })
			req.Workload.OldCopies = eviction.OldCopyLookupFunc(func(c string) eviction.OldCopy {
				if c == "member2" {
					return old
				}
				return eviction.OldCopy{}
			})
			plan, err := Replace(req)
			if err != nil {
				t.Fatal(err)
			}
			want := []eviction.TargetCluster{{Name: "member1", Replicas: 2}, {Name: "member3", Replicas: 2}}
			if len(plan.Held) > 0 || !plan.Changed || plan.Reason != "" || !cmp.Equal(want, plan.Targets) {
				t.Errorf("plan = %+v, want member2 replaced by member3, nothing held", plan)
			}
		})
	}
	// A copy that still runs keeps the cluster held.
	req := seedDuplicated()
	req.Workload.Suspension = SuspensionFunc(func(c string) bool { return c == "member2" })
	req.Workload.OldCopies = eviction.OldCopyLookupFunc(func(string) eviction.OldCopy { return eviction.OldCopy{Unreachable: true} })
	if plan, err := Replace(req); err != nil || !cmp.Equal(plan.Held, []string{"member2"}) {
		t.Errorf("plan = %+v (%v), want member2 held while its copy runs", plan, err)
	}
}

// The eviction a held cluster undoes takes its task with it; the tasks of
// other clusters, and the caller's slice, stay as they were.
func TestWithoutHeldTasks(t *testing.T) {
	tasks := []eviction.GracefulEvictionTask{
		{FromCluster: "member1", Reason: "TaintUntolerated"},
		{FromCluster: "member2", Reason: "TaintUntolerated"},
		{FromCluster: "member3", Reason: "ApplicationFailure"},
	}
	before := slices.Clone(tasks)
	plan := Plan{Held: []string{"member2"}}
	got := plan.WithoutHeldTasks(tasks)
	want := []eviction.GracefulEvictionTask{before[0], before[2]}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(before, tasks); diff != "" {
		t.Errorf("the caller's tasks changed (-before +after):\n%s", diff)
	}
	if got := (&Plan{}).WithoutHeldTasks(tasks); !cmp.Equal(got, before) {
		t.Errorf("nothing held: %v, want every task", got)
	}
}

func TestDuplicatedNeverPicksEvictingOrSuspendedCluster(t *testing.T) {
	req := seedDuplicated()
	req.Workload.EvictionTasks = []eviction.GracefulEvictionTask{{FromCluster: "member3"}}
	req.Workload.Suspension = SuspensionFunc(func(c string) bool { return c == "member5" })
	plan, err := Replace(req)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Reason != ReasonInsufficientCandidates || plan.Moves != nil || !cmp.Equal(plan.Targets, req.Targets) {
		t.Errorf("plan = %+v, want no candidate", plan)
	}
}

// seedDivided is the overview's Divided example: static weights member1:1,
// member2:2, three replicas placed 1 + 2; member1 fails.
func seedDivided() *Request {
	return &Request{
		Type:          Divided,
		Targets:       keptAfter([]eviction.TargetCluster{{Name: "member1", Replicas: 1}, {Name: "member2", Replicas: 2}}, "member1"),
		Evicted:       evictedFrom([]eviction.TargetCluster{{Name: "member1", Replicas: 1}, {Name: "member2", Replicas: 2}}, "member1"),
		Clusters:      fleetOf("member1", "member2"),
		Filters:       append(DefaultFilters(), ClusterNames("member1", "member2")),
		Replicas:      3,
		StaticWeights: map[string]int64{"member1": 1, "member2": 2},
	}
}

func TestDividedSeedExample(t *testing.T) {
	plan, err := Replace(seedDivided())
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]eviction.TargetCluster{{Name: "member2", Replicas: 3}}, plan.Targets); diff != "" {
		t.Errorf("targets (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Move{{From: "member1", To: "member2", Replicas: 1, Reason: ReasonClusterFailed}}, plan.Moves); diff != "" {
		t.Errorf("moves (-want +got):\n%s", diff)
	}
	if !plan.Changed || plan.Unplaced != 0 {
		t.Errorf("plan = %+v", plan)
	}
}

func TestDividedStaticWeights(t *testing.T) {
	// 10 replicas over a:5 b:3 c:2; a fails: its 5 go to b and c by 3:2.
	req := &Request{
		Type:          Divided,
		Targets:       keptAfter([]eviction.TargetCluster{{Name: "a", Replicas: 5}, {Name: "b", Replicas: 3}, {Name: "c", Replicas: 2}}, "a"),
		Evicted:       evictedFrom([]eviction.TargetCluster{{Name: "a", Replicas: 5}, {Name: "b", Replicas: 3}, {Name: "c", Replicas: 2}}, "a"),
		Clusters:      fleetOf("a", "b", "c", "d"),
		Replicas:      10,
		StaticWeights: map[string]int64{"a": 5, "b": 3, "c": 2},
	}
	plan, err := Replace(req)
	if err != nil {
		t.Fatal(err)
	}
	want := []eviction.TargetCluster{{Name: "b", Replicas: 6}, {Name: "c", Replicas: 4}}
	if diff := cmp.Diff(want, plan.Targets); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	wantMoves := []Move{{From: "a", To: "b", Replicas: 3, Reason: ReasonClusterFailed}, {From: "a", To: "c", Replicas: 2, Reason: ReasonClusterFailed}}
	if diff := cmp.Diff(wantMoves, plan.Moves); diff != "" {
		t.Errorf("moves (-want +got):\n%s", diff)
	}
}

func TestDividedTieBreak(t *testing.T) {
	// One replica, equal weights: the highest score takes it, then the first name.
	req := &Request{
		Type:     Divided,
		Targets:  keptAfter([]eviction.TargetCluster{{Name: "x", Replicas: 1}}, "x"),
		Evicted:  evictedFrom([]eviction.TargetCluster{{Name: "x", Replicas: 1}}, "x"),
		Clusters: fleetOf("x", "c", "b", "a"),
		Replicas: 1,
	}
	plan, _ := Replace(req)
	if len(plan.Targets) != 1 || plan.Targets[0].Name != "a" {
		t.Errorf("equal scores: %v, want a", plan.Targets)
	}
	req.Scores = map[string]int64{"c": 1}
	plan, _ = Replace(req)
	if len(plan.Targets) != 1 || plan.Targets[0].Name != "c" {
		t.Errorf("c scores higher: %v, want c", plan.Targets)
	}
}

func TestDividedByAvailableReplicas(t *testing.T) {
	fleet := fleetOf("a", "b", "c", "d")
	fleet[1].AvailableReplicas = ptr.To[int32](6)
	fleet[2].AvailableReplicas = ptr.To[int32](2)
	// d's capacity is unknown: it gets nothing by dynamic weight.
	req := &Request{
		Type:     Divided,
		Targets:  keptAfter([]eviction.TargetCluster{{Name: "a", Replicas: 4}, {Name: "b", Replicas: 1}}, "a"),
		Evicted:  evictedFrom([]eviction.TargetCluster{{Name: "a", Replicas: 4}, {Name: "b", Replicas: 1}}, "a"),
		Clusters: fleet,
		Replicas: 5,
		Division: DivideByAvailableReplicas,
	}
	plan, err := Replace(req)
	if err != nil {
		t.Fatal(err)
	}
	want := []eviction.TargetCluster{{Name: "b", Replicas: 4}, {Name: "c", Replicas: 1}}
	if diff := cmp.Diff(want, plan.Targets); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestDividedCapacityCapsAndUnplaced(t *testing.T) {
	fleet := fleetOf("a", "b", "c")
	fleet[1].AvailableReplicas = ptr.To[int32](1)
	fleet[2].AvailableReplicas = ptr.To[int32](2)
	req := &Request{
		Type:          Divided,
		Targets:       keptAfter([]eviction.TargetCluster{{Name: "a", Replicas: 6}}, "a"),
		Evicted:       evictedFrom([]eviction.TargetCluster{{Name: "a", Replicas: 6}}, "a"),
		Clusters:      fleet,
		Replicas:      6,
		StaticWeights: map[string]int64{"b": 5, "c": 1},
	}
	plan, err := Replace(req)
	if err != nil {
		t.Fatal(err)
	}
	want := []eviction.TargetCluster{{Name: "b", Replicas: 1}, {Name: "c", Replicas: 2}}
	if diff := cmp.Diff(want, plan.Targets); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if plan.Unplaced != 3 || !plan.Changed {
		t.Errorf("Unplaced = %d, Changed = %v; want 3, true", plan.Unplaced, plan.Changed)
	}
	if last := plan.Moves[len(plan.Moves)-1]; last.To != "" || last.Replicas != 3 {
		t.Errorf("last move %+v, want 3 replicas with no destination", last)
	}
}

func TestDividedAggregated(t *testing.T) {
	fleet := fleetOf("a", "b", "c", "d")
	fleet[2].AvailableReplicas = ptr.To[int32](10)
	fleet[3].AvailableReplicas = ptr.To[int32](2)
	fleet[1].AvailableReplicas = ptr.To[int32](1)
	req := &Request{
		Type:     Divided,
		Targets:  keptAfter([]eviction.TargetCluster{{Name: "a", Replicas: 4}, {Name: "b", Replicas: 1}}, "a"),
		Evicted:  evictedFrom([]eviction.TargetCluster{{Name: "a", Replicas: 4}, {Name: "b", Replicas: 1}}, "a"),
		Clusters: fleet,
		Replicas: 5,
		Division: DivideAggregated,
	}
	plan, err := Replace(req)
	if err != nil {
		t.Fatal(err)
	}
	// b is already placed: it fills first (room 1), then c, the largest room.
	want := []eviction.TargetCluster{{Name: "b", Replicas: 2}, {Name: "c", Replicas: 3}}
	if diff := cmp.Diff(want, plan.Targets); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestDividedNoCandidateAddsNothing(t *testing.T) {
	req := seedDivided()
	req.Clusters[1].Taints = []corev1.Taint{notReadyNoExecute}
	plan, err := Replace(req)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Reason != ReasonInsufficientCandidates || plan.Unplaced != 1 || plan.Moves != nil {
		t.Errorf("plan = %+v", plan)
	}
	if diff := cmp.Diff(sortedTargets(req.Targets), plan.Targets); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestDividedSuspension(t *testing.T) {
	// member1 fails but is suspended: held with its replica, nothing moves.
	req := seedDivided()
	req.Workload = &Workload{Suspension: SuspensionFunc(func(c string) bool { return c == "member1" })}
	plan, err := Replace(req)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Changed || plan.Reason != ReasonFailoverPaused || !cmp.Equal(plan.Held, []string{"member1"}) {
		t.Errorf("plan = %+v", plan)
	}

	// member3 fails; member2 is suspended: it keeps its replicas and gets no
	// new ones; member1 takes them.
	req = &Request{
		Type:     Divided,
		Targets:  keptAfter([]eviction.TargetCluster{{Name: "member1", Replicas: 1}, {Name: "member2", Replicas: 2}, {Name: "member3", Replicas: 3}}, "member3"),
		Evicted:  evictedFrom([]eviction.TargetCluster{{Name: "member1", Replicas: 1}, {Name: "member2", Replicas: 2}, {Name: "member3", Replicas: 3}}, "member3"),
		Clusters: fleetOf("member1", "member2", "member3"),
		Replicas: 6,
		Workload: &Workload{Suspension: SuspensionFunc(func(c string) bool { return c == "member2" })},
	}
	plan, err = Replace(req)
	if err != nil {
		t.Fatal(err)
	}
	want := []eviction.TargetCluster{{Name: "member1", Replicas: 4}, {Name: "member2", Replicas: 2}}
	if diff := cmp.Diff(want, plan.Targets); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestDividedShortfallAndSurplus(t *testing.T) {
	req := &Request{
		Type:     Divided,
		Targets:  keptAfter([]eviction.TargetCluster{{Name: "a", Replicas: 1}, {Name: "b", Replicas: 1}}, "a"),
		Evicted:  evictedFrom([]eviction.TargetCluster{{Name: "a", Replicas: 1}, {Name: "b", Replicas: 1}}, "a"),
		Clusters: fleetOf("a", "b"),
		Replicas: 4,
	}
	plan, _ := Replace(req)
	wantMoves := []Move{{From: "a", To: "b", Replicas: 1, Reason: ReasonClusterFailed}, {To: "b", Replicas: 2, Reason: ReasonShortfall}}
	if diff := cmp.Diff(wantMoves, plan.Moves); diff != "" {
		t.Errorf("shortfall (-want +got):\n%s", diff)
	}
	req.Replicas = 1
	plan, _ = Replace(req)
	if diff := cmp.Diff([]eviction.TargetCluster{{Name: "b", Replicas: 1}}, plan.Targets); diff != "" {
		t.Errorf("surplus (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]Move{{From: "a", Replicas: 1, Reason: ReasonClusterFailed}}, plan.Moves); diff != "" {
		t.Errorf("surplus moves (-want +got):\n%s", diff)
	}
}

func TestReplaceNothingFailed(t *testing.T) {
	req := seedDivided()
	req.Targets, req.Evicted = append(req.Targets, req.Evicted...), nil
	plan, err := Replace(req)
	if err != nil || plan.Changed || plan.Reason != ReasonNothingFailed {
		t.Errorf("plan = %+v, err = %v", plan, err)
	}
}

func TestReplaceDoesNotModifyInputs(t *testing.T) {
	req := seedDuplicated()
	req.Targets = []eviction.TargetCluster{{Name: "member3", Replicas: 2}, {Name: "member1", Replicas: 2}}
	req.Workload.Placement = []string{"stale"}
	before := *req
	beforeTargets := append([]eviction.TargetCluster(nil), req.Targets...)
	beforeEvicted := append([]eviction.TargetCluster(nil), req.Evicted...)
	if _, err := Replace(req); err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(beforeTargets, req.Targets) || !cmp.Equal(beforeEvicted, req.Evicted) || !cmp.Equal(req.Workload.Placement, []string{"stale"}) || req.Type != before.Type {
		t.Errorf("request modified: %+v", req)
	}
}

func TestReplaceInvalidRequests(t *testing.T) {
	tests := []struct {
		name  string
		edit  func(*Request)
		field string
	}{
		{"type", func(r *Request) { r.Type = "Spread" }, "type"},
		{"division", func(r *Request) { r.Division = "Random" }, "division"},
		{"replicas", func(r *Request) { r.Replicas = -1 }, "replicas"},
		{"target name", func(r *Request) { r.Targets[0].Name = "" }, "targets[0].name"},
		{"evicted name", func(r *Request) { r.Evicted[0].Name = "" }, "evicted[0].name"},
		{"evicted again a target", func(r *Request) { r.Evicted[0].Name = r.Targets[0].Name }, "evicted[0].name"},
		{"duplicate target", func(r *Request) { r.Targets = append(r.Targets, r.Targets[0]) }, "targets[1].name"},
		{"target replicas", func(r *Request) { r.Targets[0].Replicas = -2 }, "targets[0].replicas"},
		{"evicted replicas", func(r *Request) { r.Evicted[0].Replicas = -2 }, "evicted[0].replicas"},
		{"duplicate cluster", func(r *Request) { r.Clusters = append(r.Clusters, Cluster{Name: "member1"}) }, "clusters[2].name"},
		{"minGroups", func(r *Request) { r.Spread = &SpreadConstraint{MinGroups: -1} }, "spread.minGroups"},
		{"maxGroups", func(r *Request) { r.Spread = &SpreadConstraint{MaxGroups: -1} }, "spread.maxGroups"},
		{"min above max", func(r *Request) { r.Spread = &SpreadConstraint{MinGroups: 3, MaxGroups: 2} }, "spread.minGroups"},
		{"weight", func(r *Request) { r.StaticWeights["member2"] = MaxStaticWeight + 1 }, "staticWeights[member2]"},
		{"negative weight", func(r *Request) { r.StaticWeights["member2"] = -1 }, "staticWeights[member2]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := seedDivided()
			tt.edit(req)
			_, err := Replace(req)
			if !errors.Is(err, ErrInvalidRequest) {
				t.Fatalf("err = %v, want ErrInvalidRequest", err)
			}
			var fe *field.Error
			if !errors.As(err, &fe) || fe.Field != tt.field {
				t.Errorf("err = %v, want field %q", err, tt.field)
			}
		})
	}
	if _, err := Replace(nil); !errors.Is(err, ErrInvalidRequest) {
		t.Errorf("nil request: %v", err)
	}
}

// A placed cluster with an untolerated NoSchedule taint (not ready,
// unreachable) keeps its replicas and receives no new ones, under every
// division.
func TestDividedTaintedPlacedClusterReceivesNothing(t *testing.T) {
	for _, div := range []DivisionPreference{DivideByStaticWeight, DivideAggregated, DivideByAvailableReplicas} {
		t.Run(string(div), func(t *testing.T) {
			fleet := fleetOf("a", "b", "c")
			fleet[1].Taints = []corev1.Taint{{Key: "cluster.karmada.io/unreachable", Effect: corev1.TaintEffectNoSchedule}}
			for i := range fleet {
				fleet[i].AvailableReplicas = ptr.To[int32](10)
			}
			placed := []eviction.TargetCluster{{Name: "a", Replicas: 2}, {Name: "b", Replicas: 2}}
			plan, err := Replace(&Request{
				Type: Divided, Targets: keptAfter(placed, "a"), Evicted: evictedFrom(placed, "a"),
				Clusters: fleet, Replicas: 4, Division: div,
				StaticWeights: map[string]int64{"a": 1, "b": 5, "c": 1},
			})
			if err != nil {
				t.Fatal(err)
			}
			want := []eviction.TargetCluster{{Name: "b", Replicas: 2}, {Name: "c", Replicas: 2}}
			if diff := cmp.Diff(want, plan.Targets); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// Static weights that name no candidate weigh every candidate 1, as Karmada
// divides; a candidate without a weight next to weighted ones gets nothing.
func TestDividedStaticWeightsNamingNoCandidate(t *testing.T) {
	placed := []eviction.TargetCluster{{Name: "a", Replicas: 2}, {Name: "b", Replicas: 2}}
	req := &Request{
		Type: Divided, Targets: keptAfter(placed, "a"), Evicted: evictedFrom(placed, "a"),
		Clusters: fleetOf("a", "b", "c"), Replicas: 4,
		StaticWeights: map[string]int64{"a": 3},
	}
	plan, err := Replace(req)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]eviction.TargetCluster{{Name: "b", Replicas: 3}, {Name: "c", Replicas: 1}}, plan.Targets); diff != "" {
		t.Errorf("only the failed cluster weighted (-want +got):\n%s", diff)
	}
	req.StaticWeights = map[string]int64{"a": 3, "c": 1}
	if plan, err = Replace(req); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]eviction.TargetCluster{{Name: "b", Replicas: 2}, {Name: "c", Replicas: 2}}, plan.Targets); diff != "" {
		t.Errorf("c weighted, b not (-want +got):\n%s", diff)
	}
}
