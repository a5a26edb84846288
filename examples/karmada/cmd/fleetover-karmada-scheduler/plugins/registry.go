package plugins

import (
	"k8s.io/utils/clock"

	"github.com/karmada-io/karmada/pkg/scheduler/framework"
	"github.com/karmada-io/karmada/pkg/scheduler/framework/runtime"

	"github.com/fleetover/fleetover/failover"
)

// Config configures the plugins. The zero value matches tolerations as
// Kubernetes and Karmada do by default, reads the real clock, and leaves
// FleetoverEvictionHistory out (it needs Annotations).
type Config struct {
	// Tolerations is the taint manager's matching rule; give
	// FleetoverTaintToleration the same one as fleetover-controller-manager.
	Tolerations failover.TolerationOptions
	// Annotations lets FleetoverEvictionHistory read the bindings' and
	// policies' annotations; nil leaves the plugin out of the registry.
	Annotations Annotations
	// Clock is read by the plugins that judge time; nil is the real clock.
	Clock clock.PassiveClock
}

// Registry returns the plugins' factories by name: merge it into Karmada's
// (the scheduler's app.WithPlugin for each, or runtime.Registry.Merge).
func (c Config) Registry() runtime.Registry {
	r := runtime.Registry{
		DispatchSuspensionName: NewDispatchSuspension,
		TaintTolerationName: func() (framework.Plugin, error) {
			return NewTaintToleration(c.Tolerations, c.Clock), nil
		},
	}
	if c.Annotations != nil {
		r[EvictionHistoryName] = func() (framework.Plugin, error) {
			return NewEvictionHistory(c.Annotations, c.Clock), nil
		}
	}
	return r
}
