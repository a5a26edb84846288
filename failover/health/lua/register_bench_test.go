package lua

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fleetover/fleetover/failover/health"
)

// manyCustomizations returns n customizations, each for its own kind, as a
// directory of a large operator's CRDs would hold.
func manyCustomizations(n int) Customizations {
	c := Customizations{Items: make([]Customization, n)}
	for i := range c.Items {
		c.Items[i] = Customization{Name: fmt.Sprintf("rule-%05d", i), Source: "rules.yaml", Document: i + 1,
			Target:       schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: fmt.Sprintf("Kind%d", i)},
			HealthScript: phaseRunning}
	}
	return c
}

// BenchmarkRegisterCustomizations: registration is linear in the number of
// customizations (ns/op divided by n stays flat).
//
//	go test -run XXX -bench RegisterCustomizations -benchtime 3x ./failover/health/lua/
func BenchmarkRegisterCustomizations(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 30_000} {
		c := manyCustomizations(n)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				reg := health.NewRegistry(health.RegistryConfig{})
				if _, err := RegisterCustomizations(reg, c, Config{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/customization")
		})
	}
}
