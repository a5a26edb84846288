package eviction

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetover/fleetover/failover/health"
)

// HealthLookup answers "how is the workload's copy on this cluster", in the
// vocabulary of the health package. The assessment asks through this
// interface so it runs no health interpreter of its own.
type HealthLookup interface {
	WorkloadHealth(cluster string) health.Status
}

// HealthLookupFunc adapts a function to HealthLookup.
type HealthLookupFunc func(cluster string) health.Status

// WorkloadHealth calls f; a nil f reports health.Unknown, as a nil
// HealthLookup does.
func (f HealthLookupFunc) WorkloadHealth(cluster string) health.Status {
	if f == nil {
		return health.Unknown
	}
	return f(cluster)
}

// DefaultGracePeriodSeconds is how long a Gracefully purged old copy waits
// for its replacement when neither the task nor the options say. Policies
// default their GracePeriodSeconds to it as well.
const DefaultGracePeriodSeconds int32 = 600

// DefaultDirectlyEscapeTimeout bounds how long dispatch to the new cluster
// waits for an unreachable old cluster under PurgeDirectly.
const DefaultDirectlyEscapeTimeout = 10 * time.Minute

// AssessOptions tune the assessment. The zero value is the safe default.
type AssessOptions struct {
	// Timeout is the grace period of a task that has no GracePeriodSeconds
	// of its own; zero means DefaultGracePeriodSeconds. ValidateAssessOptions
	// refuses a negative value and one above MaxDuration; Assess reads the
	// first as zero and the second as MaxDuration.
	Timeout time.Duration
	// EmptyTargetsAreHealthy restores Karmada's behaviour of treating an
	// empty target list as "every target is healthy", which deletes the
	// last copy of a workload that could not be placed anywhere else
	// (Karmada #7455). Off by default.
	EmptyTargetsAreHealthy bool
	// CancelOnRecovery removes a task whose FromCluster is back among the
	// targets or reports the workload Healthy there again, instead of
	// waiting for its grace period (Karmada #5782). Off by default.
	CancelOnRecovery bool
	// DirectlyEscapeTimeout bounds how long a dispatch waits for the old
	// copy on an unreachable cluster under PurgeDirectly; zero means
	// DefaultDirectlyEscapeTimeout, a negative value never escapes. Used by
	// DispatchBlocked, and by Assess and DispatchBlocked as the bound on a
	// Directly task when no OldCopyLookup is given (see
	// AssessInput.OldCopies): there a negative value means
	// DefaultDirectlyEscapeTimeout, since nothing could ever end the wait.
	DirectlyEscapeTimeout time.Duration
	// MaxClockSkew is the most a member's clock may differ from the
	// control plane's; zero means DefaultMaxClockSkew. A member that fences
	// itself (OldCopy.FenceAfter) counts its FenceAfter on its own clock,
	// so the escape waits this much more (FencedEscapeWait).
	MaxClockSkew time.Duration
	// FenceMargin is how long a fencing member's agent may take, once its
	// FenceAfter has passed, to notice and stop its copy; zero means
	// DefaultFenceMargin.
	FenceMargin time.Duration
}

// DefaultMaxClockSkew is AssessOptions.MaxClockSkew's default: clocks kept
// by NTP agree to well under a second; ten seconds covers a member whose
// time service lags.
const DefaultMaxClockSkew = 10 * time.Second

// DefaultFenceMargin is AssessOptions.FenceMargin's default: an agent
// checks its fence when FenceAfter passes (fencing.Decide says when), and
// scaling a workload to zero or deleting it takes seconds; thirty covers a
// slow member API server.
const DefaultFenceMargin = 30 * time.Second

func (o *AssessOptions) maxClockSkew() time.Duration {
	if o.MaxClockSkew > 0 {
		return min(o.MaxClockSkew, MaxDuration)
	}
	return DefaultMaxClockSkew
}

func (o *AssessOptions) fenceMargin() time.Duration {
	if o.FenceMargin > 0 {
		return min(o.FenceMargin, MaxDuration)
	}
	return DefaultFenceMargin
}

// unknownOldCopyBound is how long after its CreationTimestamp a Directly
// task's old copy is taken as gone when the caller gave no OldCopyLookup.
func (o *AssessOptions) unknownOldCopyBound() time.Duration {
	if o.DirectlyEscapeTimeout > 0 {
		return o.DirectlyEscapeTimeout
	}
	return DefaultDirectlyEscapeTimeout
}

func (o *AssessOptions) timeout() time.Duration {
	if o.Timeout > 0 {
		// Above the ceiling ValidateAssessOptions refuses: bounded.
		return min(o.Timeout, MaxDuration)
	}
	return time.Duration(DefaultGracePeriodSeconds) * time.Second
}

// AssessInput is what the assessment looks at for one workload.
type AssessInput struct {
	// Tasks are the workload's eviction tasks.
	Tasks []GracefulEvictionTask
	// Targets is the workload's current placement.
	Targets []TargetCluster
	// SchedulerBehind reports that the scheduler has not yet observed the
	// latest generation of the workload (Karmada: observedGeneration below
	// generation), so Targets may be a stale placement that does not answer
	// the evictions yet. While it is set no task is removed early because its
	// targets look healthy; the zero value, a scheduler that caught up, keeps
	// that early removal on.
	SchedulerBehind bool
	// SchedulerObservedLatest is the field SchedulerBehind replaced, with
	// the opposite meaning. Assess ignores it; ValidateAssessInput rejects
	// it when set, so code written for the old field fails loudly instead
	// of running with the meaning inverted. (An unset false cannot be told
	// apart from the zero value: that is why the field was renamed.)
	//
	// Deprecated: set SchedulerBehind to !SchedulerObservedLatest instead.
	// The field goes in v0.2.0.
	SchedulerObservedLatest bool
	// Health reports the workload's health per cluster; nil means Unknown
	// everywhere.
	Health HealthLookup
	// OldCopies reports what became of the old copies; Directly tasks are
	// kept until theirs is confirmed gone. nil means the caller cannot tell:
	// a Directly task's old copy is then taken as gone once the bound
	// AssessOptions.DirectlyEscapeTimeout (default
	// DefaultDirectlyEscapeTimeout) has passed since the task's
	// CreationTimestamp, as DispatchBlocked lets the new copy through then;
	// never wait forever on a copy nobody reports on. A caller that runs
	// single-writer workloads passes a lookup.
	OldCopies OldCopyLookup
	// Now is the time of this assessment. A zero Now judges nothing: every
	// task is kept as it is, none is stamped, and ValidateAssessInput
	// reports the missing time (stamping with the zero time would expire
	// every task at the next assessment).
	Now time.Time
}

// RemovalReason says why a task was removed.
type RemovalReason string

const (
	// RemovedDeletionAllowed: SuppressDeletion was set to false.
	RemovedDeletionAllowed RemovalReason = "DeletionAllowed"
	// RemovedPurgedDirectly: under PurgeDirectly the old copy is confirmed
	// gone and the new copy is running (every target reports Healthy) or
	// has had the grace period to start; the task, which carried the
	// preserved state and held the dispatch, is no longer needed.
	RemovedPurgedDirectly RemovalReason = "PurgedDirectly"
	// RemovedGracePeriodExpired: the task outlived its grace period.
	RemovedGracePeriodExpired RemovalReason = "GracePeriodExpired"
	// RemovedReplacementHealthy: the scheduler caught up and every target
	// reports the workload Healthy.
	RemovedReplacementHealthy RemovalReason = "ReplacementHealthy"
	// RemovedClusterRecovered: with CancelOnRecovery, the old cluster is a
	// target again or its copy is Healthy again.
	RemovedClusterRecovered RemovalReason = "ClusterRecovered"
)

// RemovedTask is a task the caller should drop, with why.
type RemovedTask struct {
	Task   GracefulEvictionTask
	Reason RemovalReason
}

// Assessment is the result of one assessment. Kept and Removed are appended
// to; pass the same Assessment again (AssessInto resets it) to reuse their
// storage and assess without allocating.
type Assessment struct {
	// Kept are the tasks to keep, in input order, stamped where they had no
	// CreationTimestamp.
	Kept []GracefulEvictionTask
	// Removed are the tasks to drop, in input order.
	Removed []RemovedTask
	// Stamped reports that at least one kept task got its CreationTimestamp
	// in this round and must be persisted.
	Stamped bool
	// NextAssessment is the earliest time a kept task times out, or when a
	// freshly stamped task can be judged; zero when only an outside change
	// (health, placement, a person) can alter the outcome.
	NextAssessment time.Time
}

// Changed reports whether the task list must be written back.
func (a *Assessment) Changed() bool { return a.Stamped || len(a.Removed) > 0 }

// RequeueAfter is NextAssessment as a delay from now: zero with ok false
// when there is nothing to wait for, never negative.
func (a *Assessment) RequeueAfter(now time.Time) (d time.Duration, ok bool) {
	if a.NextAssessment.IsZero() {
		return 0, false
	}
	if d = a.NextAssessment.Sub(now); d < 0 {
		d = 0
	}
	return d, true
}

// reset empties a for a new round and returns the previous lengths, so
// finish can clear only the slots the new round did not overwrite.
func (a *Assessment) reset() (kept, removed int) {
	kept, removed = len(a.Kept), len(a.Removed)
	a.Kept = a.Kept[:0]
	a.Removed = a.Removed[:0]
	a.Stamped = false
	a.NextAssessment = time.Time{}
	return kept, removed
}

// finish drops references that a longer previous round left behind.
func (a *Assessment) finish(prevKept, prevRemoved int) {
	if prevKept > len(a.Kept) {
		clear(a.Kept[len(a.Kept):prevKept])
	}
	if prevRemoved > len(a.Removed) {
		clear(a.Removed[len(a.Removed):prevRemoved])
	}
}

func (a *Assessment) wakeAt(t time.Time) {
	if a.NextAssessment.IsZero() || t.Before(a.NextAssessment) {
		a.NextAssessment = t
	}
}

// Assess judges every task of one workload. It is a pure function of its
// input: see AssessInto for the rules.
func Assess(in AssessInput, opts AssessOptions) Assessment {
	var a Assessment
	AssessInto(&a, &in, &opts)
	return a
}

// AssessInto judges every task of one workload and writes the outcome into
// dst, reusing dst's slices. Rules, per task, in this order:
//
//  1. No CreationTimestamp: stamped with in.Now, kept, not judged this round.
//  2. CancelOnRecovery and FromCluster is a target again: removed
//     (ClusterRecovered); the copy stays as a regular target.
//  3. SuppressDeletion true: kept until a person changes it; false: removed
//     (DeletionAllowed), even with no targets: a person decided.
//  4. PurgeNever: kept until a person removes it.
//  5. An empty target list means no replacement exists: kept, whatever the
//     mode or the age, unless EmptyTargetsAreHealthy.
//  6. CancelOnRecovery and the copy on FromCluster reports Healthy again:
//     removed (ClusterRecovered), so the scheduler may use the cluster again;
//     not under PurgeDirectly, whose old copy is being deleted and whose
//     task holds the new copy's dispatch and carries its state.
//  7. PurgeDirectly: kept while in.OldCopies does not confirm the old copy
//     gone (the caller deletes it, DeleteOldCopy, and DispatchBlocked holds
//     the new one back meanwhile, so the task carries the preserved state to
//     the new copy); with a nil in.OldCopies, kept until the bound of
//     AssessOptions.DirectlyEscapeTimeout after its CreationTimestamp, and
//     the old copy counts as gone from then on. Once it is gone: removed
//     (PurgedDirectly) when the scheduler is not behind and every target
//     reports Healthy, or, for a task with no preserved state, when its
//     grace period has passed;
//     otherwise kept until then: state is never dropped before a new copy
//     runs with it.
//  8. Gracefully (or empty): removed once its grace period (its own
//     GracePeriodSeconds, else the options' Timeout) has passed
//     (GracePeriodExpired), or early when the scheduler is not behind
//     (SchedulerBehind false) and every target reports Healthy
//     (ReplacementHealthy); otherwise kept until its deadline.
//
// A mode that is neither Directly nor Never (empty, or unrecognised on a
// task that skipped validation) is treated as Gracefully. Kept tasks are
// shallow copies sharing maps and slices with in.Tasks; the input is never
// modified. A nil dst is a no-op; nil in or opts mean empty input and
// default options; a zero in.Now keeps every task unchanged.
func AssessInto(dst *Assessment, in *AssessInput, opts *AssessOptions) {
	if dst == nil {
		return
	}
	prevKept, prevRemoved := dst.reset()
	defer dst.finish(prevKept, prevRemoved)
	if in == nil {
		return
	}
	if opts == nil {
		opts = &AssessOptions{}
	}
	now := in.Now
	if now.IsZero() {
		// No time to judge by: keep everything as it is (ValidateAssessInput
		// reports it).
		dst.Kept = append(dst.Kept, in.Tasks...)
		return
	}
	noTargets := len(in.Targets) == 0 && !opts.EmptyTargetsAreHealthy
	// Whether every target is healthy is the same for every task: work it
	// out at most once.
	healthKnown, allHealthy := false, false

	for i := range in.Tasks {
		t := &in.Tasks[i]
		if t.CreationTimestamp == nil {
			dst.Kept = append(dst.Kept, *t)
			k := &dst.Kept[len(dst.Kept)-1]
			k.CreationTimestamp = &metav1.Time{Time: now}
			dst.Stamped = true
			dst.wakeAt(firstJudgement(k, now, opts))
			continue
		}
		if opts.CancelOnRecovery && isTarget(t.FromCluster, in.Targets) {
			// The copy is a regular target again: dropping the task
			// deletes nothing.
			dst.Removed = append(dst.Removed, RemovedTask{Task: *t, Reason: RemovedClusterRecovered})
			continue
		}
		if t.SuppressDeletion != nil {
			if *t.SuppressDeletion {
				dst.Kept = append(dst.Kept, *t)
			} else {
				dst.Removed = append(dst.Removed, RemovedTask{Task: *t, Reason: RemovedDeletionAllowed})
			}
			continue
		}
		mode := t.PurgeMode.Normalize()
		if mode == PurgeNever || noTargets {
			dst.Kept = append(dst.Kept, *t)
			continue
		}
		if opts.CancelOnRecovery && mode != PurgeDirectly && in.Health != nil && in.Health.WorkloadHealth(t.FromCluster) == health.Healthy {
			dst.Removed = append(dst.Removed, RemovedTask{Task: *t, Reason: RemovedClusterRecovered})
			continue
		}
		deadline := t.CreationTimestamp.Add(gracePeriod(t, opts))
		expired, replaced := RemovedGracePeriodExpired, RemovedReplacementHealthy
		if mode == PurgeDirectly {
			if oldCopies := oldCopyLookup(in.OldCopies); oldCopies == nil {
				// Nobody reports on the old copy: it counts as gone once
				// the bound has passed, as the dispatch gate lets the new
				// copy through then.
				if gone := t.CreationTimestamp.Add(opts.unknownOldCopyBound()); now.Before(gone) {
					dst.Kept = append(dst.Kept, *t)
					dst.wakeAt(gone)
					continue
				}
			} else if !oldCopies.OldCopy(t.FromCluster).Gone {
				dst.Kept = append(dst.Kept, *t)
				continue
			}
			// The old copy is gone: the task only carries the state to
			// the new copy now, and goes as a graceful one would, except
			// that state goes only with a new copy that runs: no grace
			// period ends a task that still has state to deliver.
			expired, replaced = RemovedPurgedDirectly, RemovedPurgedDirectly
		}
		if !now.Before(deadline) && (mode != PurgeDirectly || len(t.PreservedLabelState) == 0) {
			dst.Removed = append(dst.Removed, RemovedTask{Task: *t, Reason: expired})
			continue
		}
		if !in.SchedulerBehind {
			if !healthKnown {
				allHealthy, healthKnown = allTargetsHealthy(in), true
			}
			if allHealthy {
				dst.Removed = append(dst.Removed, RemovedTask{Task: *t, Reason: replaced})
				continue
			}
		}
		dst.Kept = append(dst.Kept, *t)
		if now.Before(deadline) {
			dst.wakeAt(deadline)
		}
	}
}

// gracePeriod is the task's own period when it has a positive one, else the
// global timeout. It is computed per task so one task's period never
// carries over to the next.
func gracePeriod(t *GracefulEvictionTask, opts *AssessOptions) time.Duration {
	if t.GracePeriodSeconds != nil && *t.GracePeriodSeconds > 0 {
		return time.Duration(*t.GracePeriodSeconds) * time.Second
	}
	return opts.timeout()
}

// firstJudgement is when a task stamped now can first be removed by time
// alone; tasks that only a person or an outside change can remove return
// the zero time.
func firstJudgement(t *GracefulEvictionTask, now time.Time, opts *AssessOptions) time.Time {
	if t.SuppressDeletion != nil {
		if *t.SuppressDeletion {
			return time.Time{}
		}
		return now
	}
	switch t.PurgeMode.Normalize() {
	case PurgeNever:
		return time.Time{}
	case PurgeDirectly:
		return now // the old copy may already be gone
	default:
		return now.Add(gracePeriod(t, opts))
	}
}

func isTarget(cluster string, targets []TargetCluster) bool {
	for i := range targets {
		if targets[i].Name == cluster {
			return true
		}
	}
	return false
}

func allTargetsHealthy(in *AssessInput) bool {
	if in.Health == nil {
		// Nothing reports health: only an empty list can be "all healthy",
		// and only when the caller opted in (the noTargets check ran first).
		return len(in.Targets) == 0
	}
	for i := range in.Targets {
		if in.Health.WorkloadHealth(in.Targets[i].Name) != health.Healthy {
			return false
		}
	}
	return true
}
