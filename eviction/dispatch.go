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
}

// OldCopyLookup answers "what of the copy on this cluster". The dispatch
// gate and the assessment of Directly tasks ask through it.
type OldCopyLookup interface {
	OldCopy(cluster string) OldCopy
}

// OldCopyLookupFunc adapts a function to OldCopyLookup.
type OldCopyLookupFunc func(cluster string) OldCopy

// OldCopy calls f.
func (f OldCopyLookupFunc) OldCopy(cluster string) OldCopy { return f(cluster) }

func lookupOldCopy(l OldCopyLookup, cluster string) OldCopy {
	if l == nil {
		return OldCopy{}
	}
	return l.OldCopy(cluster)
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
	// up on after DirectlyEscapeTimeout.
	Escaped bool
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
// anything, and a partitioned old copy may still run. A nil old knows
// nothing, so every Directly task holds.
func DispatchBlocked(target string, tasks []GracefulEvictionTask, old OldCopyLookup, now time.Time, opts AssessOptions) DispatchGate {
	var g DispatchGate
	escape := opts.DirectlyEscapeTimeout
	if escape == 0 {
		escape = DefaultDirectlyEscapeTimeout
	}
	waitForever := false
	for i := range tasks {
		t := &tasks[i]
		if t.PurgeMode.Normalize() != PurgeDirectly {
			continue
		}
		if target != t.FromCluster && slices.Contains(t.ClustersBeforeFailover, target) {
			continue
		}
		c := lookupOldCopy(old, t.FromCluster)
		if c.Gone {
			continue
		}
		if c.Unreachable && escape > 0 && !c.DeletingSince.IsZero() {
			at := c.DeletingSince.Add(escape)
			if !now.Before(at) {
				g.Escaped = true
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
	return g
}
