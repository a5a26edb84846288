package scheduling

import (
	"time"

	"github.com/fleetover/fleetover/eviction"
)

// HistoryRecords is an EvictionHistory over a workload's stored eviction
// history and its policy's BlockPredecessorSeconds. The block rules are
// eviction.EvictionHistory.BlockedUntil's: nil seconds mean the default of
// 600, 0 blocks the cluster for good, the window ends at the eviction time
// plus the seconds (the end excluded), and an entry without a timestamp
// blocks for good.
type HistoryRecords struct {
	History                 eviction.EvictionHistory
	BlockPredecessorSeconds *int32
}

// BlockedUntil implements EvictionHistory.
func (h HistoryRecords) BlockedUntil(cluster string, now time.Time) (until time.Time, blocked bool) {
	until, blocked, _ = h.History.BlockedUntil(cluster, h.BlockPredecessorSeconds, now)
	return until, blocked
}
