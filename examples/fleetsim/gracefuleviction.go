package main

import (
	"slices"
	"time"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover/health"
)

func (e *Engine) assessOptions() eviction.AssessOptions {
	o := eviction.AssessOptions{
		Timeout:          e.sc.Settings.GracefulEvictionTimeout.D(),
		CancelOnRecovery: e.sc.Settings.CancelOnRecovery,
	}
	if e.sc.Settings.karmada() {
		// Karmada's Directly purge has no escape of its own (#6671): its
		// binding controller holds the new copy while the task names a
		// cluster whose Work remains, and the graceful eviction controller
		// drops every task, whatever its purge mode, once it is older than
		// --graceful-eviction-timeout (a Directly task has no grace period
		// of its own). The new copy then starts, the old one unconfirmed
		// and unfenced. The library counts its escape from the old copy's
		// deletion start (OldCopy.DeletingSince), which here is the step
		// a replacement is placed: the task's creation, or later when the
		// eviction left no target. oldCopies ends the hold at the task's
		// creation plus the timeout, as Karmada does, so the escape below
		// is a bound that never comes first.
		o.DirectlyEscapeTimeout = e.sc.Settings.GracefulEvictionTimeout.D()
		// An empty target list counts as every target healthy (#7455);
		// schedulerBehind keeps that from removing a task early.
		o.EmptyTargetsAreHealthy = true
	}
	return o
}

// directlyEscape is how long after the old copy's deletion started a
// Directly purge gives up on an unreachable cluster, under the scenario's
// rules.
func (e *Engine) directlyEscape() time.Duration {
	if d := e.assessOptions().DirectlyEscapeTimeout; d > 0 {
		return d
	}
	return eviction.DefaultDirectlyEscapeTimeout
}

// schedulerBehind reports whether the binding does not count as scheduled
// (Karmada: status.schedulerObservedGeneration below metadata.generation),
// so no task goes early because its targets look healthy. A scheduler that
// leaves the workload alone observes none of its generations. Under
// Karmada's rules a scheduling that finds no cluster that fits fails
// without observing the generation either: a workload with no target left
// never counts as scheduled, and its tasks go at their grace period, the
// last copy with them (#7455). schedule runs before every assessment, so
// an empty placement here is the last scheduling's answer.
func (e *Engine) schedulerBehind(w *workload) bool {
	return w.schedulingSuspended || (e.sc.Settings.karmada() && len(w.targets) == 0)
}

// karmadaTaskTimedOut reports whether, under Karmada's rules, w's task from
// cluster is a Directly task Karmada has dropped (karmadaTimedOut): it no
// longer holds the new copy, whatever became of the old one (#6671).
func (e *Engine) karmadaTaskTimedOut(w *workload, cluster string) bool {
	t := w.task(cluster)
	return t != nil && e.karmadaTimedOut(t)
}

// karmadaTimedOut reports whether, under Karmada's rules, t is a Directly
// task older than its timeout (its own grace period, else
// --graceful-eviction-timeout). Karmada's graceful eviction controller
// drops every task at its timeout, whatever its purge mode and whatever
// state it carries; the library keeps a Directly task until its old copy is
// gone, and one with state until a new copy runs with it. The simulation
// therefore shows the library such a task as Karmada sees it: its old copy
// gone (oldCopies) and no state to deliver (assess), and injects nothing
// from it (liveTasks).
func (e *Engine) karmadaTimedOut(t *eviction.GracefulEvictionTask) bool {
	if !e.sc.Settings.karmada() || t.CreationTimestamp == nil || t.SuppressDeletion != nil || t.PurgeMode.Normalize() != eviction.PurgeDirectly {
		return false
	}
	timeout := e.sc.Settings.GracefulEvictionTimeout.D()
	if t.GracePeriodSeconds != nil {
		timeout = time.Duration(*t.GracePeriodSeconds) * time.Second
	}
	return !e.Now().Before(t.CreationTimestamp.Add(timeout))
}

// liveTasks are w's tasks less those Karmada has dropped (karmadaTimedOut):
// the binding controller injects no state from them. w.tasks itself when
// none is dropped.
func (e *Engine) liveTasks(w *workload) []eviction.GracefulEvictionTask {
	if !slices.ContainsFunc(w.tasks, func(t eviction.GracefulEvictionTask) bool { return e.karmadaTimedOut(&t) }) {
		return w.tasks
	}
	return slices.DeleteFunc(slices.Clone(w.tasks), func(t eviction.GracefulEvictionTask) bool { return e.karmadaTimedOut(&t) })
}

// assess is the graceful eviction controller for w.
func (e *Engine) assess(w *workload) {
	if len(w.tasks) == 0 {
		return
	}
	now := e.Now()
	tasks, dropped := w.tasks, map[string]bool(nil)
	for i := range w.tasks {
		if e.karmadaTimedOut(&w.tasks[i]) {
			if dropped == nil {
				tasks, dropped = slices.Clone(w.tasks), map[string]bool{}
			}
			// Its old copy counts as gone (oldCopies); without state, the
			// library lets it go at its grace period, as Karmada does.
			tasks[i].PreservedLabelState = nil
			dropped[w.tasks[i].FromCluster] = true
		}
	}
	in := eviction.AssessInput{
		Tasks:           tasks,
		Targets:         w.targets,
		SchedulerBehind: e.schedulerBehind(w),
		Health:          e.copyHealth(w),
		OldCopies:       e.oldCopies(w),
		Now:             now,
	}
	a := e.lib.Assess(in, e.assessOptions())
	if !a.Changed() {
		return
	}
	kept := slices.Clone(a.Kept)
	for i := range kept {
		if dropped[kept[i].FromCluster] {
			// Not removed after all (the library reads a grace period of
			// 0 s as none): it keeps its state.
			kept[i].PreservedLabelState = w.task(kept[i].FromCluster).PreservedLabelState
		}
	}
	w.tasks = kept
	for _, r := range a.Removed {
		e.stats.TasksClosed++
		c := e.byName[r.Task.FromCluster]
		detail := "eviction task removed: " + string(r.Reason)
		if dropped[r.Task.FromCluster] && c != nil {
			if cp := w.copies[c.idx]; cp != nil {
				detail = "eviction task removed: timed out (--graceful-eviction-timeout), the old copy's deletion unconfirmed"
			}
		}
		e.tl.add(e, EvTaskDone, r.Task.FromCluster, w.name(), detail)
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
