package failover_test

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetover/fleetover/failover"
)

// referenceEvaluate is Evaluate written plainly, without the shortcuts of
// the library's version: every match through corev1.Toleration.ToleratesTaint
// and every time through time.Time. The tests below hold the two to the
// same decision, down to which taint and toleration it points at.
func referenceEvaluate(o failover.TolerationOptions, taints []corev1.Taint, tolerations []corev1.Toleration, now time.Time) failover.TolerationDecision {
	first := func(taint *corev1.Taint) int {
		for j := range tolerations {
			if tolerations[j].ToleratesTaint(logr.Discard(), taint, o.EnableComparisonOperators) {
				return j
			}
		}
		return -1
	}
	var d failover.TolerationDecision
	var earliest time.Duration
	unstamped := false
	for i := range taints {
		if taints[i].Effect != corev1.TaintEffectNoExecute {
			continue
		}
		j := first(&taints[i])
		if j < 0 {
			return failover.TolerationDecision{Action: failover.EvictNow, At: now, Taint: &taints[i]}
		}
		tol := &tolerations[j]
		if tol.TolerationSeconds == nil {
			continue
		}
		for k := range taints {
			taint := &taints[k]
			if taint.Effect != corev1.TaintEffectNoExecute || !tol.ToleratesTaint(logr.Discard(), taint, o.EnableComparisonOperators) {
				continue
			}
			added := now
			if taint.TimeAdded == nil || taint.TimeAdded.IsZero() {
				unstamped = true
			} else {
				added = taint.TimeAdded.Time
			}
			remaining := referenceRemaining(added, *tol.TolerationSeconds, now)
			if remaining <= 0 {
				return failover.TolerationDecision{Action: failover.EvictNow, At: now, Taint: taint, Toleration: tol}
			}
			if d.Taint == nil || remaining < earliest {
				earliest, d.Taint, d.Toleration = remaining, taint, tol
			}
		}
	}
	if d.Taint != nil {
		d.Action, d.After, d.At, d.Unstamped = failover.EvictAfter, earliest, now.Add(earliest), unstamped
	}
	return d
}

// referenceRemaining is added + secs - now on Unix seconds, saturating at
// the longest and shortest durations.
func referenceRemaining(added time.Time, secs int64, now time.Time) time.Duration {
	const limit = math.MaxInt64/int64(time.Second) - 1
	diff := added.Unix() - now.Unix()
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
	return time.Duration(diff+secs)*time.Second + time.Duration(added.Nanosecond()-now.Nanosecond())
}

// randomTolerationCase builds up to 5 taints and 4 tolerations from r, over
// few keys, values and times so that matches, ties and expiries are common.
func randomTolerationCase(r *rand.Rand, now time.Time) ([]corev1.Taint, []corev1.Toleration) {
	keys := []string{"", failover.TaintKeyClusterNotReady, failover.TaintKeyClusterUnreachable, "k"}
	values := []string{"", "1", "5", "x"}
	offsets := []time.Duration{0, -time.Minute, -10 * time.Minute, time.Minute, -time.Minute - time.Millisecond, 1 << 62, -1 << 62}
	seconds := []int64{0, -1, 1, 60, 300, 3600, math.MaxInt64, math.MinInt64}
	taints := make([]corev1.Taint, r.IntN(6))
	for i := range taints {
		taints[i] = corev1.Taint{Key: keys[r.IntN(len(keys))], Value: values[r.IntN(len(values))], Effect: fuzzEffects[r.IntN(len(fuzzEffects))]}
		switch r.IntN(4) {
		case 0: // no TimeAdded
		case 1:
			taints[i].TimeAdded = &metav1.Time{}
		default:
			taints[i].TimeAdded = &metav1.Time{Time: now.Add(offsets[r.IntN(len(offsets))])}
		}
		if r.IntN(3) == 0 { // mostly NoExecute, the taints that decide
			taints[i].Effect = corev1.TaintEffectNoExecute
		}
	}
	tolerations := make([]corev1.Toleration, r.IntN(5))
	for j := range tolerations {
		tolerations[j] = corev1.Toleration{
			Key: keys[r.IntN(len(keys))], Value: values[r.IntN(len(values))],
			Operator: fuzzOperators[r.IntN(len(fuzzOperators))], Effect: fuzzEffects[r.IntN(len(fuzzEffects))],
		}
		if r.IntN(4) != 0 {
			s := seconds[r.IntN(len(seconds))]
			tolerations[j].TolerationSeconds = &s
		}
	}
	return taints, tolerations
}

func checkAgainstReference(t *testing.T, o failover.TolerationOptions, taints []corev1.Taint, tolerations []corev1.Toleration, now time.Time) {
	t.Helper()
	got := o.Evaluate(taints, tolerations, now)
	want := referenceEvaluate(o, taints, tolerations, now)
	if got.Action != want.Action || !got.At.Equal(want.At) || got.At.Location() != want.At.Location() ||
		got.After != want.After || got.Taint != want.Taint || got.Toleration != want.Toleration || got.Unstamped != want.Unstamped {
		t.Fatalf("taints %+v\ntolerations %+v\ngot  %+v\nwant %+v", taints, tolerations, got, want)
	}
}

// TestEvaluateMatchesReference: the decision, and the taint and toleration
// it points at, are the plain algorithm's on 200,000 random cases.
func TestEvaluateMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	now := time.Date(2026, 3, 1, 12, 0, 0, 500, time.UTC)
	for range 200_000 {
		taints, tolerations := randomTolerationCase(r, now)
		for _, o := range []failover.TolerationOptions{{}, {EnableComparisonOperators: true}} {
			checkAgainstReference(t, o, taints, tolerations, now)
		}
	}
}

// TestEvaluateManyTaintsMatchesReference: past 64 taints Evaluate takes
// its other path, with the same answers.
func TestEvaluateManyTaintsMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	now := time.Date(2026, 3, 1, 12, 0, 0, 500, time.UTC)
	for range 2_000 {
		var taints []corev1.Taint
		var tolerations []corev1.Toleration
		for len(taints) <= 70 {
			more, tols := randomTolerationCase(r, now)
			taints = append(taints, more...)
			if len(tolerations) < 6 {
				tolerations = append(tolerations, tols...)
			}
		}
		for _, o := range []failover.TolerationOptions{{}, {EnableComparisonOperators: true}} {
			checkAgainstReference(t, o, taints, tolerations, now)
		}
	}
}

// FuzzEvaluateMatchesReference is TestEvaluateMatchesReference driven by the
// fuzzer's seed bytes.
func FuzzEvaluateMatchesReference(f *testing.F) {
	f.Add([]byte("seed"))
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Fuzz(func(t *testing.T, seed []byte) {
		var s [16]byte
		copy(s[:], seed)
		r := rand.New(rand.NewPCG(binary.LittleEndian.Uint64(s[:8]), binary.LittleEndian.Uint64(s[8:])))
		now := time.Date(2026, 3, 1, 12, 0, 0, 500, time.UTC)
		taints, tolerations := randomTolerationCase(r, now)
		checkAgainstReference(t, failover.TolerationOptions{EnableComparisonOperators: s[0]&1 == 1}, taints, tolerations, now)
	})
}
