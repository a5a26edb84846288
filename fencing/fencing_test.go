package fencing

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover/health"
)

var t0 = time.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC)

// TestDecideOnAFakeClock walks an agent through a partition on a fake
// clock: renewals, the fence at LastRenewal + FenceAfter exactly, staying
// fenced while renewals fail, and the resume after the next renewal.
func TestDecideOnAFakeClock(t *testing.T) {
	clk := clocktesting.NewFakeClock(t0)
	cfg := Config{FenceAfter: time.Minute}
	var st State
	if d := Decide(st, clk.Now(), cfg); d.Action != ActionFence {
		t.Fatalf("never renewed: %+v, want Fence", d)
	}
	st.LastRenewal = clk.Now() // the first renewal succeeds
	d := Decide(st, clk.Now(), cfg)
	if d.Action != ActionRun || !d.NextCheck.Equal(t0.Add(time.Minute)) || !d.FenceAt.Equal(t0.Add(time.Minute)) {
		t.Fatalf("fresh lease: %+v, want Run until %v", d, t0.Add(time.Minute))
	}
	// Renewals fail from now on.
	clk.Step(time.Minute - time.Nanosecond)
	if d := Decide(st, clk.Now(), cfg); d.Action != ActionRun {
		t.Fatalf("1ns before the fence: %+v, want Run", d)
	}
	clk.Step(time.Nanosecond)
	if d := Decide(st, clk.Now(), cfg); d.Action != ActionFence || !strings.Contains(d.Message, "no lease renewal for 1m0s") {
		t.Fatalf("at the fence: %+v, want Fence", d)
	}
	st.FencedAt = clk.Now()
	clk.Step(time.Hour)
	if d := Decide(st, clk.Now(), cfg); d.Action != ActionStayFenced || !d.NextCheck.IsZero() {
		t.Fatalf("fenced, no renewal: %+v, want StayFenced with no timed look", d)
	}
	// A renewal that started before the fence does not count.
	st.LastRenewal = st.FencedAt.Add(-time.Second)
	if d := Decide(st, st.FencedAt.Add(time.Second), cfg); d.Action != ActionStayFenced {
		t.Fatalf("renewal started before the fence: %+v, want StayFenced", d)
	}
	st.LastRenewal = clk.Now()
	if d := Decide(st, clk.Now(), cfg); d.Action != ActionResume || !d.NextCheck.Equal(clk.Now().Add(time.Minute)) {
		t.Fatalf("renewed after the fence: %+v, want Resume", d)
	}
	// Renewed after the fence, but silent again for FenceAfter: stay fenced.
	if d := Decide(st, clk.Now().Add(time.Minute), cfg); d.Action != ActionStayFenced {
		t.Fatalf("renewed, then silent again: %+v, want StayFenced", d)
	}
	st.FencedAt = time.Time{} // resumed
	if d := Decide(st, clk.Now(), cfg); d.Action != ActionRun {
		t.Fatalf("after the resume: %+v, want Run", d)
	}
	// The clock went back before the last renewal: fence.
	if d := Decide(st, clk.Now().Add(-time.Second), cfg); d.Action != ActionFence || !strings.Contains(d.Message, "clock went back") {
		t.Fatalf("clock went back: %+v, want Fence", d)
	}
}

func TestDecideDefaultsAndBounds(t *testing.T) {
	st := State{LastRenewal: t0}
	for name, tc := range map[string]struct {
		fa   time.Duration
		want time.Duration
	}{
		"zero":     {0, DefaultFenceAfter},
		"negative": {-time.Hour, DefaultFenceAfter},
		"huge":     {math.MaxInt64, eviction.MaxDuration},
	} {
		cfg := Config{FenceAfter: tc.fa}
		if d := Decide(st, t0, cfg); !d.FenceAt.Equal(t0.Add(tc.want)) || cfg.EffectiveFenceAfter() != tc.want {
			t.Errorf("%s: fence at %v (effective %v), want after %v", name, d.FenceAt, cfg.EffectiveFenceAfter(), tc.want)
		}
	}
}

func TestValidateConfig(t *testing.T) {
	p := field.NewPath("fence")
	for name, tc := range map[string]struct {
		cfg   Config
		field string
	}{
		"zero":            {Config{}, ""},
		"max":             {Config{FenceAfter: eviction.MaxDuration}, ""},
		"negative":        {Config{FenceAfter: -1}, "fence.fenceAfter"},
		"above ceiling":   {Config{FenceAfter: eviction.MaxDuration + 1}, "fence.fenceAfter"},
		"unknown method":  {Config{Methods: map[schema.GroupKind]Method{{Group: "x", Kind: "Y"}: "Pause"}}, "fence.methods[Y.x]"},
		"empty kind":      {Config{Methods: map[schema.GroupKind]Method{{Group: "x"}: MethodDelete}}, "fence.methods[.x]"},
		"override method": {Config{Methods: map[schema.GroupKind]Method{{Group: "apps", Kind: "Deployment"}: MethodDelete}}, ""},
	} {
		errs := ValidateConfig(tc.cfg, p)
		if tc.field == "" && len(errs) != 0 || tc.field != "" && (len(errs) != 1 || errs[0].Field != tc.field) {
			t.Errorf("%s: %v, want an error on %q", name, errs, tc.field)
		}
	}
}

func object(apiVersion, kind string, spec map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": apiVersion, "kind": kind,
		"metadata": map[string]any{"name": "w", "namespace": "ns"}}}
	if spec != nil {
		u.Object["spec"] = spec
	}
	return u
}

// TestStopForEveryHealthKind: every kind the health registry knows has a
// way to stop it, and the writers among them are stopped.
func TestStopForEveryHealthKind(t *testing.T) {
	methods := BuiltinMethods()
	for gk := range health.BuiltinInterpreters() {
		if _, ok := methods[gk]; !ok {
			t.Errorf("health knows %v, fencing does not say how to stop it", gk)
		}
	}
	for gk := range methods {
		if _, ok := health.BuiltinInterpreters()[gk]; !ok {
			t.Errorf("fencing stops %v, which health has no interpreter for", gk)
		}
	}
}

func TestStopFor(t *testing.T) {
	var cfg Config
	dep := object("apps/v1", "Deployment", map[string]any{"replicas": int64(3)})
	st, err := cfg.StopFor(dep)
	if err != nil || st.Method != MethodScaleToZero || st.Object.Object["spec"].(map[string]any)["replicas"] != int64(0) {
		t.Fatalf("Deployment: %+v %v, want scaled to 0", st, err)
	}
	if dep.Object["spec"].(map[string]any)["replicas"] != int64(3) {
		t.Fatal("StopFor changed its input")
	}
	flink := object("flink.apache.org/v1beta1", "FlinkDeployment", map[string]any{"job": map[string]any{"upgradeMode": "last-state"}})
	st, err = cfg.StopFor(flink)
	if err != nil || st.Method != MethodSuspend {
		t.Fatalf("FlinkDeployment: %+v %v", st, err)
	}
	if s, _, _ := unstructured.NestedString(st.Object.Object, "spec", "job", "state"); s != "suspended" {
		t.Fatalf("FlinkDeployment job state %q, want suspended", s)
	}
	if _, found, _ := unstructured.NestedString(flink.Object, "spec", "job", "state"); found {
		t.Fatal("StopFor changed its input")
	}
	noSpec := object("flink.apache.org/v1beta1", "FlinkDeployment", nil)
	if st, err := cfg.StopFor(noSpec); err != nil || st.Method != MethodSuspend {
		t.Fatalf("FlinkDeployment without a spec: %+v %v", st, err)
	}
	for _, u := range []*unstructured.Unstructured{object("batch/v1", "Job", nil), object("v1", "Pod", nil), object("example.io/v1", "Writer", nil)} {
		if st, err := cfg.StopFor(u); err != nil || st.Method != MethodDelete || st.Object != nil {
			t.Errorf("%s: %+v %v, want Delete", u.GetKind(), st, err)
		}
	}
	if st, err := cfg.StopFor(object("v1", "Service", nil)); err != nil || st.Method != MethodNone {
		t.Errorf("Service: %+v %v, want None", st, err)
	}
	// Config.Methods overrides, the hook comes first.
	cfg.Methods = map[schema.GroupKind]Method{{Group: "apps", Kind: "Deployment"}: MethodDelete}
	if st, _ := cfg.StopFor(dep); st.Method != MethodDelete {
		t.Errorf("override: %+v, want Delete", st)
	}
	cfg.Hook = func(obj *unstructured.Unstructured) (Stop, bool, error) {
		if obj.GetKind() != "Deployment" {
			return Stop{}, false, nil
		}
		out := obj.DeepCopy()
		out.SetAnnotations(map[string]string{"paused": "true"})
		return Stop{Method: MethodScaleToZero, Object: out}, true, nil
	}
	if st, _ := cfg.StopFor(dep); st.Method != MethodScaleToZero || st.Object.GetAnnotations()["paused"] != "true" {
		t.Errorf("hook: %+v, want its answer", st)
	}
	if st, _ := cfg.StopFor(object("batch/v1", "Job", nil)); st.Method != MethodDelete {
		t.Errorf("hook passes: %+v, want the built-in Delete", st)
	}
	// Errors wrap ErrCannotStop and name what is wrong.
	for name, tc := range map[string]struct {
		cfg  Config
		obj  *unstructured.Unstructured
		want string
	}{
		"nil":           {Config{}, nil, "no object"},
		"spec a string": {Config{}, &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "spec": "x"}}, ".spec is string"},
		"job a list":    {Config{}, object("flink.apache.org/v1beta1", "FlinkDeployment", map[string]any{"job": []any{}}), ".spec.job is []interface {}"},
		"hook error":    {Config{Hook: func(*unstructured.Unstructured) (Stop, bool, error) { return Stop{}, false, errors.New("boom") }}, dep, "hook: boom"},
		"hook bad method": {Config{Hook: func(*unstructured.Unstructured) (Stop, bool, error) { return Stop{Method: "Pause"}, true, nil }}, dep,
			`hook returned method "Pause"`},
		"hook no object": {Config{Hook: func(*unstructured.Unstructured) (Stop, bool, error) { return Stop{Method: MethodSuspend}, true, nil }}, dep,
			"without the stopped object"},
	} {
		if _, err := tc.cfg.StopFor(tc.obj); !errors.Is(err, ErrCannotStop) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want ErrCannotStop saying %q", name, err, tc.want)
		}
	}
}

func TestStopped(t *testing.T) {
	scaled := object("apps/v1", "Deployment", map[string]any{"replicas": int64(0)})
	if !Stopped(scaled, MethodScaleToZero) {
		t.Error("scaled to 0 with no status: not stopped")
	}
	scaled.Object["status"] = map[string]any{"replicas": int64(1)}
	if Stopped(scaled, MethodScaleToZero) {
		t.Error("a replica still runs: stopped")
	}
	if Stopped(object("apps/v1", "Deployment", map[string]any{"replicas": int64(2)}), MethodScaleToZero) {
		t.Error("spec.replicas 2: stopped")
	}
	flink := object("flink.apache.org/v1beta1", "FlinkDeployment", map[string]any{"job": map[string]any{"state": "suspended"}})
	flink.Object["status"] = map[string]any{"jobStatus": map[string]any{"state": "RUNNING"}}
	if Stopped(flink, MethodSuspend) {
		t.Error("job still RUNNING: stopped")
	}
	flink.Object["status"] = map[string]any{"jobStatus": map[string]any{"state": "SUSPENDED"}}
	if !Stopped(flink, MethodSuspend) {
		t.Error("job SUSPENDED: not stopped")
	}
	if !Stopped(nil, MethodDelete) || Stopped(object("v1", "Pod", nil), MethodDelete) || !Stopped(object("v1", "Service", nil), MethodNone) {
		t.Error("Delete is stopped exactly when the object is gone; None always")
	}
}

func TestDeclareAndDeclared(t *testing.T) {
	k, v := Declare(Config{FenceAfter: 90 * time.Second})
	if k != FenceAfterAnnotation || v != "1m30s" {
		t.Fatalf("Declare = %s=%s", k, v)
	}
	if d, err := Declared(map[string]string{k: v}); err != nil || d != 90*time.Second {
		t.Fatalf("Declared(%q) = %v %v", v, d, err)
	}
	if _, v := Declare(Config{}); v != DefaultFenceAfter.String() {
		t.Fatalf("zero config declares %s, want the default", v)
	}
	if d, err := Declared(nil); d != 0 || err != nil {
		t.Fatalf("no annotation: %v %v, want 0 and no error", d, err)
	}
	for _, bad := range []string{"", "2", "soon", "-1m", "0s", "25h", strings.Repeat("1", 40) + "s"} {
		if d, err := Declared(map[string]string{FenceAfterAnnotation: bad}); d != 0 || err == nil || !strings.Contains(err.Error(), FenceAfterAnnotation) {
			t.Errorf("Declared(%q) = %v %v, want 0 and an error naming the annotation", bad, d, err)
		}
	}
}

// TestDeclaredFenceMeetsTheEscape: the fence an agent declares is what the
// control plane validates its escape against.
func TestDeclaredFenceMeetsTheEscape(t *testing.T) {
	_, v := Declare(Config{})
	d, err := Declared(map[string]string{FenceAfterAnnotation: v})
	if err != nil {
		t.Fatal(err)
	}
	if errs := eviction.ValidateFencedEscape(eviction.AssessOptions{}, d, field.NewPath("assess")); len(errs) != 0 {
		t.Fatalf("the default fence does not fit the default escape: %v", errs)
	}
}
