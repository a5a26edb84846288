package eviction

import (
	"math"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestFencedMemberEscapeCountsFromLastHeard: a member that fences is given
// up on FenceAfter + MaxClockSkew + FenceMargin (or the escape timeout, if
// longer) after the control plane last heard it, not after the deletion
// started, and never before the deletion started.
func TestFencedMemberEscapeCountsFromLastHeard(t *testing.T) {
	tasks := []GracefulEvictionTask{directTask("old", "old")}
	heard := t0
	deleting := t0.Add(10 * time.Minute) // taint + toleration after the silence
	opts := AssessOptions{DirectlyEscapeTimeout: 4 * time.Minute, MaxClockSkew: 5 * time.Second, FenceMargin: 25 * time.Second}
	fenced := OldCopy{Unreachable: true, DeletingSince: deleting, FenceAfter: 2 * time.Minute, LastHeard: heard}

	// The fence wait (2m30s) is shorter than the escape (4m): the escape
	// counts from the last hearing, so it has passed when the deletion
	// starts, and the new copy goes at once.
	g := DispatchBlocked("new", tasks, copies{"old": fenced}, deleting, opts)
	if g.Blocked || !g.Escaped || !g.Fenced {
		t.Fatalf("fenced member long silent, deletion started: %+v, want escaped after the fence", g)
	}
	// The same member cannot fence: the escape counts from the deletion.
	unfenced := fenced
	unfenced.FenceAfter = 0
	g = DispatchBlocked("new", tasks, copies{"old": unfenced}, deleting, opts)
	if !g.Blocked || !g.Until.Equal(deleting.Add(4*time.Minute)) {
		t.Fatalf("member that cannot fence: %+v, want held until the deletion start + 4m", g)
	}
	g = DispatchBlocked("new", tasks, copies{"old": unfenced}, deleting.Add(4*time.Minute), opts)
	if g.Blocked || !g.Escaped || g.Fenced {
		t.Fatalf("member that cannot fence, escape over: %+v, want escaped, not fenced", g)
	}

	// Heard one minute before the deletion started: the wait is the longer
	// of the escape and the fence wait, from then.
	recent := fenced
	recent.LastHeard = deleting.Add(-time.Minute)
	recent.FenceAfter = 5 * time.Minute // fence wait 5m30s > escape 4m
	want := recent.LastHeard.Add(5*time.Minute + 30*time.Second)
	if w := FencedEscapeWait(recent.FenceAfter, opts); w != 5*time.Minute+30*time.Second {
		t.Fatalf("FencedEscapeWait = %v, want 5m30s", w)
	}
	g = DispatchBlocked("new", tasks, copies{"old": recent}, want.Add(-time.Second), opts)
	if !g.Blocked || !g.Until.Equal(want) {
		t.Fatalf("fence not due yet: %+v, want held until %v", g, want)
	}
	g = DispatchBlocked("new", tasks, copies{"old": recent}, want, opts)
	if g.Blocked || !g.Escaped || !g.Fenced {
		t.Fatalf("fence due: %+v, want escaped, fenced", g)
	}

	// The member renews again: it is back, the escape moves on with it.
	renewed := recent
	renewed.LastHeard = want.Add(-10 * time.Second)
	if g := DispatchBlocked("new", tasks, copies{"old": renewed}, want, opts); !g.Blocked {
		t.Fatalf("member heard again: %+v, want held", g)
	}

	// Never heard: counts from the deletion start.
	never := fenced
	never.LastHeard = time.Time{}
	if g := DispatchBlocked("new", tasks, copies{"old": never}, deleting.Add(3*time.Minute), opts); !g.Blocked || !g.Until.Equal(deleting.Add(4*time.Minute)) {
		t.Fatalf("fencing member never heard: %+v, want held until the deletion start + 4m", g)
	}
	// No deletion started: nothing escapes, fence or not.
	notDeleting := fenced
	notDeleting.DeletingSince = time.Time{}
	if g := DispatchBlocked("new", tasks, copies{"old": notDeleting}, deleting.Add(time.Hour), opts); !g.Blocked || !g.Until.IsZero() {
		t.Fatalf("deletion not started: %+v, want held with no end", g)
	}
	// A negative escape never gives up, fence or not.
	if g := DispatchBlocked("new", tasks, copies{"old": fenced}, deleting.Add(time.Hour), AssessOptions{DirectlyEscapeTimeout: -1}); !g.Blocked {
		t.Fatalf("escape off: %+v, want held", g)
	}
	// Defaults: 10s of skew and 30s of margin.
	if w := FencedEscapeWait(time.Minute, AssessOptions{}); w != time.Minute+DefaultMaxClockSkew+DefaultFenceMargin {
		t.Fatalf("FencedEscapeWait with defaults = %v", w)
	}
	// A hostile declaration is bounded.
	if w := FencedEscapeWait(math.MaxInt64, AssessOptions{MaxClockSkew: math.MaxInt64, FenceMargin: math.MaxInt64}); w != 3*MaxDuration {
		t.Fatalf("FencedEscapeWait of huge values = %v, want 3 x MaxDuration", w)
	}
}

// TestNilLookupEscapeIsUnfenced: with no lookup nobody says the old
// cluster fences, so an escape is the documented risk.
func TestNilLookupEscapeIsUnfenced(t *testing.T) {
	task := directTask("old", "old")
	task.CreationTimestamp = &metav1.Time{Time: t0}
	g := DispatchBlocked("new", []GracefulEvictionTask{task}, nil, t0.Add(DefaultDirectlyEscapeTimeout), AssessOptions{})
	if !g.Escaped || g.Fenced {
		t.Fatalf("%+v, want escaped, not fenced", g)
	}
}

func TestValidateFencedEscape(t *testing.T) {
	p := field.NewPath("assess")
	for name, tc := range map[string]struct {
		opts       AssessOptions
		fenceAfter time.Duration
		field      string
		detail     string
	}{
		"default escape, short fence": {AssessOptions{}, 2 * time.Minute, "", ""},
		"escape equals the wait":      {AssessOptions{DirectlyEscapeTimeout: 2*time.Minute + 40*time.Second}, 2 * time.Minute, "", ""},
		"escape off":                  {AssessOptions{DirectlyEscapeTimeout: -1}, time.Hour, "", ""},
		"escape one second short": {AssessOptions{DirectlyEscapeTimeout: 2*time.Minute + 39*time.Second}, 2 * time.Minute,
			"assess.directlyEscapeTimeout", "must be at least fenceAfter + maxClockSkew + fenceMargin = 2m0s + 10s + 30s = 2m40s"},
		"default escape, long fence": {AssessOptions{}, 10 * time.Minute, "assess.directlyEscapeTimeout", "= 10m40s"},
		"custom skew and margin": {AssessOptions{DirectlyEscapeTimeout: 3 * time.Minute, MaxClockSkew: time.Minute, FenceMargin: time.Minute}, 2 * time.Minute,
			"assess.directlyEscapeTimeout", "2m0s + 1m0s + 1m0s = 4m0s"},
		"no fence":        {AssessOptions{}, 0, "assess.fenceAfter", "is required"},
		"negative fence":  {AssessOptions{}, -time.Second, "assess.fenceAfter", "must not be negative"},
		"huge fence":      {AssessOptions{}, math.MaxInt64, "assess.fenceAfter", "must be at most"},
		"negative skew":   {AssessOptions{MaxClockSkew: -1}, time.Minute, "assess.maxClockSkew", "must not be negative"},
		"huge margin":     {AssessOptions{FenceMargin: MaxDuration + 1}, time.Minute, "assess.fenceMargin", "must be at most"},
		"huge escape too": {AssessOptions{DirectlyEscapeTimeout: MaxDuration + 1}, time.Minute, "assess.directlyEscapeTimeout", "must be at most"},
	} {
		t.Run(name, func(t *testing.T) {
			errs := ValidateFencedEscape(tc.opts, tc.fenceAfter, p)
			if tc.field == "" {
				if len(errs) != 0 {
					t.Fatalf("refused: %v", errs)
				}
				return
			}
			if len(errs) != 1 || errs[0].Field != tc.field || !strings.Contains(errs[0].Error(), tc.detail) {
				t.Fatalf("errors %v, want one on %s saying %q", errs, tc.field, tc.detail)
			}
		})
	}
}

// FuzzValidateFencedEscape: options ValidateFencedEscape accepts never let
// DispatchBlocked start a new copy before the member's fence is over, and
// every error names a field under the path.
func FuzzValidateFencedEscape(f *testing.F) {
	f.Add(int64(0), int64(0), int64(0), int64(2*time.Minute), int64(0), int64(10*time.Minute))
	f.Add(int64(-1), int64(-1), int64(-1), int64(-1), int64(0), int64(0))
	f.Add(int64(math.MaxInt64), int64(math.MaxInt64), int64(math.MaxInt64), int64(math.MaxInt64), int64(math.MinInt64), int64(math.MaxInt64))
	f.Add(int64(3*time.Minute), int64(time.Second), int64(time.Second), int64(2*time.Minute), int64(time.Minute), int64(time.Minute))
	f.Fuzz(func(t *testing.T, escape, skew, margin, fenceAfter, heardOffset, deleteOffset int64) {
		opts := AssessOptions{DirectlyEscapeTimeout: time.Duration(escape), MaxClockSkew: time.Duration(skew), FenceMargin: time.Duration(margin)}
		errs := ValidateFencedEscape(opts, time.Duration(fenceAfter), field.NewPath("assess"))
		for _, e := range errs {
			if !strings.HasPrefix(e.Field, "assess.") {
				t.Fatalf("error %v names no field", e)
			}
		}
		if len(errs) > 0 {
			return
		}
		heard := t0.Add(time.Duration(heardOffset % int64(48*time.Hour)))
		deleting := heard.Add(time.Duration(deleteOffset % int64(48*time.Hour)))
		c := OldCopy{Unreachable: true, DeletingSince: deleting, FenceAfter: time.Duration(fenceAfter), LastHeard: heard}
		tasks := []GracefulEvictionTask{directTask("old", "old")}
		// The member stops its copy by heard + fenceAfter + skew + margin
		// at the latest: dispatch must wait until then.
		surelyStopped := heard.Add(time.Duration(fenceAfter) + opts.maxClockSkew() + opts.fenceMargin())
		for _, now := range []time.Time{surelyStopped.Add(-time.Nanosecond), deleting.Add(-time.Nanosecond)} {
			if g := DispatchBlocked("new", tasks, copies{"old": c}, now, opts); !g.Blocked {
				t.Fatalf("dispatched at %v before the fence (%v) or the deletion (%v): %+v", now, surelyStopped, deleting, g)
			}
		}
		if escape >= 0 {
			at := surelyStopped
			if deleting.After(at) {
				at = deleting
			}
			if e := time.Duration(escape); e > 0 && heard.Add(e).After(at) {
				at = heard.Add(e)
			} else if e == 0 && heard.Add(DefaultDirectlyEscapeTimeout).After(at) {
				at = heard.Add(DefaultDirectlyEscapeTimeout)
			}
			if g := DispatchBlocked("new", tasks, copies{"old": c}, at, opts); g.Blocked || !g.Escaped || !g.Fenced {
				t.Fatalf("still held at %v, after the fence and the escape: %+v", at, g)
			}
		}
	})
}

func TestNextFencingEpoch(t *testing.T) {
	withEpoch := func(e int64) GracefulEvictionTask { t := directTask("x"); t.FencingEpoch = e; return t }
	for _, tc := range []struct {
		last  int64
		tasks []GracefulEvictionTask
		want  int64
	}{
		{0, nil, 1},
		{3, nil, 4},
		{-5, nil, 1},
		{2, []GracefulEvictionTask{withEpoch(7), withEpoch(1)}, 8},
		{9, []GracefulEvictionTask{withEpoch(7)}, 10},
		{math.MaxInt64, nil, math.MaxInt64},
	} {
		if got := NextFencingEpoch(tc.last, tc.tasks); got != tc.want {
			t.Errorf("NextFencingEpoch(%d, %d tasks) = %d, want %d", tc.last, len(tc.tasks), got, tc.want)
		}
	}
}

// TestEvictCarriesFencingEpoch: a new task takes the eviction's epoch; a
// cluster already being evicted keeps its task's, or takes the new one
// when it had none; validation refuses a negative epoch.
func TestEvictCarriesFencingEpoch(t *testing.T) {
	targets := []TargetCluster{{Name: "a"}}
	res, err := Evict(targets, nil, Eviction{Cluster: "a", Reason: ReasonTaintUntolerated, Producer: ProducerTaintManager, PurgeMode: PurgeDirectly, FencingEpoch: 3})
	if err != nil || len(res.Tasks) != 1 || res.Tasks[0].FencingEpoch != 3 {
		t.Fatalf("new task: %+v %v, want epoch 3", res.Tasks, err)
	}
	again, err := Evict(res.Targets, res.Tasks, Eviction{Cluster: "a", Reason: ReasonTaintUntolerated, Producer: ProducerTaintManager, FencingEpoch: 9})
	if err != nil || again.Tasks[0].FencingEpoch != 3 || again.Changed() {
		t.Fatalf("eviction in progress: %+v %v changed=%v, want epoch 3 kept and nothing to write", again.Tasks, err, again.Changed())
	}
	noEpoch := []GracefulEvictionTask{directTask("a")}
	adopted, err := Evict(nil, noEpoch, Eviction{Cluster: "a", Reason: ReasonTaintUntolerated, Producer: ProducerTaintManager, FencingEpoch: 4})
	if err != nil || adopted.Tasks[0].FencingEpoch != 4 || !adopted.Changed() || noEpoch[0].FencingEpoch != 0 {
		t.Fatalf("task without an epoch: %+v %v, want epoch 4 adopted, input untouched", adopted.Tasks, err)
	}
	if _, err := Evict(targets, nil, Eviction{Cluster: "a", Reason: ReasonTaintUntolerated, Producer: ProducerTaintManager, FencingEpoch: -1}); err == nil ||
		!strings.Contains(err.Error(), "eviction.fencingEpoch") {
		t.Fatalf("negative epoch: %v, want an error naming eviction.fencingEpoch", err)
	}
}
