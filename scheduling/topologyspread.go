package scheduling

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/fleetover/fleetover/eviction"
)

// topologySpread applies Request.RegionSpread and Request.ZoneSpread to one
// re-placement. Each spread holds on its own; where both choose, the
// region's comes first, as a region holds zones.
type topologySpread struct {
	region, zone *groupSpread
	// all are the spreads set, the region's first.
	all []*groupSpread
}

func newTopologySpread(req *Request, kept []eviction.TargetCluster) topologySpread {
	var t topologySpread
	if req.RegionSpread != nil {
		// One backing array for every cluster's one-region list.
		regions := make([]string, len(req.Clusters))
		t.region = newGroupSpread(req.RegionSpread, ReasonRegionSpread, req.Clusters, kept, func(i int) []string {
			if req.Clusters[i].Region == "" {
				return nil
			}
			regions[i] = req.Clusters[i].Region
			return regions[i : i+1 : i+1]
		})
	}
	if req.ZoneSpread != nil {
		t.zone = newGroupSpread(req.ZoneSpread, ReasonZoneSpread, req.Clusters, kept, func(i int) []string {
			return req.Clusters[i].Zones
		})
	}
	for _, g := range [...]*groupSpread{t.region, t.zone} {
		if g != nil {
			t.all = append(t.all, g)
		}
	}
	return t
}

// restrict keeps the candidates both spreads allow, in their order. When
// fewer than needed are left, reason names the spread that took the count
// under needed; it is empty when the filters alone left too few.
func (t topologySpread) restrict(candidates []*Cluster, needed int) (kept []*Cluster, reason string) {
	kept = candidates
	for _, g := range t.all {
		before := len(kept)
		kept = g.restrict(kept)
		if reason == "" && before >= needed && len(kept) < needed {
			reason = g.reason
		}
	}
	return kept, reason
}

// excluding names the first spread that kept out a feasible candidate, or
// is empty.
func (t topologySpread) excluding() string {
	for _, g := range t.all {
		if len(g.excluded) > 0 {
			return g.reason
		}
	}
	return ""
}

// pick chooses n candidates in their order, taking first, each time, the
// best one that opens a region the choice does not cover yet, then one
// that opens a new zone.
func (t topologySpread) pick(candidates []*Cluster, n int) []*Cluster {
	if len(t.all) == 0 || n >= len(candidates) {
		return candidates[:n]
	}
	spreads := t.all
	covered := make([]map[string]bool, len(spreads))
	for i, g := range spreads {
		covered[i] = maps.Clone(g.covered)
	}
	// opens scores a candidate: 2 for a new region, 1 for a new zone.
	weight := func(g *groupSpread) int {
		if g == t.region {
			return 2
		}
		return 1
	}
	top := 0
	for _, g := range spreads {
		top += weight(g)
	}
	opens := func(c *Cluster) int {
		score := 0
		for i, g := range spreads {
			if slices.ContainsFunc(g.groupsOf[c.Name], func(group string) bool { return !covered[i][group] }) {
				score += weight(g)
			}
		}
		return score
	}
	taken := make([]bool, len(candidates))
	chosen := make([]*Cluster, 0, n)
	for len(chosen) < n {
		next, best := -1, -1
		for i, c := range candidates {
			if taken[i] {
				continue
			}
			if s := opens(c); s > best {
				next, best = i, s
				if s == top {
					break
				}
			}
		}
		taken[next] = true
		chosen = append(chosen, candidates[next])
		for i, g := range spreads {
			for _, group := range g.groupsOf[candidates[next].Name] {
				covered[i][group] = true
			}
		}
	}
	return chosen
}

// reached reports whether the kept targets and the added clusters span
// at least each spread's MinGroups; when not, reason names the spread that
// falls short (the region's first).
func (t topologySpread) reached(added []*Cluster) (ok bool, reason string) {
	for _, g := range t.all {
		if !g.reached(added) {
			return false, g.reason
		}
	}
	return true, ""
}

// groupSpread is one spread by a topology field: the groups (regions or
// zones) a cluster belongs to, the bounds on how many the placement spans,
// and what the kept targets cover already.
type groupSpread struct {
	bounds SpreadConstraint
	// reason is the Plan.Reason when this spread prevents the placement.
	reason string
	// groupsOf finds a cluster's groups by name.
	groupsOf map[string][]string
	// covered are the groups the kept targets run in.
	covered map[string]bool
	// excluded are the candidates restrict kept out.
	excluded []string
}

func newGroupSpread(bounds *SpreadConstraint, reason string, clusters []Cluster, kept []eviction.TargetCluster, groups func(i int) []string) *groupSpread {
	g := &groupSpread{bounds: *bounds, reason: reason, covered: map[string]bool{}, groupsOf: make(map[string][]string, len(clusters))}
	for i := range clusters {
		g.groupsOf[clusters[i].Name] = groups(i)
	}
	for _, t := range kept {
		for _, group := range g.groupsOf[t.Name] {
			g.covered[group] = true
		}
	}
	return g
}

// restrict keeps the candidates the spread allows, in their order: a
// cluster needs a group, and under MaxGroups every group of it must be
// covered already or among the new groups there is room for, those with
// the most candidates first (ties by name).
func (g *groupSpread) restrict(candidates []*Cluster) []*Cluster {
	allowed := g.covered
	if g.bounds.MaxGroups > 0 {
		allowed = maps.Clone(g.covered)
		for _, group := range g.fullestNew(candidates, int(g.bounds.MaxGroups)-len(g.covered)) {
			allowed[group] = true
		}
	}
	out := make([]*Cluster, 0, len(candidates))
	for _, c := range candidates {
		groups := g.groupsOf[c.Name]
		if len(groups) == 0 || (g.bounds.MaxGroups > 0 && slices.ContainsFunc(groups, func(group string) bool { return !allowed[group] })) {
			g.excluded = append(g.excluded, c.Name)
			continue
		}
		out = append(out, c)
	}
	return out
}

// excludedNames returns the clusters restrict kept out, sorted.
func (g *groupSpread) excludedNames() []string {
	if g == nil {
		return nil
	}
	slices.Sort(g.excluded)
	return slices.Compact(g.excluded)
}

// fullestNew returns up to n groups the kept targets do not cover, those
// with the most candidates first, then by name.
func (g *groupSpread) fullestNew(candidates []*Cluster, n int) []string {
	if n <= 0 {
		return nil
	}
	count := map[string]int{}
	var groups []string
	for _, c := range candidates {
		for _, group := range g.groupsOf[c.Name] {
			if g.covered[group] {
				continue
			}
			if count[group] == 0 {
				groups = append(groups, group)
			}
			count[group]++
		}
	}
	slices.SortFunc(groups, func(a, b string) int {
		if c := cmp.Compare(count[b], count[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return groups[:min(n, len(groups))]
}

// reached reports whether the kept targets and the added clusters span at
// least MinGroups groups.
func (g *groupSpread) reached(added []*Cluster) bool {
	if g.bounds.MinGroups == 0 {
		return true
	}
	spanned := maps.Clone(g.covered)
	for _, c := range added {
		for _, group := range g.groupsOf[c.Name] {
			spanned[group] = true
		}
	}
	return len(spanned) >= int(g.bounds.MinGroups)
}
