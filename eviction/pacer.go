package eviction

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/clock"
)

// DisruptionMode is how disrupted a fleet (or one zone of it) is, which sets
// how fast evictions may proceed.
type DisruptionMode string

const (
	// DisruptionNormal: evictions proceed at the primary rate.
	DisruptionNormal DisruptionMode = "Normal"
	// DisruptionPartial: a large share of clusters is unhealthy; evictions
	// slow to the secondary rate, since moving everything at once would
	// overload the clusters that are left.
	DisruptionPartial DisruptionMode = "PartialDisruption"
	// DisruptionFull: every cluster is unhealthy. When the whole fleet is
	// in this state nothing is evicted: the likely fault is the control
	// plane's view, not every cluster at once, and there is nowhere to go.
	DisruptionFull DisruptionMode = "FullDisruption"
)

// Defaults of PacerConfig. The thresholds are those of Kubernetes' node
// lifecycle controller; the rates are per evicted workload, not per cluster.
const (
	DefaultEvictionRate          = 50.0
	DefaultEvictionBurst         = 50
	DefaultSecondaryEvictionRate = 5.0
	DefaultUnhealthyThreshold    = 0.55
	DefaultMinUnhealthyClusters  = 3
)

// Bounds of PacerConfig and of a restored PacerState. A rate outside them is
// a mistake or an attack, never a policy: below one eviction a day the pacer
// would in effect stop after its burst while still reporting a rate, and
// above MaxEvictionRate (or MaxEvictionBurst) there is no pacing left.
const (
	// MinEvictionRate is the smallest positive rate accepted: one eviction
	// a day.
	MinEvictionRate = 1.0 / (24 * 60 * 60)
	// MaxEvictionRate is the largest rate accepted, per second.
	MaxEvictionRate = 1e6
	// MaxEvictionBurst is the largest burst accepted.
	MaxEvictionBurst = 1_000_000
)

// ClusterHealthView is what the pacer needs to know about one cluster.
type ClusterHealthView struct {
	Name string
	// Zone groups clusters when the pacer works per zone (a region or zone
	// label value chosen by the caller); empty is a zone of its own.
	Zone    string
	Healthy bool
}

// DisruptionState is the mode of one zone ("" when the pacer is global) and
// why it was chosen.
type DisruptionState struct {
	Zone      string
	Mode      DisruptionMode
	Unhealthy int
	Total     int
	// Rate is the eviction rate now in force, per second; 0 stops evictions.
	Rate    float64
	Message string
	// Changed reports that Mode differs from the previous observation, so
	// the caller can emit an event once per transition.
	Changed bool
}

// PacerObserver hears about the pacer's decisions; a no-op is used when none
// is configured. Calls are made with the pacer's lock held: keep them quick.
type PacerObserver interface {
	DisruptionChanged(state DisruptionState)
	Accepted(zone string)
}

type noopPacerObserver struct{}

func (noopPacerObserver) DisruptionChanged(DisruptionState) {}
func (noopPacerObserver) Accepted(string)                   {}

// PacerConfig configures NewPacer; zero fields take the defaults, and
// ValidatePacerConfig says which other values are accepted.
type PacerConfig struct {
	// Clock drives the token buckets; nil means the real clock.
	Clock clock.Clock
	// Rate is the evictions per second in Normal mode (default 50), from
	// MinEvictionRate to MaxEvictionRate.
	Rate float64
	// Burst is how many evictions may happen at once after a quiet spell
	// at Rate (default 50, at most MaxEvictionBurst). At a lower rate the
	// burst shrinks in proportion, to at least 1: with the defaults,
	// PartialDisruption at 5/s allows a burst of 5, and tokens saved in
	// Normal mode above that are dropped when the mode is entered.
	Burst int
	// SecondaryRate is the rate in PartialDisruption (default 5, at most
	// MaxEvictionRate); a negative value stops evictions in that mode.
	SecondaryRate float64
	// UnhealthyThreshold is the share of unhealthy clusters from which a
	// zone is partially disrupted, in (0, 1] (default 0.55).
	UnhealthyThreshold float64
	// MinUnhealthyClusters is how many clusters must be unhealthy before a
	// zone can be partially disrupted, so small fleets do not slow down
	// on one failure (default 3).
	MinUnhealthyClusters int
	// PerZone gives each zone its own mode and bucket; otherwise one global
	// bucket paces the whole fleet and the zone arguments are ignored.
	// A zone that Observe has not seen yet (asked for through TryAccept,
	// When, Wait or State first) counts as a zone whose clusters are all
	// unhealthy: in FullDisruption, stopped while no healthy cluster has
	// been observed anywhere, at Rate otherwise.
	PerZone bool
	// Observer hears mode changes and accepted evictions.
	Observer PacerObserver
}

// ValidatePacerConfig returns every value of cfg that NewPacer refuses, each
// naming its field under fldPath: a rate that is NaN, infinite, negative
// (SecondaryRate excepted), below MinEvictionRate or above MaxEvictionRate;
// a negative burst or one above MaxEvictionBurst; an UnhealthyThreshold
// outside [0, 1] or NaN; a negative MinUnhealthyClusters. Zero values are
// valid: they take the defaults.
func ValidatePacerConfig(cfg PacerConfig, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateEvictionRate(cfg.Rate, false, fldPath.Child("rate"))...)
	errs = append(errs, validateEvictionRate(cfg.SecondaryRate, true, fldPath.Child("secondaryRate"))...)
	if cfg.Burst < 0 || cfg.Burst > MaxEvictionBurst {
		errs = append(errs, field.Invalid(fldPath.Child("burst"), cfg.Burst,
			fmt.Sprintf("must be from 0 (the default, %d) to %d", DefaultEvictionBurst, MaxEvictionBurst)))
	}
	if t := cfg.UnhealthyThreshold; math.IsNaN(t) || t < 0 || t > 1 {
		errs = append(errs, field.Invalid(fldPath.Child("unhealthyThreshold"), t,
			fmt.Sprintf("must be a share in (0, 1], or 0 for the default %v", DefaultUnhealthyThreshold)))
	}
	if cfg.MinUnhealthyClusters < 0 {
		errs = append(errs, field.Invalid(fldPath.Child("minUnhealthyClusters"), cfg.MinUnhealthyClusters,
			"must be greater than or equal to 0"))
	}
	return errs
}

// validateEvictionRate checks one configured rate; 0 (the default) is valid,
// and so is a negative one where negative means "stop".
func validateEvictionRate(r float64, negativeStops bool, fldPath *field.Path) field.ErrorList {
	switch {
	case math.IsNaN(r) || math.IsInf(r, 0):
		return field.ErrorList{field.Invalid(fldPath, r, "must be a finite number")}
	case r < 0 && negativeStops, r == 0:
		return nil
	case r < 0:
		return field.ErrorList{field.Invalid(fldPath, r, "must be greater than or equal to 0 (0 takes the default)")}
	case r < MinEvictionRate || r > MaxEvictionRate:
		return field.ErrorList{field.Invalid(fldPath, r,
			fmt.Sprintf("must be from %g (one eviction a day) to %g evictions per second", MinEvictionRate, MaxEvictionRate))}
	}
	return nil
}

// withDefaults fills the zero fields of a valid configuration.
func (c *PacerConfig) withDefaults() PacerConfig {
	out := *c
	if out.Clock == nil {
		out.Clock = clock.RealClock{}
	}
	if out.Rate == 0 {
		out.Rate = DefaultEvictionRate
	}
	if out.Burst == 0 {
		out.Burst = DefaultEvictionBurst
	}
	switch {
	case out.SecondaryRate < 0:
		out.SecondaryRate = 0
	case out.SecondaryRate == 0:
		out.SecondaryRate = DefaultSecondaryEvictionRate
	}
	if out.UnhealthyThreshold == 0 {
		out.UnhealthyThreshold = DefaultUnhealthyThreshold
	}
	if out.MinUnhealthyClusters == 0 {
		out.MinUnhealthyClusters = DefaultMinUnhealthyClusters
	}
	if out.Observer == nil {
		out.Observer = noopPacerObserver{}
	}
	return out
}

// Pacer paces evictions across every worker of a controller: all of them
// draw from the same bucket (one per zone with PerZone), so adding workers
// never raises the rate. It is safe for concurrent use.
type Pacer interface {
	// Observe recomputes the disruption mode from the health of every
	// cluster and returns the state of each zone, sorted by zone.
	Observe(clusters []ClusterHealthView) []DisruptionState
	// State returns the current state of zone.
	State(zone string) DisruptionState
	// TryAccept takes one eviction from zone's budget if one is available
	// now, without blocking. A token taken is spent whether or not the
	// eviction then happens, so ask last, once nothing else can make the
	// eviction wait (its preserved state read, say): otherwise a workload
	// whose state stays unreadable takes its zone's tokens at every look,
	// ahead of the workloads behind it.
	TryAccept(zone string) bool
	// When is the earliest time TryAccept can succeed for zone, assuming no
	// other worker takes the token first; ok is false while evictions are
	// stopped.
	When(zone string) (at time.Time, ok bool)
	// Wait blocks until an eviction in zone is accepted or ctx ends.
	Wait(ctx context.Context, zone string) error
	// Export returns every zone's mode and bucket, sorted by zone.
	Export() PacerState
	// Import restores an exported state: modes (so the next Observe reports
	// Changed only for real transitions) and bucket contents (so a restart
	// grants no fresh burst). The state may come from an object anyone
	// with write access could edit, so nothing in it can raise the pace
	// above the configuration:
	//   - an unknown mode, a NaN, infinite or negative rate, a rate between
	//     0 and MinEvictionRate or above MaxEvictionRate, or NaN tokens are
	//     rejected with an error wrapping ErrInvalidPacerState, and nothing
	//     changes;
	//   - the rate is clamped to the configured rate of the zone's mode
	//     (Rate, or SecondaryRate in PartialDisruption), and the tokens to
	//     [0, the burst at that rate];
	//   - a zero CountedAt restores an empty bucket counted now: the state
	//     does not say when it was full, so it grants no burst;
	//   - a CountedAt in the future is clamped to now, so the tokens start
	//     earning at once instead of at that time.
	Import(state PacerState) error
}

// NewPacer returns a Pacer, or the errors of ValidatePacerConfig (as a
// field.ErrorList's aggregate) for a configuration it refuses. With the
// global bucket, every zone starts in Normal mode; with PerZone, see
// PacerConfig.PerZone for zones not observed yet.
func NewPacer(cfg PacerConfig) (Pacer, error) {
	if errs := ValidatePacerConfig(cfg, field.NewPath("pacerConfig")); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	c := cfg.withDefaults()
	return &pacer{cfg: c, zones: map[string]*zoneState{}, changed: make(chan struct{})}, nil
}

type zoneState struct {
	state  DisruptionState
	bucket *tokenBucket
	// observed: Observe has seen the zone's clusters, or Import restored it.
	observed bool
}

type pacer struct {
	cfg PacerConfig

	mu    sync.Mutex
	zones map[string]*zoneState
	// healthySeen: the last Observe saw at least one healthy cluster.
	healthySeen bool
	// changed is closed and replaced whenever a rate changes, so blocked
	// Waits re-plan.
	changed chan struct{}
}

func (p *pacer) zoneKey(zone string) string {
	if !p.cfg.PerZone {
		return ""
	}
	return zone
}

// burstAt is the burst at rate: Burst at Rate, shrinking in proportion at a
// lower rate, never below 1.
func (p *pacer) burstAt(rate float64) int {
	if rate >= p.cfg.Rate {
		return p.cfg.Burst
	}
	return max(1, int(float64(p.cfg.Burst)*rate/p.cfg.Rate))
}

// zoneLocked returns zone's state, creating it on first use: in Normal mode
// for the global bucket, as a zone not observed yet with PerZone.
func (p *pacer) zoneLocked(zone string) *zoneState {
	if z, ok := p.zones[zone]; ok {
		return z
	}
	if p.cfg.PerZone {
		return p.newZoneLocked(p.unobserved(zone))
	}
	return p.newZoneLocked(p.normal(zone))
}

// normal is the state a zone starts in when it is first seen with clusters
// (or first used with the global bucket), so that the first observation
// reports Changed only for a zone that is not in Normal mode.
func (p *pacer) normal(zone string) DisruptionState {
	return DisruptionState{Zone: zone, Mode: DisruptionNormal, Rate: p.cfg.Rate, Message: "no cluster observed yet"}
}

func (p *pacer) newZoneLocked(state DisruptionState) *zoneState {
	z := &zoneState{state: state, bucket: newTokenBucket(state.Rate, p.burstAt(state.Rate), p.cfg.Clock.Now())}
	p.zones[state.Zone] = z
	return z
}

// unobserved classifies a zone Observe has not seen: as one whose clusters
// are all unhealthy, in a fleet that is down unless the last Observe saw a
// healthy cluster.
func (p *pacer) unobserved(zone string) DisruptionState {
	s := p.classify(zone, 1, 1, !p.healthySeen)
	s.Unhealthy, s.Total = 0, 0
	s.Message = "zone not observed yet, counted as unhealthy: " + s.Message
	return s
}

func (p *pacer) Observe(clusters []ClusterHealthView) []DisruptionState {
	type counts struct{ unhealthy, total int }
	byZone := map[string]*counts{}
	fleetHealthy := 0
	for i := range clusters {
		k := p.zoneKey(clusters[i].Zone)
		c := byZone[k]
		if c == nil {
			c = &counts{}
			byZone[k] = c
		}
		c.total++
		if clusters[i].Healthy {
			fleetHealthy++
		} else {
			c.unhealthy++
		}
	}
	fleetDown := len(clusters) > 0 && fleetHealthy == 0

	p.mu.Lock()
	defer p.mu.Unlock()
	p.healthySeen = fleetHealthy > 0
	now := p.cfg.Clock.Now()
	names := make([]string, 0, len(byZone))
	for k := range byZone {
		names = append(names, k)
	}
	for k := range p.zones {
		if _, ok := byZone[k]; !ok {
			names = append(names, k)
		}
	}
	slices.Sort(names)

	rateChanged := false
	out := make([]DisruptionState, 0, len(names))
	for _, k := range names {
		c, seen := byZone[k]
		z, ok := p.zones[k]
		if !ok {
			z = p.newZoneLocked(p.normal(k))
		}
		var next DisruptionState
		switch {
		case seen:
			z.observed = true
			next = p.classify(k, c.unhealthy, c.total, fleetDown)
		case z.observed:
			// A zone that no longer has clusters returns to Normal.
			next = p.classify(k, 0, 0, fleetDown)
		default:
			next = p.unobserved(k)
		}
		next.Changed = next.Mode != z.state.Mode
		if next.Rate != z.state.Rate {
			z.bucket.set(next.Rate, p.burstAt(next.Rate), now)
			rateChanged = true
		}
		z.state = next
		if next.Changed {
			p.cfg.Observer.DisruptionChanged(next)
		}
		out = append(out, next)
	}
	if rateChanged {
		close(p.changed)
		p.changed = make(chan struct{})
	}
	return out
}

// classify applies the node-lifecycle rules to one zone.
func (p *pacer) classify(zone string, unhealthy, total int, fleetDown bool) DisruptionState {
	s := DisruptionState{Zone: zone, Unhealthy: unhealthy, Total: total}
	switch {
	case total > 0 && unhealthy == total && fleetDown:
		s.Mode, s.Rate = DisruptionFull, 0
		s.Message = fmt.Sprintf("all %d clusters are unhealthy: evictions stopped", total)
	case total > 0 && unhealthy == total:
		// A dead zone in an otherwise healthy fleet: its workloads have
		// somewhere to go, so they leave at the normal rate (as Kubernetes
		// does for a fully disrupted zone).
		s.Mode, s.Rate = DisruptionFull, p.cfg.Rate
		s.Message = fmt.Sprintf("all %d clusters of the zone are unhealthy while other zones are healthy: evicting at the normal rate", total)
	case unhealthy >= p.cfg.MinUnhealthyClusters && float64(unhealthy) >= p.cfg.UnhealthyThreshold*float64(total):
		s.Mode, s.Rate = DisruptionPartial, p.cfg.SecondaryRate
		s.Message = fmt.Sprintf("%d of %d clusters are unhealthy (threshold %.0f%%): evictions slowed", unhealthy, total, p.cfg.UnhealthyThreshold*100)
	default:
		s.Mode, s.Rate = DisruptionNormal, p.cfg.Rate
		s.Message = fmt.Sprintf("%d of %d clusters are unhealthy", unhealthy, total)
	}
	return s
}

func (p *pacer) State(zone string) DisruptionState {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.zoneLocked(p.zoneKey(zone)).state
	s.Changed = false
	return s
}

func (p *pacer) TryAccept(zone string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := p.zoneKey(zone)
	if p.zoneLocked(k).bucket.take(p.cfg.Clock.Now()) {
		p.cfg.Observer.Accepted(k)
		return true
	}
	return false
}

func (p *pacer) When(zone string) (time.Time, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.zoneLocked(p.zoneKey(zone)).bucket.next(p.cfg.Clock.Now())
}

func (p *pacer) Wait(ctx context.Context, zone string) error {
	k := p.zoneKey(zone)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		p.mu.Lock()
		now := p.cfg.Clock.Now()
		z := p.zoneLocked(k)
		if z.bucket.take(now) {
			p.cfg.Observer.Accepted(k)
			p.mu.Unlock()
			return nil
		}
		at, ok := z.bucket.next(now)
		changed := p.changed
		p.mu.Unlock()

		if !ok {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-changed:
			}
			continue
		}
		t := p.cfg.Clock.NewTimer(at.Sub(now))
		atNanos := toNanos(at)
		if rearmWhileClockMoves(p.cfg.Clock, atNanos, toNanos(now), func(now int64) {
			t.Stop()
			t = p.cfg.Clock.NewTimer(time.Duration(atNanos - now))
		}) {
			t.Stop()
			continue
		}
		select {
		case <-ctx.Done():
			t.Stop()
			return ctx.Err()
		case <-changed:
			t.Stop()
		case <-t.C():
		}
	}
}
