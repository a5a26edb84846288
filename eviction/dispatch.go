package eviction

import (
	"slices"
	"time"
)

// OldCopy is what the caller knows of the copy a workload is leaving on
// one cluster. The zero value is a copy that still runs and whose deletion
// has not started: the safe assumption when nothing is known.
type OldCopy struct {
	// Gone reports that the copy is confirmed deleted (its Work, or the
	// object on the member cluster, no longer exists).
	Gone bool
	// DeletingSince is when its deletion started: the persisted deletion
	// timestamp of the object that carries it (a Work's
	// metadata.deletionTimestamp), so that a restart neither resets nor
	// skips the escape countdown. Zero while no deletion has started.
	DeletingSince time.Time
	// Unreachable reports that the old cluster cannot be reached, so the
	// deletion cannot be confirmed.
	Unreachable bool
	// FenceAfter is not zero for a member known to fence itself: its agent
	// stops its single-writer copies once it has not renewed its lease with
	// the control plane for FenceAfter (package fencing; the member
	// declares it, for example with fencing.FenceAfterAnnotation on its
	// cluster object). Zero: the member cannot fence (a Push-mode cluster,
	// where nothing of the control plane runs), and an escape may start the
	// new copy while the old one still runs behind a partition.
	FenceAfter time.Duration
	// LastHeard is when the control plane last heard from the member (its
	// last lease renewal): the persisted renewTime of its lease, so a
	// restart neither resets nor skips the fence countdown. Read only when
	// FenceAfter is set; zero when the member was never heard.
	LastHeard time.Time
}

// OldCopyLookup answers "what of the copy on this cluster". The dispatch
// gate and the assessment of Directly tasks ask through it.
type OldCopyLookup interface {
	OldCopy(cluster string) OldCopy
}

// OldCopyLookupFunc adapts a function to OldCopyLookup. A nil
// OldCopyLookupFunc is a lookup that knows nothing: DispatchBlocked and
// Assess treat it as a nil OldCopyLookup, and its OldCopy method reports a
// copy that still runs.
type OldCopyLookupFunc func(cluster string) OldCopy

// OldCopy calls f; a nil f reports the zero OldCopy (a copy that still runs).
func (f OldCopyLookupFunc) OldCopy(cluster string) OldCopy {
	if f == nil {
		return OldCopy{}
	}
	return f(cluster)
}

// oldCopyLookup returns l, or nil when l is a nil OldCopyLookupFunc, so that
// a nil function in a non-nil interface is the nil lookup it means.
func oldCopyLookup(l OldCopyLookup) OldCopyLookup {
	if f, ok := l.(OldCopyLookupFunc); ok && f == nil {
		return nil
	}
	return l
}

// DeleteOldCopy reports whether the caller should delete (or keep deleting)
// the old copy task names, given the workload's current targets. Gracefully
// and Never keep the old copy while the task exists; Directly deletes it
// at once, but never the last copy: while the workload has no target, no
// replacement exists and the old copy stays (Karmada #7455).
func DeleteOldCopy(task *GracefulEvictionTask, targets []TargetCluster) bool {
	if task.SuppressDeletion != nil && *task.SuppressDeletion {
		return false
	}
	return task.PurgeMode.Normalize() == PurgeDirectly && len(targets) > 0
}

// DispatchGate answers whether a copy may be dispatched to a cluster now.
type DispatchGate struct {
	// Blocked reports that dispatch must wait.
	Blocked bool
	// Until is when the wait ends by itself (an unreachable old cluster's
	// escape); zero while some old copy can only end the wait by being
	// deleted.
	Until time.Time
	// BlockedBy is the first old cluster holding the dispatch back.
	BlockedBy string
	// Escaped reports that at least one unreachable old cluster was given
	// up on after DirectlyEscapeTimeout (or, with no OldCopyLookup, an old
	// copy nobody reports on, after the same bound).
	Escaped bool
	// Fenced reports that every old cluster given up on (Escaped) fences
	// itself (OldCopy.FenceAfter) and its fence is over: its copy has
	// stopped. Escaped without Fenced is the documented risk of a
	// partition: a cluster that cannot fence (or, with no OldCopyLookup, a
	// cluster nobody reports on) may still run its copy while the new one
	// starts.
	Fenced bool
}

// DispatchBlocked reports whether dispatching the workload to target must
// wait for an old copy under PurgeDirectly to be gone. It reads the
// workload's tasks as eviction.Evict returned them, so the gate holds from
// the moment the eviction is decided, before any assessment. A Directly
// task holds every dispatch until old reports its copy Gone, except to the
// clusters in its ClustersBeforeFailover other than its own: their copies
// predate the failover.
//
// An unreachable old cluster stops holding dispatches back
// DirectlyEscapeTimeout after its copy's deletion started
// (OldCopy.DeletingSince), because the deletion may never be confirmed
// (Karmada #6671). The countdown starts with the deletion, not with the
// task: a task kept while no replacement existed has not started deleting
// anything, and a partitioned old copy may still run.
//
// A member known to fence (OldCopy.FenceAfter set) is given up on later
// than the deletion start alone would allow, and earlier than a member that
// cannot fence: at the latest of its deletion start and
// LastHeard + max(DirectlyEscapeTimeout, FencedEscapeWait(FenceAfter, opts)),
// counting from the last time the control plane heard it, since its agent
// stops its copy FenceAfter after its last renewal by its own clock
// (MaxClockSkew covers the two clocks, FenceMargin the time the agent takes
// to stop it). A member that renews again moves the escape on: it is back,
// and its copy ends by being deleted. A fencing member never heard
// (LastHeard zero) counts from the deletion start. Fenced tells an escape
// from fencing members from one off a member that cannot fence, the
// documented risk of a partition.
//
// A nil old means the caller cannot tell what became of the old copies.
// The wait is then bounded, never forever: a Directly task holds dispatches
// until opts.DirectlyEscapeTimeout (DefaultDirectlyEscapeTimeout when zero
// or negative) after its CreationTimestamp, Until says when, and Escaped
// reports a task given up on; a task not stamped yet holds with Until that
// bound from now. Assess takes the old copy as gone at the same moment, so
// the task goes too. Without a lookup nothing confirms that the old copy
// stopped: a caller running single-writer workloads passes one.
func DispatchBlocked(target string, tasks []GracefulEvictionTask, old OldCopyLookup, now time.Time, opts AssessOptions) DispatchGate {
	var g DispatchGate
	escape := opts.DirectlyEscapeTimeout
	if escape == 0 {
		escape = DefaultDirectlyEscapeTimeout
	}
	waitForever, unfenced := false, false
	old = oldCopyLookup(old)
	for i := range tasks {
		t := &tasks[i]
		if t.PurgeMode.Normalize() != PurgeDirectly {
			continue
		}
		if target != t.FromCluster && slices.Contains(t.ClustersBeforeFailover, target) {
			continue
		}
		if old == nil {
			since := now
			if t.CreationTimestamp != nil {
				since = t.CreationTimestamp.Time
			}
			at := since.Add(opts.unknownOldCopyBound())
			if !now.Before(at) {
				g.Escaped, unfenced = true, true
				continue
			}
			if at.After(g.Until) {
				g.Until = at
			}
			if !g.Blocked {
				g.Blocked, g.BlockedBy = true, t.FromCluster
			}
			continue
		}
		c := old.OldCopy(t.FromCluster)
		if c.Gone {
			continue
		}
		if c.Unreachable && escape > 0 && !c.DeletingSince.IsZero() {
			at := escapeAt(&c, escape, &opts)
			if !now.Before(at) {
				g.Escaped = true
				if c.FenceAfter <= 0 {
					unfenced = true
				}
				continue
			}
			if at.After(g.Until) {
				g.Until = at
			}
		} else {
			waitForever = true
		}
		if !g.Blocked {
			g.Blocked, g.BlockedBy = true, t.FromCluster
		}
	}
	if waitForever {
		g.Until = time.Time{}
	}
	g.Fenced = g.Escaped && !unfenced
	return g
}

// escapeAt is when an unreachable old cluster whose copy's deletion started
// stops holding dispatches back, for an escape timeout escape > 0.
func escapeAt(c *OldCopy, escape time.Duration, opts *AssessOptions) time.Time {
	if c.FenceAfter <= 0 {
		return c.DeletingSince.Add(escape)
	}
	base := c.LastHeard
	if base.IsZero() {
		base = c.DeletingSince
	}
	at := base.Add(max(escape, FencedEscapeWait(c.FenceAfter, *opts)))
	if at.Before(c.DeletingSince) {
		return c.DeletingSince
	}
	return at
}

// FencedEscapeWait is how long after the control plane last heard a member
// that fences after fenceAfter its copy is surely stopped:
// fenceAfter + MaxClockSkew + FenceMargin (each default when zero), each
// term capped at MaxDuration. The Directly escape for such a member never
// comes earlier (see DispatchBlocked); ValidateFencedEscape rejects a
// DirectlyEscapeTimeout shorter than it.
func FencedEscapeWait(fenceAfter time.Duration, opts AssessOptions) time.Duration {
	return min(max(fenceAfter, 0), MaxDuration) + opts.maxClockSkew() + opts.fenceMargin()
}
