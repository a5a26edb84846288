package failover

import (
	"errors"
	"fmt"
	"sort"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fleetover/fleetover/eviction"
)

// Taint keys of the cluster-health taints, the ones Karmada uses.
const (
	// TaintKeyClusterNotReady is put on a cluster whose Ready condition is False.
	TaintKeyClusterNotReady = "cluster.karmada.io/not-ready"
	// TaintKeyClusterUnreachable is put on a cluster whose Ready condition is Unknown.
	TaintKeyClusterUnreachable = "cluster.karmada.io/unreachable"
)

// DefaultEvictionTimeout is how long a cluster stays not Ready before the
// NoExecute health taint is added, when ClusterTaintConfig.NoExecuteAfterTimeout is on.
const DefaultEvictionTimeout = 5 * time.Minute

// ErrMissingTransitionTime is returned by ComputeClusterTaints when the
// NoExecute timeout must be counted from a Ready condition that has no
// LastTransitionTime. The NoExecute taint is then not added (counting from an
// unknown moment could evict at once or never); the rest of the diff applies.
var ErrMissingTransitionTime = errors.New("ready condition has no lastTransitionTime")

// ClusterTaintConfig says which taints a cluster carries for its conditions.
// The zero value is today's Karmada: NoSchedule health taints under the
// Karmada keys, no automatic NoExecute, no policies.
type ClusterTaintConfig struct {
	// NotReadyTaintKey defaults to TaintKeyClusterNotReady.
	NotReadyTaintKey string
	// UnreachableTaintKey defaults to TaintKeyClusterUnreachable.
	UnreachableTaintKey string
	// NoExecuteAfterTimeout turns on the failover overview's timed
	// eviction: the health taint is also added with effect NoExecute once
	// the Ready condition has been False or Unknown for EvictionTimeout. Off,
	// the health taints are NoSchedule only and evictions come from
	// NoExecute taints that users or Policies add.
	NoExecuteAfterTimeout bool
	// EvictionTimeout defaults to DefaultEvictionTimeout; negative and more
	// than eviction.MaxDuration are invalid. It counts from the
	// first moment the cluster stopped being Ready, as the health taint's
	// TimeAdded records it across flips between False and Unknown.
	EvictionTimeout time.Duration
	// Policies add and remove taints on condition matches. They are applied
	// after the health taints, in the order of their Name (then their
	// position), one after the other on the taint list as it stands: a later
	// policy's removal undoes an earlier add, an add after a removal puts a
	// new taint (stamped now) at the end, and an add of a key and effect
	// that is already there changes nothing. Unlike Karmada, a taint removed
	// and added back with the same value stays as it was (its TimeAdded
	// kept), so the result is a fixed point. Karmada orders its
	// ClusterTaintPolicies by creation time; give converted policies names
	// that sort the same way to get its order.
	Policies []ConditionTaintPolicy
}

// ConditionTaintPolicy adds Taints when every AddOnConditions match holds and
// then removes them when every RemoveOnConditions match holds, as Karmada's
// ClusterTaintPolicy does: when both hold, the taints end up removed. When
// neither does, the taints stay as they are. A taint is identified by key
// and effect: one already on the cluster with another value is kept as it
// is.
type ConditionTaintPolicy struct {
	// Name orders the policies.
	Name string
	// AddOnConditions must be non-empty; all must match to add.
	AddOnConditions []ConditionMatch
	// RemoveOnConditions, when non-empty and all matching, remove Taints.
	RemoveOnConditions []ConditionMatch
	// Taints are identified by key and effect; TimeAdded is ignored and set
	// by ComputeClusterTaints when a taint is added.
	Taints []corev1.Taint
}

// MatchOperator compares a condition's status with a list of values.
type MatchOperator string

const (
	// MatchIn matches when the condition's status is one of the values.
	MatchIn MatchOperator = "In"
	// MatchNotIn matches when the condition's status is none of the values.
	MatchNotIn MatchOperator = "NotIn"
)

// ConditionMatch tests one condition of the cluster. A condition the cluster
// does not report never matches, whatever the operator: nothing is known, so
// nothing changes.
type ConditionMatch struct {
	// ConditionType names the cluster condition, for example "Ready".
	ConditionType string
	// Operator is In or NotIn.
	Operator MatchOperator
	// StatusValues are compared with the condition's status.
	StatusValues []metav1.ConditionStatus
}

// Matches reports whether m holds for conditions.
func (m ConditionMatch) Matches(conditions []metav1.Condition) bool {
	c := meta.FindStatusCondition(conditions, m.ConditionType)
	if c == nil {
		return false
	}
	in := false
	for _, v := range m.StatusValues {
		if c.Status == v {
			in = true
			break
		}
	}
	switch m.Operator {
	case MatchIn:
		return in
	case MatchNotIn:
		return !in
	default:
		return false
	}
}

func allMatch(matches []ConditionMatch, conditions []metav1.Condition) bool {
	if len(matches) == 0 {
		return false
	}
	for _, m := range matches {
		if !m.Matches(conditions) {
			return false
		}
	}
	return true
}

// ValidateClusterTaintConfig checks cfg as a controller would at start-up:
// taint keys are qualified names, the timeout is not negative, and every
// policy has a unique name, at least one add-on condition, valid operators
// and statuses, and valid taints without duplicates.
func ValidateClusterTaintConfig(cfg ClusterTaintConfig, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateTaintKey(cfg.NotReadyTaintKey, fldPath.Child("notReadyTaintKey"), true)...)
	errs = append(errs, validateTaintKey(cfg.UnreachableTaintKey, fldPath.Child("unreachableTaintKey"), true)...)
	if cfg.NotReadyTaintKey != "" && cfg.NotReadyTaintKey == cfg.UnreachableTaintKey {
		errs = append(errs, field.Duplicate(fldPath.Child("unreachableTaintKey"), cfg.UnreachableTaintKey))
	}
	errs = append(errs, eviction.ValidateDuration(cfg.EvictionTimeout, fldPath.Child("evictionTimeout"))...)
	names := sets.New[string]()
	for i, p := range cfg.Policies {
		pPath := fldPath.Child("policies").Index(i)
		if p.Name == "" {
			errs = append(errs, field.Required(pPath.Child("name"), "a name orders the policies"))
		} else if names.Has(p.Name) {
			errs = append(errs, field.Duplicate(pPath.Child("name"), p.Name))
		}
		names.Insert(p.Name)
		if len(p.AddOnConditions) == 0 {
			errs = append(errs, field.Required(pPath.Child("addOnConditions"), "at least one condition match is required"))
		}
		errs = append(errs, validateMatches(p.AddOnConditions, pPath.Child("addOnConditions"))...)
		errs = append(errs, validateMatches(p.RemoveOnConditions, pPath.Child("removeOnConditions"))...)
		if len(p.Taints) == 0 {
			errs = append(errs, field.Required(pPath.Child("taints"), "at least one taint is required"))
		}
		seen := sets.New[string]()
		for j, t := range p.Taints {
			tPath := pPath.Child("taints").Index(j)
			errs = append(errs, validateTaintKey(t.Key, tPath.Child("key"), false)...)
			for _, msg := range validation.IsValidLabelValue(t.Value) {
				errs = append(errs, field.Invalid(tPath.Child("value"), t.Value, msg))
			}
			switch t.Effect {
			case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
			default:
				errs = append(errs, field.NotSupported(tPath.Child("effect"), t.Effect,
					[]corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute}))
			}
			id := t.Key + ":" + string(t.Effect)
			if seen.Has(id) {
				errs = append(errs, field.Duplicate(tPath, id))
			}
			seen.Insert(id)
		}
	}
	return errs
}

func validateTaintKey(key string, fldPath *field.Path, emptyOK bool) field.ErrorList {
	if key == "" {
		if emptyOK {
			return nil
		}
		return field.ErrorList{field.Required(fldPath, "")}
	}
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(key) {
		errs = append(errs, field.Invalid(fldPath, key, msg))
	}
	return errs
}

func validateMatches(matches []ConditionMatch, fldPath *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, m := range matches {
		mPath := fldPath.Index(i)
		if m.ConditionType == "" {
			errs = append(errs, field.Required(mPath.Child("conditionType"), ""))
		}
		if m.Operator != MatchIn && m.Operator != MatchNotIn {
			errs = append(errs, field.NotSupported(mPath.Child("operator"), m.Operator, []MatchOperator{MatchIn, MatchNotIn}))
		}
		if len(m.StatusValues) == 0 {
			errs = append(errs, field.Required(mPath.Child("statusValues"), ""))
		}
		for j, v := range m.StatusValues {
			if v != metav1.ConditionTrue && v != metav1.ConditionFalse && v != metav1.ConditionUnknown {
				errs = append(errs, field.NotSupported(mPath.Child("statusValues").Index(j), v,
					[]metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown}))
			}
		}
	}
	return errs
}

// ClusterTaintDiff is the change ComputeClusterTaints asks for. Apply it by
// writing Result to the cluster's spec.taints with optimistic locking (the
// resourceVersion the current taints were read at), and only when Changed.
type ClusterTaintDiff struct {
	// ToAdd are the taints that are new, each with its TimeAdded set.
	ToAdd []corev1.Taint
	// ToRemove are current taints that go.
	ToRemove []corev1.Taint
	// Result is the complete new taint list: current taints in their order
	// (existing TimeAdded kept) without ToRemove, then ToAdd.
	Result []corev1.Taint
	// Stamped are kept NoExecute taints that had no TimeAdded and got now,
	// so toleration countdowns on them start and persist.
	Stamped []corev1.Taint
	// Changed reports whether Result differs from the current taints.
	Changed bool
	// NextCheck is when the taints will change without any new input (the
	// NoExecute timeout); zero when nothing is scheduled.
	NextCheck time.Time
}

type taintOp struct {
	taint corev1.Taint
	add   bool
	// fresh: the add follows a removal of the same key and effect, so a
	// taint already there is replaced by a new one.
	fresh bool
}

// ComputeClusterTaints returns the taints a cluster should carry given its
// conditions, its current taints and now. It is a pure function.
//
// Health taints follow the Ready condition: False puts the not-ready taint
// with effect NoSchedule, Unknown the unreachable one; only one of the two is
// kept; both go when Ready is True. A cluster with no Ready condition yet
// gets the not-ready NoSchedule taint, as in Karmada, so nothing is placed
// on it before its health is known. A taint already present under the same
// key and effect is kept as it is, whatever its value. When Ready moves between False and Unknown the health
// taints swap keys with their TimeAdded carried over, so the NoSchedule
// taint's TimeAdded is the first moment the cluster stopped being Ready,
// across any number of flips between not-ready states, and it is persisted
// on the cluster. With NoExecuteAfterTimeout the same key is also added with
// effect NoExecute once now reaches that moment (or the Ready condition's
// LastTransitionTime, if earlier or no taint records it) + EvictionTimeout,
// not a nanosecond earlier: a cluster flapping between False and Unknown
// fails over within its timeout, and a restart changes nothing. Without that
// mode, NoExecute taints under the health keys belong to users and policies
// and are left alone.
//
// Then Policies apply. Every new taint gets TimeAdded = now, as Karmada
// stamps the taints it adds; kept NoExecute taints that lack one get it too
// (their countdown starts and persists); existing TimeAdded values are kept.
//
// The error is ErrMissingTransitionTime (wrapped) when the NoExecute timeout
// cannot be counted; the diff is still returned and usable.
func ComputeClusterTaints(cfg ClusterTaintConfig, conditions []metav1.Condition, current []corev1.Taint, now time.Time) (ClusterTaintDiff, error) {
	if len(current) == 0 && healthyWithNothingToAdd(cfg, conditions) {
		// The steady state of almost every cluster: nothing to remove,
		// nothing to add, and no allocation to find that out.
		return ClusterTaintDiff{}, nil
	}
	var ops taintOps
	var diff ClusterTaintDiff
	var err error

	notReady := orDefault(cfg.NotReadyTaintKey, TaintKeyClusterNotReady)
	unreachable := orDefault(cfg.UnreachableTaintKey, TaintKeyClusterUnreachable)
	timeout := cfg.EvictionTimeout
	if timeout <= 0 {
		timeout = DefaultEvictionTimeout
	}
	ready := meta.FindStatusCondition(conditions, ConditionTypeReady)
	if ready == nil {
		// Nothing is known yet (a cluster just joined): keep new workloads
		// away, as Karmada's cluster controller does.
		ops.op(notReady, "", corev1.TaintEffectNoSchedule, true, nil)
	} else {
		switch ready.Status {
		case metav1.ConditionTrue:
			ops.op(notReady, "", corev1.TaintEffectNoSchedule, false, nil)
			ops.op(unreachable, "", corev1.TaintEffectNoSchedule, false, nil)
			if cfg.NoExecuteAfterTimeout {
				ops.op(notReady, "", corev1.TaintEffectNoExecute, false, nil)
				ops.op(unreachable, "", corev1.TaintEffectNoExecute, false, nil)
			}
		case metav1.ConditionFalse, metav1.ConditionUnknown:
			own, other := notReady, unreachable
			if ready.Status == metav1.ConditionUnknown {
				own, other = unreachable, notReady
			}
			// The not-ready moment is persisted on the health taint itself
			// (its TimeAdded), carried over when the key swaps: a cluster
			// flipping between False and Unknown moves its condition's
			// lastTransitionTime at every flip, but not this.
			since := ready.LastTransitionTime.Time
			var carried *metav1.Time
			for _, key := range []string{own, other} {
				if i := findTaint(current, key, corev1.TaintEffectNoSchedule); i >= 0 {
					if ta := current[i].TimeAdded; ta != nil && !ta.IsZero() {
						if carried == nil || ta.Before(carried) {
							carried = ta
						}
						if since.IsZero() || ta.Before(&metav1.Time{Time: since}) {
							since = ta.Time
						}
					}
				}
			}
			ops.op(own, "", corev1.TaintEffectNoSchedule, true, carried.DeepCopy())
			ops.op(other, "", corev1.TaintEffectNoSchedule, false, nil)
			if cfg.NoExecuteAfterTimeout {
				if prev := findTaint(current, other, corev1.TaintEffectNoExecute); prev >= 0 {
					ops.op(own, "", corev1.TaintEffectNoExecute, true, current[prev].TimeAdded.DeepCopy())
					ops.op(other, "", corev1.TaintEffectNoExecute, false, nil)
				} else if since.IsZero() {
					err = fmt.Errorf("%w: NoExecute taint %s not added", ErrMissingTransitionTime, own)
				} else if due := since.Add(timeout); !now.Before(due) {
					ops.op(own, "", corev1.TaintEffectNoExecute, true, nil)
				} else {
					diff.NextCheck = due
				}
			}
		}
	}
	ops.policies(cfg.Policies, conditions)
	ops.apply(&diff, current, now)
	return diff, err
}

// ComputePolicyTaints returns the taints a cluster should carry under
// policies alone: the part of ComputeClusterTaints that Policies drive,
// for a controller that leaves the health taints to another one (as
// Karmada's ClusterTaintPolicy controller leaves them to its cluster
// controller). Every other taint is kept as it is; the diff follows the
// rules of ComputeClusterTaints (order by Name, TimeAdded = now on new
// taints and on kept NoExecute taints without one, existing TimeAdded
// kept, a taint removed and added back unchanged kept as it was). It is a
// pure function.
func ComputePolicyTaints(policies []ConditionTaintPolicy, conditions []metav1.Condition, current []corev1.Taint, now time.Time) ClusterTaintDiff {
	var ops taintOps
	ops.policies(policies, conditions)
	var diff ClusterTaintDiff
	if len(ops) == 0 && !missingTimeAdded(current) {
		return diff
	}
	ops.apply(&diff, current, now)
	return diff
}

// taintOps are the net decisions on a cluster's taints, one per key and
// effect, in the order they were decided.
type taintOps []taintOp

// op records the net effect of the decisions on one key and effect, as if
// each were applied to the taint list in turn (as Karmada's controllers
// do): an add after an add changes nothing (the taint is there by then);
// an add after a removal puts a new taint at the end; a removal undoes
// anything before it.
func (ops *taintOps) op(key, value string, effect corev1.TaintEffect, add bool, timeAdded *metav1.Time) {
	t := corev1.Taint{Key: key, Value: value, Effect: effect, TimeAdded: timeAdded}
	for i := range *ops {
		if (*ops)[i].taint.Key == key && (*ops)[i].taint.Effect == effect {
			if add && (*ops)[i].add {
				return
			}
			*ops = append((*ops)[:i], (*ops)[i+1:]...)
			*ops = append(*ops, taintOp{taint: t, add: add, fresh: add})
			return
		}
	}
	*ops = append(*ops, taintOp{taint: t, add: add})
}

// policies records what the policies decide for conditions, in the order
// of their names.
func (ops *taintOps) policies(policies []ConditionTaintPolicy, conditions []metav1.Condition) {
	order := make([]int, len(policies))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return policies[order[a]].Name < policies[order[b]].Name })
	for _, i := range order {
		p := &policies[i]
		if allMatch(p.AddOnConditions, conditions) {
			for _, t := range p.Taints {
				ops.op(t.Key, t.Value, t.Effect, true, nil)
			}
		}
		if allMatch(p.RemoveOnConditions, conditions) {
			for _, t := range p.Taints {
				ops.op(t.Key, t.Value, t.Effect, false, nil)
			}
		}
	}
}

// apply fills diff with the result of ops on current.
func (ops taintOps) apply(diff *ClusterTaintDiff, current []corev1.Taint, now time.Time) {
	nowT := metav1.NewTime(now)
	result := make([]corev1.Taint, 0, len(current)+len(ops))
	for i := range current {
		result = append(result, *current[i].DeepCopy())
	}
	for _, o := range ops {
		idx := findTaint(result, o.taint.Key, o.taint.Effect)
		if o.fresh && idx >= 0 && result[idx].Value == o.taint.Value {
			// Removed and added back unchanged: keep the taint and its
			// TimeAdded, so a pair of conflicting policies does not
			// restart toleration countdowns at every look.
			continue
		}
		if idx >= 0 && (!o.add || o.fresh) {
			diff.ToRemove = append(diff.ToRemove, result[idx])
			result = append(result[:idx], result[idx+1:]...)
		}
		if o.add && (idx < 0 || o.fresh) {
			t := o.taint
			if t.TimeAdded == nil {
				t.TimeAdded = nowT.DeepCopy()
			}
			diff.ToAdd = append(diff.ToAdd, t)
		}
	}
	for i := range result {
		if result[i].Effect == corev1.TaintEffectNoExecute && (result[i].TimeAdded == nil || result[i].TimeAdded.IsZero()) {
			result[i].TimeAdded = nowT.DeepCopy()
			diff.Stamped = append(diff.Stamped, result[i])
		}
	}
	for _, t := range diff.ToAdd {
		result = append(result, *t.DeepCopy())
	}
	diff.Result = result
	diff.Changed = len(diff.ToAdd)+len(diff.ToRemove)+len(diff.Stamped) > 0
}

// missingTimeAdded reports whether a NoExecute taint lacks its TimeAdded.
func missingTimeAdded(taints []corev1.Taint) bool {
	for i := range taints {
		if taints[i].Effect == corev1.TaintEffectNoExecute && (taints[i].TimeAdded == nil || taints[i].TimeAdded.IsZero()) {
			return true
		}
	}
	return false
}

// healthyWithNothingToAdd reports that the cluster is Ready and no policy
// adds a taint for its conditions.
func healthyWithNothingToAdd(cfg ClusterTaintConfig, conditions []metav1.Condition) bool {
	ready := meta.FindStatusCondition(conditions, ConditionTypeReady)
	if ready == nil || ready.Status != metav1.ConditionTrue {
		return false
	}
	for i := range cfg.Policies {
		if allMatch(cfg.Policies[i].AddOnConditions, conditions) {
			return false
		}
	}
	return true
}

func findTaint(taints []corev1.Taint, key string, effect corev1.TaintEffect) int {
	for i := range taints {
		if taints[i].Key == key && taints[i].Effect == effect {
			return i
		}
	}
	return -1
}
