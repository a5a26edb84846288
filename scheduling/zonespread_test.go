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
