package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/fleetover/fleetover/eviction"
)

// evict removes cluster c from w's placement, records a graceful eviction
// task and asks the scheduler for a failover re-placement, if the fleet-wide
// pacer allows one more eviction now.
func (e *Engine) evict(w *workload, c *cluster, ev eviction.Eviction, app bool) bool {
	if w.hasTask(c.name) && !w.isTarget(c.name) {
		return false
	}
	ev.Cluster = c.name
	if ev.Message == "" {
		ev.Message = fmt.Sprintf("%s on %s", ev.Reason, c.name)
	}
	cp := w.copies[c.idx]
	if !app {
		// The detector knows whether the copy settled; the taint manager
		// reads it from the binding's aggregated status.
		ev.Settled = cp != nil && cp.settled
	}
	// The state is read before the pacer is asked: an eviction that waits
	// for a readable state must not spend a token, or a workload whose
	// status stays unreadable would take every token of its zone.
	if cp != nil && len(cp.collected) > 0 {
		state, err := e.lib.State.Extract(w, cp.collected, app)
		if err != nil {
			if !w.heldNoted["state/"+c.name] {
				w.heldNoted["state/"+c.name] = true
				e.tl.add(e, EvState, c.name, w.name(), "state extraction failed, eviction waits: "+err.Error())
			}
			return false
		}
		delete(w.heldNoted, "state/"+c.name)
		ev.PreservedLabelState = state
	}
	key := w.name() + "@" + c.name
	kp, keyed := e.lib.Pacer.(keyedPacer)
	if (keyed && !kp.Due(key)) || !e.lib.Pacer.TryAccept(c.zone) {
		if !w.heldNoted["pacer/"+c.name] {
			w.heldNoted["pacer/"+c.name] = true
			e.tl.add(e, EvPacer, c.name, w.name(), "eviction deferred by the pacer ("+e.lib.Pacer.Mode()+")")
		}
		return false
	}
	delete(w.heldNoted, "pacer/"+c.name)
	if keyed {
		kp.Done(key)
	}
	if w.stateful() && !e.sc.Settings.karmada() {
		// Every failover of a stateful workload gives its new copy a
		// fencing epoch above every earlier one (Karmada has none).
		ev.FencingEpoch = eviction.NextFencingEpoch(w.epoch, w.tasks)
	}
	res, err := e.lib.Evict(w.targets, w.tasks, ev)
	if err != nil {
		e.tl.add(e, EvEvict, c.name, w.name(), "eviction rejected: "+err.Error())
		return false
	}
	if res.Outcome != eviction.EvictTaskAdded {
		w.targets, w.tasks = res.Targets, res.Tasks
		return false
	}
	e.inv.onEvict(w, c)
	w.targets, w.tasks = res.Targets, res.Tasks
	w.epoch = max(w.epoch, ev.FencingEpoch)
	e.stats.Evictions++
	mode := ev.PurgeMode.Normalize()
	out := Event{Kind: EvEvict, Cluster: c.name, Workload: w.name(), Detail: fmt.Sprintf("%s (%s, purge %s)", detailEvicted, ev.Reason, mode),
		Reason: ev.Reason, PurgeMode: mode}
	if len(ev.PreservedLabelState) > 0 {
		out.Detail += ", preserved " + formatLabels(ev.PreservedLabelState)
		out.Labels = ev.PreservedLabelState
	}
	if ev.FencingEpoch > 0 {
		out.Detail += fmt.Sprintf(", fencing epoch %d", ev.FencingEpoch)
	}
	e.tl.addEvent(e, out)
	e.replace(w, res)
	return true
}

func formatLabels(m map[string]string) string {
	parts := make([]string, 0, len(m))
	for k, v := range m {
		parts = append(parts, k+"="+v)
	}
	sort.Strings(parts)
	return strings.Join(parts, ",")
}
