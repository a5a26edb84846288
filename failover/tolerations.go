package failover

import (
	"math"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
)

// DefaultTolerationSeconds is how long a workload tolerates the not-ready and
// unreachable NoExecute taints by default (Karmada's
// --default-not-ready-toleration-seconds and
// --default-unreachable-toleration-seconds).
const DefaultTolerationSeconds int64 = 300

// TolerationOptions says how a toleration matches a taint. It is the one
// matching rule of the library: failover's decisions (EvaluateTolerations,
// the planner) and scheduling's TaintToleration filter take the same value,
// so a workload failover drives off a cluster is never placed back on it by
// the filter, nor the reverse. The zero value is Kubernetes' and Karmada's
// default.
type TolerationOptions struct {
	// EnableComparisonOperators lets tolerations with the Lt and Gt
	// operators match numerically, as Kubernetes'
	// TaintTolerationComparisonOperators feature does. Off, such a
	// toleration matches no taint, as in Karmada.
	EnableComparisonOperators bool
}

// DefaultTolerationsConfig configures the tolerations added to every policy
// that does not tolerate the cluster-health taints itself. The zero value
// gives Karmada's defaults.
type DefaultTolerationsConfig struct {
	// NotReadyTaintKey defaults to TaintKeyClusterNotReady.
	NotReadyTaintKey string
	// UnreachableTaintKey defaults to TaintKeyClusterUnreachable.
	UnreachableTaintKey string
	// NotReadyTolerationSeconds defaults to DefaultTolerationSeconds when nil.
	NotReadyTolerationSeconds *int64
	// UnreachableTolerationSeconds defaults to DefaultTolerationSeconds when nil.
	UnreachableTolerationSeconds *int64
}

// DefaultClusterTolerations returns the default tolerations: one NoExecute
// toleration with operator Exists for the not-ready key and one for the
// unreachable key, each with its toleration seconds. The slice is new.
func DefaultClusterTolerations(cfg DefaultTolerationsConfig) []corev1.Toleration {
	notReady := orDefault(cfg.NotReadyTaintKey, TaintKeyClusterNotReady)
	unreachable := orDefault(cfg.UnreachableTaintKey, TaintKeyClusterUnreachable)
	return []corev1.Toleration{
		{Key: notReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: secondsOrDefault(cfg.NotReadyTolerationSeconds)},
		{Key: unreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: secondsOrDefault(cfg.UnreachableTolerationSeconds)},
	}
}

// AddDefaultClusterTolerations returns tolerations followed by each default
// toleration that tolerations do not already cover, as a policy webhook
// does: a policy that tolerates the not-ready NoExecute taint in any way
// (its own seconds, forever, or a wildcard) keeps its choice. The input
// slice is never modified.
func AddDefaultClusterTolerations(tolerations []corev1.Toleration, cfg DefaultTolerationsConfig) []corev1.Toleration {
	defaults := DefaultClusterTolerations(cfg)
	out := make([]corev1.Toleration, len(tolerations), len(tolerations)+len(defaults))
	copy(out, tolerations)
	for _, d := range defaults {
		probe := corev1.Taint{Key: d.Key, Effect: corev1.TaintEffectNoExecute}
		if (TolerationOptions{}).FirstTolerating(tolerations, &probe) < 0 {
			out = append(out, d)
		}
	}
	return out
}

// EvictionAction is what toleration evaluation asks for.
type EvictionAction uint8

const (
	// TolerateForever: no NoExecute taint forces the workload out, now or
	// later. It is the zero value.
	TolerateForever EvictionAction = iota
	// EvictAfter: every NoExecute taint is tolerated, at least one for a
	// limited time; the workload must leave at TolerationDecision.At.
	EvictAfter
	// EvictNow: a NoExecute taint is not tolerated, or its toleration has
	// run out.
	EvictNow
)

// String returns the action's name.
func (a EvictionAction) String() string {
	switch a {
	case TolerateForever:
		return "TolerateForever"
	case EvictAfter:
		return "EvictAfter"
	case EvictNow:
		return "EvictNow"
	default:
		return "EvictionAction(invalid)"
	}
}

// TolerationDecision is the answer of EvaluateTolerations.
type TolerationDecision struct {
	// Action is evict now, evict after a delay or tolerate forever.
	Action EvictionAction
	// At is when the workload must leave: now for EvictNow, the earliest
	// toleration deadline for EvictAfter, zero for TolerateForever.
	At time.Time
	// After is At minus now for EvictAfter, and 0 otherwise.
	After time.Duration
	// Taint is the NoExecute taint that decided (the untolerated or expired
	// one, or the one whose toleration ends first). It points into the
	// taints slice given to EvaluateTolerations and is nil for
	// TolerateForever.
	Taint *corev1.Taint
	// Toleration is the toleration that matched Taint, pointing into the
	// tolerations slice; nil when Taint is untolerated or nil.
	Toleration *corev1.Toleration
	// Unstamped reports that a tolerated NoExecute taint had no TimeAdded
	// and its countdown was started at now. The countdown only advances once
	// the caller persists a TimeAdded on that taint (ComputeClusterTaints
	// stamps such taints); until then every evaluation restarts it.
	Unstamped bool
}

// EvaluateTolerations is TolerationOptions{}.Evaluate: the decision under
// the default matching rule.
func EvaluateTolerations(taints []corev1.Taint, tolerations []corev1.Toleration, now time.Time) TolerationDecision {
	return TolerationOptions{}.Evaluate(taints, tolerations, now)
}

// Evaluate decides whether a workload with the given tolerations may stay
// on a cluster with the given taints, as of now.
//
// Only NoExecute taints count; NoSchedule and PreferNoSchedule taints keep
// new workloads away but never evict. For each NoExecute taint the first
// matching toleration (corev1.Toleration.ToleratesTaint semantics) applies:
//   - no matching toleration: evict now;
//   - a toleration without tolerationSeconds: this taint is tolerated forever;
//   - tolerationSeconds <= 0: evict now;
//   - otherwise the workload must leave tolerationSeconds after the taint's
//     TimeAdded (a TimeAdded later than now is taken as now), and evict now
//     once that moment is reached.
//
// The earliest deadline over all NoExecute taints wins. A NoExecute taint
// without TimeAdded is counted from now (first sight) and the decision's
// Unstamped flag asks the caller to persist that moment, so such a taint is
// never silently tolerated forever.
//
// Evaluate does not allocate and does not keep its arguments.
func (o TolerationOptions) Evaluate(taints []corev1.Taint, tolerations []corev1.Toleration, now time.Time) TolerationDecision {
	// Work in remaining durations (one time subtraction per taint) and turn
	// the earliest into a time only once.
	var d TolerationDecision
	var earliest time.Duration
	unstamped := false
	for i := range taints {
		taint := &taints[i]
		if taint.Effect != corev1.TaintEffectNoExecute {
			continue
		}
		j := o.FirstTolerating(tolerations, taint)
		if j < 0 {
			return TolerationDecision{Action: EvictNow, At: now, Taint: taint}
		}
		tol := &tolerations[j]
		if tol.TolerationSeconds == nil {
			continue
		}
		secs := *tol.TolerationSeconds
		if secs <= 0 {
			return TolerationDecision{Action: EvictNow, At: now, Taint: taint, Toleration: tol}
		}
		var elapsed time.Duration // a missing or future TimeAdded counts as now
		if taint.TimeAdded == nil || taint.TimeAdded.IsZero() {
			unstamped = true
		} else {
			elapsed = elapsedSince(now, taint.TimeAdded.Time)
		}
		remaining := secondsToDuration(secs) - elapsed
		if remaining <= 0 {
			return TolerationDecision{Action: EvictNow, At: now, Taint: taint, Toleration: tol}
		}
		if d.Taint == nil || remaining < earliest {
			earliest, d.Taint, d.Toleration = remaining, taint, tol
		}
	}
	if d.Taint != nil {
		d.Action, d.After, d.At, d.Unstamped = EvictAfter, earliest, now.Add(earliest), unstamped
	}
	return d
}

// FirstTolerating returns the index of the first toleration that tolerates
// taint, or -1. corev1.Toleration.ToleratesTaint is the authority; the
// checks before it are its own first steps (effect, key, Exists), done
// inline because this runs for every binding of a failed cluster and most
// tolerations are ruled out or accepted by them. An Lt or Gt toleration
// with a value that is not a number matches nothing.
func (o TolerationOptions) FirstTolerating(tolerations []corev1.Toleration, taint *corev1.Taint) int {
	for j := range tolerations {
		tol := &tolerations[j]
		if tol.Effect != "" && tol.Effect != taint.Effect {
			continue
		}
		if tol.Key != "" && tol.Key != taint.Key {
			continue
		}
		if tol.Operator == corev1.TolerationOpExists || tol.ToleratesTaint(logr.Discard(), taint, o.EnableComparisonOperators) {
			return j
		}
	}
	return -1
}

// elapsedSince returns now - t, or 0 when t is not before now, saturating at
// the longest time.Duration. It is time.Time.Sub without the monotonic-clock
// and overflow handling through Add, which took a third of the evaluation:
// taint times come from the API and carry no monotonic reading.
func elapsedSince(now, t time.Time) time.Duration {
	secs := now.Unix() - t.Unix()
	if secs < 0 {
		return 0
	}
	if secs >= math.MaxInt64/int64(time.Second)-1 {
		return time.Duration(math.MaxInt64)
	}
	d := time.Duration(secs)*time.Second + time.Duration(now.Nanosecond()-t.Nanosecond())
	if d < 0 {
		return 0
	}
	return d
}

// secondsToDuration converts without overflowing: absurdly long tolerations
// become the longest time.Duration (about 292 years).
func secondsToDuration(secs int64) time.Duration {
	if secs > math.MaxInt64/int64(time.Second) {
		return time.Duration(math.MaxInt64)
	}
	return time.Duration(secs) * time.Second
}

func secondsOrDefault(v *int64) *int64 {
	s := DefaultTolerationSeconds
	if v != nil {
		s = *v
	}
	return &s
}

func orDefault(v, def string) string {
	if v == "" {
		return def
	}
	return v
}
