package scheduling

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/fleetover/fleetover/eviction"
)

// zonedFleet: a and b in z1, c in z2, d and e in z3, f without a zone, g in
// z1 and z4.
func zonedFleet() []Cluster {
	fleet := fleetOf("a", "b", "c", "d", "e", "f", "g")
	for i, zones := range [][]string{{"z1"}, {"z1"}, {"z2"}, {"z3"}, {"z3"}, nil, {"z1", "z4"}} {
		fleet[i].Zones = zones
	}
	return fleet
}

// zonedRequest: a Duplicated workload on a (z1) and c (z2); c failed.
func zonedRequest(spread *SpreadConstraint) *Request {
	placed := []eviction.TargetCluster{{Name: "a", Replicas: 1}, {Name: "c", Replicas: 1}}
	return &Request{
		Type:       Duplicated,
		Targets:    keptAfter(placed, "c"),
		Evicted:    evictedFrom(placed, "c"),
		Clusters:   zonedFleet(),
		ZoneSpread: spread,
		Replicas:   1,
	}
}

func names(targets []eviction.TargetCluster) []string {
	out := make([]string, len(targets))
	for i, t := range targets {
		out[i] = t.Name
	}
	return out
}

func TestZoneSpreadDuplicated(t *testing.T) {
	for _, tc := range []struct {
		name   string
		spread *SpreadConstraint
		only   []string // the affinity, when not the whole fleet
		scores map[string]int64
		want   []string
		reason string
	}{
		// Without a zone constraint the best candidate by name is b, in
		// the zone a already covers.
		{name: "no zone spread", want: []string{"a", "b"}},
		// z2 has no candidate left, z3 has two: z3 is the new zone, and a
		// cluster covering it is chosen before b.
		{name: "two zones", spread: &SpreadConstraint{MinGroups: 2, MaxGroups: 2}, want: []string{"a", "d"}},
		// A new zone beats a better score in a covered zone.
		{name: "new zone before score", spread: &SpreadConstraint{MaxGroups: 2}, scores: map[string]int64{"b": 5}, want: []string{"a", "d"}},
		// With room for no new zone, only z1 is left; g is in z4 too.
		{name: "one zone", spread: &SpreadConstraint{MaxGroups: 1}, want: []string{"a", "b"}},
		// No bound on the number: every zoned cluster may come, and the
		// first that adds a zone is d (z3) by name.
		{name: "unbounded", spread: &SpreadConstraint{}, want: []string{"a", "d"}},
		// Two zones are needed and the affinity leaves only z1: the
		// eviction stands and nothing is added.
		{name: "minimum out of reach", spread: &SpreadConstraint{MinGroups: 2}, only: []string{"a", "b", "c"}, want: []string{"a"}, reason: ReasonZoneSpread},
		// Without feasible candidates at all, the cluster count is the
		// reason, not the zones.
		{name: "no candidate", spread: &SpreadConstraint{MinGroups: 2}, only: []string{"a", "c"}, want: []string{"a"}, reason: ReasonInsufficientCandidates},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := zonedRequest(tc.spread)
			req.Scores = tc.scores
			if tc.only != nil {
				req.Filters = append(DefaultFilters(), ClusterNames(tc.only...))
			}
			plan, err := Replace(req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, names(plan.Targets)); diff != "" {
				t.Errorf("targets (-want +got):\n%s", diff)
			}
			if plan.Reason != tc.reason || !plan.Changed {
				t.Errorf("Reason = %q, Changed = %v; want %q, true", plan.Reason, plan.Changed, tc.reason)
			}
		})
	}
}

func TestZoneSpreadSkipsClustersWithoutZones(t *testing.T) {
	req := zonedRequest(&SpreadConstraint{MaxGroups: 3})
	req.Filters = append(DefaultFilters(), ClusterNames("a", "c", "f"))
	plan, err := Replace(req)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(plan.Targets); !cmp.Equal(got, []string{"a"}) || plan.Reason != ReasonZoneSpread || !cmp.Equal(plan.ZoneExcluded, []string{"f"}) {
		t.Errorf("targets %v, reason %q, zone-excluded %v; want [a], %s and [f]: f has no zone", got, plan.Reason, plan.ZoneExcluded, ReasonZoneSpread)
	}
}

func TestZoneSpreadMultiZoneCluster(t *testing.T) {
	// g runs in z1 and z4. With the workload on a (z1) and room for one new
	// zone, z3 has the most candidates (d, e) and takes the room: g, which
	// would add z4, is no candidate.
	req := zonedRequest(&SpreadConstraint{MaxGroups: 2})
	req.Filters = append(DefaultFilters(), ClusterNames("a", "c", "d", "e", "g"))
	req.Scores = map[string]int64{"g": 9}
	plan, err := Replace(req)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(plan.Targets); !cmp.Equal(got, []string{"a", "d"}) || !cmp.Equal(plan.ZoneExcluded, []string{"g"}) {
		t.Errorf("targets %v, zone-excluded %v; want [a d] and [g]", got, plan.ZoneExcluded)
	}
	// With z4 the only new zone on offer, g is chosen.
	req.Filters = append(DefaultFilters(), ClusterNames("a", "c", "g"))
	plan, err = Replace(req)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(plan.Targets); !cmp.Equal(got, []string{"a", "g"}) {
		t.Errorf("targets %v, want [a g]", got)
	}
}

func TestZoneSpreadDivided(t *testing.T) {
	// Six replicas on a (z1) 2, c (z2) 2, d (z3) 2; d fails. Under at most
	// two zones its two replicas stay in z1 and z2: a, b and c weigh the
	// same, and by the largest remainder the two go to a and b. e (z3)
	// and f (no zone) get none.
	placed := []eviction.TargetCluster{{Name: "a", Replicas: 2}, {Name: "c", Replicas: 2}, {Name: "d", Replicas: 2}}
	req := &Request{
		Type:       Divided,
		Targets:    keptAfter(placed, "d"),
		Evicted:    evictedFrom(placed, "d"),
		Clusters:   zonedFleet(),
		ZoneSpread: &SpreadConstraint{MaxGroups: 2},
		Replicas:   6,
		Filters:    append(DefaultFilters(), ClusterNames("a", "b", "c", "d", "e", "f")),
	}
	plan, err := Replace(req)
	if err != nil {
		t.Fatal(err)
	}
	want := []eviction.TargetCluster{{Name: "a", Replicas: 3}, {Name: "b", Replicas: 1}, {Name: "c", Replicas: 2}}
	if diff := cmp.Diff(want, plan.Targets); diff != "" || plan.Unplaced != 0 {
		t.Errorf("targets (-want +got):\n%s\nunplaced %d", diff, plan.Unplaced)
	}
	// Three zones at least, and the affinity leaves only z1 and z2:
	// nothing is placed.
	req.ZoneSpread = &SpreadConstraint{MinGroups: 3}
	req.Filters = append(DefaultFilters(), ClusterNames("a", "b", "c", "d"))
	plan, err = Replace(req)
	if err != nil {
		t.Fatal(err)
	}
	if got := names(plan.Targets); !cmp.Equal(got, []string{"a", "c"}) || plan.Reason != ReasonZoneSpread || plan.Unplaced != 2 {
		t.Errorf("targets %v, reason %q, unplaced %d; want [a c], %s, 2", got, plan.Reason, plan.Unplaced, ReasonZoneSpread)
	}
}

func TestZoneSpreadValidation(t *testing.T) {
	req := zonedRequest(&SpreadConstraint{MinGroups: 3, MaxGroups: 2})
	_, err := Replace(req)
	if !errors.Is(err, ErrInvalidRequest) || !strings.Contains(err.Error(), "zoneSpread.minGroups") {
		t.Errorf("error = %v, want ErrInvalidRequest naming zoneSpread.minGroups", err)
	}
}

// regionedFleet is zonedFleet with regions: a, b and c in eu (zones z1,
// z1, z2), d and e in us (z3), f in ap without a zone, g without a region.
func regionedFleet() []Cluster {
	fleet := zonedFleet()
	for i, region := range []string{"eu", "eu", "eu", "us", "us", "ap", ""} {
		fleet[i].Region = region
	}
	return fleet
}

func TestRegionSpreadDuplicated(t *testing.T) {
	for _, tc := range []struct {
		name          string
		region, zone  *SpreadConstraint
		only          []string
		scores        map[string]int64
		want          []string
		reason        string
		regionExclude []string
	}{
		// a (eu) stays; c failed. b (eu) comes first by name, but a
		// cluster that opens a new region comes before it: d (us) and
		// f (ap) both do, and d is first by name.
		{name: "new region first", region: &SpreadConstraint{}, want: []string{"a", "d"}},
		// One region: only eu is left, and g has no region.
		{name: "one region", region: &SpreadConstraint{MaxGroups: 1}, want: []string{"a", "b"}, regionExclude: []string{"d", "e", "f", "g"}},
		// A new region beats a better score in the covered one.
		{name: "new region before score", region: &SpreadConstraint{MaxGroups: 2}, scores: map[string]int64{"b": 5}, want: []string{"a", "d"}},
		// Room for one new region: us has two candidates, ap one, so us
		// takes the room even when f scores best.
		{name: "fullest new region", region: &SpreadConstraint{MaxGroups: 2}, scores: map[string]int64{"f": 5}, want: []string{"a", "d"}, regionExclude: []string{"f", "g"}},
		// Two regions needed and the affinity leaves only eu.
		{name: "minimum out of reach", region: &SpreadConstraint{MinGroups: 2}, only: []string{"a", "b", "c"}, want: []string{"a"}, reason: ReasonRegionSpread},
		// Both spreads: at most one region and two zones. eu holds z1
		// and z2; b (z1) is the only eu candidate left, as c failed.
		{name: "region and zone", region: &SpreadConstraint{MaxGroups: 1}, zone: &SpreadConstraint{MaxGroups: 2}, want: []string{"a", "b"}, regionExclude: []string{"d", "e", "f", "g"}},
		// The region spread alone would allow d, the zone spread keeps
		// every cluster outside z1 out: the zone spread is the reason.
		{name: "zone spread decides", region: &SpreadConstraint{MaxGroups: 2}, zone: &SpreadConstraint{MaxGroups: 1, MinGroups: 1}, only: []string{"a", "c", "d"}, want: []string{"a"}, reason: ReasonZoneSpread},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := zonedRequest(tc.zone)
			req.Clusters = regionedFleet()
			req.RegionSpread = tc.region
			req.Scores = tc.scores
			if tc.only != nil {
				req.Filters = append(DefaultFilters(), ClusterNames(tc.only...))
			}
			plan, err := Replace(req)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, names(plan.Targets)); diff != "" {
				t.Errorf("targets (-want +got):\n%s", diff)
			}
			if plan.Reason != tc.reason || !plan.Changed {
				t.Errorf("Reason = %q, Changed = %v; want %q, true", plan.Reason, plan.Changed, tc.reason)
			}
			if tc.regionExclude != nil && !cmp.Equal(plan.RegionExcluded, tc.regionExclude) {
				t.Errorf("RegionExcluded = %v, want %v", plan.RegionExcluded, tc.regionExclude)
			}
		})
	}
}

// TestRegionBeforeZone: with two clusters to add, one opening a new region
// and one opening only a new zone, the region comes first even when the
// zone's cluster scores better; the second pick then opens what is left.
func TestRegionBeforeZone(t *testing.T) {
	fleet := []Cluster{
		{Name: "a", Region: "eu", Zones: []string{"z1"}},
		{Name: "b", Region: "eu", Zones: []string{"z2"}},
		{Name: "c", Region: "us", Zones: []string{"z1"}},
		{Name: "d", Region: "eu", Zones: []string{"z1"}},
		{Name: "x", Region: "eu", Zones: []string{"z1"}},
		{Name: "y", Region: "eu", Zones: []string{"z1"}},
	}
	placed := []eviction.TargetCluster{{Name: "a", Replicas: 1}, {Name: "x", Replicas: 1}, {Name: "y", Replicas: 1}}
	req := &Request{
		Type:         Duplicated,
		Targets:      keptAfter(placed, "x", "y"),
		Evicted:      evictedFrom(placed, "x", "y"),
		Clusters:     fleet,
		RegionSpread: &SpreadConstraint{},
		ZoneSpread:   &SpreadConstraint{},
		Replicas:     1,
		Scores:       map[string]int64{"b": 9, "d": 9},
	}
	plan, err := Replace(req)
	if err != nil {
		t.Fatal(err)
	}
	var to []string
	for _, m := range plan.Moves {
		to = append(to, m.To)
	}
	// c opens us; then b opens z2 before d, which opens nothing.
	if !cmp.Equal(to, []string{"c", "b"}) {
		t.Errorf("clusters added in the order %v, want [c b]", to)
	}
}

func TestRegionSpreadDivided(t *testing.T) {
	// Six replicas on a (eu) 2, c (eu) 2, d (us) 2; d fails. Within one
	// region its replicas stay in eu: a, b and c weigh the same, and by
	// the largest remainder the two go to a and b.
	placed := []eviction.TargetCluster{{Name: "a", Replicas: 2}, {Name: "c", Replicas: 2}, {Name: "d", Replicas: 2}}
	req := &Request{
		Type:         Divided,
		Targets:      keptAfter(placed, "d"),
		Evicted:      evictedFrom(placed, "d"),
		Clusters:     regionedFleet(),
		RegionSpread: &SpreadConstraint{MaxGroups: 1},
		Replicas:     6,
	}
	plan, err := Replace(req)
	if err != nil {
		t.Fatal(err)
	}
	want := []eviction.TargetCluster{{Name: "a", Replicas: 3}, {Name: "b", Replicas: 1}, {Name: "c", Replicas: 2}}
	if diff := cmp.Diff(want, plan.Targets); diff != "" || plan.Unplaced != 0 {
		t.Errorf("targets (-want +got):\n%s\nunplaced %d", diff, plan.Unplaced)
	}
	// Every cluster is evicted and only g (no region) may take the
	// replicas: nothing is placed, and the region spread is the reason.
	req.Filters = append(DefaultFilters(), ClusterNames("a", "c", "d", "g"))
	req.Targets, req.Evicted = nil, placed
	plan, err = Replace(req)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Reason != ReasonRegionSpread || !cmp.Equal(plan.RegionExcluded, []string{"g"}) || plan.Unplaced != 6 {
		t.Errorf("reason %q, region-excluded %v, unplaced %d; want %s, [g], 6", plan.Reason, plan.RegionExcluded, plan.Unplaced, ReasonRegionSpread)
	}
}

func TestRegionSpreadValidation(t *testing.T) {
	req := zonedRequest(nil)
	req.RegionSpread = &SpreadConstraint{MinGroups: -1}
	_, err := Replace(req)
	if !errors.Is(err, ErrInvalidRequest) || !strings.Contains(err.Error(), "regionSpread.minGroups") {
		t.Errorf("error = %v, want ErrInvalidRequest naming regionSpread.minGroups", err)
	}
}
