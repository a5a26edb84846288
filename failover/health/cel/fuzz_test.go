package cel

import (
	"encoding/json"
	"errors"
	"runtime"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fleetover/fleetover/failover/health"
)

var fuzzConfig = Config{CostLimit: 10_000, Timeout: 50 * time.Millisecond, MemoryLimit: 1 << 16}

// FuzzCELRule compiles any expression and evaluates it against any object:
// no panic, a valid status, and each evaluation within its time bound and
// a memory bound (the oracles are generous: they only have to tell a
// bounded evaluation from one that runs away).
func FuzzCELRule(f *testing.F) {
	f.Add(`object.status.readyReplicas == object.spec.replicas`, []byte(`{"spec":{"replicas":3},"status":{"readyReplicas":3}}`))
	f.Add(`has(object.status) ? "Healthy" : "Unknown"`, []byte(`{"status":{}}`))
	f.Add(`object.status.conditions.exists(c, c.type == "Ready")`, []byte(`{"status":{"conditions":[{"type":"Ready"}]}}`))
	f.Add(`[1,2,3].map(x, [x, x, x]).size() > 0`, []byte(`{}`))
	f.Add(`object.s.all(a, object.s.all(b, object.s.all(c, (a + b + c).size() > 0)))`, []byte(`{"s":["aaaa","bbbb","cccc","dddd"]}`))
	f.Fuzz(func(t *testing.T, expr string, doc []byte) {
		rule, err := NewInterpreter(expr, fuzzConfig)
		if err != nil {
			if !errors.Is(err, health.ErrCompile) {
				t.Fatalf("compile error %v does not wrap ErrCompile", err)
			}
			return
		}
		m := map[string]any{}
		if json.Unmarshal(doc, &m) != nil {
			return
		}
		obj := &unstructured.Unstructured{Object: m}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		start := time.Now()
		got, err := rule.Interpret(obj)
		elapsed := time.Since(start)
		runtime.ReadMemStats(&after)
		if !got.Status.IsValid() || (err != nil && got.Status != health.Unknown) {
			t.Fatalf("%+v, %v", got, err)
		}
		if elapsed > fuzzConfig.Timeout+2*time.Second {
			t.Fatalf("evaluation took %s, limit %s", elapsed, fuzzConfig.Timeout)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 256<<20 {
			t.Fatalf("evaluation allocated %d bytes", alloc)
		}
	})
}
