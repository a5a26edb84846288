package eviction

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

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

// PacerConfig configures NewPacer; zero fields take the defaults.
type PacerConfig struct {
	// Clock drives the token buckets; nil means the real clock.
	Clock clock.Clock
	// Rate is the evictions per second in Normal mode (default 50).
	Rate float64
	// Burst is how many evictions may happen at once after a quiet spell
	// (default 50).
	Burst int
	// SecondaryRate is the rate in PartialDisruption (default 5); a
	// negative value stops evictions in that mode.
	SecondaryRate float64
	// UnhealthyThreshold is the share of unhealthy clusters from which a
	// zone is partially disrupted (default 0.55).
	UnhealthyThreshold float64
	// MinUnhealthyClusters is how many clusters must be unhealthy before a
	// zone can be partially disrupted, so small fleets do not slow down
	// on one failure (default 3).
	MinUnhealthyClusters int
	// PerZone gives each zone its own mode and bucket; otherwise one global
	// bucket paces the whole fleet and the zone arguments are ignored.
	PerZone bool
	// Observer hears mode changes and accepted evictions.
	Observer PacerObserver
}

func (c *PacerConfig) withDefaults() PacerConfig {
	out := *c
	if out.Clock == nil {
		out.Clock = clock.RealClock{}
	}
	if out.Rate <= 0 {
		out.Rate = DefaultEvictionRate
	}
	if out.Burst <= 0 {
		out.Burst = DefaultEvictionBurst
	}
	switch {
	case out.SecondaryRate < 0:
		out.SecondaryRate = 0
	case out.SecondaryRate == 0:
		out.SecondaryRate = DefaultSecondaryEvictionRate
	}
	if out.UnhealthyThreshold <= 0 || out.UnhealthyThreshold > 1 {
		out.UnhealthyThreshold = DefaultUnhealthyThreshold
	}
	if out.MinUnhealthyClusters <= 0 {
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
	// now, without blocking.
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
	// grants no fresh burst). Tokens are clamped to [0, Burst]. An invalid
	// state returns an error wrapping ErrInvalidPacerState and changes
	// nothing.
	Import(state PacerState) error
}

// NewPacer returns a Pacer in Normal mode for every zone.
func NewPacer(cfg PacerConfig) Pacer {
	c := cfg.withDefaults()
	return &pacer{cfg: c, zones: map[string]*zoneState{}, changed: make(chan struct{})}
}

type zoneState struct {
	state  DisruptionState
	bucket *tokenBucket
}

type pacer struct {
	cfg PacerConfig

	mu    sync.Mutex
	zones map[string]*zoneState
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

// zoneLocked returns zone's state, creating it in Normal mode on first use.
func (p *pacer) zoneLocked(zone string) *zoneState {
	z, ok := p.zones[zone]
	if !ok {
		z = &zoneState{
			state:  DisruptionState{Zone: zone, Mode: DisruptionNormal, Rate: p.cfg.Rate, Message: "no cluster observed yet"},
			bucket: newTokenBucket(p.cfg.Rate, p.cfg.Burst, p.cfg.Clock.Now()),
		}
		p.zones[zone] = z
	}
	return z
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
	now := p.cfg.Clock.Now()
	names := make([]string, 0, len(byZone))
	for k := range byZone {
		names = append(names, k)
	}
	// Zones that no longer have clusters return to Normal.
	for k := range p.zones {
		if _, ok := byZone[k]; !ok {
			byZone[k] = &counts{}
			names = append(names, k)
		}
	}
	slices.Sort(names)

	rateChanged := false
	out := make([]DisruptionState, 0, len(names))
	for _, k := range names {
		c := byZone[k]
		z := p.zoneLocked(k)
		next := p.classify(k, c.unhealthy, c.total, fleetDown)
		next.Changed = next.Mode != z.state.Mode
		if next.Rate != z.state.Rate {
			z.bucket.set(next.Rate, p.cfg.Burst, now)
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
