package eviction

import (
	"slices"
	"time"
)

// PendingPurge is an old copy that PurgeDirectly is deleting and whose
// removal has not been confirmed yet. The caller lists only the copies that
// still exist: once the old cluster reports the copy gone, drop the entry.
type PendingPurge struct {
	// Cluster is the cluster the old copy runs on.
	Cluster string
	// Since is when the deletion started. It must come from persisted
	// state (the task's CreationTimestamp, the eviction history record, or
	// the old copy's deletion timestamp) so that a restart neither resets
	// nor skips the escape countdown.
	Since time.Time
	// Unreachable reports that the old cluster cannot be reached, so the
	// deletion cannot be confirmed.
	Unreachable bool
	// ClustersBeforeFailover are the clusters that already ran a copy when
	// the eviction started; dispatch to them is not held back.
	ClustersBeforeFailover []string
}

// PendingPurgeFor turns a task that the assessment removed with
// RemovedPurgedDirectly into the PendingPurge to check dispatches against.
// ok is false for any other removal.
func PendingPurgeFor(r RemovedTask, unreachable bool) (p PendingPurge, ok bool) {
	if r.Reason != RemovedPurgedDirectly {
		return PendingPurge{}, false
	}
	p = PendingPurge{
		Cluster:                r.Task.FromCluster,
		Unreachable:            unreachable,
		ClustersBeforeFailover: r.Task.ClustersBeforeFailover,
	}
	if r.Task.CreationTimestamp != nil {
		p.Since = r.Task.CreationTimestamp.Time
	}
	return p, true
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
// wait for an old copy under PurgeDirectly to be gone. Clusters listed in a
// purge's ClustersBeforeFailover (other than the old cluster itself) are not
// held back: their copies predate the failover. An unreachable old cluster
// stops holding dispatches back DirectlyEscapeTimeout after Since
// (Karmada #6671), because its deletion may never be confirmed.
func DispatchBlocked(target string, pending []PendingPurge, now time.Time, opts AssessOptions) DispatchGate {
	var g DispatchGate
	escape := opts.DirectlyEscapeTimeout
	if escape == 0 {
		escape = DefaultDirectlyEscapeTimeout
	}
	waitForever := false
	for i := range pending {
		p := &pending[i]
		if target != p.Cluster && slices.Contains(p.ClustersBeforeFailover, target) {
			continue
		}
		if p.Unreachable && escape > 0 {
			at := p.Since.Add(escape)
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
			g.Blocked, g.BlockedBy = true, p.Cluster
		}
	}
	if waitForever {
		g.Until = time.Time{}
	}
	return g
}
