package main

import (
	"sort"
	"strconv"
	"strings"

	"github.com/fleetover/fleetover/eviction"
)

// schedule runs the scheduler for w when its placement needs it.
func (e *Engine) schedule(w *workload) {
	if w.schedulingSuspended {
		return
	}
	next := e.lib.Placement.Place(e, w)
	if next == nil {
		return
	}
	e.setTargets(w, next)
}

// setTargets writes a new placement, checking the invariants on every
// cluster it adds.
func (e *Engine) setTargets(w *workload, next []eviction.TargetCluster) {
	key := placementKey(next)
	if key == placementKey(w.targets) {
		return
	}
	for _, t := range next {
		if !w.isTarget(t.Name) {
			e.inv.onPlace(w, t.Name)
		}
	}
	w.targets = next
	if key != w.lastPlace {
		w.lastPlace = key
		e.tl.add(e, EvPlace, "", w.name(), "placement "+key)
	}
}

func placementKey(ts []eviction.TargetCluster) string {
	names := make([]string, 0, len(ts))
	for _, t := range ts {
		if t.Replicas > 0 {
			names = append(names, t.Name+"="+strconv.Itoa(int(t.Replicas)))
		} else {
			names = append(names, t.Name)
		}
	}
	sort.Strings(names)
	return "[" + strings.Join(names, ", ") + "]"
}
