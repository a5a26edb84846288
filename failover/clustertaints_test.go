package failover_test

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fleetover/fleetover/failover"
)

var taintNow = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func readyCond(status metav1.ConditionStatus, since time.Time) metav1.Condition {
	return metav1.Condition{Type: failover.ConditionTypeReady, Status: status, Reason: "r", LastTransitionTime: metav1.NewTime(since)}
}

func ns(key string) corev1.Taint { return corev1.Taint{Key: key, Effect: corev1.TaintEffectNoSchedule} }

func noSchedule(key string, at time.Time) corev1.Taint {
	return corev1.Taint{Key: key, Effect: corev1.TaintEffectNoSchedule, TimeAdded: &metav1.Time{Time: at}}
}

// taintIDs renders taints as key:effect[@timeAdded-offset-from-taintNow].
func taintIDs(taints []corev1.Taint) []string {
	var out []string
	for _, t := range taints {
		id := t.Key + "=" + t.Value + ":" + string(t.Effect)
		if t.TimeAdded != nil {
			id += "@" + t.TimeAdded.Sub(taintNow).String()
		}
		out = append(out, id)
	}
	return out
}

func TestComputeClusterTaints(t *testing.T) {
	const nr, ur = failover.TaintKeyClusterNotReady, failover.TaintKeyClusterUnreachable
	legacy := failover.ClusterTaintConfig{NoExecuteAfterTimeout: true}
	userTaint := corev1.Taint{Key: "team", Value: "a", Effect: corev1.TaintEffectNoSchedule}
	cases := []struct {
		name       string
		cfg        failover.ClusterTaintConfig
		conds      []metav1.Condition
		current    []corev1.Taint
		wantResult []string
		wantAdd    []string
		wantRemove []string
		wantNext   time.Duration // offset from taintNow, 0 = none
		wantErr    error
	}{
		{name: "no Ready condition: a not-ready NoSchedule taint is kept",
			current: []corev1.Taint{ns(nr)}, wantResult: []string{nr + "=:NoSchedule"}},
		{name: "no Ready condition: a new cluster gets the not-ready NoSchedule taint, as Karmada",
			current:    []corev1.Taint{ns(ur)},
			wantResult: []string{ur + "=:NoSchedule", nr + "=:NoSchedule@0s"},
			wantAdd:    []string{nr + "=:NoSchedule@0s"}},
		{name: "Ready True removes health taints and keeps others in order",
			conds:      []metav1.Condition{readyCond(metav1.ConditionTrue, taintNow)},
			current:    []corev1.Taint{ns(ur), userTaint, ns(nr)},
			wantResult: []string{"team=a:NoSchedule"},
			wantRemove: []string{nr + "=:NoSchedule", ur + "=:NoSchedule"}},
		{name: "Ready False adds not-ready NoSchedule and drops unreachable",
			conds:      []metav1.Condition{readyCond(metav1.ConditionFalse, taintNow.Add(-time.Hour))},
			current:    []corev1.Taint{ns(ur)},
			wantResult: []string{nr + "=:NoSchedule@0s"},
			wantAdd:    []string{nr + "=:NoSchedule@0s"}, wantRemove: []string{ur + "=:NoSchedule"}},
		{name: "Ready Unknown adds unreachable NoSchedule and drops not-ready",
			conds:      []metav1.Condition{readyCond(metav1.ConditionUnknown, taintNow)},
			current:    []corev1.Taint{ns(nr)},
			wantResult: []string{ur + "=:NoSchedule@0s"},
			wantAdd:    []string{ur + "=:NoSchedule@0s"}, wantRemove: []string{nr + "=:NoSchedule"}},
		{name: "default mode never adds NoExecute and leaves the user's alone",
			conds:      []metav1.Condition{readyCond(metav1.ConditionFalse, taintNow.Add(-time.Hour))},
			current:    []corev1.Taint{noExecute(nr, taintNow.Add(-time.Minute))},
			wantResult: []string{nr + "=:NoExecute@-1m0s", nr + "=:NoSchedule@0s"},
			wantAdd:    []string{nr + "=:NoSchedule@0s"}},
		{name: "default mode: Ready True keeps the user's NoExecute (their policy removes it)",
			conds:      []metav1.Condition{readyCond(metav1.ConditionTrue, taintNow)},
			current:    []corev1.Taint{noExecute(nr, taintNow.Add(-time.Minute))},
			wantResult: []string{nr + "=:NoExecute@-1m0s"}},
		{name: "legacy: 1ns before the eviction timeout, no NoExecute yet",
			cfg:        legacy,
			conds:      []metav1.Condition{readyCond(metav1.ConditionFalse, taintNow.Add(-5*time.Minute+time.Nanosecond))},
			current:    []corev1.Taint{ns(nr)},
			wantResult: []string{nr + "=:NoSchedule"},
			wantNext:   time.Nanosecond},
		{name: "legacy: exactly at the eviction timeout, NoExecute stamped now",
			cfg:        legacy,
			conds:      []metav1.Condition{readyCond(metav1.ConditionFalse, taintNow.Add(-5*time.Minute))},
			current:    []corev1.Taint{ns(nr)},
			wantResult: []string{nr + "=:NoSchedule", nr + "=:NoExecute@0s"},
			wantAdd:    []string{nr + "=:NoExecute@0s"}},
		{name: "legacy: custom timeout and keys",
			cfg: failover.ClusterTaintConfig{NoExecuteAfterTimeout: true, EvictionTimeout: time.Minute,
				NotReadyTaintKey: "example.com/down", UnreachableTaintKey: "example.com/gone"},
			conds:      []metav1.Condition{readyCond(metav1.ConditionUnknown, taintNow.Add(-2*time.Minute))},
			current:    []corev1.Taint{ns("example.com/down")},
			wantResult: []string{"example.com/gone=:NoSchedule@0s", "example.com/gone=:NoExecute@0s"},
			wantAdd:    []string{"example.com/gone=:NoSchedule@0s", "example.com/gone=:NoExecute@0s"},
			wantRemove: []string{"example.com/down=:NoSchedule"}},
		{name: "legacy: existing NoExecute keeps its TimeAdded",
			cfg:        legacy,
			conds:      []metav1.Condition{readyCond(metav1.ConditionFalse, taintNow.Add(-time.Hour))},
			current:    []corev1.Taint{ns(nr), noExecute(nr, taintNow.Add(-30*time.Minute))},
			wantResult: []string{nr + "=:NoSchedule", nr + "=:NoExecute@-30m0s"}},
		{name: "legacy: False to Unknown swaps the NoExecute at once, carrying TimeAdded",
			cfg:        legacy,
			conds:      []metav1.Condition{readyCond(metav1.ConditionUnknown, taintNow)},
			current:    []corev1.Taint{ns(nr), noExecute(nr, taintNow.Add(-7*time.Minute))},
			wantResult: []string{ur + "=:NoSchedule@0s", ur + "=:NoExecute@-7m0s"},
			wantAdd:    []string{ur + "=:NoSchedule@0s", ur + "=:NoExecute@-7m0s"},
			wantRemove: []string{nr + "=:NoSchedule", nr + "=:NoExecute@-7m0s"}},
		{name: "legacy: Ready True removes NoExecute too",
			cfg:        legacy,
			conds:      []metav1.Condition{readyCond(metav1.ConditionTrue, taintNow)},
			current:    []corev1.Taint{ns(ur), noExecute(ur, taintNow.Add(-time.Minute))},
			wantResult: nil,
			wantRemove: []string{ur + "=:NoSchedule", ur + "=:NoExecute@-1m0s"}},
		{name: "legacy: missing LastTransitionTime is an error, NoSchedule still applied",
			cfg:        legacy,
			conds:      []metav1.Condition{{Type: failover.ConditionTypeReady, Status: metav1.ConditionFalse}},
			wantResult: []string{nr + "=:NoSchedule@0s"},
			wantAdd:    []string{nr + "=:NoSchedule@0s"},
			wantErr:    failover.ErrMissingTransitionTime},
		{name: "False to Unknown carries the NoSchedule taint's TimeAdded",
			conds:      []metav1.Condition{readyCond(metav1.ConditionUnknown, taintNow)},
			current:    []corev1.Taint{noSchedule(nr, taintNow.Add(-3*time.Minute))},
			wantResult: []string{ur + "=:NoSchedule@-3m0s"},
			wantAdd:    []string{ur + "=:NoSchedule@-3m0s"}, wantRemove: []string{nr + "=:NoSchedule@-3m0s"}},
		{name: "legacy: a flapping cluster counts from its first not-ready moment",
			cfg:        legacy,
			conds:      []metav1.Condition{readyCond(metav1.ConditionFalse, taintNow.Add(-30*time.Second))},
			current:    []corev1.Taint{noSchedule(ur, taintNow.Add(-5*time.Minute))},
			wantResult: []string{nr + "=:NoSchedule@-5m0s", nr + "=:NoExecute@0s"},
			wantAdd:    []string{nr + "=:NoSchedule@-5m0s", nr + "=:NoExecute@0s"}, wantRemove: []string{ur + "=:NoSchedule@-5m0s"}},
		{name: "legacy: a flapping cluster not yet at its timeout waits for the first moment's deadline",
			cfg:        legacy,
			conds:      []metav1.Condition{readyCond(metav1.ConditionUnknown, taintNow)},
			current:    []corev1.Taint{noSchedule(nr, taintNow.Add(-4*time.Minute))},
			wantResult: []string{ur + "=:NoSchedule@-4m0s"},
			wantAdd:    []string{ur + "=:NoSchedule@-4m0s"}, wantRemove: []string{nr + "=:NoSchedule@-4m0s"},
			wantNext: time.Minute},
		{name: "NoExecute without TimeAdded gets stamped",
			conds:      []metav1.Condition{readyCond(metav1.ConditionTrue, taintNow)},
			current:    []corev1.Taint{{Key: "maintenance", Effect: corev1.TaintEffectNoExecute}},
			wantResult: []string{"maintenance=:NoExecute@0s"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := make([]corev1.Taint, len(tc.current))
			for i := range tc.current {
				before[i] = *tc.current[i].DeepCopy()
			}
			diff, err := failover.ComputeClusterTaints(tc.cfg, tc.conds, tc.current, taintNow)
			if !errors.Is(err, tc.wantErr) || (err == nil) != (tc.wantErr == nil) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			if d := cmp.Diff(tc.wantResult, taintIDs(diff.Result)); d != "" {
				t.Errorf("Result (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.wantAdd, taintIDs(diff.ToAdd)); d != "" {
				t.Errorf("ToAdd (-want +got):\n%s", d)
			}
			if d := cmp.Diff(tc.wantRemove, taintIDs(diff.ToRemove)); d != "" {
				t.Errorf("ToRemove (-want +got):\n%s", d)
			}
			wantNext := time.Time{}
			if tc.wantNext != 0 {
				wantNext = taintNow.Add(tc.wantNext)
			}
			if !diff.NextCheck.Equal(wantNext) {
				t.Errorf("NextCheck = %v, want %v", diff.NextCheck, wantNext)
			}
			if want := !cmp.Equal(taintIDs(before), taintIDs(diff.Result)); diff.Changed != want {
				t.Errorf("Changed = %v, want %v", diff.Changed, want)
			}
			if d := cmp.Diff(before, tc.current, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("input modified (-before +after):\n%s", d)
			}
		})
	}
}

func TestComputeClusterTaintsNoExecuteTimeline(t *testing.T) {
	// Walk the clock over the eviction timeout: the NoExecute taint must be
	// absent at every instant before LastTransitionTime + 5 min and present
	// from that instant on; NextCheck names that instant while it is pending.
	ltt := taintNow
	cfg := failover.ClusterTaintConfig{NoExecuteAfterTimeout: true}
	conds := []metav1.Condition{readyCond(metav1.ConditionFalse, ltt)}
	due := ltt.Add(failover.DefaultEvictionTimeout)
	for _, now := range []time.Time{ltt, ltt.Add(time.Minute), due.Add(-time.Second), due.Add(-time.Nanosecond), due, due.Add(time.Hour)} {
		diff, err := failover.ComputeClusterTaints(cfg, conds, nil, now)
		if err != nil {
			t.Fatal(err)
		}
		hasNoExecute := false
		for _, tn := range diff.Result {
			if tn.Effect == corev1.TaintEffectNoExecute {
				hasNoExecute = true
				if !tn.TimeAdded.Time.Equal(now) {
					t.Errorf("at %v: TimeAdded %v, want now", now.Sub(ltt), tn.TimeAdded)
				}
			}
		}
		if want := !now.Before(due); hasNoExecute != want {
			t.Errorf("at +%v: NoExecute present = %v, want %v", now.Sub(ltt), hasNoExecute, want)
		}
		if now.Before(due) && !diff.NextCheck.Equal(due) {
			t.Errorf("at +%v: NextCheck = %v, want %v", now.Sub(ltt), diff.NextCheck, due)
		}
		if !now.Before(due) && !diff.NextCheck.IsZero() {
			t.Errorf("at +%v: NextCheck = %v, want none", now.Sub(ltt), diff.NextCheck)
		}
	}
}

func TestComputeClusterTaintsPolicies(t *testing.T) {
	netDown := metav1.Condition{Type: "NetworkAvailable", Status: metav1.ConditionFalse}
	netUp := metav1.Condition{Type: "NetworkAvailable", Status: metav1.ConditionTrue}
	notTrue := func(typ string) []failover.ConditionMatch {
		return []failover.ConditionMatch{{ConditionType: typ, Operator: failover.MatchNotIn, StatusValues: []metav1.ConditionStatus{metav1.ConditionTrue}}}
	}
	isTrue := func(typ string) []failover.ConditionMatch {
		return []failover.ConditionMatch{{ConditionType: typ, Operator: failover.MatchIn, StatusValues: []metav1.ConditionStatus{metav1.ConditionTrue}}}
	}
	evictOnNet := failover.ConditionTaintPolicy{Name: "b-evict", AddOnConditions: notTrue("NetworkAvailable"), RemoveOnConditions: isTrue("NetworkAvailable"),
		Taints: []corev1.Taint{{Key: "network", Value: "down", Effect: corev1.TaintEffectNoExecute}}}
	// Sorted before b-evict by name although listed after it; b-evict then
	// overrides its decision on the same key and effect.
	earlier := failover.ConditionTaintPolicy{Name: "a-keep", AddOnConditions: isTrue("NetworkAvailable"), RemoveOnConditions: notTrue("NetworkAvailable"),
		Taints: []corev1.Taint{{Key: "network", Value: "down", Effect: corev1.TaintEffectNoExecute}}}

	cases := []struct {
		name       string
		policies   []failover.ConditionTaintPolicy
		conds      []metav1.Condition
		current    []corev1.Taint
		wantResult []string
	}{
		{name: "add on match, stamped now", policies: []failover.ConditionTaintPolicy{evictOnNet},
			conds: []metav1.Condition{netDown}, wantResult: []string{"network=down:NoExecute@0s"}},
		{name: "kept with its TimeAdded while matching", policies: []failover.ConditionTaintPolicy{evictOnNet},
			conds:      []metav1.Condition{netDown},
			current:    []corev1.Taint{{Key: "network", Value: "down", Effect: corev1.TaintEffectNoExecute, TimeAdded: &metav1.Time{Time: taintNow.Add(-time.Minute)}}},
			wantResult: []string{"network=down:NoExecute@-1m0s"}},
		{name: "removed on the remove match", policies: []failover.ConditionTaintPolicy{evictOnNet},
			conds:   []metav1.Condition{netUp},
			current: []corev1.Taint{{Key: "network", Value: "down", Effect: corev1.TaintEffectNoExecute, TimeAdded: &metav1.Time{Time: taintNow}}}},
		{name: "condition absent: neither add nor remove", policies: []failover.ConditionTaintPolicy{evictOnNet},
			current:    []corev1.Taint{{Key: "network", Value: "down", Effect: corev1.TaintEffectNoExecute, TimeAdded: &metav1.Time{Time: taintNow}}},
			wantResult: []string{"network=down:NoExecute@0s"}},
		{name: "a taint with another value is kept as it is, as Karmada", policies: []failover.ConditionTaintPolicy{evictOnNet},
			conds:      []metav1.Condition{netDown},
			current:    []corev1.Taint{{Key: "network", Value: "flaky", Effect: corev1.TaintEffectNoExecute, TimeAdded: &metav1.Time{Time: taintNow.Add(-time.Minute)}}},
			wantResult: []string{"network=flaky:NoExecute@-1m0s"}},
		{name: "a later add of the same key and effect keeps the first value", policies: []failover.ConditionTaintPolicy{
			{Name: "a", AddOnConditions: notTrue("NetworkAvailable"), Taints: []corev1.Taint{{Key: "n", Value: "first", Effect: corev1.TaintEffectNoSchedule}}},
			{Name: "b", AddOnConditions: notTrue("NetworkAvailable"), Taints: []corev1.Taint{{Key: "n", Value: "second", Effect: corev1.TaintEffectNoSchedule}}}},
			conds: []metav1.Condition{netDown}, wantResult: []string{"n=first:NoSchedule@0s"}},
		{name: "policies apply in name order, later wins", policies: []failover.ConditionTaintPolicy{evictOnNet, earlier},
			conds: []metav1.Condition{netDown}, wantResult: []string{"network=down:NoExecute@0s"}},
		{name: "an add after a removal puts a new taint, as Karmada", policies: []failover.ConditionTaintPolicy{
			{Name: "a", AddOnConditions: isTrue("NetworkAvailable"), RemoveOnConditions: notTrue("NetworkAvailable"),
				Taints: []corev1.Taint{{Key: "network", Effect: corev1.TaintEffectNoExecute}}},
			{Name: "b", AddOnConditions: notTrue("NetworkAvailable"), Taints: []corev1.Taint{{Key: "network", Value: "down", Effect: corev1.TaintEffectNoExecute}}}},
			conds:      []metav1.Condition{netDown},
			current:    []corev1.Taint{{Key: "network", Value: "flaky", Effect: corev1.TaintEffectNoExecute, TimeAdded: &metav1.Time{Time: taintNow.Add(-time.Minute)}}},
			wantResult: []string{"network=down:NoExecute@0s"}},
		{name: "removed and added back with the same value: kept with its TimeAdded", policies: []failover.ConditionTaintPolicy{
			{Name: "a", AddOnConditions: isTrue("NetworkAvailable"), RemoveOnConditions: notTrue("NetworkAvailable"),
				Taints: []corev1.Taint{{Key: "network", Value: "down", Effect: corev1.TaintEffectNoExecute}}},
			{Name: "b", AddOnConditions: notTrue("NetworkAvailable"), Taints: []corev1.Taint{{Key: "network", Value: "down", Effect: corev1.TaintEffectNoExecute}}}},
			conds:      []metav1.Condition{netDown},
			current:    []corev1.Taint{{Key: "network", Value: "down", Effect: corev1.TaintEffectNoExecute, TimeAdded: &metav1.Time{Time: taintNow.Add(-time.Minute)}}},
			wantResult: []string{"network=down:NoExecute@-1m0s"}},
		{name: "added taints come in the order they were added", policies: []failover.ConditionTaintPolicy{
			{Name: "a", AddOnConditions: notTrue("NetworkAvailable"), Taints: []corev1.Taint{{Key: "x", Effect: corev1.TaintEffectNoSchedule}}},
			{Name: "b", AddOnConditions: notTrue("NetworkAvailable"), Taints: []corev1.Taint{{Key: failover.TaintKeyClusterNotReady, Effect: corev1.TaintEffectNoSchedule}}}},
			conds:      []metav1.Condition{netDown},
			wantResult: []string{"x=:NoSchedule@0s", failover.TaintKeyClusterNotReady + "=:NoSchedule@0s"}},
		{name: "remove wins over add within a policy, as Karmada", policies: []failover.ConditionTaintPolicy{{Name: "both",
			AddOnConditions: notTrue("NetworkAvailable"), RemoveOnConditions: notTrue("NetworkAvailable"),
			Taints: []corev1.Taint{{Key: "n", Effect: corev1.TaintEffectNoSchedule}}}},
			conds: []metav1.Condition{netDown}, current: []corev1.Taint{{Key: "n", Effect: corev1.TaintEffectNoSchedule}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// A Ready cluster, so that only the policies change taints.
			conds := append([]metav1.Condition{readyCond(metav1.ConditionTrue, taintNow)}, tc.conds...)
			diff, err := failover.ComputeClusterTaints(failover.ClusterTaintConfig{Policies: tc.policies}, conds, tc.current, taintNow)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tc.wantResult, taintIDs(diff.Result)); d != "" {
				t.Errorf("Result (-want +got):\n%s", d)
			}
		})
	}
}

func TestValidateClusterTaintConfig(t *testing.T) {
	good := failover.ClusterTaintConfig{Policies: []failover.ConditionTaintPolicy{{
		Name:            "net",
		AddOnConditions: []failover.ConditionMatch{{ConditionType: "Ready", Operator: failover.MatchIn, StatusValues: []metav1.ConditionStatus{metav1.ConditionFalse}}},
		Taints:          []corev1.Taint{{Key: "example.com/net", Effect: corev1.TaintEffectNoExecute}},
	}}}
	if errs := failover.ValidateClusterTaintConfig(good, field.NewPath("taints")); len(errs) != 0 {
		t.Fatalf("valid config refused: %v", errs)
	}
	bad := failover.ClusterTaintConfig{
		NotReadyTaintKey: "bad key", UnreachableTaintKey: "bad key", EvictionTimeout: -time.Second,
		Policies: []failover.ConditionTaintPolicy{
			{Name: "p", AddOnConditions: []failover.ConditionMatch{{Operator: "Is", StatusValues: []metav1.ConditionStatus{"Maybe"}}},
				Taints: []corev1.Taint{{Key: "k", Effect: "Evict"}, {Key: "k", Effect: "Evict"}}},
			{Name: "p"},
		},
	}
	var got []string
	for _, e := range failover.ValidateClusterTaintConfig(bad, field.NewPath("taints")) {
		got = append(got, string(e.Type)+" "+e.Field)
	}
	want := []string{
		"FieldValueInvalid taints.notReadyTaintKey",
		"FieldValueInvalid taints.unreachableTaintKey",
		"FieldValueDuplicate taints.unreachableTaintKey",
		"FieldValueInvalid taints.evictionTimeout",
		"FieldValueRequired taints.policies[0].addOnConditions[0].conditionType",
		"FieldValueNotSupported taints.policies[0].addOnConditions[0].operator",
		"FieldValueNotSupported taints.policies[0].addOnConditions[0].statusValues[0]",
		"FieldValueNotSupported taints.policies[0].taints[0].effect",
		"FieldValueNotSupported taints.policies[0].taints[1].effect",
		"FieldValueDuplicate taints.policies[0].taints[1]",
		"FieldValueDuplicate taints.policies[1].name",
		"FieldValueRequired taints.policies[1].addOnConditions",
		"FieldValueRequired taints.policies[1].taints",
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("(-want +got):\n%s", d)
	}
}

// A pull-mode cluster whose agent flips Ready between False and Unknown
// every 30 s still gets its NoExecute taint EvictionTimeout after it first
// stopped being Ready: each flip moves the condition's lastTransitionTime,
// but not the health taint's TimeAdded, which the next call reads back.
func TestComputeClusterTaintsFlappingClusterFailsOver(t *testing.T) {
	cfg := failover.ClusterTaintConfig{NoExecuteAfterTimeout: true}
	start := taintNow
	var taints []corev1.Taint
	status := metav1.ConditionFalse
	for step := 0; step <= 20; step++ {
		now := start.Add(time.Duration(step) * 30 * time.Second)
		if step > 0 {
			if status == metav1.ConditionFalse {
				status = metav1.ConditionUnknown
			} else {
				status = metav1.ConditionFalse
			}
		}
		diff, err := failover.ComputeClusterTaints(cfg, []metav1.Condition{readyCond(status, now)}, taints, now)
		if err != nil {
			t.Fatal(err)
		}
		taints = diff.Result // persisted on the cluster, read back after a restart
		hasNoExecute := false
		for _, ta := range taints {
			hasNoExecute = hasNoExecute || ta.Effect == corev1.TaintEffectNoExecute
		}
		due := !now.Before(start.Add(failover.DefaultEvictionTimeout))
		if hasNoExecute != due {
			t.Fatalf("after %s of flapping: NoExecute %v, want %v (taints %v)", now.Sub(start), hasNoExecute, due, taintIDs(taints))
		}
	}
}

func TestComputeClusterTaintsReadyClusterDoesNotAllocate(t *testing.T) {
	cfg := failover.ClusterTaintConfig{NoExecuteAfterTimeout: true, Policies: []failover.ConditionTaintPolicy{{
		Name:            "network",
		AddOnConditions: []failover.ConditionMatch{{ConditionType: "NetworkAvailable", Operator: failover.MatchIn, StatusValues: []metav1.ConditionStatus{metav1.ConditionFalse}}},
		Taints:          []corev1.Taint{{Key: "network", Effect: corev1.TaintEffectNoExecute}},
	}}}
	conds := []metav1.Condition{readyCond(metav1.ConditionTrue, taintNow), {Type: "NetworkAvailable", Status: metav1.ConditionTrue}}
	if n := testing.AllocsPerRun(100, func() { _, _ = failover.ComputeClusterTaints(cfg, conds, nil, taintNow) }); n != 0 {
		t.Fatalf("a Ready cluster with no taints allocates %v times", n)
	}
	// The policy matching makes it take the full path and add its taint.
	conds[1].Status = metav1.ConditionFalse
	d, err := failover.ComputeClusterTaints(cfg, conds, nil, taintNow)
	if err != nil || !d.Changed || len(d.ToAdd) != 1 || d.ToAdd[0].Key != "network" {
		t.Fatalf("matching policy: %+v %v", d, err)
	}
}

// ComputePolicyTaints applies the policies alone: the health taints stay as
// another controller left them, and a taint a later policy removes and an
// earlier one adds back keeps its TimeAdded (Karmada stamps it anew).
func TestComputePolicyTaints(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	earlier := metav1.NewTime(now.Add(-10 * time.Minute))
	notReady := []metav1.Condition{{Type: failover.ConditionTypeReady, Status: metav1.ConditionFalse}}
	ready := []metav1.Condition{{Type: failover.ConditionTypeReady, Status: metav1.ConditionTrue}}
	inFalseOrUnknown := []failover.ConditionMatch{{ConditionType: failover.ConditionTypeReady, Operator: failover.MatchIn,
		StatusValues: []metav1.ConditionStatus{metav1.ConditionFalse, metav1.ConditionUnknown}}}
	inTrue := []failover.ConditionMatch{{ConditionType: failover.ConditionTypeReady, Operator: failover.MatchIn,
		StatusValues: []metav1.ConditionStatus{metav1.ConditionTrue}}}
	noExecute := corev1.Taint{Key: failover.TaintKeyClusterNotReady, Effect: corev1.TaintEffectNoExecute}
	policy := failover.ConditionTaintPolicy{Name: "not-ready", AddOnConditions: inFalseOrUnknown, RemoveOnConditions: inTrue, Taints: []corev1.Taint{noExecute}}
	healthTaint := corev1.Taint{Key: failover.TaintKeyClusterNotReady, Effect: corev1.TaintEffectNoSchedule, TimeAdded: &earlier}

	added := failover.ComputePolicyTaints([]failover.ConditionTaintPolicy{policy}, notReady, []corev1.Taint{healthTaint}, now)
	if !added.Changed || len(added.ToAdd) != 1 || !added.ToAdd[0].TimeAdded.Time.Equal(now) || len(added.Result) != 2 || !added.Result[0].MatchTaint(&healthTaint) {
		t.Fatalf("not ready: %+v, want the NoExecute taint added at now beside the health taint", added)
	}
	if again := failover.ComputePolicyTaints([]failover.ConditionTaintPolicy{policy}, notReady, added.Result, now.Add(time.Minute)); again.Changed {
		t.Fatalf("a second look changed %v", again.Result)
	}
	removed := failover.ComputePolicyTaints([]failover.ConditionTaintPolicy{policy}, ready, added.Result, now)
	if !removed.Changed || len(removed.Result) != 1 || !removed.Result[0].MatchTaint(&healthTaint) {
		t.Fatalf("ready again: %+v, want only the health taint left (it is the cluster controller's)", removed.Result)
	}
	if none := failover.ComputePolicyTaints(nil, notReady, []corev1.Taint{healthTaint}, now); none.Changed {
		t.Fatalf("no policy changed the taints: %+v", none)
	}
	stamped := failover.ComputePolicyTaints(nil, notReady, []corev1.Taint{{Key: "user", Effect: corev1.TaintEffectNoExecute}}, now)
	if !stamped.Changed || len(stamped.Stamped) != 1 || !stamped.Result[0].TimeAdded.Time.Equal(now) {
		t.Fatalf("an unstamped NoExecute taint: %+v, want it stamped so its countdown persists", stamped)
	}

	// "a" removes the taint on Ready=False, "b" adds it back: the net
	// effect keeps the taint there, with its first TimeAdded.
	remover := failover.ConditionTaintPolicy{Name: "a", AddOnConditions: inTrue, RemoveOnConditions: inFalseOrUnknown, Taints: []corev1.Taint{noExecute}}
	adder := failover.ConditionTaintPolicy{Name: "b", AddOnConditions: inFalseOrUnknown, Taints: []corev1.Taint{noExecute}}
	kept := noExecute
	kept.TimeAdded = &earlier
	both := failover.ComputePolicyTaints([]failover.ConditionTaintPolicy{adder, remover}, notReady, []corev1.Taint{kept}, now)
	if both.Changed {
		t.Fatalf("remove then add back: %+v, want the taint kept with TimeAdded %v", both.Result, earlier)
	}
}
