package scheduling

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// EvictionRecord is one eviction remembered on a workload's binding: which
// cluster it left and when. The field names are those of the design's
// activeEvictionHistory entries.
type EvictionRecord struct {
	// ClusterName is the cluster the workload was evicted from.
	ClusterName string `json:"clusterName"`
	// CreationTimestamp is when the eviction happened; the block counts from
	// it, so it survives a restart.
	CreationTimestamp metav1.Time `json:"creationTimestamp"`
}

// HistoryRecords is an EvictionHistory over stored records and the policy's
// BlockPredecessorSeconds (resolved by the caller: the policy default is 600).
//
// A cluster is blocked from its eviction until CreationTimestamp +
// BlockPredecessorSeconds, the end excluded. BlockPredecessorSeconds 0 blocks
// it for good; a negative value is treated as 0 (the safe reading of an
// invalid policy). A record with no CreationTimestamp cannot be counted from
// and also blocks for good: stamp records when you write them. With several
// records for one cluster the latest block wins.
type HistoryRecords struct {
	Records                 []EvictionRecord
	BlockPredecessorSeconds int32
}

// BlockedUntil implements EvictionHistory.
func (h HistoryRecords) BlockedUntil(cluster string, now time.Time) (until time.Time, blocked bool) {
	for i := range h.Records {
		r := &h.Records[i]
		if r.ClusterName != cluster {
			continue
		}
		if h.BlockPredecessorSeconds <= 0 || r.CreationTimestamp.IsZero() {
			return time.Time{}, true
		}
		end := r.CreationTimestamp.Add(time.Duration(h.BlockPredecessorSeconds) * time.Second)
		if now.Before(end) && end.After(until) {
			until, blocked = end, true
		}
	}
	return until, blocked
}
