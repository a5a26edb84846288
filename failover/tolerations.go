package failover

import (
	"math"
	"math/bits"
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
// toleration that tolerations do not already cover. A toleration covers a
// default when it tolerates every NoExecute taint under that key, whatever
// its value: operator Exists, the same key or none, effect NoExecute or
// none. Such a policy keeps its choice (its own seconds, forever, or a
// wildcard), since the default would never be the first match. A
// toleration that only matches some values of the key (operator Equal)
// does not cover it: the default is still added, as Karmada's
// helper.AddTolerations adds it unless an identical toleration exists, so
// a not-ready taint with another value is tolerated for the default time
// rather than evicting at once. The input slice is never modified.
func AddDefaultClusterTolerations(tolerations []corev1.Toleration, cfg DefaultTolerationsConfig) []corev1.Toleration {
	defaults := DefaultClusterTolerations(cfg)
	out := make([]corev1.Toleration, len(tolerations), len(tolerations)+len(defaults))
	copy(out, tolerations)
	for _, d := range defaults {
		if !coversEveryValue(tolerations, d.Key) {
			out = append(out, d)
		}
	}
	return out
}

func coversEveryValue(tolerations []corev1.Toleration, key string) bool {
	for i := range tolerations {
		t := &tolerations[i]
		if t.Operator == corev1.TolerationOpExists && (t.Key == "" || t.Key == key) &&
			(t.Effect == "" || t.Effect == corev1.TaintEffectNoExecute) {
			return true
		}
	}
	return false
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
// on a cluster with the given taints, as of now. It decides as Karmada's
// taint manager does:
//
// Only NoExecute taints count; NoSchedule and PreferNoSchedule taints keep
// new workloads away but never evict. Every NoExecute taint needs a
// matching toleration (corev1.Toleration.ToleratesTaint semantics); the
// first match per taint is the toleration in use. Without one: evict now.
// Then every toleration in use that has tolerationSeconds counts against
// every NoExecute taint it tolerates, not only the one that selected it: a
// taint's deadline is its TimeAdded plus those seconds, so a TimeAdded in
// the future waits from that moment, and tolerationSeconds <= 0 evicts once
// TimeAdded is reached. The earliest deadline wins; once it is reached:
// evict now. Tolerations in use without tolerationSeconds tolerate forever.
//
// A NoExecute taint without TimeAdded is counted from now (first sight) and
// the decision's Unstamped flag asks the caller to persist that moment, so
// such a taint is never silently tolerated forever (Karmada skips it).
//
// Evaluate does not allocate and does not keep its arguments.
func (o TolerationOptions) Evaluate(taints []corev1.Taint, tolerations []corev1.Toleration, now time.Time) TolerationDecision {
	if len(taints) > 64 {
		return o.evaluateMany(taints, tolerations, now)
	}
	// The NoExecute taints, as a bit set: their effect is compared once,
	// and the loops below visit only them.
	var noExecute uint64
	for i := range taints {
		if taints[i].Effect == corev1.TaintEffectNoExecute {
			noExecute |= 1 << i
		}
	}
	if noExecute == 0 {
		return TolerationDecision{}
	}
	// The state lives in locals, not in a TolerationDecision: a struct of
	// six fields stays in memory, and writing it field by field then
	// returning it stalled on store forwarding. Remaining durations are
	// worked out from now's Unix seconds, read once, and turned into a time
	// only at the end.
	var (
		earliest    time.Duration
		earliestT   *corev1.Taint
		earliestTol *corev1.Toleration
		unstamped   bool
	)
	nowSec, nowNsec := now.Unix(), int64(now.Nanosecond())
	for rest := noExecute; rest != 0; rest &= rest - 1 {
		i := bits.TrailingZeros64(rest)
		j := -1
		for m := range tolerations {
			tol := &tolerations[m]
			if matchesNoExecuteKey(tol, &taints[i]) &&
				(tol.Operator == corev1.TolerationOpExists || toleratesValue(tol, &taints[i], o.EnableComparisonOperators)) {
				j = m
				break
			}
		}
		if j < 0 {
			return TolerationDecision{Action: EvictNow, At: now, Taint: &taints[i]}
		}
		tol := &tolerations[j]
		if tol.TolerationSeconds == nil {
			continue
		}
		secs := *tol.TolerationSeconds
		for others := noExecute; others != 0; others &= others - 1 {
			k := bits.TrailingZeros64(others)
			taint := &taints[k]
			if k != i && !(matchesNoExecuteKey(tol, taint) &&
				(tol.Operator == corev1.TolerationOpExists || toleratesValue(tol, taint, o.EnableComparisonOperators))) {
				continue
			}
			var remaining time.Duration
			if taint.TimeAdded == nil || taint.TimeAdded.IsZero() {
				unstamped = true // a missing TimeAdded counts as now
				remaining = remainingUntil(nowSec, nowNsec, secs, nowSec, nowNsec)
			} else {
				added := &taint.TimeAdded.Time
				remaining = remainingUntil(added.Unix(), int64(added.Nanosecond()), secs, nowSec, nowNsec)
			}
			if remaining <= 0 {
				return TolerationDecision{Action: EvictNow, At: now, Taint: taint, Toleration: tol}
			}
			if earliestT == nil || remaining < earliest {
				earliest, earliestT, earliestTol = remaining, taint, tol
			}
		}
	}
	if earliestT == nil {
		return TolerationDecision{}
	}
	return TolerationDecision{Action: EvictAfter, At: now.Add(earliest), After: earliest, Taint: earliestT, Toleration: earliestTol, Unstamped: unstamped}
}

// evaluateMany is Evaluate for more taints than a bit set holds.
func (o TolerationOptions) evaluateMany(taints []corev1.Taint, tolerations []corev1.Toleration, now time.Time) TolerationDecision {
	var (
		earliest    time.Duration
		earliestT   *corev1.Taint
		earliestTol *corev1.Toleration
		unstamped   bool
	)
	nowSec, nowNsec := now.Unix(), int64(now.Nanosecond())
	for i := range taints {
		if taints[i].Effect != corev1.TaintEffectNoExecute {
			continue
		}
		j := o.firstToleratingNoExecute(tolerations, &taints[i])
		if j < 0 {
			return TolerationDecision{Action: EvictNow, At: now, Taint: &taints[i]}
		}
		tol := &tolerations[j]
		if tol.TolerationSeconds == nil {
			continue
		}
		secs := *tol.TolerationSeconds
		for k := range taints {
			taint := &taints[k]
			if taint.Effect != corev1.TaintEffectNoExecute || (k != i && !o.toleratesNoExecute(tol, taint)) {
				continue
			}
			var remaining time.Duration
			if taint.TimeAdded == nil || taint.TimeAdded.IsZero() {
				unstamped = true // a missing TimeAdded counts as now
				remaining = remainingUntil(nowSec, nowNsec, secs, nowSec, nowNsec)
			} else {
				added := &taint.TimeAdded.Time
				remaining = remainingUntil(added.Unix(), int64(added.Nanosecond()), secs, nowSec, nowNsec)
			}
			if remaining <= 0 {
				return TolerationDecision{Action: EvictNow, At: now, Taint: taint, Toleration: tol}
			}
			if earliestT == nil || remaining < earliest {
				earliest, earliestT, earliestTol = remaining, taint, tol
			}
		}
	}
	if earliestT == nil {
		return TolerationDecision{}
	}
	return TolerationDecision{Action: EvictAfter, At: now.Add(earliest), After: earliest, Taint: earliestT, Toleration: earliestTol, Unstamped: unstamped}
}

// FirstTolerating returns the index of the first toleration that tolerates
// taint, or -1. An Lt or Gt toleration with a value that is not a number
// matches nothing.
func (o TolerationOptions) FirstTolerating(tolerations []corev1.Toleration, taint *corev1.Taint) int {
	for j := range tolerations {
		if o.tolerates(&tolerations[j], taint) {
			return j
		}
	}
	return -1
}

// tolerates is corev1.Toleration.ToleratesTaint, the authority; the checks
// before it are its own first steps (effect, key, Exists), done inline
// because this runs for every binding of a failed cluster and most
// tolerations are ruled out or accepted by them.
func (o TolerationOptions) tolerates(tol *corev1.Toleration, taint *corev1.Taint) bool {
	return (len(tol.Effect) == 0 || tol.Effect == taint.Effect) &&
		(len(tol.Key) == 0 || tol.Key == taint.Key) &&
		(tol.Operator == corev1.TolerationOpExists || toleratesValue(tol, taint, o.EnableComparisonOperators))
}

// firstToleratingNoExecute is FirstTolerating for a taint known to be
// NoExecute.
func (o TolerationOptions) firstToleratingNoExecute(tolerations []corev1.Toleration, taint *corev1.Taint) int {
	for j := range tolerations {
		tol := &tolerations[j]
		if matchesNoExecuteKey(tol, taint) &&
			(tol.Operator == corev1.TolerationOpExists || toleratesValue(tol, taint, o.EnableComparisonOperators)) {
			return j
		}
	}
	return -1
}

// toleratesNoExecute is tolerates for a taint known to be NoExecute.
func (o TolerationOptions) toleratesNoExecute(tol *corev1.Toleration, taint *corev1.Taint) bool {
	return matchesNoExecuteKey(tol, taint) &&
		(tol.Operator == corev1.TolerationOpExists || toleratesValue(tol, taint, o.EnableComparisonOperators))
}

// matchesNoExecuteKey is the effect and key steps of tolerates for a taint
// known to be NoExecute: the effect is compared with a constant, which the
// compiler does inline, and the whole stays small enough to inline.
func matchesNoExecuteKey(tol *corev1.Toleration, taint *corev1.Taint) bool {
	return (len(tol.Effect) == 0 || tol.Effect == corev1.TaintEffectNoExecute) &&
		(len(tol.Key) == 0 || tol.Key == taint.Key)
}

// toleratesValue is the rest of corev1.Toleration.ToleratesTaint (Equal,
// Lt, Gt, unknown operators), out of line so that the checks before it
// inline.
//
//go:noinline
func toleratesValue(tol *corev1.Toleration, taint *corev1.Taint, enableComparisonOperators bool) bool {
	return tol.ToleratesTaint(logr.Discard(), taint, enableComparisonOperators)
}

// remainingUntil returns added + secs - now, saturating at the longest and
// shortest time.Duration, with both times as Unix seconds and nanoseconds.
// It works on those rather than through time.Time.Sub and Add, which took a
// third of the evaluation: taint times come from the API and carry no
// monotonic reading.
func remainingUntil(addedSec, addedNsec, secs, nowSec, nowNsec int64) time.Duration {
	const limit = math.MaxInt64/int64(time.Second) - 1
	diff := addedSec - nowSec
	switch {
	case secs > 0 && diff > math.MaxInt64-secs:
		return time.Duration(math.MaxInt64)
	case secs < 0 && diff < math.MinInt64-secs:
		return time.Duration(math.MinInt64)
	case diff+secs > limit:
		return time.Duration(math.MaxInt64)
	case diff+secs < -limit:
		return time.Duration(math.MinInt64)
	}
	return time.Duration(diff+secs)*time.Second + time.Duration(addedNsec-nowNsec)
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
