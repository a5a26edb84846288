package controllers

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
)

// Config wires the library into the controllers. Its zero value (apart
// from the clock) gives the library's safe defaults with OCM's taint keys.
type Config struct {
	// Clock drives every decision and every scheduled look; nil is the real
	// clock. Tests pass a fake clock and step it.
	Clock clock.Clock
	// ClusterHealth tunes the debounce and silence rules.
	ClusterHealth failover.ClusterHealthConfig
	// ClusterTaints configures the health taints; the zero value is
	// DefaultClusterTaintConfig(), and empty keys are OCM's.
	ClusterTaints failover.ClusterTaintConfig
	// SkipClusterHealth leaves the health taints to someone else (OCM's
	// registration controller on a real hub): the other controllers then
	// act on whatever taints the clusters carry.
	SkipClusterHealth bool
	// ClusterFailover holds the global purge mode and grace period.
	ClusterFailover failover.ClusterFailoverDefaults
	// Pacer configures eviction pacing; its Clock is set here.
	Pacer eviction.PacerConfig
	// Assess tunes the graceful eviction assessment and the dispatch gate.
	Assess eviction.AssessOptions
	// AgentFenceAfter is the fence the hub's work agents declare
	// (fencing.FenceAfterAnnotation on their ManagedCluster; WorkAgent
	// writes it). When set, Setup rejects an Assess.DirectlyEscapeTimeout
	// shorter than the wait for that fence (eviction.ValidateFencedEscape).
	// The dispatch gate reads each cluster's own declaration either way.
	AgentFenceAfter time.Duration
	// Detector tunes application failover detection.
	Detector failover.DetectorConfig
	// Health configures the health interpreter registry.
	Health health.RegistryConfig
	// StatefulFailoverInjection injects preserved state into the new
	// cluster's manifest (single-writer rule, see WorkDistributor).
	StatefulFailoverInjection bool
	// NamePrefix prefixes the controllers' names (several managers in one
	// process, as in tests).
	NamePrefix string
}

// Controllers are the reconcilers Setup registered, for inspection.
type Controllers struct {
	ClusterHealth       *ClusterHealthController
	PlacementFailover   *PlacementFailoverController
	ApplicationFailover *ApplicationFailoverController
	GracefulEviction    *GracefulEvictionController
	Distributor         *WorkDistributor
}

// Setup registers every controller with mgr.
func Setup(_ context.Context, mgr manager.Manager, cfg Config) (*Controllers, error) {
	clk := cfg.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	taints := cfg.ClusterTaints
	if reflect.ValueOf(taints).IsZero() {
		taints = DefaultClusterTaintConfig()
	}
	taints = withOCMKeys(taints)
	if errs := failover.ValidateClusterTaintConfig(taints, field.NewPath("clusterTaints")); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	if cfg.AgentFenceAfter != 0 {
		if errs := eviction.ValidateFencedEscape(cfg.Assess, cfg.AgentFenceAfter, field.NewPath("assess")); len(errs) > 0 {
			return nil, errs.ToAggregate()
		}
	} else if errs := eviction.ValidateAssessOptions(cfg.Assess, field.NewPath("assess")); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	events := NewEventSink(mgr.GetEventRecorder("fleetover"))
	c := mgr.GetClient()
	name := func(n string) string { return cfg.NamePrefix + n }
	var recheckErr error
	recheck := func() *Rechecker {
		r, err := NewRechecker(clk, nil)
		if err != nil {
			recheckErr = fmt.Errorf("rechecker: %w", err)
		}
		return r
	}
	pacerCfg := cfg.Pacer
	pacerCfg.Clock = clk
	pacer, err := eviction.NewPacer(pacerCfg)
	if err != nil {
		return nil, fmt.Errorf("pacer: %w", err)
	}
	tracker, err := failover.NewClusterHealthTracker(clk, cfg.ClusterHealth)
	if err != nil {
		return nil, fmt.Errorf("cluster health: %w", err)
	}
	wh := &workHealth{registry: health.NewRegistry(cfg.Health)}

	out := &Controllers{
		PlacementFailover: &PlacementFailoverController{
			Client: c, Clock: clk, Taints: taints,
			Planner: failover.ClusterFailoverPlanner{Defaults: cfg.ClusterFailover},
			Pacer:   pacer, Health: wh,
			Recheck: recheck(), Events: events,
		},
		ApplicationFailover: &ApplicationFailoverController{
			Client: c, Clock: clk, Detector: cfg.Detector, Health: wh,
			Recheck: recheck(), Events: events,
		},
		GracefulEviction: &GracefulEvictionController{
			Client: c, Clock: clk, Taints: taints, Options: cfg.Assess, Health: wh,
			Recheck: recheck(), Events: events,
		},
		Distributor: &WorkDistributor{
			Client: c, Clock: clk, Taints: taints, Gate: cfg.Assess,
			StatefulFailoverInjection: cfg.StatefulFailoverInjection,
			Recheck:                   recheck(), Events: events,
		},
	}
	setups := map[string]func(manager.Manager, string) error{
		"placement-failover":   out.PlacementFailover.SetupWithManager,
		"application-failover": out.ApplicationFailover.SetupWithManager,
		"graceful-eviction":    out.GracefulEviction.SetupWithManager,
		"work-distributor":     out.Distributor.SetupWithManager,
	}
	if !cfg.SkipClusterHealth {
		out.ClusterHealth = &ClusterHealthController{
			Client: c, Clock: clk, Taints: taints,
			Tracker: tracker,
			Recheck: recheck(), Events: events,
		}
		setups["cluster-health"] = out.ClusterHealth.SetupWithManager
	}
	if recheckErr != nil {
		return nil, recheckErr
	}
	for n, setup := range setups {
		if err := setup(mgr, name(n)); err != nil {
			return nil, err
		}
	}
	return out, nil
}
