package eviction

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TargetCluster is one entry of a workload's placement: a cluster and, for a
// divided workload, how many replicas it runs there. The JSON names match a
// binding's spec.clusters entries.
type TargetCluster struct {
	Name     string `json:"name"`
	Replicas int32  `json:"replicas,omitempty"`
}

// Eviction describes a workload leaving one cluster. The fields become the
// task's fields; see GracefulEvictionTask for their meaning.
type Eviction struct {
	// Cluster is the cluster to leave.
	Cluster             string
	Producer            string
	Reason              string
	Message             string
	PurgeMode           PurgeMode
	GracePeriodSeconds  *int32
	SuppressDeletion    *bool
	PreservedLabelState map[string]string
	// ClustersBeforeFailover defaults to the target names before Cluster is
	// removed; set it to carry the original list across chained failovers.
	ClustersBeforeFailover []string
	// CreatedAt, when not zero, stamps the new task; otherwise the
	// assessment stamps it the first time it sees the task.
	CreatedAt time.Time
	// Settled reports that the copy on Cluster became Healthy at least once
	// (the binding's aggregated status says so, or the detector's record).
	// A copy that never did has not moved past the state it was started
	// from, and what it reports (a fresh job with no checkpoint, say) must
	// not replace that state: when a task of the workload still carries
	// the state Cluster's copy was started from (StateCarrier), the new
	// task carries that state, with only the keys it lacks taken from
	// PreservedLabelState. The zero value assumes the copy never settled,
	// which matters only while such an older task exists.
	Settled bool
	// FencingEpoch is the fencing token the new task carries (see
	// GracefulEvictionTask.FencingEpoch): for a stateful workload,
	// NextFencingEpoch of the workload's last epoch and its tasks. Zero
	// gives the task no epoch. A cluster already being evicted keeps its
	// task's epoch; one that has none takes this one.
	FencingEpoch int64
}

// EvictOutcome says what Evict did.
type EvictOutcome string

const (
	// EvictTaskAdded: the cluster left the targets and a task now tracks its
	// old copy.
	EvictTaskAdded EvictOutcome = "TaskAdded"
	// EvictAlreadyInProgress: a task for the cluster already existed; no task
	// was added, the cluster was removed from the targets if it was back
	// there, and new preserved-state keys may have been merged.
	EvictAlreadyInProgress EvictOutcome = "AlreadyInProgress"
	// EvictNotPlaced: the cluster is neither a target nor being evicted, so
	// there is nothing to leave; nothing changed.
	EvictNotPlaced EvictOutcome = "NotPlaced"
)

// EvictResult is the new placement and task list. Both slices are freshly
// allocated; the tasks share their pointer and map fields with the input
// except where Evict changed them. It is the input of the next steps as it
// is: scheduling.Request takes its Targets and Evicted, preservation reads
// the state from its Tasks.
type EvictResult struct {
	// Targets is the placement after the eviction.
	Targets []TargetCluster
	// Tasks is the task list after the eviction.
	Tasks []GracefulEvictionTask
	// Evicted are the placement entries the eviction took out of the
	// targets, with the replicas they held: what a re-placement must make
	// up for. Empty when the cluster was not a target (NotPlaced, or an
	// eviction already in progress whose cluster had left the targets).
	Evicted []TargetCluster
	// Outcome says what the last eviction did.
	Outcome EvictOutcome
	// StateMerged reports that new preserved-state keys were added to an
	// existing task.
	StateMerged bool

	changed bool
}

// Changed reports whether the caller has anything to persist.
func (r EvictResult) Changed() bool { return r.changed }

// Then evicts one more cluster from the result, for a decision that moves
// a workload off several clusters at once. Evicted accumulates, Outcome is
// the last eviction's, and a new task's ClustersBeforeFailover defaults to
// the placement before the first eviction, so every task of the round
// names the same clusters. The receiver is not modified.
func (r EvictResult) Then(ev Eviction) (EvictResult, error) {
	if ev.ClustersBeforeFailover == nil && len(r.Evicted) > 0 {
		ev.ClustersBeforeFailover = make([]string, 0, len(r.Targets)+len(r.Evicted))
		for _, t := range r.Targets {
			ev.ClustersBeforeFailover = append(ev.ClustersBeforeFailover, t.Name)
		}
		for _, t := range r.Evicted {
			ev.ClustersBeforeFailover = append(ev.ClustersBeforeFailover, t.Name)
		}
		slices.Sort(ev.ClustersBeforeFailover)
	}
	next, err := Evict(r.Targets, r.Tasks, ev)
	if err != nil {
		return EvictResult{}, err
	}
	next.Evicted = append(slices.Clone(r.Evicted), next.Evicted...)
	next.StateMerged = next.StateMerged || r.StateMerged
	next.changed = next.changed || r.changed
	return next, nil
}

// ErrInvalidEviction is wrapped by Evict when the task it would create does
// not validate; errors.As with *InvalidEvictionError gives the field errors.
var ErrInvalidEviction = errors.New("invalid eviction")

// InvalidEvictionError carries the field errors of a rejected eviction.
type InvalidEvictionError struct {
	Errs field.ErrorList
}

func (e *InvalidEvictionError) Error() string {
	return fmt.Sprintf("%v: %v", ErrInvalidEviction, e.Errs.ToAggregate())
}

// Unwrap lets errors.Is match ErrInvalidEviction.
func (e *InvalidEvictionError) Unwrap() error { return ErrInvalidEviction }

// Evict removes ev.Cluster from targets and appends a task for it. Its inputs
// are never modified. An Eviction without a Cluster (the zero value) is an
// InvalidEvictionError.
//
// A cluster that already has a task gets no second one. Instead, preserved
// state merges so that chained failovers keep the original state: a key the
// existing task already holds keeps its original value and only new keys are
// added (see Karmada #6232). A chain through another cluster keeps the
// state the same way when the copy being left never settled (see
// Eviction.Settled): member1 -> member2 -> member3 with a member2 copy that
// never became healthy carries member1's state to member3.
func Evict(targets []TargetCluster, tasks []GracefulEvictionTask, ev Eviction) (EvictResult, error) {
	if ev.Cluster == "" {
		// The zero Eviction names no cluster: an error, not a silent
		// NotPlaced that would leave the workload where it fails.
		return EvictResult{}, &InvalidEvictionError{Errs: field.ErrorList{
			field.Required(field.NewPath("eviction", "fromCluster"), "the cluster to leave (Eviction.Cluster) is required"),
		}}
	}
	existing := -1
	for i := range tasks {
		if tasks[i].FromCluster == ev.Cluster {
			existing = i
			break
		}
	}
	targetIdx := -1
	for i := range targets {
		if targets[i].Name == ev.Cluster {
			targetIdx = i
			break
		}
	}

	if existing < 0 && targetIdx < 0 {
		return EvictResult{Targets: slices.Clone(targets), Tasks: slices.Clone(tasks), Outcome: EvictNotPlaced}, nil
	}

	newTargets := make([]TargetCluster, 0, len(targets))
	for i := range targets {
		if i != targetIdx {
			newTargets = append(newTargets, targets[i])
		}
	}

	var evicted []TargetCluster
	if targetIdx >= 0 {
		evicted = []TargetCluster{targets[targetIdx]}
	}
	if existing >= 0 {
		res := EvictResult{Targets: newTargets, Tasks: slices.Clone(tasks), Evicted: evicted, Outcome: EvictAlreadyInProgress, changed: targetIdx >= 0}
		if merged, changed := mergePreservedState(tasks[existing].PreservedLabelState, ev.PreservedLabelState); changed {
			res.Tasks[existing].PreservedLabelState = merged
			res.StateMerged, res.changed = true, true
		}
		if res.Tasks[existing].FencingEpoch == 0 && ev.FencingEpoch > 0 {
			res.Tasks[existing].FencingEpoch = ev.FencingEpoch
			res.changed = true
		}
		return res, nil
	}

	task := GracefulEvictionTask{
		FromCluster:            ev.Cluster,
		PurgeMode:              ev.PurgeMode.Normalize(),
		Reason:                 ev.Reason,
		Message:                ev.Message,
		Producer:               ev.Producer,
		GracePeriodSeconds:     copyInt32(ev.GracePeriodSeconds),
		SuppressDeletion:       copyBool(ev.SuppressDeletion),
		PreservedLabelState:    startingState(ev, tasks),
		ClustersBeforeFailover: slices.Clone(ev.ClustersBeforeFailover),
		FencingEpoch:           ev.FencingEpoch,
	}
	if r := targets[targetIdx].Replicas; r > 0 {
		task.Replicas = &r
	}
	if task.ClustersBeforeFailover == nil {
		task.ClustersBeforeFailover = make([]string, len(targets))
		for i := range targets {
			task.ClustersBeforeFailover[i] = targets[i].Name
		}
	}
	if !ev.CreatedAt.IsZero() {
		task.CreationTimestamp = &metav1.Time{Time: ev.CreatedAt}
	}
	if errs := ValidateGracefulEvictionTask(&task, field.NewPath("eviction")); len(errs) > 0 {
		return EvictResult{}, &InvalidEvictionError{Errs: errs}
	}
	newTasks := make([]GracefulEvictionTask, len(tasks), len(tasks)+1)
	copy(newTasks, tasks)
	newTasks = append(newTasks, task)
	return EvictResult{Targets: newTargets, Tasks: newTasks, Evicted: evicted, Outcome: EvictTaskAdded, changed: true}, nil
}

// startingState is the state the new task carries: what the old copy
// reported, unless it never settled and an older task still carries the
// state it was started from, which then wins key by key.
func startingState(ev Eviction, tasks []GracefulEvictionTask) map[string]string {
	if !ev.Settled {
		if from := StateCarrier(ev.Cluster, tasks); from != nil {
			merged, _ := mergePreservedState(from.PreservedLabelState, ev.PreservedLabelState)
			return maps.Clone(merged)
		}
	}
	return maps.Clone(ev.PreservedLabelState)
}

// StateCarrier returns the task whose preserved state belongs to the copy
// on target, or nil. Among the tasks that qualify (non-empty
// PreservedLabelState, target is neither their FromCluster nor in their
// ClustersBeforeFailover) the newest by CreationTimestamp wins (a task not
// stamped yet was just created and counts as newest); equal timestamps go
// to the smaller FromCluster, then to the earlier task. It is the one rule
// of which state goes where: Evict follows it along a chain of failovers,
// and preservation.StateFor injects what it picks.
func StateCarrier(target string, tasks []GracefulEvictionTask) *GracefulEvictionTask {
	var best *GracefulEvictionTask
	for i := range tasks {
		t := &tasks[i]
		if len(t.PreservedLabelState) == 0 || t.FromCluster == target || slices.Contains(t.ClustersBeforeFailover, target) {
			continue
		}
		if best == nil || newerTask(t, best) {
			best = t
		}
	}
	return best
}

// Unreplaced lists the clusters an eviction took out of the placement that
// nothing has replaced yet: the workload has fewer targets than a task's
// ClustersBeforeFailover, and the newest tasks whose cluster is no target
// account for the difference. The scheduler re-places these; an empty
// result means the placement is whole again.
func Unreplaced(targets []string, tasks []GracefulEvictionTask) []string {
	missing := 0
	for i := range tasks {
		missing = max(missing, len(tasks[i].ClustersBeforeFailover)-len(targets))
	}
	var out []string
	for i := len(tasks) - 1; i >= 0 && len(out) < missing; i-- {
		if name := tasks[i].FromCluster; !slices.Contains(targets, name) && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// UnreplacedTargets is Unreplaced as the scheduler takes it
// (scheduling.Request.Evicted): each cluster with the replicas the newest
// of its tasks that recorded them took away (GracefulEvictionTask.Replicas),
// or replicas when none did. A caller whose targets carry no replicas (a
// Duplicated workload counted in clusters) passes 0.
func UnreplacedTargets(targets []TargetCluster, tasks []GracefulEvictionTask, replicas int32) []TargetCluster {
	names := make([]string, len(targets))
	for i, t := range targets {
		names[i] = t.Name
	}
	lost := Unreplaced(names, tasks)
	if len(lost) == 0 {
		return nil
	}
	out := make([]TargetCluster, len(lost))
	for i, name := range lost {
		out[i] = TargetCluster{Name: name, Replicas: replicas}
		for j := len(tasks) - 1; j >= 0; j-- {
			if t := &tasks[j]; t.FromCluster == name && t.Replicas != nil {
				out[i].Replicas = *t.Replicas
				break
			}
		}
	}
	return out
}

func newerTask(a, b *GracefulEvictionTask) bool {
	aNew, bNew := a.CreationTimestamp == nil, b.CreationTimestamp == nil
	switch {
	case aNew != bNew:
		return aNew
	case !aNew && !a.CreationTimestamp.Equal(b.CreationTimestamp):
		return a.CreationTimestamp.After(b.CreationTimestamp.Time)
	default:
		return a.FromCluster < b.FromCluster
	}
}

// mergePreservedState returns old plus the keys of newer that old lacks. It
// returns old itself (and false) when nothing is added.
func mergePreservedState(old, newer map[string]string) (map[string]string, bool) {
	added := 0
	for k := range newer {
		if _, ok := old[k]; !ok {
			added++
		}
	}
	if added == 0 {
		return old, false
	}
	merged := make(map[string]string, len(old)+added)
	for k, v := range old {
		merged[k] = v
	}
	for k, v := range newer {
		if _, ok := merged[k]; !ok {
			merged[k] = v
		}
	}
	return merged, true
}

func copyInt32(p *int32) *int32 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

func copyBool(p *bool) *bool {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
