package eviction

import (
	"context"
	"errors"
	"math"
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
	clocktesting "k8s.io/utils/clock/testing"
)

func TestHostilePacerConfigRefused(t *testing.T) {
	cases := []struct {
		name  string
		cfg   PacerConfig
		field string // "" for a valid configuration
	}{
		{name: "zero value takes the defaults", cfg: PacerConfig{}},
		{name: "bounds are valid", cfg: PacerConfig{Rate: MaxEvictionRate, Burst: MaxEvictionBurst, SecondaryRate: MinEvictionRate, UnhealthyThreshold: 1}},
		{name: "negative secondary rate stops", cfg: PacerConfig{SecondaryRate: -1}},
		{name: "NaN rate", cfg: PacerConfig{Rate: math.NaN()}, field: "pacerConfig.rate"},
		{name: "infinite rate", cfg: PacerConfig{Rate: math.Inf(1)}, field: "pacerConfig.rate"},
		{name: "negative rate", cfg: PacerConfig{Rate: -1}, field: "pacerConfig.rate"},
		{name: "tiny rate", cfg: PacerConfig{Rate: 1e-300}, field: "pacerConfig.rate"},
		{name: "rate just below one a day", cfg: PacerConfig{Rate: MinEvictionRate / 2}, field: "pacerConfig.rate"},
		{name: "huge rate", cfg: PacerConfig{Rate: 1e300}, field: "pacerConfig.rate"},
		{name: "NaN secondary rate", cfg: PacerConfig{SecondaryRate: math.NaN()}, field: "pacerConfig.secondaryRate"},
		{name: "-Inf secondary rate", cfg: PacerConfig{SecondaryRate: math.Inf(-1)}, field: "pacerConfig.secondaryRate"},
		{name: "tiny secondary rate", cfg: PacerConfig{SecondaryRate: 1e-300}, field: "pacerConfig.secondaryRate"},
		{name: "negative burst", cfg: PacerConfig{Burst: -1}, field: "pacerConfig.burst"},
		{name: "absurd burst", cfg: PacerConfig{Burst: MaxEvictionBurst + 1}, field: "pacerConfig.burst"},
		{name: "NaN threshold", cfg: PacerConfig{UnhealthyThreshold: math.NaN()}, field: "pacerConfig.unhealthyThreshold"},
		{name: "threshold above 1", cfg: PacerConfig{UnhealthyThreshold: 1.5}, field: "pacerConfig.unhealthyThreshold"},
		{name: "negative threshold", cfg: PacerConfig{UnhealthyThreshold: -0.1}, field: "pacerConfig.unhealthyThreshold"},
		{name: "negative min unhealthy", cfg: PacerConfig{MinUnhealthyClusters: -1}, field: "pacerConfig.minUnhealthyClusters"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			errs := ValidatePacerConfig(tc.cfg, field.NewPath("pacerConfig"))
			p, err := NewPacer(tc.cfg)
			if tc.field == "" {
				if len(errs) != 0 || err != nil || p == nil {
					t.Fatalf("valid config refused: %v / %v", errs, err)
				}
				return
			}
			if len(errs) != 1 || errs[0].Field != tc.field || errs[0].Type != field.ErrorTypeInvalid {
				t.Fatalf("errors %v, want one Invalid on %s", errs, tc.field)
			}
			if err == nil || p != nil {
				t.Fatalf("NewPacer accepted it: %v", err)
			}
			var agg interface{ Errors() []error }
			if !errors.As(err, &agg) || len(agg.Errors()) != 1 {
				t.Fatalf("NewPacer error %v is not the validation errors", err)
			}
		})
	}
}

func TestHostilePacerImportZeroCountedAtGrantsNoBurst(t *testing.T) {
	clk := clocktesting.NewFakeClock(t0)
	p := mustNewPacer(t, PacerConfig{Clock: clk, Rate: 10, Burst: 10})
	if err := p.Import(PacerState{Zones: []ZonePacerState{{Mode: DisruptionNormal, Rate: 10, Tokens: 10}}}); err != nil {
		t.Fatal(err)
	}
	if p.TryAccept("") {
		t.Fatal("a state without a count time granted a burst")
	}
	clk.Step(100 * time.Millisecond)
	if !p.TryAccept("") || p.TryAccept("") {
		t.Fatal("the bucket does not earn one token per 100 ms from the import on")
	}
}

func TestHostilePacerImportFutureCountedAtIsClamped(t *testing.T) {
	clk := clocktesting.NewFakeClock(t0)
	p := mustNewPacer(t, PacerConfig{Clock: clk, Rate: 10, Burst: 10})
	future := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	if err := p.Import(PacerState{Zones: []ZonePacerState{{Mode: DisruptionNormal, Rate: 10, Tokens: 0, CountedAt: future}}}); err != nil {
		t.Fatal(err)
	}
	at, ok := p.When("")
	if !ok || at.Sub(t0) > 100*time.Millisecond+time.Microsecond {
		t.Fatalf("When = %v, %v: want about 100 ms after the import", at, ok)
	}
	clk.Step(at.Sub(t0))
	if !p.TryAccept("") {
		t.Fatal("no token at the time When gave")
	}
	if got := p.Export().Zones[0].CountedAt; got.After(clk.Now()) {
		t.Fatalf("exported count time %v is still in the future", got)
	}
}

func TestHostilePacerImportRejectsAbsurdRates(t *testing.T) {
	clk := clocktesting.NewFakeClock(t0)
	p := mustNewPacer(t, PacerConfig{Clock: clk, Rate: 10, Burst: 10})
	p.TryAccept("")
	before := p.Export()
	for _, rate := range []float64{1e-300, MinEvictionRate / 2, math.NaN(), math.Inf(1), math.Inf(-1), -1, MaxEvictionRate * 2, 1e300} {
		good := ZonePacerState{Zone: "", Mode: DisruptionNormal, Rate: 10, Tokens: 1, CountedAt: t0}
		bad := ZonePacerState{Zone: "", Mode: DisruptionNormal, Rate: rate, Tokens: 1, CountedAt: t0}
		err := p.Import(PacerState{Zones: []ZonePacerState{good, bad}})
		if !errors.Is(err, ErrInvalidPacerState) {
			t.Fatalf("rate %v: err = %v, want ErrInvalidPacerState", rate, err)
		}
	}
	if after := p.Export(); !reflect.DeepEqual(before, after) {
		t.Fatalf("a rejected import changed the pacer:\n%+v\n%+v", before, after)
	}
}

func TestHostilePacerImportCannotRaiseThePace(t *testing.T) {
	clk := clocktesting.NewFakeClock(t0)
	p := mustNewPacer(t, PacerConfig{Clock: clk, Rate: 1, Burst: 2, SecondaryRate: 0.5, PerZone: true})
	err := p.Import(PacerState{Zones: []ZonePacerState{
		{Zone: "a", Mode: DisruptionNormal, Rate: MaxEvictionRate, Tokens: 1e9, CountedAt: t0},
		{Zone: "b", Mode: DisruptionPartial, Rate: 1, Tokens: 1e9, CountedAt: t0},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.State("a").Rate; got != 1 {
		t.Fatalf("zone a restored at %v per second, the configured rate is 1", got)
	}
	if got := p.State("b").Rate; got != 0.5 {
		t.Fatalf("zone b restored at %v per second, the configured secondary rate is 0.5", got)
	}
	for zone, burst := range map[string]int{"a": 2, "b": 1} {
		n := 0
		for p.TryAccept(zone) {
			n++
		}
		if n != burst {
			t.Fatalf("zone %s admitted %d at once, want its burst %d", zone, n, burst)
		}
	}
	clk.Step(999 * time.Millisecond)
	if p.TryAccept("a") {
		t.Fatal("zone a refilled faster than its configured rate")
	}
}

func TestHostilePacerPartialDisruptionDropsTheBurst(t *testing.T) {
	clk := clocktesting.NewFakeClock(t0)
	p := mustNewPacer(t, PacerConfig{Clock: clk}) // 50/s, burst 50, 5/s in PartialDisruption
	p.Observe(fleet(10, 0, ""))
	clk.Step(time.Minute)
	if s := p.Observe(fleet(4, 6, ""))[0]; s.Mode != DisruptionPartial {
		t.Fatalf("%+v", s)
	}
	n := 0
	for p.TryAccept("") {
		n++
	}
	if n != 5 {
		t.Fatalf("entering PartialDisruption after a quiet minute admitted %d at once, want the burst at 5/s: 5", n)
	}
	// Back to Normal: the burst grows again, but only with time.
	p.Observe(fleet(10, 0, ""))
	if p.TryAccept("") {
		t.Fatal("returning to Normal granted tokens at once")
	}
	clk.Step(time.Minute)
	n = 0
	for p.TryAccept("") {
		n++
	}
	if n != DefaultEvictionBurst {
		t.Fatalf("after a quiet minute in Normal: %d at once, want %d", n, DefaultEvictionBurst)
	}
}

func TestHostilePacerUnobservedZoneCountsAsUnhealthy(t *testing.T) {
	clk := clocktesting.NewFakeClock(t0)
	p := mustNewPacer(t, PacerConfig{Clock: clk, Rate: 50, Burst: 50, PerZone: true})
	if p.TryAccept("north") {
		t.Fatal("a zone was admitted before any observation")
	}
	// Every observed zone is down: the fleet is, and so is a zone nobody
	// has observed.
	down := append(fleet(0, 3, "east"), fleet(0, 3, "west")...)
	p.Observe(down)
	clk.Step(time.Hour)
	if p.TryAccept("north") {
		t.Fatal("an unobserved zone was admitted while every observed zone is in FullDisruption")
	}
	if _, ok := p.When("north"); ok {
		t.Fatal("When promises a token to an unobserved zone of a fleet that is down")
	}
	if s := p.State("north"); s.Mode != DisruptionFull || s.Rate != 0 {
		t.Fatalf("%+v", s)
	}

	// Wait blocks until an observation lets the zone go.
	done := make(chan error, 1)
	go func() { done <- p.Wait(context.Background(), "north") }()
	p.Observe(down) // same picture: still blocked
	select {
	case err := <-done:
		t.Fatalf("Wait returned %v while the fleet is down", err)
	default:
	}
	p.Observe(append(down, fleet(2, 0, "north")...))
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	// With a healthy fleet, an unobserved zone is a dead zone: Full mode, at
	// the normal rate.
	if s := p.State("south"); s.Mode != DisruptionFull || s.Rate != 50 {
		t.Fatalf("%+v", s)
	}
}
