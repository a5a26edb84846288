package fencing

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fleetover/fleetover/eviction"
)

// FuzzValidateConfig: a config ValidateConfig accepts fences no later than
// its FenceAfter after the last renewal and never fences a fresh lease;
// every error names a field under the path.
func FuzzValidateConfig(f *testing.F) {
	f.Add(int64(0), "apps", "Deployment", "Delete", int64(0), int64(0))
	f.Add(int64(-1), "", "", "Pause", int64(-1), int64(5))
	f.Add(int64(eviction.MaxDuration), "x", "Y", "None", int64(eviction.MaxDuration), int64(1))
	f.Fuzz(func(t *testing.T, fenceAfter int64, group, kind, method string, since, fencedOffset int64) {
		cfg := Config{FenceAfter: time.Duration(fenceAfter), Methods: map[schema.GroupKind]Method{{Group: group, Kind: kind}: Method(method)}}
		errs := ValidateConfig(cfg, field.NewPath("fence"))
		for _, e := range errs {
			if !strings.HasPrefix(e.Field, "fence.") {
				t.Fatalf("error %v names no field", e)
			}
		}
		if len(errs) > 0 {
			return
		}
		fa := cfg.EffectiveFenceAfter()
		if fa <= 0 || fa > eviction.MaxDuration {
			t.Fatalf("effective fence %v out of (0, MaxDuration]", fa)
		}
		now := t0.Add(time.Duration(since % int64(48*time.Hour)))
		st := State{LastRenewal: t0}
		d := Decide(st, now, cfg)
		switch {
		case now.Before(t0):
			if d.Action != ActionFence {
				t.Fatalf("clock went back: %+v, want Fence", d)
			}
		case now.Sub(t0) >= fa:
			if d.Action != ActionFence {
				t.Fatalf("%v after the renewal with a fence of %v: %+v, want Fence", now.Sub(t0), fa, d)
			}
		default:
			if d.Action != ActionRun || !d.NextCheck.Equal(t0.Add(fa)) {
				t.Fatalf("%v after the renewal with a fence of %v: %+v, want Run", now.Sub(t0), fa, d)
			}
		}
		st.FencedAt = t0.Add(time.Duration(fencedOffset % int64(48*time.Hour)))
		if d := Decide(st, now, cfg); d.Action == ActionRun || d.Action == ActionFence {
			t.Fatalf("fenced: %+v, want StayFenced or Resume", d)
		}
	})
}

// FuzzDeclared: no declaration, however hostile, panics or yields a fence
// outside (0, MaxDuration]; a refused one is 0 with an error naming the
// annotation.
func FuzzDeclared(f *testing.F) {
	for _, s := range []string{"2m0s", "", "-1s", "1e9h", "9223372036854775807ns", "24h0m0.000000001s", "1h1h1h1h1h1h"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		d, err := Declared(map[string]string{FenceAfterAnnotation: v})
		if err != nil {
			if d != 0 || !strings.Contains(err.Error(), FenceAfterAnnotation) {
				t.Fatalf("Declared(%q) = %v, %v", v, d, err)
			}
			return
		}
		if d <= 0 || d > eviction.MaxDuration {
			t.Fatalf("Declared(%q) = %v, outside (0, MaxDuration]", v, d)
		}
		if _, back := Declare(Config{FenceAfter: d}); back != d.String() {
			t.Fatalf("Declare(%v) = %q", d, back)
		}
	})
}

// FuzzStopFor: StopFor never panics, never modifies its input, answers a
// known Method, returns a stopped copy exactly for ScaleToZero and Suspend,
// and wraps ErrCannotStop on error.
func FuzzStopFor(f *testing.F) {
	f.Add(`{"apiVersion":"apps/v1","kind":"Deployment","spec":{"replicas":3}}`)
	f.Add(`{"apiVersion":"flink.apache.org/v1beta1","kind":"FlinkDeployment","spec":{"job":{"state":"running"}}}`)
	f.Add(`{"apiVersion":"flink.apache.org/v1beta1","kind":"FlinkDeployment","spec":{"job":7}}`)
	f.Add(`{"apiVersion":"apps/v1","kind":"StatefulSet","spec":null}`)
	f.Add(`{"kind":"Pod"}`)
	f.Fuzz(func(t *testing.T, doc string) {
		var m map[string]any
		if json.Unmarshal([]byte(doc), &m) != nil || m == nil {
			return
		}
		obj := &unstructured.Unstructured{Object: m}
		before := obj.DeepCopy()
		st, err := Config{}.StopFor(obj)
		if !reflect.DeepEqual(before.Object, obj.Object) {
			t.Fatalf("StopFor modified its input %s", doc)
		}
		if err != nil {
			if !errors.Is(err, ErrCannotStop) {
				t.Fatalf("error %v does not wrap ErrCannotStop", err)
			}
			return
		}
		if !st.Method.IsValid() {
			t.Fatalf("method %q", st.Method)
		}
		if (st.Object != nil) != (st.Method == MethodScaleToZero || st.Method == MethodSuspend) {
			t.Fatalf("%s with object %v", st.Method, st.Object)
		}
		if st.Method == MethodScaleToZero && !Stopped(st.Object, MethodScaleToZero) && st.Object.Object["status"] == nil {
			t.Fatalf("scaled copy %v not stopped", st.Object.Object)
		}
	})
}
