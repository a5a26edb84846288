package failover_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clocktesting "k8s.io/utils/clock/testing"
	"sigs.k8s.io/yaml"

	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/preservation"
)

// FuzzValidateFailoverBehavior: bytes -> YAML/JSON -> FailoverBehavior ->
// Validate -> SetDefaults -> Validate never panics; defaulting is idempotent
// and never turns a valid block into an invalid one.
func FuzzValidateFailoverBehavior(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "seed*.yaml"))
	for _, name := range files {
		raw, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		var doc struct {
			Spec struct {
				Failover json.RawMessage `json:"failover"`
			} `json:"spec"`
		}
		if err := yaml.Unmarshal(raw, &doc); err == nil && len(doc.Spec.Failover) > 0 {
			f.Add([]byte(doc.Spec.Failover))
		}
	}
	f.Add([]byte("application:\n  purgeMode: Immediately\n  gracePeriodSeconds: -1\n  decisionConditions:\n    healthyState: [Healthy, Unknown, Unknown]\n"))
	f.Add([]byte(`{"cluster":{"purgeMode":"Never","gracePeriodSeconds":0,"statePreservation":{"rules":[{"aliasLabelName":"","jsonPath":"{range .items[*]}{end}"}]}}}`))
	path := field.NewPath("spec", "failover")
	f.Fuzz(func(t *testing.T, data []byte) {
		var fb failover.FailoverBehavior
		if err := yaml.Unmarshal(data, &fb); err != nil {
			return
		}
		validBefore := len(failover.ValidateFailoverBehavior(&fb, path)) == 0
		_ = failover.WarningsForStatePreservation(&fb, int32(len(data)%3), preservation.InjectionPolicy{WhileOldCopyRuns: len(data)%2 == 0}, path)
		failover.SetDefaultsFailoverBehavior(&fb)
		errs := failover.ValidateFailoverBehavior(&fb, path)
		if validBefore && len(errs) != 0 {
			t.Fatalf("defaulting made a valid block invalid: %v", errs)
		}
		once := fb.DeepCopy()
		failover.SetDefaultsFailoverBehavior(&fb)
		if !equalJSON(t, once, &fb) {
			t.Fatal("SetDefaultsFailoverBehavior is not idempotent")
		}
		_ = failover.ResolveClusterPurgeMode(fb.Cluster, "")
		_ = failover.ResolveClusterGracePeriodSeconds(fb.Cluster, 0)
	})
}

func equalJSON(t *testing.T, a, b any) bool {
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(ja) == string(jb)
}

var fuzzEffects = []corev1.TaintEffect{corev1.TaintEffectNoExecute, corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, "", "Bogus"}
var fuzzOperators = []corev1.TolerationOperator{corev1.TolerationOpExists, corev1.TolerationOpEqual, "", corev1.TolerationOpLt, corev1.TolerationOpGt, "Bogus"}

// FuzzEvaluateTolerations builds two taints and two tolerations from the
// input and checks the decision's invariants.
func FuzzEvaluateTolerations(f *testing.F) {
	f.Add("cluster.karmada.io/not-ready", "", uint8(0), int64(-60), true, "cluster.karmada.io/not-ready", "", uint8(0), uint8(0), int64(300), true, int64(0))
	f.Add("k", "5", uint8(0), int64(1<<62), true, "k", "7", uint8(3), uint8(0), int64(-1), false, int64(1<<62))
	f.Add("", "", uint8(4), int64(0), false, "", "x", uint8(2), uint8(4), int64(0), true, int64(-9))
	f.Fuzz(func(t *testing.T, key, value string, effect uint8, addedOffset int64, stamped bool,
		tolKey, tolValue string, op, tolEffect uint8, seconds int64, hasSeconds bool, seconds2 int64) {
		now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		taints := []corev1.Taint{
			{Key: key, Value: value, Effect: fuzzEffects[int(effect)%len(fuzzEffects)]},
			{Key: tolKey, Value: value, Effect: corev1.TaintEffectNoExecute, TimeAdded: &metav1.Time{Time: now.Add(time.Duration(seconds2))}},
		}
		if stamped {
			taints[0].TimeAdded = &metav1.Time{Time: now.Add(time.Duration(addedOffset))}
		}
		tolerations := []corev1.Toleration{
			{Key: tolKey, Value: tolValue, Operator: fuzzOperators[int(op)%len(fuzzOperators)], Effect: fuzzEffects[int(tolEffect)%len(fuzzEffects)]},
			{Key: key, Operator: corev1.TolerationOpExists, TolerationSeconds: &seconds2},
		}
		if hasSeconds {
			tolerations[0].TolerationSeconds = &seconds
		}
		d := failover.EvaluateTolerations(taints, tolerations, now)
		switch d.Action {
		case failover.EvictNow:
			if d.Taint == nil || !d.At.Equal(now) || d.After != 0 {
				t.Fatalf("bad EvictNow %+v", d)
			}
		case failover.EvictAfter:
			if d.Taint == nil || d.Toleration == nil || d.After <= 0 || !d.At.Equal(now.Add(d.After)) {
				t.Fatalf("bad EvictAfter %+v", d)
			}
		case failover.TolerateForever:
			if d.Taint != nil || !d.At.IsZero() {
				t.Fatalf("bad TolerateForever %+v", d)
			}
		default:
			t.Fatalf("unknown action %v", d.Action)
		}
		if d.Taint != nil && d.Taint.Effect != corev1.TaintEffectNoExecute {
			t.Fatalf("a %s taint decided an eviction", d.Taint.Effect)
		}
		// Removing the non-NoExecute taints never changes the decision.
		var onlyNoExecute []corev1.Taint
		for _, tn := range taints {
			if tn.Effect == corev1.TaintEffectNoExecute {
				onlyNoExecute = append(onlyNoExecute, tn)
			}
		}
		if d2 := failover.EvaluateTolerations(onlyNoExecute, tolerations, now); d2.Action != d.Action || d2.After != d.After {
			t.Fatalf("non-NoExecute taints changed the decision: %v/%v vs %v/%v", d.Action, d.After, d2.Action, d2.After)
		}
	})
}

// FuzzComputeClusterTaints: any condition and taint set gives a diff whose
// Result has every NoExecute taint stamped, never both health NoSchedule
// taints while Ready is known, and no duplicate key/effect it introduced.
func FuzzComputeClusterTaints(f *testing.F) {
	f.Add(uint8(1), int64(-400e9), true, uint16(0b1011), int64(0), true)
	f.Add(uint8(2), int64(0), true, uint16(0b1111), int64(-1), false)
	f.Add(uint8(0), int64(1e9), false, uint16(0), int64(5), true)
	f.Fuzz(func(t *testing.T, status uint8, lttOffset int64, legacy bool, present uint16, addedOffset int64, zeroLTT bool) {
		now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		statuses := []metav1.ConditionStatus{"", metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown, "Weird"}
		var conds []metav1.Condition
		if s := statuses[int(status)%len(statuses)]; s != "" {
			c := metav1.Condition{Type: failover.ConditionTypeReady, Status: s}
			if !zeroLTT {
				c.LastTransitionTime = metav1.NewTime(now.Add(time.Duration(lttOffset)))
			}
			conds = append(conds, c)
		}
		var current []corev1.Taint
		keys := []string{failover.TaintKeyClusterNotReady, failover.TaintKeyClusterUnreachable, "user"}
		effects := []corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectNoExecute, corev1.TaintEffectPreferNoSchedule}
		bit := 0
		for _, k := range keys {
			for _, e := range effects {
				if present&(1<<bit) != 0 {
					tn := corev1.Taint{Key: k, Effect: e}
					if present&(1<<((bit+9)%16)) != 0 {
						tn.TimeAdded = &metav1.Time{Time: now.Add(time.Duration(addedOffset))}
					}
					current = append(current, tn)
				}
				bit++
			}
		}
		cfg := failover.ClusterTaintConfig{NoExecuteAfterTimeout: legacy}
		diff, _ := failover.ComputeClusterTaints(cfg, conds, current, now)
		seen := map[string]bool{}
		for _, tn := range diff.Result {
			if tn.Effect == corev1.TaintEffectNoExecute && (tn.TimeAdded == nil || tn.TimeAdded.IsZero()) {
				t.Fatalf("unstamped NoExecute taint in result: %v", tn)
			}
			id := tn.Key + ":" + string(tn.Effect)
			if seen[id] {
				t.Fatalf("duplicate %s in %v", id, diff.Result)
			}
			seen[id] = true
		}
		if len(conds) == 1 && (conds[0].Status == metav1.ConditionFalse || conds[0].Status == metav1.ConditionUnknown) &&
			seen[failover.TaintKeyClusterNotReady+":NoSchedule"] == seen[failover.TaintKeyClusterUnreachable+":NoSchedule"] {
			t.Fatalf("health NoSchedule taints not exclusive: %v", diff.Result)
		}
		if !diff.NextCheck.IsZero() && !diff.NextCheck.After(now) {
			t.Fatalf("NextCheck %v is not in the future", diff.NextCheck)
		}
		// Applying the result is a fixed point: the next look changes nothing.
		again, _ := failover.ComputeClusterTaints(cfg, conds, diff.Result, now)
		if again.Changed {
			t.Fatalf("not idempotent: %v then %v", diff.Result, again.Result)
		}
	})
}

// FuzzClusterHealthImport: any JSON either is refused by Import or gives a
// tracker that answers without panicking.
func FuzzClusterHealthImport(f *testing.F) {
	f.Add([]byte(`{"syncMode":"Pull","ready":{"type":"Ready","status":"True","reason":"ClusterReady","message":"","lastTransitionTime":"2026-03-01T11:00:00Z"},"lastHeard":"2026-03-01T11:59:50Z","registeredAt":"2026-03-01T10:00:00Z"}`))
	f.Add([]byte(`{"syncMode":"Push","ready":{"type":"Ready","status":"False","reason":"ClusterNotReachable","lastTransitionTime":"2026-03-01T11:00:00Z"},"pending":{"status":"True","reason":"ClusterReady","since":"2026-03-01T11:59:00Z"}}`))
	f.Add([]byte(`{"syncMode":"Pull","pending":{"status":"False"}}`))
	f.Add([]byte(`{"syncMode":"Pull","ready":{"type":"Ready","status":"True","reason":"ClusterReady","lastTransitionTime":"9999-01-01T00:00:00Z"},"pending":{"status":"False","reason":"ClusterNotReachable","since":"9999-01-01T00:00:00Z"},"lastHeard":"9999-01-01T00:00:00Z","registeredAt":"9999-01-01T00:00:00Z"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var st failover.ClusterHealthState
		if err := json.Unmarshal(data, &st); err != nil {
			return
		}
		clk := clocktesting.NewFakePassiveClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
		tr := mustOK(failover.NewClusterHealthTracker(clk, failover.ClusterHealthConfig{}))
		if err := tr.Import("m1", st); err != nil {
			return
		}
		// Restored state is never trusted beyond now: no imported time is
		// in the future, and the next change is at most one period away.
		got, _ := tr.Export("m1")
		now := clk.Now()
		if got.RegisteredAt.After(now) || (got.LastHeard != nil && (got.LastHeard.After(now) || got.LastHeard.IsZero())) ||
			(got.Pending != nil && got.Pending.Since.After(now)) || (got.Ready != nil && got.Ready.LastTransitionTime.After(now)) {
			t.Fatalf("imported state reaches past now: %+v", got)
		}
		if next, ok := tr.NextCheck("m1"); ok && next.After(now.Add(failover.DefaultClusterStartupGracePeriod)) {
			t.Fatalf("NextCheck %s is more than one period after the restart", next)
		}
		tr.Ready("m1")
		tr.NextCheck("m1")
		if _, err := tr.ObserveProbe("m1", failover.ProbeResult{Reachable: len(data)%2 == 0, Healthy: true}); err != nil {
			t.Fatal(err)
		}
		_ = tr.ObserveLease("m1", clk.Now())
		clk.SetTime(clk.Now().Add(time.Hour))
		if c, ok := tr.Ready("m1"); !ok || c.Type != failover.ConditionTypeReady {
			t.Fatalf("no Ready condition after a probe: %+v", c)
		}
	})
}

// FuzzValidateClusterTaintConfig: any JSON config is validated without
// panicking, and a valid one computes taints without panicking.
func FuzzValidateClusterTaintConfig(f *testing.F) {
	f.Add([]byte(`{"NoExecuteAfterTimeout":true,"Policies":[{"Name":"net","AddOnConditions":[{"ConditionType":"Ready","Operator":"In","StatusValues":["False"]}],"Taints":[{"key":"n","effect":"NoExecute"}]}]}`))
	f.Add([]byte(`{"NotReadyTaintKey":"a/b/c","EvictionTimeout":-5,"Policies":[{"Taints":[{"key":"","effect":"X"}]}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var cfg failover.ClusterTaintConfig
		if err := json.Unmarshal(data, &cfg); err != nil {
			return
		}
		if errs := failover.ValidateClusterTaintConfig(cfg, field.NewPath("taints")); len(errs) != 0 {
			return
		}
		now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		conds := []metav1.Condition{{Type: failover.ConditionTypeReady, Status: metav1.ConditionFalse, LastTransitionTime: metav1.NewTime(now.Add(-time.Hour))}}
		if _, err := failover.ComputeClusterTaints(cfg, conds, nil, now); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzClusterHealthObserveStatus: any posted condition is refused with
// ErrInvalidPostedStatus, leaving the published one as it was, or
// published as it is, never later than now and always Ready.
func FuzzClusterHealthObserveStatus(f *testing.F) {
	f.Add([]byte(`{"type":"Ready","status":"False","reason":"ClusterNotReady","message":"health endpoint failed","lastTransitionTime":"2026-03-01T11:59:00Z"}`))
	f.Add([]byte(`{"type":"Ready","status":"True","lastTransitionTime":"9999-01-01T00:00:00Z"}`))
	f.Add([]byte(`{"type":"Alive","status":"Unknown"}`))
	f.Add([]byte(`{"type":"Ready","status":"Maybe"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var posted metav1.Condition
		if err := json.Unmarshal(data, &posted); err != nil {
			return
		}
		clk := clocktesting.NewFakePassiveClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
		tr := mustOK(failover.NewClusterHealthTracker(clk, failover.ClusterHealthConfig{}))
		tr.Register("m1", failover.ClusterSyncModePull)
		before := mustOK(tr.ObserveProbe("m1", failover.ProbeResult{Reachable: true, Healthy: true}))
		err := tr.ObserveStatus("m1", posted)
		got, ok := tr.Ready("m1")
		if err != nil {
			if !errors.Is(err, failover.ErrInvalidPostedStatus) {
				t.Fatalf("error %v does not wrap ErrInvalidPostedStatus", err)
			}
			if !ok || !reflect.DeepEqual(got, before) {
				t.Fatalf("a refused status changed the condition: %+v, was %+v", got, before)
			}
			return
		}
		if !ok || got.Type != failover.ConditionTypeReady || got.Status != posted.Status || got.Reason != posted.Reason ||
			got.Message != posted.Message || got.LastTransitionTime.After(clk.Now()) {
			t.Fatalf("published %+v for %+v", got, posted)
		}
	})
}

// FuzzComputePolicyTaints: under any conditions, taints and pair of
// policies, the result keeps every taint no policy names as it was,
// stamps every NoExecute taint, holds no key and effect twice, and is a
// fixed point.
func FuzzComputePolicyTaints(f *testing.F) {
	f.Add(uint8(2), uint16(0b101), uint8(0b0110), false)
	f.Add(uint8(1), uint16(0b1111), uint8(0b1001), true)
	f.Add(uint8(3), uint16(0), uint8(0xff), false)
	f.Fuzz(func(t *testing.T, status uint8, present uint16, policyBits uint8, sameKey bool) {
		now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
		statuses := []metav1.ConditionStatus{"", metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown}
		var conds []metav1.Condition
		if s := statuses[int(status)%len(statuses)]; s != "" {
			conds = []metav1.Condition{{Type: failover.ConditionTypeReady, Status: s}}
		}
		keys := []string{failover.TaintKeyClusterNotReady, "maintenance", "other"}
		effects := []corev1.TaintEffect{corev1.TaintEffectNoSchedule, corev1.TaintEffectNoExecute}
		var current []corev1.Taint
		bit := 0
		for _, k := range keys {
			for _, e := range effects {
				if present&(1<<bit) != 0 {
					tn := corev1.Taint{Key: k, Effect: e, Value: "v"}
					if present&(1<<(bit+8)) != 0 {
						tn.TimeAdded = &metav1.Time{Time: now.Add(-time.Hour)}
					}
					current = append(current, tn)
				}
				bit++
			}
		}
		match := func(b uint8) []failover.ConditionMatch {
			if b&1 == 0 {
				return nil
			}
			op := failover.MatchIn
			if b&2 != 0 {
				op = failover.MatchNotIn
			}
			return []failover.ConditionMatch{{ConditionType: failover.ConditionTypeReady, Operator: op,
				StatusValues: []metav1.ConditionStatus{metav1.ConditionFalse, metav1.ConditionUnknown}}}
		}
		second := "maintenance"
		if !sameKey {
			second = failover.TaintKeyClusterNotReady
		}
		policies := []failover.ConditionTaintPolicy{
			{Name: "a", AddOnConditions: match(policyBits), RemoveOnConditions: match(policyBits >> 2),
				Taints: []corev1.Taint{{Key: "maintenance", Effect: corev1.TaintEffectNoExecute}}},
			{Name: "b", AddOnConditions: match(policyBits >> 4), RemoveOnConditions: match(policyBits >> 6),
				Taints: []corev1.Taint{{Key: second, Effect: corev1.TaintEffectNoExecute, Value: "v"}}},
		}
		diff := failover.ComputePolicyTaints(policies, conds, current, now)
		result := diff.Result
		if !diff.Changed {
			result = current
		}
		seen := map[string]bool{}
		for _, tn := range result {
			if diff.Changed && tn.Effect == corev1.TaintEffectNoExecute && (tn.TimeAdded == nil || tn.TimeAdded.IsZero()) {
				t.Fatalf("unstamped NoExecute taint in result: %v", tn)
			}
			id := tn.Key + ":" + string(tn.Effect)
			if seen[id] {
				t.Fatalf("duplicate %s in %v", id, result)
			}
			seen[id] = true
		}
		for _, tn := range current {
			named := tn.Effect == corev1.TaintEffectNoExecute && (tn.Key == "maintenance" || tn.Key == second)
			if named || tn.Effect == corev1.TaintEffectNoExecute {
				continue
			}
			if !slices.ContainsFunc(result, func(r corev1.Taint) bool { return r.MatchTaint(&tn) }) {
				t.Fatalf("taint %v that no policy names is gone: %v", tn, result)
			}
		}
		again := failover.ComputePolicyTaints(policies, conds, result, now)
		if again.Changed {
			t.Fatalf("not idempotent: %v then %v", result, again.Result)
		}
	})
}
