package conformance

import (
	"math"
	"math/rand"
	"slices"
	"testing"
	"time"

	policyv1alpha1 "github.com/karmada-io/karmada/pkg/apis/policy/v1alpha1"
	"github.com/karmada-io/karmada/pkg/util/helper"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetover/fleetover/failover"
)

var base = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// verdict is a taint-manager decision in one shape for both sides.
type verdict struct {
	action failover.EvictionAction
	after  time.Duration
}

// karmadaVerdict repeats the final decision of Karmada's taint manager
// (NoExecuteTaintManager.needEvictionWithCurrentTime, unexported): the same
// short combination of exported helpers in the same order.
func karmadaVerdict(taints []corev1.Taint, tolerations []corev1.Toleration, now time.Time) verdict {
	noExecute := helper.GetNoExecuteTaints(taints)
	if len(noExecute) == 0 {
		return verdict{action: failover.TolerateForever}
	}
	allTolerated, used := helper.GetMatchingTolerations(noExecute, tolerations)
	if !allTolerated {
		return verdict{action: failover.EvictNow}
	}
	switch d := helper.GetMinTolerationTimeWithCurrentTime(noExecute, used, now); {
	case d == 0:
		return verdict{action: failover.EvictNow}
	case d < 0:
		return verdict{action: failover.TolerateForever}
	default:
		return verdict{action: failover.EvictAfter, after: d}
	}
}

func fleetoverVerdict(taints []corev1.Taint, tolerations []corev1.Toleration, now time.Time) verdict {
	d := failover.TolerationOptions{}.Evaluate(taints, tolerations, now)
	return verdict{action: d.Action, after: d.After}
}

func genTaint(r *rand.Rand, now time.Time) corev1.Taint {
	t := corev1.Taint{
		Key:    pick(r, failover.TaintKeyClusterNotReady, failover.TaintKeyClusterUnreachable, "team"),
		Value:  pick(r, "", "", "a", "5"),
		Effect: pick(r, corev1.TaintEffectNoExecute, corev1.TaintEffectNoExecute, corev1.TaintEffectNoExecute, corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule),
	}
	switch r.Intn(10) {
	case 0: // no TimeAdded
	case 1: // in the future
		t.TimeAdded = &metav1.Time{Time: now.Add(time.Duration(r.Intn(600)) * time.Second)}
	default:
		at := now.Add(-time.Duration(r.Intn(1200)) * time.Second)
		if r.Intn(4) == 0 {
			at = at.Add(time.Duration(r.Intn(1000)) * time.Millisecond)
		}
		t.TimeAdded = &metav1.Time{Time: at}
	}
	return t
}

func genToleration(r *rand.Rand) corev1.Toleration {
	t := corev1.Toleration{
		Key:      pick(r, "", failover.TaintKeyClusterNotReady, failover.TaintKeyClusterUnreachable, "team"),
		Operator: pick(r, corev1.TolerationOpExists, corev1.TolerationOpExists, corev1.TolerationOpEqual, "", corev1.TolerationOpLt, corev1.TolerationOpGt),
		Value:    pick(r, "", "", "a", "7"),
		Effect:   pick(r, "", corev1.TaintEffectNoExecute, corev1.TaintEffectNoExecute, corev1.TaintEffectNoSchedule),
	}
	switch n := r.Intn(20); {
	case n < 6: // forever
	case n == 6:
		s := int64(math.MaxInt64/int64(time.Second)) + r.Int63n(1<<40)
		t.TolerationSeconds = &s
	default:
		s := int64(r.Intn(1300)) - 20
		t.TolerationSeconds = &s
	}
	return t
}

func genTaintsAndTolerations(r *rand.Rand, now time.Time) ([]corev1.Taint, []corev1.Toleration) {
	taints := make([]corev1.Taint, r.Intn(4))
	for i := range taints {
		taints[i] = genTaint(r, now)
	}
	tolerations := make([]corev1.Toleration, r.Intn(5))
	for i := range tolerations {
		tolerations[i] = genToleration(r)
	}
	return taints, tolerations
}

// classifyVerdict names the documented difference that explains a
// disagreement, by applying fleetover's documented rule to Karmada's input
// and checking that Karmada then agrees.
func classifyVerdict(taints []corev1.Taint, tolerations []corev1.Toleration, now time.Time, got verdict) string {
	stamped := slices.Clone(taints)
	untimed := false
	for i := range stamped {
		if stamped[i].Effect == corev1.TaintEffectNoExecute && stamped[i].TimeAdded == nil {
			stamped[i].TimeAdded = &metav1.Time{Time: now}
			untimed = true
		}
	}
	if untimed && karmadaVerdict(stamped, tolerations, now) == got {
		return "untimed-noexecute-taint"
	}
	for _, t := range tolerations {
		if t.TolerationSeconds != nil && *t.TolerationSeconds > math.MaxInt64/int64(time.Second) {
			return "huge-toleration-seconds"
		}
	}
	return "toleration-decision"
}

// TestTolerationDecisions: Karmada's taint-manager decision (its exported
// helpers GetNoExecuteTaints, GetMatchingTolerations,
// GetMinTolerationTimeWithCurrentTime) against
// failover.TolerationOptions{}.Evaluate on the same taints, tolerations and
// time.
func TestTolerationDecisions(t *testing.T) {
	r := rng(t.Name())
	ty := newTally(t)
	for range *cases {
		now := base.Add(time.Duration(r.Intn(1000)) * time.Millisecond)
		taints, tolerations := genTaintsAndTolerations(r, now)
		want := karmadaVerdict(taints, tolerations, now)
		got := fleetoverVerdict(taints, tolerations, now)
		if got == want {
			ty.agree(want.action.String())
			continue
		}
		ty.differ(classifyVerdict(taints, tolerations, now, got), "taints %v tolerations %v at %s: Karmada %v, fleetover %v",
			taints, tolerations, now, want, got)
	}
	ty.report("EvictNow", "EvictAfter", "TolerateForever")
}

// TestDefaultTolerations: Karmada's helper.AddTolerations of the default
// not-ready and unreachable tolerations against
// failover.AddDefaultClusterTolerations, compared by the lists they
// produce and by the decisions those lists give on generated taints.
func TestDefaultTolerations(t *testing.T) {
	r := rng(t.Name())
	ty := newTally(t)
	defaults := failover.DefaultClusterTolerations(failover.DefaultTolerationsConfig{})
	for range *cases {
		now := base
		taints, own := genTaintsAndTolerations(r, now)
		placement := &policyv1alpha1.Placement{ClusterTolerations: slices.Clone(own)}
		ptrs := make([]*corev1.Toleration, len(defaults))
		for i := range defaults {
			ptrs[i] = &defaults[i]
		}
		helper.AddTolerations(placement, ptrs...)
		karmadaList := placement.ClusterTolerations
		fleetoverList := failover.AddDefaultClusterTolerations(own, failover.DefaultTolerationsConfig{})

		want := karmadaVerdict(taints, karmadaList, now)
		got := fleetoverVerdict(taints, fleetoverList, now)
		if got != want {
			if id := classifyVerdict(taints, karmadaList, now, got); id != "toleration-decision" {
				ty.differ(id, "")
				continue
			}
			ty.differ("default-toleration-decision", "own %v taints %v: Karmada %v with %v, fleetover %v with %v",
				own, taints, want, karmadaList, got, fleetoverList)
			continue
		}
		switch {
		case slices.EqualFunc(karmadaList, fleetoverList, tolerationEqual):
			ty.agree("same list")
		case isCoveredSubset(fleetoverList, karmadaList, own):
			ty.differ("covered-default-toleration", "")
		default:
			ty.differ("default-toleration-list", "own %v: Karmada %v, fleetover %v", own, karmadaList, fleetoverList)
		}
	}
	ty.report("same list")
}

func tolerationEqual(a, b corev1.Toleration) bool {
	return a.MatchToleration(&b) && ((a.TolerationSeconds == nil) == (b.TolerationSeconds == nil)) &&
		(a.TolerationSeconds == nil || *a.TolerationSeconds == *b.TolerationSeconds)
}

// isCoveredSubset: fleetover's list is Karmada's without some defaults, and
// each default left out is covered by an Exists toleration of the user's
// for its key and NoExecute.
func isCoveredSubset(fleetoverList, karmadaList, own []corev1.Toleration) bool {
	if !slices.EqualFunc(fleetoverList[:len(own)], karmadaList[:len(own)], tolerationEqual) {
		return false
	}
	rest := fleetoverList[len(own):]
	for _, k := range karmadaList[len(own):] {
		if len(rest) > 0 && tolerationEqual(rest[0], k) {
			rest = rest[1:]
			continue
		}
		covered := false
		for _, o := range own {
			if o.Operator == corev1.TolerationOpExists && (o.Key == "" || o.Key == k.Key) &&
				(o.Effect == "" || o.Effect == corev1.TaintEffectNoExecute) {
				covered = true
			}
		}
		if !covered {
			return false
		}
	}
	return len(rest) == 0
}
