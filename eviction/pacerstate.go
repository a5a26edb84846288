package eviction

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// PacerState is what a Pacer holds in memory, so a controller can carry it
// across a restart: without it a restarted pacer would start every zone in
// Normal mode with a full bucket, granting a fresh burst and repeating the
// mode-change events.
type PacerState struct {
	Zones []ZonePacerState `json:"zones,omitempty"`
}

// ZonePacerState is one zone's mode and bucket ("" is the global zone).
type ZonePacerState struct {
	Zone string         `json:"zone"`
	Mode DisruptionMode `json:"mode"`
	// Rate is the rate in force, per second.
	Rate float64 `json:"rate"`
	// Tokens is the bucket's content at CountedAt.
	Tokens    float64   `json:"tokens"`
	CountedAt time.Time `json:"countedAt"`
}

// ErrInvalidPacerState is wrapped by Import for a state it cannot restore.
var ErrInvalidPacerState = errors.New("invalid pacer state")

func (p *pacer) Export() PacerState {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := PacerState{Zones: make([]ZonePacerState, 0, len(p.zones))}
	for k, z := range p.zones {
		out.Zones = append(out.Zones, ZonePacerState{
			Zone: k, Mode: z.state.Mode, Rate: z.bucket.rate, Tokens: z.bucket.tokens(z.bucket.last), CountedAt: z.bucket.last,
		})
	}
	slices.SortFunc(out.Zones, func(a, b ZonePacerState) int {
		switch {
		case a.Zone < b.Zone:
			return -1
		case a.Zone > b.Zone:
			return 1
		}
		return 0
	})
	return out
}

func (p *pacer) Import(s PacerState) error {
	for i, z := range s.Zones {
		switch z.Mode {
		case DisruptionNormal, DisruptionPartial, DisruptionFull:
		default:
			return fmt.Errorf("%w: zones[%d].mode %q: want Normal, PartialDisruption or FullDisruption", ErrInvalidPacerState, i, z.Mode)
		}
		if math.IsNaN(z.Rate) || math.IsInf(z.Rate, 0) || z.Rate < 0 ||
			z.Rate > 0 && z.Rate < MinEvictionRate || z.Rate > MaxEvictionRate {
			return fmt.Errorf("%w: zones[%d].rate %v: want 0 or a rate from %g to %g per second",
				ErrInvalidPacerState, i, z.Rate, MinEvictionRate, MaxEvictionRate)
		}
		if math.IsNaN(z.Tokens) {
			return fmt.Errorf("%w: zones[%d].tokens is NaN", ErrInvalidPacerState, i)
		}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	now := p.cfg.Clock.Now()
	for _, z := range s.Zones {
		k := p.zoneKey(z.Zone)
		zs := p.zoneLocked(k)
		ceiling := p.cfg.Rate
		if z.Mode == DisruptionPartial {
			ceiling = p.cfg.SecondaryRate
		}
		rate := min(z.Rate, ceiling)
		tokens, countedAt := z.Tokens, z.CountedAt
		switch {
		case countedAt.IsZero():
			tokens, countedAt = 0, now
		case countedAt.After(now):
			countedAt = now
		}
		zs.observed = true
		zs.state.Mode, zs.state.Rate = z.Mode, rate
		zs.state.Message = "restored"
		zs.bucket.restore(rate, p.burstAt(rate), tokens, countedAt)
	}
	close(p.changed)
	p.changed = make(chan struct{})
	return nil
}
