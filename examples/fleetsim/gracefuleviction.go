package main

import (
	"slices"

	"github.com/fleetover/fleetover/eviction"
)

func (e *Engine) assessOptions() eviction.AssessOptions {
	return eviction.AssessOptions{
		Timeout:          e.sc.Settings.GracefulEvictionTimeout.D(),
		CancelOnRecovery: e.sc.Settings.CancelOnRecovery,
	}
}

// assess is the graceful eviction controller for w.
func (e *Engine) assess(w *workload) {
	if len(w.tasks) == 0 {
		return
	}
	now := e.Now()
	in := eviction.AssessInput{
		Tasks:                   w.tasks,
		Targets:                 w.targets,
		SchedulerObservedLatest: true,
		Health: eviction.HealthLookupFunc(func(cluster string) eviction.WorkloadHealth {
			c := e.byName[cluster]
			if c == nil || !c.reachable() {
				return eviction.WorkloadHealthUnknown
			}
			cp := w.copies[c.idx]
			if cp == nil || cp.deleting {
				return eviction.WorkloadHealthUnknown
			}
			return eviction.WorkloadHealth(cp.health)
		}),
		Now: now,
	}
	a := e.lib.Assess(in, e.assessOptions())
	if !a.Changed() {
		return
	}
	w.tasks = slices.Clone(a.Kept)
	for _, r := range a.Removed {
		e.stats.TasksClosed++
		c := e.byName[r.Task.FromCluster]
		e.tl.add(e, EvTaskDone, r.Task.FromCluster, w.name(), "eviction task removed: "+string(r.Reason))
		if p, ok := eviction.PendingPurgeFor(r, c != nil && !c.reachable()); ok {
			w.purges = append(w.purges, p)
			if len(r.Task.PreservedLabelState) > 0 {
				w.carried = append(w.carried, r.Task)
			}
		}
		if c != nil && !w.isTarget(c.name) {
			if cp := w.copies[c.idx]; cp != nil {
				if r.Reason != eviction.RemovedPurgedDirectly {
					e.inv.onRelease(w, c)
				}
				cp.deleting = true
			}
		}
	}
}
