package eviction

import (
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// DefaultBlockPredecessorSeconds is how long a workload stays away from a
// cluster it was evicted from when the policy does not say.
const DefaultBlockPredecessorSeconds int32 = 600

// EvictionHistoryEntry records that a workload was evicted from a cluster.
// The JSON names match Karmada's ActiveEvictionHistory.
//
// +k8s:deepcopy-gen=true
type EvictionHistoryEntry struct {
	// ClusterName is the cluster the workload left.
	ClusterName string `json:"clusterName"`
	// CreationTimestamp is when it left; the block window counts from it.
	// +optional
	CreationTimestamp metav1.Time `json:"creationTimestamp,omitempty"`
}

// EvictionHistory is a workload's eviction history, one entry per cluster.
// Methods with a pointer receiver change the history in place; the caller
// persists it on the workload's binding.
//
// +k8s:deepcopy-gen=true
type EvictionHistory []EvictionHistoryEntry

// Record notes an eviction from cluster at now. A cluster already recorded
// gets its time refreshed, so the block window restarts from the latest
// eviction. It reports whether the history changed.
//
// The time is stored rounded up to the whole second, because that is all a
// metav1.Time keeps once persisted: truncating instead would let a block
// restored after a restart end up to a second early, and recording again
// within the same second would report a change that persisting erases.
func (h *EvictionHistory) Record(cluster string, now time.Time) bool {
	at := metav1.Time{Time: ceilSecond(now)}
	for i := range *h {
		e := &(*h)[i]
		if e.ClusterName == cluster {
			if e.CreationTimestamp.Time.Equal(at.Time) {
				return false
			}
			e.CreationTimestamp = at
			return true
		}
	}
	*h = append(*h, EvictionHistoryEntry{ClusterName: cluster, CreationTimestamp: at})
	return true
}

// ceilSecond rounds t up to the whole second, dropping the monotonic
// reading as persisting does.
func ceilSecond(t time.Time) time.Time {
	r := t.Truncate(time.Second).Round(0)
	if r.Before(t) {
		r = r.Add(time.Second)
	}
	return r
}

// blockWindow resolves the policy's BlockPredecessorSeconds: nil (and a
// negative value, which validation rejects) mean the default of 600 s; 0
// means forever, reported as forever=true.
func blockWindow(blockPredecessorSeconds *int32) (d time.Duration, forever bool) {
	s := DefaultBlockPredecessorSeconds
	if blockPredecessorSeconds != nil && *blockPredecessorSeconds >= 0 {
		s = *blockPredecessorSeconds
	}
	if s == 0 {
		return 0, true
	}
	return time.Duration(s) * time.Second, false
}

// BlockedUntil reports whether the workload must stay away from cluster at
// now. blockPredecessorSeconds is the policy's value: nil means
// DefaultBlockPredecessorSeconds, 0 blocks the cluster forever (forever is
// true and until is zero). A cluster with no record is not blocked.
//
// An entry without a CreationTimestamp cannot be counted from, so it blocks
// for good rather than not at all; ValidateEvictionHistory rejects such
// entries and GC keeps them. Should a history hold the same cluster twice, the latest block
// wins.
func (h EvictionHistory) BlockedUntil(cluster string, blockPredecessorSeconds *int32, now time.Time) (until time.Time, blocked, forever bool) {
	window, always := blockWindow(blockPredecessorSeconds)
	for i := range h {
		if h[i].ClusterName != cluster {
			continue
		}
		if always || h[i].CreationTimestamp.IsZero() {
			return time.Time{}, true, true
		}
		if end := h[i].CreationTimestamp.Add(window); now.Before(end) && end.After(until) {
			until, blocked = end, true
		}
	}
	return until, blocked, false
}

// GC drops the entries whose block window has ended at now and returns how
// many it dropped and the earliest time a remaining entry expires (zero when
// none will: no entries, or a window of 0 meaning forever). An entry without
// a timestamp blocks for good (BlockedUntil), so GC keeps it: dropping it
// would lift a block that never ends.
func (h *EvictionHistory) GC(blockPredecessorSeconds *int32, now time.Time) (removed int, nextExpiry time.Time) {
	window, forever := blockWindow(blockPredecessorSeconds)
	if forever {
		return 0, time.Time{}
	}
	kept := (*h)[:0]
	for _, e := range *h {
		if e.CreationTimestamp.IsZero() {
			kept = append(kept, e)
			continue
		}
		exp := e.CreationTimestamp.Add(window)
		if !now.Before(exp) {
			removed++
			continue
		}
		kept = append(kept, e)
		if nextExpiry.IsZero() || exp.Before(nextExpiry) {
			nextExpiry = exp
		}
	}
	clear((*h)[len(kept):])
	*h = kept
	return removed, nextExpiry
}

// Forget drops the entries of clusters, in place, and reports whether the
// history changed. It is for an eviction that was undone (a re-placement
// that held the cluster: scheduling.Plan.Held): the workload never left
// the cluster, so nothing keeps it away.
func (h *EvictionHistory) Forget(clusters ...string) bool {
	n := len(*h)
	*h = slices.DeleteFunc(*h, func(e EvictionHistoryEntry) bool { return slices.Contains(clusters, e.ClusterName) })
	return len(*h) != n
}

// ValidateEvictionHistory checks that every entry names a valid cluster
// once and has a creationTimestamp to count its block window from.
func ValidateEvictionHistory(h EvictionHistory, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := make(map[string]struct{}, len(h))
	for i := range h {
		if h[i].CreationTimestamp.IsZero() {
			errs = append(errs, field.Required(fldPath.Index(i).Child("creationTimestamp"), "the block window counts from it"))
		}
		p := fldPath.Index(i).Child("clusterName")
		errs = append(errs, validateClusterName(h[i].ClusterName, p, true)...)
		if _, dup := seen[h[i].ClusterName]; dup && h[i].ClusterName != "" {
			errs = append(errs, field.Duplicate(p, h[i].ClusterName))
		}
		seen[h[i].ClusterName] = struct{}{}
	}
	return errs
}
