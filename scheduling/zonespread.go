package scheduling

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/fleetover/fleetover/eviction"
)

// zoneSpread applies Request.ZoneSpread to one re-placement. A nil
// *zoneSpread (no constraint) leaves every choice as it is.
type zoneSpread struct {
	bounds SpreadConstraint
	// covered are the zones the kept targets run in.
	covered map[string]bool
	// zonesOf finds a cluster's zones by name.
	zonesOf map[string][]string
	// excluded are the candidates restrict kept out.
	excluded []string
}

func newZoneSpread(req *Request, kept []eviction.TargetCluster) *zoneSpread {
	if req.ZoneSpread == nil {
		return nil
	}
	z := &zoneSpread{bounds: *req.ZoneSpread, covered: map[string]bool{}, zonesOf: make(map[string][]string, len(req.Clusters))}
	for i := range req.Clusters {
		z.zonesOf[req.Clusters[i].Name] = req.Clusters[i].Zones
	}
	for _, t := range kept {
		for _, zone := range z.zonesOf[t.Name] {
			z.covered[zone] = true
		}
	}
	return z
}

// restrict keeps the candidates the constraint allows, in their order: a
// cluster needs a zone, and under MaxGroups every zone of it must be
// covered already or among the new zones there is room for, those with the
// most candidates first (ties by name).
func (z *zoneSpread) restrict(candidates []*Cluster) []*Cluster {
	if z == nil {
		return candidates
	}
	allowed := z.covered
	if z.bounds.MaxGroups > 0 {
		allowed = maps.Clone(z.covered)
		for _, zone := range z.fullestNew(candidates, int(z.bounds.MaxGroups)-len(z.covered)) {
			allowed[zone] = true
		}
	}
	out := make([]*Cluster, 0, len(candidates))
	for _, c := range candidates {
		if len(c.Zones) == 0 || (z.bounds.MaxGroups > 0 && slices.ContainsFunc(c.Zones, func(zone string) bool { return !allowed[zone] })) {
			z.excluded = append(z.excluded, c.Name)
			continue
		}
		out = append(out, c)
	}
	return out
}

// excludedNames returns the clusters restrict kept out, sorted.
func (z *zoneSpread) excludedNames() []string {
	if z == nil {
		return nil
	}
	slices.Sort(z.excluded)
	return slices.Compact(z.excluded)
}

// fullestNew returns up to n zones the kept targets do not cover, those
// with the most candidates first, then by name.
func (z *zoneSpread) fullestNew(candidates []*Cluster, n int) []string {
	if n <= 0 {
		return nil
	}
	count := map[string]int{}
	var zones []string
	for _, c := range candidates {
		for _, zone := range c.Zones {
			if z.covered[zone] {
				continue
			}
			if count[zone] == 0 {
				zones = append(zones, zone)
			}
			count[zone]++
		}
	}
	slices.SortFunc(zones, func(a, b string) int {
		if c := cmp.Compare(count[b], count[a]); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return zones[:min(n, len(zones))]
}

// pick chooses n candidates in their order, taking first, each time, the
// best one that covers a zone the choice does not cover yet.
func (z *zoneSpread) pick(candidates []*Cluster, n int) []*Cluster {
	if z == nil || n >= len(candidates) {
		return candidates[:n]
	}
	covered := maps.Clone(z.covered)
	taken := make([]bool, len(candidates))
	chosen := make([]*Cluster, 0, n)
	for len(chosen) < n {
		next := -1
		for i, c := range candidates {
			if taken[i] {
				continue
			}
			if next < 0 {
				next = i
			}
			if slices.ContainsFunc(c.Zones, func(zone string) bool { return !covered[zone] }) {
				next = i
				break
			}
		}
		taken[next] = true
		chosen = append(chosen, candidates[next])
		for _, zone := range candidates[next].Zones {
			covered[zone] = true
		}
	}
	return chosen
}

// reached reports whether the kept targets and the added clusters span at
// least MinGroups zones.
func (z *zoneSpread) reached(added []*Cluster) bool {
	if z == nil || z.bounds.MinGroups == 0 {
		return true
	}
	spanned := maps.Clone(z.covered)
	for _, c := range added {
		for _, zone := range c.Zones {
			spanned[zone] = true
		}
	}
	return len(spanned) >= int(z.bounds.MinGroups)
}
