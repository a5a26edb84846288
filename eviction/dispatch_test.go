package eviction

import (
	"testing"
	"time"
)

func TestDispatchBlockedUntilOldCopyGone(t *testing.T) {
	pending := []PendingPurge{{Cluster: "old", Since: t0, ClustersBeforeFailover: []string{"old", "kept"}}}

	g := DispatchBlocked("new", pending, t0.Add(time.Hour), AssessOptions{})
	if !g.Blocked || !g.Until.IsZero() || g.BlockedBy != "old" || g.Escaped {
		t.Fatalf("reachable old cluster: %+v", g)
	}
	// A cluster that ran a copy before the failover is not held back; the
	// old cluster itself is.
	if g := DispatchBlocked("kept", pending, t0, AssessOptions{}); g.Blocked {
		t.Fatalf("kept: %+v", g)
	}
	if g := DispatchBlocked("old", pending, t0, AssessOptions{}); !g.Blocked {
		t.Fatalf("old: %+v", g)
	}
	// Once the caller confirms the copy is gone it drops the entry.
	if g := DispatchBlocked("new", nil, t0, AssessOptions{}); g.Blocked {
		t.Fatalf("nothing pending: %+v", g)
	}
}

func TestDispatchBlockedUnreachableEscape(t *testing.T) {
	pending := []PendingPurge{{Cluster: "old", Since: t0, Unreachable: true}}
	opts := AssessOptions{DirectlyEscapeTimeout: 5 * time.Minute}

	g := DispatchBlocked("new", pending, t0.Add(time.Minute), opts)
	if !g.Blocked || !g.Until.Equal(t0.Add(5*time.Minute)) {
		t.Fatalf("before escape: %+v", g)
	}
	g = DispatchBlocked("new", pending, t0.Add(5*time.Minute), opts)
	if g.Blocked || !g.Escaped {
		t.Fatalf("at escape: %+v", g)
	}
	// The default bound applies when none is configured.
	g = DispatchBlocked("new", pending, t0.Add(time.Minute), AssessOptions{})
	if !g.Until.Equal(t0.Add(DefaultDirectlyEscapeTimeout)) {
		t.Fatalf("default: %+v", g)
	}
	// A negative bound never escapes.
	g = DispatchBlocked("new", pending, t0.Add(1000*time.Hour), AssessOptions{DirectlyEscapeTimeout: -1})
	if !g.Blocked || !g.Until.IsZero() {
		t.Fatalf("never escape: %+v", g)
	}
	// A reachable purge in the mix means no known end.
	mixed := append(pending, PendingPurge{Cluster: "other", Since: t0})
	g = DispatchBlocked("new", mixed, t0.Add(time.Minute), opts)
	if !g.Blocked || !g.Until.IsZero() {
		t.Fatalf("mixed: %+v", g)
	}
}

func TestPendingPurgeFor(t *testing.T) {
	task := stampedTask("old", t0)
	task.ClustersBeforeFailover = []string{"old"}
	p, ok := PendingPurgeFor(RemovedTask{Task: task, Reason: RemovedPurgedDirectly}, true)
	if !ok || p.Cluster != "old" || !p.Since.Equal(t0) || !p.Unreachable || len(p.ClustersBeforeFailover) != 1 {
		t.Fatalf("%+v %v", p, ok)
	}
	if _, ok := PendingPurgeFor(RemovedTask{Task: task, Reason: RemovedGracePeriodExpired}, false); ok {
		t.Fatal("graceful removal turned into a pending purge")
	}
	task.CreationTimestamp = nil
	if p, _ := PendingPurgeFor(RemovedTask{Task: task, Reason: RemovedPurgedDirectly}, false); !p.Since.IsZero() {
		t.Fatal("since invented")
	}
}
