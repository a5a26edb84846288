package eviction

import (
	"context"
	"errors"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clocktesting "k8s.io/utils/clock/testing"
)

func fleet(healthy, unhealthy int, zone string) []ClusterHealthView {
	var out []ClusterHealthView
	for i := range healthy {
		out = append(out, ClusterHealthView{Name: zone + "h" + string(rune('a'+i)), Zone: zone, Healthy: true})
	}
	for i := range unhealthy {
		out = append(out, ClusterHealthView{Name: zone + "u" + string(rune('a'+i)), Zone: zone})
	}
	return out
}

func within(t *testing.T, what string, got, want, tolerance float64) {
	t.Helper()
	if math.Abs(got-want) > tolerance*want {
		t.Fatalf("%s: got %.0f, want %.0f ± %.0f%%", what, got, want, tolerance*100)
	}
}

// drive steps the clock in 10 ms slices for d while workers call TryAccept
// as fast as they can between steps; it returns how many were accepted.
func drive(clk *clocktesting.FakeClock, p Pacer, zone string, workers int, d time.Duration) int64 {
	var accepted atomic.Int64
	for elapsed := time.Duration(0); elapsed < d; elapsed += 10 * time.Millisecond {
		clk.Step(10 * time.Millisecond)
		var wg sync.WaitGroup
		for range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 5 {
					if p.TryAccept(zone) {
						accepted.Add(1)
					}
				}
			}()
		}
		wg.Wait()
	}
	return accepted.Load()
}

func TestPacerGlobalRateHoldsWhateverTheWorkers(t *testing.T) {
	for _, workers := range []int{1, 4, 16} {
		clk := clocktesting.NewFakeClock(t0)
		p := mustNewPacer(t, PacerConfig{Clock: clk, Rate: 20, Burst: 10})
		got := drive(clk, p, "", workers, 60*time.Second)
		within(t, "accepted", float64(got), 10+20*60, 0.05)
	}
}

func TestPacerWaitHoldsRateAcrossWorkers(t *testing.T) {
	clk := clocktesting.NewFakeClock(t0)
	p := mustNewPacer(t, PacerConfig{Clock: clk, Rate: 10, Burst: 5})
	ctx, cancel := context.WithCancel(context.Background())
	const workers = 8
	var accepted atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p.Wait(ctx, "") == nil {
				accepted.Add(1)
			}
		}()
	}
	// Every worker blocked on a timer means every available token is taken.
	settle := func() {
		for clk.Waiters() < workers {
			runtime.Gosched()
		}
	}
	settle()
	for range 3000 { // 30 s
		clk.Step(10 * time.Millisecond)
		settle()
	}
	got := accepted.Load()
	cancel()
	wg.Wait()
	within(t, "accepted", float64(got), 5+10*30, 0.05)
}

// A step between Wait's reading of the time and its arming of the timer
// does not make the wait outlast the token: it ends when the clock reaches
// the token's time, not a step after it.
func TestPacerWaitClockStepWhileArming(t *testing.T) {
	clk := &steppingClock{FakeClock: clocktesting.NewFakeClock(t0), step: 50 * time.Millisecond}
	p := mustNewPacer(t, PacerConfig{Clock: clk, Rate: 10, Burst: 1})
	if !p.TryAccept("") {
		t.Fatal("the burst's token was refused")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- p.Wait(ctx, "") }()
	for clk.Now().Before(t0.Add(50*time.Millisecond)) || !clk.HasWaiters() {
		runtime.Gosched()
	}
	// The next token is due at +100ms (and a nanosecond); the step made
	// the first timer's +150ms.
	clk.SetTime(t0.Add(101 * time.Millisecond))
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatal("Wait still waits with the clock at the token's time: its timer was armed a step late")
	}
}

// On the real clock Wait waits on its timer instead of arming it again and
// again: a wait for the next token (50 ms) reads the time a few times.
func TestPacerWaitRealClockWithoutSpinning(t *testing.T) {
	clk := &countingClock{}
	p := mustNewPacer(t, PacerConfig{Clock: clk, Rate: 20, Burst: 1})
	if !p.TryAccept("") {
		t.Fatal("the burst's token was refused")
	}
	start := clk.reads.Load()
	if err := p.Wait(context.Background(), ""); err != nil {
		t.Fatal(err)
	}
	if n := clk.reads.Load() - start; n > 20 {
		t.Fatalf("%d reads of the time for one wait: Wait spins", n)
	}
}

func TestPacerDisruptionModes(t *testing.T) {
	cases := []struct {
		healthy, unhealthy int
		want               DisruptionMode
	}{
		{5, 0, DisruptionNormal},
		{1, 2, DisruptionNormal},  // 67 % but only 2 unhealthy
		{2, 3, DisruptionPartial}, // 60 %, 3 unhealthy
		{3, 3, DisruptionNormal},  // 50 %
		{9, 11, DisruptionPartial},
		{0, 1, DisruptionFull},
		{0, 4, DisruptionFull},
		{0, 0, DisruptionNormal},
	}
	for _, c := range cases {
		p := mustNewPacer(t, PacerConfig{Clock: clocktesting.NewFakeClock(t0)})
		states := p.Observe(fleet(c.healthy, c.unhealthy, ""))
		if c.healthy+c.unhealthy == 0 {
			if len(states) != 0 || p.State("").Mode != DisruptionNormal {
				t.Fatalf("empty fleet: %+v", states)
			}
			continue
		}
		if len(states) != 1 || states[0].Mode != c.want || states[0].Unhealthy != c.unhealthy || states[0].Total != c.healthy+c.unhealthy {
			t.Fatalf("%d/%d: %+v", c.unhealthy, c.healthy+c.unhealthy, states)
		}
		if states[0].Message == "" {
			t.Fatal("no message")
		}
	}
}

func TestPacerPartialSlowsFullStopsRecoveryResumes(t *testing.T) {
	clk := clocktesting.NewFakeClock(t0)
	p := mustNewPacer(t, PacerConfig{Clock: clk, Rate: 20, Burst: 1, SecondaryRate: 2})

	got := drive(clk, p, "", 4, 20*time.Second)
	within(t, "normal", float64(got), 1+20*20, 0.05)

	s := p.Observe(fleet(4, 6, ""))
	if s[0].Mode != DisruptionPartial || !s[0].Changed || s[0].Rate != 2 {
		t.Fatalf("%+v", s[0])
	}
	got = drive(clk, p, "", 4, 20*time.Second)
	within(t, "partial", float64(got), 2*20, 0.05)

	s = p.Observe(fleet(0, 10, ""))
	if s[0].Mode != DisruptionFull || s[0].Rate != 0 {
		t.Fatalf("%+v", s[0])
	}
	if got = drive(clk, p, "", 4, 20*time.Second); got != 0 {
		t.Fatalf("%d evictions accepted with every cluster down", got)
	}
	if _, ok := p.When(""); ok {
		t.Fatal("When promised a time while stopped")
	}

	// A blocked Wait resumes on recovery.
	done := make(chan error, 1)
	go func() { done <- p.Wait(context.Background(), "") }()
	s = p.Observe(fleet(10, 0, ""))
	if s[0].Mode != DisruptionNormal || !s[0].Changed {
		t.Fatalf("%+v", s[0])
	}
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			got = drive(clk, p, "", 4, 20*time.Second)
			within(t, "recovered", float64(got), 20*20, 0.05)
			return
		default:
			clk.Step(10 * time.Millisecond)
			runtime.Gosched()
		}
	}
}

func TestPacerWaitHonoursContext(t *testing.T) {
	clk := clocktesting.NewFakeClock(t0)
	p := mustNewPacer(t, PacerConfig{Clock: clk})
	p.Observe(fleet(0, 3, ""))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- p.Wait(ctx, "") }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
}

func TestPacerWhen(t *testing.T) {
	clk := clocktesting.NewFakeClock(t0)
	p := mustNewPacer(t, PacerConfig{Clock: clk, Rate: 4, Burst: 1})
	if at, ok := p.When(""); !ok || !at.Equal(t0) {
		t.Fatalf("%v %v", at, ok)
	}
	if !p.TryAccept("") || p.TryAccept("") {
		t.Fatal("burst of 1 not honoured")
	}
	at, ok := p.When("")
	if !ok || at.Before(t0.Add(250*time.Millisecond)) || at.After(t0.Add(251*time.Millisecond)) {
		t.Fatalf("%v", at.Sub(t0))
	}
	clk.SetTime(at)
	if !p.TryAccept("") {
		t.Fatal("token not available at When")
	}
}

type recordingObserver struct {
	changes  []DisruptionState
	accepted int
}

func (r *recordingObserver) DisruptionChanged(s DisruptionState) { r.changes = append(r.changes, s) }
func (r *recordingObserver) Accepted(string)                     { r.accepted++ }

func TestPacerPerZone(t *testing.T) {
	clk := clocktesting.NewFakeClock(t0)
	obs := &recordingObserver{}
	p := mustNewPacer(t, PacerConfig{Clock: clk, Rate: 10, Burst: 2, PerZone: true, Observer: obs})

	clusters := append(fleet(0, 3, "east"), fleet(3, 0, "west")...)
	states := p.Observe(clusters)
	if len(states) != 2 || states[0].Zone != "east" || states[1].Zone != "west" {
		t.Fatalf("%+v", states)
	}
	// A dead zone in a live fleet still evicts at the normal rate: its
	// workloads have somewhere to go.
	if states[0].Mode != DisruptionFull || states[0].Rate != 10 || states[1].Mode != DisruptionNormal {
		t.Fatalf("%+v", states)
	}
	if len(obs.changes) != 1 || obs.changes[0].Zone != "east" {
		t.Fatalf("events %+v", obs.changes)
	}
	// Separate buckets.
	if !p.TryAccept("east") || !p.TryAccept("east") || p.TryAccept("east") {
		t.Fatal("east burst")
	}
	if !p.TryAccept("west") {
		t.Fatal("west drained by east")
	}
	if obs.accepted != 3 {
		t.Fatalf("accepted events %d", obs.accepted)
	}
	// The whole fleet down: every zone stops.
	states = p.Observe(append(fleet(0, 3, "east"), fleet(0, 3, "west")...))
	for _, s := range states {
		if s.Mode != DisruptionFull || s.Rate != 0 {
			t.Fatalf("%+v", s)
		}
	}
	clk.Step(time.Hour)
	if p.TryAccept("east") || p.TryAccept("west") {
		t.Fatal("eviction accepted with the whole fleet down")
	}
	// Same observation again: nothing changed.
	for _, s := range p.Observe(append(fleet(0, 3, "east"), fleet(0, 3, "west")...)) {
		if s.Changed {
			t.Fatalf("%+v", s)
		}
	}
}

func TestPacerExportImportSurvivesRestart(t *testing.T) {
	clk := clocktesting.NewFakeClock(t0)
	p := mustNewPacer(t, PacerConfig{Clock: clk, Rate: 10, Burst: 10, PerZone: true})
	p.Observe(append(fleet(2, 3, "east"), fleet(5, 0, "west")...))
	for p.TryAccept("west") {
	}
	state := p.Export()
	if len(state.Zones) != 2 || state.Zones[0].Zone != "east" || state.Zones[0].Mode != DisruptionPartial || state.Zones[1].Tokens >= 1 {
		t.Fatalf("%+v", state)
	}

	restarted := mustNewPacer(t, PacerConfig{Clock: clk, Rate: 10, Burst: 10, PerZone: true})
	if err := restarted.Import(state); err != nil {
		t.Fatal(err)
	}
	if restarted.TryAccept("west") {
		t.Fatal("a restart granted a fresh burst")
	}
	for _, s := range restarted.Observe(append(fleet(2, 3, "east"), fleet(5, 0, "west")...)) {
		if s.Changed {
			t.Fatalf("restart reported a transition: %+v", s)
		}
	}
	clk.Step(100 * time.Millisecond)
	if !restarted.TryAccept("west") {
		t.Fatal("bucket did not refill after the restart")
	}
}

func TestPacerImportRejectsInvalidState(t *testing.T) {
	p := mustNewPacer(t, PacerConfig{Clock: clocktesting.NewFakeClock(t0)})
	for _, bad := range []PacerState{
		{Zones: []ZonePacerState{{Mode: "Chaos"}}},
		{Zones: []ZonePacerState{{Mode: DisruptionNormal, Rate: math.NaN()}}},
		{Zones: []ZonePacerState{{Mode: DisruptionNormal, Rate: -1}}},
		{Zones: []ZonePacerState{{Mode: DisruptionNormal, Rate: 1, Tokens: math.NaN()}}},
	} {
		if err := p.Import(bad); !errors.Is(err, ErrInvalidPacerState) {
			t.Fatalf("%+v: err %v", bad, err)
		}
	}
	if p.State("").Mode != DisruptionNormal {
		t.Fatal("invalid state changed the pacer")
	}
}

func mustNewPacer(tb testing.TB, cfg PacerConfig) Pacer {
	tb.Helper()
	p, err := NewPacer(cfg)
	if err != nil {
		tb.Fatalf("NewPacer: %v", err)
	}
	return p
}
