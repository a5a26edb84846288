package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/scheduling"
)

// withHistorySeam returns fs, with scheduling's EvictionHistory filter
// swapped for one over Library.Blocked when a test replaces the history rule.
func (e *Engine) withHistorySeam(fs []scheduling.Filter) []scheduling.Filter {
	if e.lib.Blocked == nil {
		return fs
	}
	out := slices.Clone(fs)
	for i, f := range out {
		if f.Name() != scheduling.FilterEvictionHistory {
			continue
		}
		out[i] = scheduling.NamedFilter(scheduling.FilterEvictionHistory, func(w *scheduling.Workload, c *scheduling.Cluster) scheduling.Status {
			if e.lib.Blocked(w.History, c.Name, w.BlockPredecessorSeconds, w.Now) {
				return scheduling.Reject("the workload was evicted from this cluster recently")
			}
			return scheduling.Fit()
		})
	}
	return out
}

// placement is the simulated scheduler: scheduling's filters decide which
// clusters are feasible; re-placement keeps the targets on ready clusters
// and fills the gap.
type placement struct {
	filters []scheduling.Filter
	res     scheduling.Result
	views   []scheduling.Cluster
}

func newPlacement() *placement {
	return &placement{filters: scheduling.DefaultFilters()}
}

// desiredClusters is how many clusters a Duplicated workload runs on.
func desiredClusters(e *Engine, w *workload) int {
	n := len(e.clusters)
	if w.affinity != nil {
		n = len(w.affinity)
	}
	if w.clusterSpread.max > 0 {
		n = min(n, w.clusterSpread.max)
	}
	return n
}

func (p *placement) needsPlacement(e *Engine, w *workload) bool {
	if w.divided {
		sum := int32(0)
		for _, t := range w.targets {
			sum += t.Replicas
		}
		return len(w.targets) == 0 || sum < w.spec.Replicas
	}
	return len(w.targets) < desiredClusters(e, w)
}

// Place returns w's new targets, or nil when nothing changes. A placed
// workload is topped up within its affinity group; one not placed yet
// takes the first group, from the one in use on, that places it.
func (p *placement) Place(e *Engine, w *workload) []eviction.TargetCluster {
	if len(w.groups) == 0 || len(w.targets) > 0 {
		return p.placeInGroup(e, w)
	}
	start := w.group
	for g := start; g < len(w.groups); g++ {
		w.useGroup(g)
		if next := p.placeInGroup(e, w); next != nil {
			if g > start {
				e.tl.add(e, EvPlace, "", w.name(), fmt.Sprintf("no room in affinity group %q: placed by %q", w.groups[start].name, w.groups[g].name))
			}
			return next
		}
	}
	w.useGroup(start)
	return nil
}

// placeInGroup is Place within the affinity in use.
func (p *placement) placeInGroup(e *Engine, w *workload) []eviction.TargetCluster {
	if !p.needsPlacement(e, w) {
		return nil
	}
	p.views = p.views[:0]
	for _, c := range e.clusters {
		if w.affinity != nil && !w.affinity[c.name] {
			continue
		}
		if !c.ready() {
			continue
		}
		p.views = append(p.views, scheduling.Cluster{Name: c.name, Taints: c.taints, Labels: map[string]string{"zone": c.zone}})
	}
	scheduling.RunFiltersInto(&p.res, e.schedulingView(w), p.views, e.withHistorySeam(p.filters)...)
	// Topping up adds clusters and takes none away: every target is kept,
	// ready or not, fit or not. Taking a workload off a cluster is an
	// eviction's (a task, at the eviction pace, the old copy kept or the
	// new one held as its purge mode says), which the taint manager and
	// application failover decide; a scheduler that dropped the cluster
	// here would delete its copy with no task, as Karmada's scheduler does
	// not (its TaintToleration passes a cluster the binding is on).
	kept := make([]string, 0, len(w.targets))
	for _, t := range w.targets {
		kept = append(kept, t.Name)
	}
	var candidates []string
	for _, n := range p.res.Feasible {
		if !slices.Contains(kept, n) {
			candidates = append(candidates, n)
		}
	}
	// Deterministic order: clusters in regions (under a region spread) and
	// zones the workload does not use yet first, then by name.
	usedZones, usedRegions := map[string]bool{}, map[string]bool{}
	for _, n := range kept {
		usedZones[e.byName[n].zone] = true
		usedRegions[e.byName[n].region] = true
	}
	byRegion := w.regionSpread != (groupBounds{})
	sort.SliceStable(candidates, func(i, j int) bool {
		ci, cj := e.byName[candidates[i]], e.byName[candidates[j]]
		if ri, rj := usedRegions[ci.region], usedRegions[cj.region]; byRegion && ri != rj {
			return !ri
		}
		if zi, zj := usedZones[ci.zone], usedZones[cj.zone]; zi != zj {
			return !zi
		}
		return candidates[i] < candidates[j]
	})
	if w.divided {
		return p.divide(e, w, kept, candidates)
	}
	chosen := pickClusters(e, w, kept, candidates, desiredClusters(e, w))
	// A spread constraint the fleet cannot satisfy places nothing new.
	if !w.spans(e, chosen) || len(chosen) == len(w.targets) {
		return nil
	}
	out := make([]eviction.TargetCluster, 0, len(chosen))
	for _, t := range w.targets {
		if slices.Contains(chosen, t.Name) {
			out = append(out, t)
		}
	}
	for _, n := range chosen {
		if !w.isTarget(n) {
			out = append(out, eviction.TargetCluster{Name: n})
		}
	}
	return out
}

// divide keeps the ready targets of a Divided workload and spreads the
// replicas over them by static weight; a workload with no ready target left
// is placed on the best candidates.
func (p *placement) divide(e *Engine, w *workload, kept, candidates []string) []eviction.TargetCluster {
	chosen := kept
	if len(chosen) == 0 {
		pool := weighted(w, candidates)
		want := len(pool)
		if w.clusterSpread.max > 0 {
			want = min(want, w.clusterSpread.max)
		}
		chosen = pickClusters(e, w, nil, pool, want)
	}
	if !w.spans(e, chosen) {
		return nil
	}
	weights := make([]int64, len(chosen))
	total := int64(0)
	for i, n := range chosen {
		weights[i] = staticWeight(w, chosen, n)
		total += weights[i]
	}
	out := make([]eviction.TargetCluster, len(chosen))
	assigned := int32(0)
	type rem struct {
		i int
		r int64
	}
	rems := make([]rem, len(chosen))
	for i, n := range chosen {
		share := int64(w.spec.Replicas) * weights[i]
		out[i] = eviction.TargetCluster{Name: n, Replicas: int32(share / total)}
		assigned += out[i].Replicas
		rems[i] = rem{i, share % total}
	}
	sort.SliceStable(rems, func(a, b int) bool { return rems[a].r > rems[b].r })
	for k := 0; assigned < w.spec.Replicas; k++ {
		out[rems[k%len(rems)].i].Replicas++
		assigned++
	}
	res := out[:0]
	for _, t := range out {
		if t.Replicas > 0 {
			res = append(res, t)
		}
	}
	return res
}

// pickClusters adds candidates to kept until want clusters are chosen:
// first one cluster in each region the choice does not cover yet (under a
// region spread, up to its maximum), then one in each zone not covered
// yet (up to the zone spread's maximum), then further clusters in the
// groups covered. candidates are in preference order. When that
// spread-first choice cannot meet the spread constraints, the regions,
// then the zones, with the most candidates are tried instead; and when
// that fails too, with a few candidates, the first choice in preference
// order that meets them (a zone and a region maximum together can rule
// out every choice the fullest groups give, while another exists).
func pickClusters(e *Engine, w *workload, kept, candidates []string, want int) []string {
	chosen := spreadFirst(e, w, kept, candidates, want)
	if w.spans(e, chosen) || (w.regionSpread.max == 0 && w.zoneSpread.max == 0) {
		return chosen
	}
	all := candidates
	if w.regionSpread.max > 0 {
		candidates = inFullestGroups(e, kept, candidates, w.regionSpread.max, regionOf)
	}
	if w.zoneSpread.max > 0 {
		candidates = inFullestGroups(e, kept, candidates, w.zoneSpread.max, zoneOf)
	}
	chosen = spreadFirst(e, w, kept, candidates, want)
	if w.spans(e, chosen) {
		return chosen
	}
	if found := firstSpanningChoice(e, w, kept, all, want); found != nil {
		return found
	}
	return chosen
}

// maxChoiceSearch bounds the candidates firstSpanningChoice searches
// among; a larger fleet keeps the greedy choice.
const maxChoiceSearch = 14

// firstSpanningChoice returns kept plus the first combination of
// candidates (in their preference order, as many as want allows, then
// fewer down to the cluster minimum) that meets w's spread constraints,
// or nil when none does or there are too many candidates to try.
func firstSpanningChoice(e *Engine, w *workload, kept, candidates []string, want int) []string {
	if len(candidates) > maxChoiceSearch {
		return nil
	}
	choice := make([]string, 0, len(kept)+len(candidates))
	for size := min(want-len(kept), len(candidates)); size >= 1 && len(kept)+size >= max(1, w.clusterSpread.min); size-- {
		idx := make([]int, size)
		for i := range idx {
			idx[i] = i
		}
		for {
			choice = append(choice[:0], kept...)
			for _, i := range idx {
				choice = append(choice, candidates[i])
			}
			if w.spans(e, choice) {
				return choice
			}
			// The next combination in lexicographic order.
			i := size - 1
			for i >= 0 && idx[i] == len(candidates)-size+i {
				i--
			}
			if i < 0 {
				break
			}
			idx[i]++
			for j := i + 1; j < size; j++ {
				idx[j] = idx[j-1] + 1
			}
		}
	}
	return nil
}

func spreadFirst(e *Engine, w *workload, kept, candidates []string, want int) []string {
	chosen := slices.Clone(kept)
	in := map[string]bool{}
	zones, regions := map[string]bool{}, map[string]bool{}
	for _, n := range chosen {
		c := e.byName[n]
		in[n], zones[c.zone], regions[c.region] = true, true, true
	}
	// fits: adding c keeps within both maximums.
	fits := func(c *cluster) bool {
		return (zones[c.zone] || w.zoneSpread.max == 0 || len(zones) < w.zoneSpread.max) &&
			(regions[c.region] || w.regionSpread.max == 0 || len(regions) < w.regionSpread.max)
	}
	byRegion := w.regionSpread != (groupBounds{})
	for _, opens := range [...]func(c *cluster) bool{
		func(c *cluster) bool { return byRegion && !regions[c.region] },
		func(c *cluster) bool { return !zones[c.zone] },
		func(*cluster) bool { return true },
	} {
		for _, n := range candidates {
			if len(chosen) >= want {
				return chosen
			}
			if c := e.byName[n]; !in[n] && opens(c) && fits(c) {
				chosen = append(chosen, n)
				in[n], zones[c.zone], regions[c.region] = true, true, true
			}
		}
	}
	return chosen
}

// inFullestGroups keeps the candidates in the groups kept covers and in
// the groups with the most candidates (ties by name), up to limit groups.
func inFullestGroups(e *Engine, kept, candidates []string, limit int, group func(*cluster) string) []string {
	covered := map[string]bool{}
	for _, n := range kept {
		covered[group(e.byName[n])] = true
	}
	count := map[string]int{}
	var open []string
	for _, n := range candidates {
		g := group(e.byName[n])
		if covered[g] {
			continue
		}
		if count[g] == 0 {
			open = append(open, g)
		}
		count[g]++
	}
	sort.Slice(open, func(i, j int) bool {
		if count[open[i]] != count[open[j]] {
			return count[open[i]] > count[open[j]]
		}
		return open[i] < open[j]
	})
	for _, g := range open[:max(0, min(limit-len(covered), len(open)))] {
		covered[g] = true
	}
	return slices.DeleteFunc(slices.Clone(candidates), func(n string) bool { return !covered[group(e.byName[n])] })
}

// weighted keeps the clusters of names that have a static weight; when
// none has one (or w has no weight preference), every cluster stays, as
// Karmada weighs them all 1 then.
func weighted(w *workload, names []string) []string {
	out := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return w.weights[n] == 0 })
	if len(out) == 0 {
		return names
	}
	return out
}

// staticWeight is cluster's weight among the clusters of a division: its
// rule's weight, or 1 for all when none of them has one.
func staticWeight(w *workload, among []string, cluster string) int64 {
	for _, n := range among {
		if w.weights[n] > 0 {
			return w.weights[cluster]
		}
	}
	return 1
}

// replace is the scheduler's failover re-placement after an eviction:
// scheduling.Replace takes eviction.Evict's result as it is, keeps the other
// clusters and replaces the evicted one among the feasible candidates.
// With clusterAffinities, a group in use without room gives way to the
// next group that has, which takes the whole placement.
func (e *Engine) replace(w *workload, res eviction.EvictResult) {
	if w.schedulingSuspended {
		e.tl.add(e, EvPlace, "", w.name(), "re-placement waits: scheduling is suspended")
		return
	}
	plan, err := e.replaceInGroups(w, res)
	if err != nil {
		e.tl.add(e, EvPlace, "", w.name(), "re-placement failed: "+err.Error())
		return
	}
	if len(plan.Held) > 0 {
		// Dispatching to these clusters became suspended after their
		// eviction: failover is paused there, so the eviction is undone
		// and the copy there stays. It is decided again after the resume.
		w.tasks = plan.WithoutHeldTasks(w.tasks)
		w.history.Forget(plan.Held...)
		e.inv.onUndo(w, plan.Held)
		e.tl.add(e, EvPlace, "", w.name(), "eviction undone, failover paused (dispatching suspended) on "+strings.Join(plan.Held, ", "))
	}
	if !plan.Changed && len(plan.Held) == 0 {
		e.tl.add(e, EvPlace, "", w.name(), "re-placement left the placement as it was: "+plan.Reason)
		return
	}
	switch plan.Reason {
	case scheduling.ReasonZoneSpread:
		e.tl.add(e, EvPlace, "", w.name(), fmt.Sprintf("re-placement failed: too few candidates within the zone spread of %d to %d zone(s)", w.zoneSpread.min, w.zoneSpread.max))
	case scheduling.ReasonRegionSpread:
		e.tl.add(e, EvPlace, "", w.name(), fmt.Sprintf("re-placement failed: too few candidates within the region spread of %d to %d region(s)", w.regionSpread.min, w.regionSpread.max))
	}
	next := make([]eviction.TargetCluster, 0, len(plan.Targets))
	for _, t := range plan.Targets {
		r := t.Replicas
		if !w.divided {
			r = 0
		}
		next = append(next, eviction.TargetCluster{Name: t.Name, Replicas: r})
	}
	e.setTargets(w, next)
}

// replaceLost re-places the clusters w's evictions took away that nothing
// has replaced yet, with the replicas their tasks recorded
// (eviction.UnreplacedTargets): the scheduler's answer once scheduling
// resumes.
func (e *Engine) replaceLost(w *workload) {
	evicted := eviction.UnreplacedTargets(w.targets, w.tasks, 0)
	if len(evicted) == 0 {
		return
	}
	e.replace(w, eviction.EvictResult{Targets: w.targets, Tasks: w.tasks, Evicted: evicted})
}

// replaceInGroups runs scheduling.Replace in the affinity group in use,
// then, while it places nothing, in each later group, where the clusters
// the group does not select leave as the evicted ones do. The first plan
// that places stands, and its group is the one in use; when none does,
// the plan of the group in use stands.
func (e *Engine) replaceInGroups(w *workload, res eviction.EvictResult) (scheduling.Plan, error) {
	plan, err := e.lib.Replace(e.replaceRequest(w, w.affinity, res.Targets, res.Evicted))
	if err != nil || plan.Changed && plan.Reason == "" {
		return plan, err
	}
	for g := w.group + 1; g < len(w.groups); g++ {
		group := w.groups[g].clusters
		var targets []eviction.TargetCluster
		evicted := slices.Clone(res.Evicted)
		for _, t := range res.Targets {
			if group == nil || group[t.Name] {
				targets = append(targets, t)
			} else {
				evicted = append(evicted, t)
			}
		}
		later, err := e.lib.Replace(e.replaceRequest(w, group, targets, evicted))
		if err != nil {
			return later, err
		}
		if later.Changed && later.Reason == "" {
			e.tl.add(e, EvPlace, "", w.name(), fmt.Sprintf("no room in affinity group %q: re-placed by %q", w.groups[w.group].name, w.groups[g].name))
			w.useGroup(g)
			return later, nil
		}
	}
	return plan, nil
}

// replaceRequest is the scheduler's re-placement request for w, within
// the clusters affinity selects (nil: every cluster; w.affinity, or a later
// affinity group), after the eviction left targets and evicted; the
// explanation (-explain) asks the same question.
func (e *Engine) replaceRequest(w *workload, affinity map[string]bool, targets, evicted []eviction.TargetCluster) *scheduling.Request {
	failed := ""
	if len(evicted) > 0 {
		failed = evicted[0].Name // the engine evicts one cluster at a time
	}
	req := &scheduling.Request{
		Workload:      e.schedulingView(w),
		Type:          scheduling.Duplicated,
		Targets:       targets,
		Evicted:       evicted,
		Replicas:      w.spec.Replicas,
		StaticWeights: e.replaceWeights(w, affinity, failed),
		Scores:        map[string]int64{},
	}
	if w.divided {
		req.Type = scheduling.Divided
	}
	usedZones := map[string]bool{}
	for _, t := range targets {
		usedZones[e.byName[t.Name].zone] = true
	}
	for _, c := range e.clusters {
		req.Clusters = append(req.Clusters, scheduling.Cluster{Name: c.name, Taints: c.taints, Labels: map[string]string{"zone": c.zone}, Zones: []string{c.zone}, Region: c.region})
		if !usedZones[c.zone] {
			req.Scores[c.name] = 1 // spread over zones first
		}
	}
	req.Filters = e.withHistorySeam(scheduling.DefaultFilters())
	if affinity != nil {
		// Not ClusterNames: with no names that one keeps every cluster, and
		// an affinity may select none.
		req.Filters = append(req.Filters, scheduling.SelectedClusters(affinity))
	}
	if w.clusterSpread != (groupBounds{}) {
		req.Spread = &scheduling.SpreadConstraint{MinGroups: int32(w.clusterSpread.min), MaxGroups: int32(w.clusterSpread.max)}
	}
	if w.zoneSpread != (groupBounds{}) {
		req.ZoneSpread = &scheduling.SpreadConstraint{MinGroups: int32(w.zoneSpread.min), MaxGroups: int32(w.zoneSpread.max)}
	}
	if w.regionSpread != (groupBounds{}) {
		req.RegionSpread = &scheduling.SpreadConstraint{MinGroups: int32(w.regionSpread.min), MaxGroups: int32(w.regionSpread.max)}
	}
	return req
}

// replaceWeights is the static weight map a Divided re-placement divides
// by: each cluster's weight, or nil (every cluster weighs 1) when no
// cluster the workload could move to (within affinity) has one, as Karmada
// does.
func (e *Engine) replaceWeights(w *workload, affinity map[string]bool, failed string) map[string]int64 {
	for n, wt := range w.weights {
		c := e.byName[n]
		if wt > 0 && n != failed && c.ready() && (affinity == nil || affinity[n]) {
			return w.weights
		}
	}
	return nil
}

// schedulingView is what scheduling's filters see of w.
func (e *Engine) schedulingView(w *workload) *scheduling.Workload {
	sw := &scheduling.Workload{
		Name:                    w.name(),
		Tolerations:             w.tolerations,
		EvictionTasks:           w.tasks,
		History:                 w.history,
		BlockPredecessorSeconds: w.blockSecs,
		OldCopies:               e.oldCopies(w),
		Now:                     e.Now(),
	}
	if w.susp != nil {
		sw.Suspension = w.susp
	}
	for _, t := range w.targets {
		sw.Placement = append(sw.Placement, t.Name)
	}
	return sw
}
