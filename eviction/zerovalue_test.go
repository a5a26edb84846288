package eviction

import (
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/fleetover/fleetover/failover/health"
)

// TestZeroValues holds every struct a caller fills in this package to its
// documented zero value: a safe default, or an error at the first call.
func TestZeroValues(t *testing.T) {
	healthy := HealthLookupFunc(func(string) health.Status { return health.Healthy })
	stamped := func(task GracefulEvictionTask, at time.Time) GracefulEvictionTask {
		task.CreationTimestamp = &metav1.Time{Time: at}
		return task
	}
	graceful := GracefulEvictionTask{FromCluster: "old", PurgeMode: PurgeGracefully, Reason: ReasonTaintUntolerated, Producer: ProducerTaintManager}

	cases := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"AssessOptions: the default grace period", func(t *testing.T) {
			in := AssessInput{Tasks: []GracefulEvictionTask{stamped(graceful, t0)}, Targets: []TargetCluster{{Name: "new"}}, Now: t0.Add(time.Minute)}
			a := Assess(in, AssessOptions{})
			if len(a.Kept) != 1 || !a.NextAssessment.Equal(t0.Add(time.Duration(DefaultGracePeriodSeconds)*time.Second)) {
				t.Fatalf("kept %v next %v", keptNames(a), a.NextAssessment)
			}
			in.Now = t0.Add(time.Duration(DefaultGracePeriodSeconds) * time.Second)
			if a := Assess(in, AssessOptions{}); reasons(a)["old"] != RemovedGracePeriodExpired {
				t.Fatalf("after the default grace period: removed %v", reasons(a))
			}
		}},
		{"AssessInput: empty input, empty assessment", func(t *testing.T) {
			a := Assess(AssessInput{}, AssessOptions{})
			if len(a.Kept) != 0 || len(a.Removed) != 0 || a.Changed() || !a.NextAssessment.IsZero() {
				t.Fatalf("%+v", a)
			}
			if errs := ValidateAssessInput(&AssessInput{}, field.NewPath("in")); len(errs) != 0 {
				t.Fatalf("the zero input is rejected: %v", errs)
			}
		}},
		{"AssessInput: tasks without Now are kept as they are and rejected by validation", func(t *testing.T) {
			old := stamped(graceful, t0)
			in := AssessInput{Tasks: []GracefulEvictionTask{graceful, old}, Targets: []TargetCluster{{Name: "new"}}, Health: healthy}
			a := Assess(in, AssessOptions{})
			if a.Changed() || len(a.Kept) != 2 || a.Kept[0].CreationTimestamp != nil {
				t.Fatalf("a zero Now judged or stamped: kept %v removed %v stamped %v", keptNames(a), reasons(a), a.Stamped)
			}
			errs := ValidateAssessInput(&in, field.NewPath("in"))
			if len(errs) != 1 || errs[0].Field != "in.now" || errs[0].Type != field.ErrorTypeRequired {
				t.Fatalf("validation: %v", errs)
			}
		}},
		{"AssessInput: the deprecated SchedulerObservedLatest is rejected, naming its replacement", func(t *testing.T) {
			errs := ValidateAssessInput(&AssessInput{SchedulerObservedLatest: true}, field.NewPath("in"))
			if len(errs) != 1 || errs[0].Field != "in.schedulerObservedLatest" || errs[0].Type != field.ErrorTypeForbidden {
				t.Fatalf("validation: %v", errs)
			}
			if want := "schedulerBehind"; !strings.Contains(errs[0].Detail, want) {
				t.Fatalf("the message %q does not name %s", errs[0].Detail, want)
			}
		}},
		{"AssessInput: no OldCopies, a Directly task goes after the escape bound", func(t *testing.T) {
			task := stamped(directTask("old"), t0)
			in := AssessInput{Tasks: []GracefulEvictionTask{task}, Targets: []TargetCluster{{Name: "new"}}, Health: healthy, Now: t0.Add(time.Minute)}
			a := Assess(in, AssessOptions{})
			if len(a.Kept) != 1 || !a.NextAssessment.Equal(t0.Add(DefaultDirectlyEscapeTimeout)) {
				t.Fatalf("before the bound: kept %v next %v", keptNames(a), a.NextAssessment)
			}
			in.Now = t0.Add(DefaultDirectlyEscapeTimeout)
			if a := Assess(in, AssessOptions{}); reasons(a)["old"] != RemovedPurgedDirectly {
				t.Fatalf("at the bound, with a healthy new copy: removed %v kept %v", reasons(a), keptNames(a))
			}
			// A negative escape (never give up on a lookup's answer) does
			// not make a nil lookup wait forever.
			in.Now = t0.Add(DefaultDirectlyEscapeTimeout)
			if a := Assess(in, AssessOptions{DirectlyEscapeTimeout: -1}); reasons(a)["old"] != RemovedPurgedDirectly {
				t.Fatalf("negative escape: removed %v kept %v", reasons(a), keptNames(a))
			}
		}},
		{"DispatchBlocked: no OldCopyLookup holds a Directly dispatch for a bounded time", func(t *testing.T) {
			task := stamped(directTask("old"), t0)
			g := DispatchBlocked("new", []GracefulEvictionTask{task}, nil, t0.Add(time.Minute), AssessOptions{})
			if !g.Blocked || g.BlockedBy != "old" || !g.Until.Equal(t0.Add(DefaultDirectlyEscapeTimeout)) {
				t.Fatalf("before the bound: %+v", g)
			}
			g = DispatchBlocked("new", []GracefulEvictionTask{task}, nil, t0.Add(DefaultDirectlyEscapeTimeout), AssessOptions{})
			if g.Blocked || !g.Escaped {
				t.Fatalf("at the bound: %+v", g)
			}
			// Not stamped yet: held, with the bound counted from now.
			g = DispatchBlocked("new", []GracefulEvictionTask{directTask("old")}, nil, t0, AssessOptions{DirectlyEscapeTimeout: time.Minute})
			if !g.Blocked || !g.Until.Equal(t0.Add(time.Minute)) {
				t.Fatalf("unstamped: %+v", g)
			}
			// A negative escape still ends: nothing could confirm the deletion.
			g = DispatchBlocked("new", []GracefulEvictionTask{task}, nil, t0.Add(time.Minute), AssessOptions{DirectlyEscapeTimeout: -1})
			if !g.Blocked || !g.Until.Equal(t0.Add(DefaultDirectlyEscapeTimeout)) {
				t.Fatalf("negative escape: %+v", g)
			}
		}},
		{"OldCopyLookupFunc and HealthLookupFunc: nil functions are the nil lookups", func(t *testing.T) {
			var old OldCopyLookupFunc
			var hl HealthLookupFunc
			if c := old.OldCopy("old"); c != (OldCopy{}) {
				t.Fatalf("nil OldCopyLookupFunc: %+v", c)
			}
			if s := hl.WorkloadHealth("new"); s != health.Unknown {
				t.Fatalf("nil HealthLookupFunc: %v", s)
			}
			task := stamped(directTask("old"), t0)
			g := DispatchBlocked("new", []GracefulEvictionTask{task}, old, t0.Add(time.Minute), AssessOptions{})
			if !g.Blocked || !g.Until.Equal(t0.Add(DefaultDirectlyEscapeTimeout)) {
				t.Fatalf("nil func lookup: %+v", g)
			}
			in := AssessInput{Tasks: []GracefulEvictionTask{task}, Targets: []TargetCluster{{Name: "new"}}, Health: hl, OldCopies: old, Now: t0.Add(time.Minute)}
			if a := Assess(in, AssessOptions{}); len(a.Kept) != 1 || !a.NextAssessment.Equal(t0.Add(DefaultDirectlyEscapeTimeout)) {
				t.Fatalf("nil funcs: kept %v next %v", keptNames(a), a.NextAssessment)
			}
		}},
		{"OldCopy: a copy that still runs", func(t *testing.T) {
			running := OldCopyLookupFunc(func(string) OldCopy { return OldCopy{} })
			g := DispatchBlocked("new", []GracefulEvictionTask{stamped(directTask("old"), t0)}, running, t0.Add(1000*time.Hour), AssessOptions{})
			if !g.Blocked || !g.Until.IsZero() {
				t.Fatalf("%+v", g)
			}
		}},
		{"Eviction: no cluster is an error", func(t *testing.T) {
			_, err := Evict([]TargetCluster{{Name: "member1"}}, nil, Eviction{})
			var inv *InvalidEvictionError
			if !errors.As(err, &inv) || !errors.Is(err, ErrInvalidEviction) {
				t.Fatalf("err = %v", err)
			}
		}},
		{"Eviction: a cluster but no reason or producer is an error", func(t *testing.T) {
			_, err := Evict([]TargetCluster{{Name: "member1"}}, nil, Eviction{Cluster: "member1"})
			if !errors.Is(err, ErrInvalidEviction) {
				t.Fatalf("err = %v", err)
			}
		}},
		{"TargetCluster: an entry without a name is never the cluster evicted", func(t *testing.T) {
			res, err := Evict([]TargetCluster{{}}, nil, Eviction{Cluster: "member1", Reason: ReasonTaintUntolerated, Producer: ProducerTaintManager})
			if err != nil || res.Outcome != EvictNotPlaced || res.Changed() {
				t.Fatalf("res %+v err %v", res, err)
			}
		}},
		{"GracefulEvictionTask: rejected by validation", func(t *testing.T) {
			errs := ValidateGracefulEvictionTask(&GracefulEvictionTask{}, field.NewPath("task"))
			for _, f := range []string{"task.fromCluster", "task.reason", "task.producer"} {
				if !hasField(errs, f) {
					t.Errorf("no error for %s: %v", f, errs)
				}
			}
		}},
		{"EvictionHistoryEntry: no timestamp blocks for good and is rejected", func(t *testing.T) {
			h := EvictionHistory{{ClusterName: "member1"}}
			if _, blocked, forever := h.BlockedUntil("member1", nil, t0); !blocked || !forever {
				t.Fatalf("blocked %v forever %v", blocked, forever)
			}
			if errs := ValidateEvictionHistory(h, field.NewPath("history")); len(errs) == 0 {
				t.Fatal("an entry without a timestamp was accepted")
			}
		}},
		{"DeadlineQueueConfig: ready to use", func(t *testing.T) {
			q, err := NewDeadlineQueue[string](DeadlineQueueConfig{})
			if err != nil {
				t.Fatal(err)
			}
			defer q.ShutDown()
			q.Add("k", time.Now().Add(-time.Second))
			if k, ok := q.TryGet(); !ok || k != "k" {
				t.Fatalf("TryGet = %q, %v", k, ok)
			}
		}},
		{"PacerConfig: the documented defaults", func(t *testing.T) {
			clk := clocktesting.NewFakeClock(t0)
			p, err := NewPacer(PacerConfig{Clock: clk})
			if err != nil {
				t.Fatal(err)
			}
			p.Observe([]ClusterHealthView{{Name: "a", Healthy: true}, {Name: "b", Healthy: true}})
			s := p.State("")
			if s.Mode != DisruptionNormal || s.Rate != DefaultEvictionRate {
				t.Fatalf("%+v", s)
			}
			n := 0
			for p.TryAccept("") {
				n++
			}
			if n != DefaultEvictionBurst {
				t.Fatalf("burst %d, want %d", n, DefaultEvictionBurst)
			}
			if errs := ValidatePacerConfig(PacerConfig{}, field.NewPath("pacer")); len(errs) != 0 {
				t.Fatalf("the zero config is rejected: %v", errs)
			}
		}},
		{"ClusterHealthView: a cluster not known to be healthy counts as unhealthy", func(t *testing.T) {
			p, err := NewPacer(PacerConfig{Clock: clocktesting.NewFakeClock(t0)})
			if err != nil {
				t.Fatal(err)
			}
			states := p.Observe([]ClusterHealthView{{}, {}, {}})
			if len(states) != 1 || states[0].Mode != DisruptionFull || states[0].Rate != 0 || p.TryAccept("") {
				t.Fatalf("%+v", states)
			}
		}},
		{"PacerState: restores nothing; a zero zone is rejected", func(t *testing.T) {
			p, err := NewPacer(PacerConfig{Clock: clocktesting.NewFakeClock(t0)})
			if err != nil {
				t.Fatal(err)
			}
			if err := p.Import(PacerState{}); err != nil {
				t.Fatalf("the zero state: %v", err)
			}
			if err := p.Import(PacerState{Zones: []ZonePacerState{{}}}); !errors.Is(err, ErrInvalidPacerState) {
				t.Fatalf("a zero zone: %v", err)
			}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}

func hasField(errs field.ErrorList, f string) bool {
	for _, e := range errs {
		if e.Field == f {
			return true
		}
	}
	return false
}
