package scheduling

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fleetover/fleetover/eviction"
)

// ReplicaSchedulingType is how a workload's replicas spread over clusters.
type ReplicaSchedulingType string

const (
	// Duplicated runs every replica on each chosen cluster.
	Duplicated ReplicaSchedulingType = "Duplicated"
	// Divided splits the replicas among the chosen clusters.
	Divided ReplicaSchedulingType = "Divided"
)

// DivisionPreference is how a Divided re-placement shares the replicas that
// must move among the clusters that can take them.
type DivisionPreference string

const (
	// DivideByStaticWeight shares in proportion to Request.StaticWeights (a
	// cluster without a weight gets nothing; when no candidate has a weight,
	// every candidate weighs 1, as in Karmada). The default.
	DivideByStaticWeight DivisionPreference = "StaticWeight"
	// DivideByAvailableReplicas shares in proportion to each cluster's
	// Cluster.AvailableReplicas (dynamic weight); a cluster whose capacity is
	// unknown gets nothing.
	DivideByAvailableReplicas DivisionPreference = "DynamicWeight"
	// DivideAggregated fills as few clusters as possible: clusters the
	// workload is already on first, then by available capacity (unknown
	// counts as unlimited), then by score and name.
	DivideAggregated DivisionPreference = "Aggregated"
)

// MaxStaticWeight is the largest static weight accepted; it keeps the
// division's arithmetic exact in 64 bits.
const MaxStaticWeight = math.MaxInt32

// Why a replica moved (Move.Reason) and why nothing changed (Plan.Reason).
const (
	// ReasonClusterFailed: the replicas left a failed cluster.
	ReasonClusterFailed = "ClusterFailed"
	// ReasonShortfall: the replicas were missing before the failure
	// (Divided: the targets held fewer than Request.Replicas).
	ReasonShortfall = "Shortfall"
	// ReasonSpreadConstraint: a cluster was added or dropped to keep the
	// number of clusters within the spread constraint.
	ReasonSpreadConstraint = "SpreadConstraint"
	// ReasonNothingFailed: Request.Evicted is empty.
	ReasonNothingFailed = "NothingFailed"
	// ReasonInsufficientCandidates: too few feasible clusters to replace the
	// evicted ones; the eviction stands and nothing new is placed (an
	// old copy whose workload has no target left is kept by the eviction
	// assessment, never deleted).
	ReasonInsufficientCandidates = "InsufficientCandidates"
	// ReasonFailoverPaused: every failed cluster has its dispatching
	// suspended, which pauses their failover.
	ReasonFailoverPaused = "FailoverPaused"
	// ReasonZoneSpread: nothing new is placed because of Request.ZoneSpread:
	// feasible candidates lie outside the zones it allows (Plan.ZoneExcluded
	// lists them), or the candidates span fewer than MinGroups zones. The
	// eviction stands, as with InsufficientCandidates.
	ReasonZoneSpread = "ZoneSpread"
	// ReasonRegionSpread: as ReasonZoneSpread, for Request.RegionSpread
	// (Plan.RegionExcluded lists the candidates it kept out).
	ReasonRegionSpread = "RegionSpread"
)

// ErrInvalidRequest is wrapped by every error Replace returns; the same error
// also wraps a *field.Error naming the offending field.
var ErrInvalidRequest = errors.New("invalid re-placement request")

// SpreadConstraint bounds the number of clusters a workload runs on. Zero
// means no bound.
type SpreadConstraint struct {
	MinGroups int32 `json:"minGroups,omitempty"`
	MaxGroups int32 `json:"maxGroups,omitempty"`
}

// Request describes a failover re-placement.
type Request struct {
	// Workload is the workload's filter view; its Placement is ignored and
	// taken from Targets.
	Workload *Workload
	// Type is Duplicated or Divided.
	Type ReplicaSchedulingType
	// Targets is the placement the workload keeps: eviction.Evict's
	// EvictResult.Targets as it is.
	Targets []eviction.TargetCluster
	// Evicted are the placement entries the workload left, with the
	// replicas they held: EvictResult.Evicted as it is. Replace makes up
	// for them; none means nothing failed.
	Evicted []eviction.TargetCluster
	// Clusters is the fleet: every cluster that could be a target.
	Clusters []Cluster
	// Filters decide feasibility; nil means DefaultFilters(). Add
	// ClusterNames, LabelSelector or SelectedClusters for the policy's
	// cluster affinity.
	Filters []Filter
	// Spread bounds the number of clusters.
	Spread *SpreadConstraint
	// ZoneSpread bounds the number of zones (Cluster.Zones) the placement
	// spans. With it set, a cluster without zones is no candidate; new
	// clusters come from the zones the kept targets cover plus as many new
	// zones as MaxGroups leaves room for (those with the most candidates
	// first, then by name); a cluster that covers a zone not yet covered is
	// chosen before one that does not; and a placement that would span
	// fewer than MinGroups zones is not made (Reason ZoneSpread).
	ZoneSpread *SpreadConstraint
	// RegionSpread bounds the number of regions (Cluster.Region) the
	// placement spans, by the same rules as ZoneSpread: a cluster without a
	// region is no candidate, and a cluster that opens a new region is
	// chosen before one that only opens a new zone. Both spreads hold when
	// both are set. Groupings by provider are the caller's business.
	RegionSpread *SpreadConstraint
	// Replicas is the desired total for Divided and the per-cluster count
	// for Duplicated.
	Replicas int32
	// Division says how Divided shares the missing replicas; empty means
	// DivideByStaticWeight.
	Division DivisionPreference
	// StaticWeights weighs clusters for DivideByStaticWeight.
	StaticWeights map[string]int64
	// Scores orders candidates, higher first; ties go by name. Missing
	// clusters score 0.
	Scores map[string]int64
}

// FiltersInUse returns the filters Replace runs for r: r.Filters, or
// DefaultFilters() when r.Filters is nil. Callers that ask r's question
// on their own (an explanation, a warning) run these.
func (r *Request) FiltersInUse() []Filter {
	if r.Filters == nil {
		return DefaultFilters()
	}
	return r.Filters
}

// Move is one step of a re-placement.
type Move struct {
	// From is the cluster replicas leave; empty for replicas that were
	// missing already or a cluster added for the spread constraint.
	From string
	// To is the cluster that takes them; empty when nothing takes them.
	To string
	// Replicas moved (for Duplicated, the per-cluster count).
	Replicas int32
	// Reason is one of the Reason constants.
	Reason string
}

// Plan is the outcome of Replace.
type Plan struct {
	// Targets is the new placement, sorted by name.
	Targets []eviction.TargetCluster
	// Moves says what moved where and why, sources in name order.
	Moves []Move
	// Held lists the evicted clusters that stay because dispatching to them
	// is suspended and their copy still runs there (Workload.OldCopies):
	// their failover is paused until the resume, so they are
	// back in Targets and their eviction is undone. A caller writes Targets
	// whenever Held is not empty, even when Changed is false (Targets is then
	// the placement from before the eviction, which the caller's copy no
	// longer holds), with the tasks WithoutHeldTasks leaves.
	Held []string
	// Unplaced counts Divided replicas no feasible cluster could take.
	Unplaced int32
	// Changed reports whether Targets differs from the placement before the
	// eviction (the request's Targets plus Evicted).
	Changed bool
	// Reason says why nothing was added: NothingFailed, FailoverPaused,
	// InsufficientCandidates, RegionSpread or ZoneSpread.
	Reason string
	// Filtered is the filter run over Request.Clusters; its RetryAt tells
	// when a rejected cluster may become feasible.
	Filtered Result
	// ZoneExcluded lists, by name, the candidates that passed the filters
	// but that Request.ZoneSpread kept out: without zones, or in a zone
	// past MaxGroups.
	ZoneExcluded []string
	// RegionExcluded is ZoneExcluded for Request.RegionSpread.
	RegionExcluded []string
}

// WithoutHeldTasks returns tasks without the tasks of the clusters in Held,
// in a new slice; tasks itself is not modified. A held cluster is back in
// Targets with the copy it ran: its task, left in place, would purge that
// copy and hold back dispatches to the clusters that replace others. The
// failover is decided again after the resume, from the cluster's taints or
// the workload's health, as any other.
func (p *Plan) WithoutHeldTasks(tasks []eviction.GracefulEvictionTask) []eviction.GracefulEvictionTask {
	out := make([]eviction.GracefulEvictionTask, 0, len(tasks))
	for _, t := range tasks {
		if !slices.Contains(p.Held, t.FromCluster) {
			out = append(out, t)
		}
	}
	return out
}

// Replace re-places a workload after it was evicted from some clusters
// (Request.Evicted). It keeps every target, untouched, and:
//
//   - Duplicated: replaces each evicted cluster by one feasible candidate
//     (score, then name), keeping the number of clusters within Spread. When
//     there are fewer candidates than clusters to replace it adds none
//     (Reason InsufficientCandidates): the targets are Request.Targets.
//   - Divided: keeps the replicas on the targets and shares the missing
//     ones (Replicas minus what the targets hold) among the feasible
//     clusters, targets included, by Division. A target that passes the
//     filters only because the workload is already on it (an untolerated
//     NoSchedule taint: a not-ready or unreachable cluster) keeps its
//     replicas and receives none. A cluster's
//     AvailableReplicas, when known, caps what it takes; what fits nowhere
//     is Unplaced. When nothing fits anywhere it adds none (Reason
//     InsufficientCandidates).
//
// An evicted cluster whose dispatching is suspended (Workload.Suspension)
// and whose copy still runs there (Workload.OldCopies) is kept with its
// replicas and listed in Held: failover is paused there, so the eviction
// is undone (Plan.WithoutHeldTasks).
// No suspended cluster receives new replicas. Evicted clusters are never
// candidates. With nothing evicted the placement stays as it is (Reason
// NothingFailed), so the result of an eviction that changed nothing can be
// passed on unchecked.
func Replace(req *Request) (Plan, error) {
	if err := validateRequest(req); err != nil {
		return Plan{}, err
	}
	var w Workload
	if req.Workload != nil {
		w = *req.Workload
	}
	before := make([]eviction.TargetCluster, 0, len(req.Targets)+len(req.Evicted))
	before = append(append(before, req.Targets...), req.Evicted...)
	w.Placement = make([]string, len(before))
	for i, t := range before {
		w.Placement[i] = t.Name
	}
	failed := make(map[string]struct{}, len(req.Evicted))
	for _, f := range req.Evicted {
		failed[f.Name] = struct{}{}
	}
	kept := slices.Clone(req.Targets)
	var lost []eviction.TargetCluster
	var held []string
	for _, t := range req.Evicted {
		if w.holds(t.Name) {
			kept = append(kept, t)
			held = append(held, t.Name)
		} else {
			lost = append(lost, t)
		}
	}
	slices.SortFunc(lost, byTargetName)
	slices.Sort(held)

	plan := Plan{Held: held, Filtered: RunFilters(&w, req.Clusters, req.FiltersInUse()...)}
	if len(lost) == 0 {
		plan.Targets = sortedTargets(kept)
		plan.Reason = ReasonNothingFailed
		if len(held) > 0 {
			plan.Reason = ReasonFailoverPaused
		}
		return plan, nil
	}
	spread := newTopologySpread(req, kept)
	if req.Type == Duplicated {
		replaceDuplicated(req, &w, kept, lost, failed, spread, &plan)
	} else {
		replaceDivided(req, &w, kept, lost, failed, spread, &plan)
	}
	plan.RegionExcluded = spread.region.excludedNames()
	plan.ZoneExcluded = spread.zone.excludedNames()
	return plan, nil
}

func replaceDuplicated(req *Request, w *Workload, kept, lost []eviction.TargetCluster, failed map[string]struct{}, spread topologySpread, plan *Plan) {
	want := int32(len(kept) + len(lost))
	if req.Spread != nil {
		if req.Spread.MaxGroups > 0 && want > req.Spread.MaxGroups {
			want = req.Spread.MaxGroups
		}
		if want < req.Spread.MinGroups {
			want = req.Spread.MinGroups
		}
	}
	needed := max(int(want)-len(kept), 0)
	feasible := candidateClusters(req, w, &plan.Filtered, failed, false)
	candidates, short := spread.restrict(feasible, needed)
	if len(candidates) < needed {
		if short == "" {
			short = ReasonInsufficientCandidates
		}
		noPlacement(plan, kept, short)
		return
	}
	chosen := spread.pick(candidates, needed)
	if ok, reason := spread.reached(chosen); !ok {
		noPlacement(plan, kept, reason)
		return
	}
	targets := slices.Clone(kept)
	for i := 0; i < max(len(lost), len(chosen)); i++ {
		m := Move{Replicas: req.Replicas, Reason: ReasonClusterFailed}
		if i < len(lost) {
			m.From = lost[i].Name
			if lost[i].Replicas > 0 {
				m.Replicas = lost[i].Replicas
			}
		} else {
			m.Reason = ReasonSpreadConstraint
		}
		if i < len(chosen) {
			m.To = chosen[i].Name
			targets = append(targets, eviction.TargetCluster{Name: m.To, Replicas: m.Replicas})
		} else {
			m.Reason = ReasonSpreadConstraint
		}
		plan.Moves = append(plan.Moves, m)
	}
	slices.SortFunc(targets, byTargetName)
	plan.Targets = targets
	plan.Changed = true
}

// noPlacement is the plan that adds nothing, for reason: the eviction
// stands.
func noPlacement(plan *Plan, kept []eviction.TargetCluster, reason string) {
	plan.Targets = sortedTargets(kept)
	plan.Reason = reason
	plan.Changed = true
}

// slot is one cluster a Divided re-placement may give replicas to.
type slot struct {
	cluster *Cluster
	weight  int64
	room    int64 // -1: unlimited
	got     int64
	rem     int64 // remainder of the last proportional share, for ties
	placed  bool  // already in the placement
}

func replaceDivided(req *Request, w *Workload, kept, lost []eviction.TargetCluster, failed map[string]struct{}, spread topologySpread, plan *Plan) {
	var assigned, lostReplicas int64
	for _, t := range kept {
		assigned += int64(t.Replicas)
	}
	for _, t := range lost {
		lostReplicas += int64(t.Replicas)
	}
	missing := int64(req.Replicas) - assigned
	if missing <= 0 {
		// The clusters that stayed already hold every replica asked for.
		for _, t := range lost {
			if t.Replicas > 0 {
				plan.Moves = append(plan.Moves, Move{From: t.Name, Replicas: t.Replicas, Reason: ReasonClusterFailed})
			}
		}
		plan.Targets = sortedTargets(kept)
		plan.Changed = true
		return
	}
	slots := divisionSlots(req, w, &plan.Filtered, failed, spread)
	var placed int64
	switch req.Division {
	case DivideAggregated:
		placed = fillAggregated(missing, slots)
	default:
		placed = divideByWeight(missing, slots)
	}
	var receivers []slot
	var receiving []*Cluster
	for _, s := range slots {
		if s.got > 0 {
			receivers = append(receivers, s)
			receiving = append(receiving, s.cluster)
		}
	}
	reached, short := spread.reached(receiving)
	if placed == 0 || !reached {
		reason := short
		if placed == 0 {
			reason = spread.excluding()
		}
		if reason == "" {
			reason = ReasonInsufficientCandidates
		}
		noPlacement(plan, kept, reason)
		plan.Unplaced = int32(missing)
		return
	}
	plan.Unplaced = int32(missing - placed)
	byName := make(map[string]int32, len(kept)+len(receivers))
	for _, t := range kept {
		byName[t.Name] += t.Replicas
	}
	for _, s := range receivers {
		byName[s.cluster.Name] += int32(s.got)
	}
	targets := make([]eviction.TargetCluster, 0, len(byName))
	for name, n := range byName {
		targets = append(targets, eviction.TargetCluster{Name: name, Replicas: n})
	}
	slices.SortFunc(targets, byTargetName)
	slices.SortFunc(receivers, func(a, b slot) int { return strings.Compare(a.cluster.Name, b.cluster.Name) })
	plan.Targets = targets
	plan.Moves = divisionMoves(lost, missing-lostReplicas, receivers)
	plan.Changed = true
}

// divisionMoves pairs the sources (lost clusters in name order, then any
// shortfall) with the receivers in name order.
func divisionMoves(lost []eviction.TargetCluster, shortfall int64, receivers []slot) []Move {
	type source struct {
		from   string
		n      int64
		reason string
	}
	sources := make([]source, 0, len(lost)+1)
	for _, t := range lost {
		if t.Replicas > 0 {
			sources = append(sources, source{t.Name, int64(t.Replicas), ReasonClusterFailed})
		}
	}
	if shortfall > 0 {
		sources = append(sources, source{"", shortfall, ReasonShortfall})
	}
	var moves []Move
	r := 0
	for _, src := range sources {
		for src.n > 0 {
			if r == len(receivers) {
				moves = append(moves, Move{From: src.from, Replicas: int32(src.n), Reason: src.reason})
				break
			}
			n := min(src.n, receivers[r].got)
			moves = append(moves, Move{From: src.from, To: receivers[r].cluster.Name, Replicas: int32(n), Reason: src.reason})
			src.n -= n
			receivers[r].got -= n
			if receivers[r].got == 0 {
				r++
			}
		}
	}
	return moves
}

// candidateClusters returns the feasible clusters that are neither failed,
// suspended, nor (unless includePlaced) already targets, ordered by score
// then name.
func candidateClusters(req *Request, w *Workload, filtered *Result, failed map[string]struct{}, includePlaced bool) []*Cluster {
	out := make([]*Cluster, 0, len(filtered.Feasible))
	for i := range req.Clusters {
		name := req.Clusters[i].Name
		if _, rejected := filtered.Rejected[name]; rejected {
			continue
		}
		if _, f := failed[name]; f {
			continue
		}
		if (!includePlaced && w.InPlacement(name)) || w.suspended(name) {
			continue
		}
		out = append(out, &req.Clusters[i])
	}
	slices.SortFunc(out, func(a, b *Cluster) int {
		if c := cmp.Compare(req.Scores[b.Name], req.Scores[a.Name]); c != 0 {
			return c
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out
}

// divisionSlots returns the clusters that may take new replicas, with their
// weights and rooms, in tie-break order (score, then name).
func divisionSlots(req *Request, w *Workload, filtered *Result, failed map[string]struct{}, spread topologySpread) []slot {
	candidates, _ := spread.restrict(candidateClusters(req, w, filtered, failed, true), 0)
	slots := make([]slot, 0, len(candidates))
	// As Karmada divides: when no candidate has a static weight, every
	// candidate weighs 1; otherwise a candidate without one gets nothing.
	unweighted := true
	for _, c := range candidates {
		if req.StaticWeights[c.Name] > 0 {
			unweighted = false
			break
		}
	}
	fresh := *w
	fresh.Placement = nil
	for _, c := range candidates {
		s := slot{cluster: c, room: -1, placed: w.InPlacement(c.Name)}
		if s.placed && !takesNewReplicas(req, &fresh, c) {
			// A filter lets a placed cluster keep what it runs (a
			// NoSchedule taint, say); that is no leave to receive more.
			continue
		}
		if c.AvailableReplicas != nil {
			s.room = max(int64(*c.AvailableReplicas), 0)
		}
		switch req.Division {
		case DivideByAvailableReplicas:
			s.weight = max(s.room, 0)
		case DivideAggregated:
			s.weight = 1
		default:
			if unweighted {
				s.weight = 1
			} else {
				s.weight = req.StaticWeights[c.Name]
			}
		}
		if s.weight > 0 && s.room != 0 {
			slots = append(slots, s)
		}
	}
	return slots
}

// takesNewReplicas re-runs the filters on a placed cluster as if the
// workload were not on it yet: the answer for new replicas.
func takesNewReplicas(req *Request, fresh *Workload, c *Cluster) bool {
	for _, f := range req.FiltersInUse() {
		if f.Filter(fresh, c).Rejected {
			return false
		}
	}
	return true
}

// divideByWeight shares n among slots in proportion to their weights,
// respecting rooms: floors first, then one each by largest remainder (ties
// in slot order); what a full slot cannot take goes round again among the
// others. It returns how many were placed.
func divideByWeight(n int64, slots []slot) int64 {
	remaining := n
	order := make([]int, 0, len(slots))
	for remaining > 0 {
		var total int64
		order = order[:0]
		for i := range slots {
			if slots[i].room != 0 {
				total += slots[i].weight
				order = append(order, i)
			}
		}
		if total == 0 {
			break
		}
		var given int64
		for _, i := range order {
			s := &slots[i]
			// remaining and weight are below 2^31, so the product fits.
			share := remaining * s.weight / total
			s.rem = remaining * s.weight % total
			given += s.give(share)
		}
		remaining -= given
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(slots[b].rem, slots[a].rem) })
		for _, i := range order {
			if remaining == 0 {
				break
			}
			remaining -= slots[i].give(1)
		}
	}
	return n - remaining
}

// fillAggregated fills slots one after the other: placed clusters first,
// then the largest room (unlimited first), keeping the tie-break order.
func fillAggregated(n int64, slots []slot) int64 {
	order := make([]int, len(slots))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		sa, sb := &slots[a], &slots[b]
		if sa.placed != sb.placed {
			if sa.placed {
				return -1
			}
			return 1
		}
		return cmp.Compare(roomRank(sb.room), roomRank(sa.room))
	})
	remaining := n
	for _, i := range order {
		if remaining == 0 {
			break
		}
		remaining -= slots[i].give(remaining)
	}
	return n - remaining
}

func roomRank(room int64) int64 {
	if room < 0 {
		return math.MaxInt64
	}
	return room
}

// give adds up to n replicas to s within its room and returns how many.
func (s *slot) give(n int64) int64 {
	if s.room >= 0 {
		n = min(n, s.room)
		s.room -= n
	}
	s.got += n
	return n
}

func byTargetName(a, b eviction.TargetCluster) int { return strings.Compare(a.Name, b.Name) }

func sortedTargets(t []eviction.TargetCluster) []eviction.TargetCluster {
	out := slices.Clone(t)
	slices.SortFunc(out, byTargetName)
	return out
}

func validateRequest(req *Request) error {
	invalid := func(e *field.Error) error { return fmt.Errorf("%w: %w", ErrInvalidRequest, e) }
	if req == nil {
		return invalid(field.Required(field.NewPath("request"), "a request is required"))
	}
	if req.Type != Duplicated && req.Type != Divided {
		return invalid(field.NotSupported(field.NewPath("type"), req.Type, []ReplicaSchedulingType{Duplicated, Divided}))
	}
	switch req.Division {
	case "", DivideByStaticWeight, DivideByAvailableReplicas, DivideAggregated:
	default:
		return invalid(field.NotSupported(field.NewPath("division"), req.Division,
			[]DivisionPreference{DivideByStaticWeight, DivideByAvailableReplicas, DivideAggregated}))
	}
	if req.Replicas < 0 {
		return invalid(field.Invalid(field.NewPath("replicas"), req.Replicas, "must be non-negative"))
	}
	if w := req.Workload; w != nil && len(w.History) > 0 && w.Now.IsZero() {
		// Without a time every block window would hold forever.
		return invalid(field.Required(field.NewPath("workload", "now"), "the time of the decision is required with an eviction history"))
	}
	// Field paths are built only for an error: a request that is valid
	// costs no allocation for them.
	seen := make(map[string]struct{}, len(req.Targets)+len(req.Evicted))
	for _, list := range []struct {
		name    string
		entries []eviction.TargetCluster
	}{{"targets", req.Targets}, {"evicted", req.Evicted}} {
		for i, t := range list.entries {
			if t.Name == "" {
				return invalid(field.Required(field.NewPath(list.name).Index(i).Child("name"), "target cluster needs a name"))
			}
			if _, dup := seen[t.Name]; dup {
				return invalid(field.Duplicate(field.NewPath(list.name).Index(i).Child("name"), t.Name))
			}
			seen[t.Name] = struct{}{}
			if t.Replicas < 0 {
				return invalid(field.Invalid(field.NewPath(list.name).Index(i).Child("replicas"), t.Replicas, "must be non-negative"))
			}
		}
	}
	seen = make(map[string]struct{}, len(req.Clusters))
	for i := range req.Clusters {
		name := req.Clusters[i].Name
		if _, dup := seen[name]; dup {
			return invalid(field.Duplicate(field.NewPath("clusters").Index(i).Child("name"), name))
		}
		seen[name] = struct{}{}
	}
	for _, sc := range []struct {
		name   string
		spread *SpreadConstraint
	}{{"spread", req.Spread}, {"regionSpread", req.RegionSpread}, {"zoneSpread", req.ZoneSpread}} {
		s := sc.spread
		if s == nil {
			continue
		}
		if s.MinGroups < 0 {
			return invalid(field.Invalid(field.NewPath(sc.name, "minGroups"), s.MinGroups, "must be non-negative"))
		}
		if s.MaxGroups < 0 {
			return invalid(field.Invalid(field.NewPath(sc.name, "maxGroups"), s.MaxGroups, "must be non-negative"))
		}
		if s.MaxGroups > 0 && s.MinGroups > s.MaxGroups {
			return invalid(field.Invalid(field.NewPath(sc.name, "minGroups"), s.MinGroups, "must not exceed maxGroups"))
		}
	}
	for name, wgt := range req.StaticWeights {
		if wgt < 0 || wgt > MaxStaticWeight {
			return invalid(field.Invalid(field.NewPath("staticWeights").Key(name), wgt,
				fmt.Sprintf("must be between 0 and %d", MaxStaticWeight)))
		}
	}
	return nil
}
