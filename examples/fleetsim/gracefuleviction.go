package main

import (
	"slices"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover/health"
)

func (e *Engine) assessOptions() eviction.AssessOptions {
	o := eviction.AssessOptions{
		Timeout:          e.sc.Settings.GracefulEvictionTimeout.D(),
		CancelOnRecovery: e.sc.Settings.CancelOnRecovery,
	}
	if e.sc.Settings.karmada() {
		// Karmada's Directly purge waits for the old copy's deletion for
		// ever (#6671), and an empty target list counts as every target
		// healthy, which lets the last copy go (#7455).
		o.DirectlyEscapeTimeout = -1
		o.EmptyTargetsAreHealthy = true
	}
	return o
}

// assess is the graceful eviction controller for w.
func (e *Engine) assess(w *workload) {
	if len(w.tasks) == 0 {
		return
	}
	now := e.Now()
	in := eviction.AssessInput{
		Tasks:   w.tasks,
		Targets: w.targets,
		// A scheduler that leaves the workload alone observes none of
		// its generations.
		SchedulerBehind: w.schedulingSuspended,
		Health:          e.copyHealth(w),
		OldCopies:       e.oldCopies(w),
		Now:             now,
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
		if c != nil && !w.isTarget(c.name) {
			if cp := w.copies[c.idx]; cp != nil {
				e.inv.onRelease(w, c)
				cp.startDeletion(now)
			}
		}
	}
}

// copyHealth is the workload's health per cluster as the graceful eviction
// controller reads it: Unknown where the cluster is unreachable or the copy
// is missing or being deleted.
func (e *Engine) copyHealth(w *workload) eviction.HealthLookup {
	return eviction.HealthLookupFunc(func(cluster string) health.Status {
		c := e.byName[cluster]
		if c == nil || !c.reachable() {
			return health.Unknown
		}
		cp := w.copies[c.idx]
		if cp == nil || cp.deleting {
			return health.Unknown
		}
		return cp.health
	})
}
