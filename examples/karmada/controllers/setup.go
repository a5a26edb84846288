package controllers

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
)

// Config wires the library into the controllers. Its zero value (apart
// from the clock) gives the library's safe defaults.
type Config struct {
	// Clock drives every decision and every scheduled look; nil is the real
	// clock. Tests pass a fake clock and step it.
	Clock clock.Clock
	// Prober probes push-mode clusters.
	Prober Prober
	// ClusterHealth tunes the Ready condition's debounce and silence rules.
	ClusterHealth failover.ClusterHealthConfig
	// ClusterTaints configures the health taints.
	ClusterTaints failover.ClusterTaintConfig
	// ClusterFailover holds the global purge mode and grace period.
	ClusterFailover failover.ClusterFailoverDefaults
	// DefaultTolerations are added to every binding's tolerations.
	DefaultTolerations failover.DefaultTolerationsConfig
	// Pacer configures eviction pacing; its Clock and Observer are set here.
	Pacer eviction.PacerConfig
	// Assess tunes the graceful eviction assessment.
	Assess eviction.AssessOptions
	// Detector tunes application failover detection.
	Detector failover.DetectorConfig
	// Health configures the health interpreter registry.
	Health health.RegistryConfig
	// StatefulFailoverInjection injects preserved state into new clusters'
	// manifests (Karmada's feature gate of that name).
	StatefulFailoverInjection bool
	// Registerer receives the metrics; nil is controller-runtime's registry.
	Registerer prometheus.Registerer
	// NamePrefix prefixes the controllers' names (several managers in one
	// process, as in tests).
	NamePrefix string
}

// BindingControllers are the reconcilers of one binding kind.
type BindingControllers struct {
	GracefulEviction    *GracefulEvictionController
	ApplicationFailover *ApplicationFailoverController
	Scheduler           *FailoverScheduler
	Dispatcher          *WorkDispatcher
}

// Controllers are the reconcilers Setup registered, for inspection. The
// embedded BindingControllers reconcile ResourceBindings; ClusterScoped
// the same for ClusterResourceBindings.
type Controllers struct {
	ClusterHealth *ClusterHealthController
	TaintManager  *TaintManager
	BindingControllers
	ClusterScoped BindingControllers
}

// Setup registers every controller with mgr.
func Setup(ctx context.Context, mgr manager.Manager, cfg Config) (*Controllers, error) {
	clk := cfg.Clock
	if clk == nil {
		clk = clock.RealClock{}
	}
	reg := cfg.Registerer
	if reg == nil {
		reg = ctrlmetrics.Registry
	}
	metrics, err := NewMetrics(reg)
	if err != nil {
		return nil, err
	}
	if err := IndexBindingsByCluster(ctx, mgr.GetFieldIndexer()); err != nil {
		return nil, err
	}
	events := NewEventSink(mgr.GetEventRecorder("fleetover"))
	c := mgr.GetClient()
	name := func(n string) string { return cfg.NamePrefix + n }

	pacerCfg := cfg.Pacer
	pacerCfg.Clock = clk
	pacerCfg.Observer = metrics.Pacer()

	out := &Controllers{
		ClusterHealth: &ClusterHealthController{
			Client: c, Clock: clk,
			Tracker: failover.NewClusterHealthTracker(clk, cfg.ClusterHealth),
			Taints:  cfg.ClusterTaints, Prober: cfg.Prober,
			Schedule: NewSchedule(), Events: events,
		},
		TaintManager: &TaintManager{
			Client: c, Clock: clk,
			Planner:            failover.ClusterFailoverPlanner{Defaults: cfg.ClusterFailover},
			DefaultTolerations: cfg.DefaultTolerations,
			Pacer:              eviction.NewPacer(pacerCfg),
			Schedule:           NewSchedule(), Events: events,
		},
	}
	setups := map[string]func(manager.Manager, string) error{
		"cluster-health": out.ClusterHealth.SetupWithManager,
		"taint-manager":  out.TaintManager.SetupWithManager,
	}
	registry := health.NewRegistry(cfg.Health)
	rules := NewRuleCache()
	out.TaintManager.Rules = rules
	for _, kind := range BindingKinds() {
		prefix, bc := "", &out.BindingControllers
		if kind == ClusterResourceBindingKind {
			prefix, bc = "cluster-", &out.ClusterScoped
		}
		*bc = BindingControllers{
			GracefulEviction: &GracefulEvictionController{
				Client: c, Clock: clk, Kind: kind, Options: cfg.Assess,
				Schedule: NewSchedule(), Events: events,
			},
			ApplicationFailover: &ApplicationFailoverController{
				Client: c, Clock: clk, Kind: kind, Detector: cfg.Detector,
				Health: registry, Rules: rules,
				Schedule: NewSchedule(), Events: events,
			},
			Scheduler: &FailoverScheduler{
				Client: c, Clock: clk, Kind: kind, DefaultTolerations: cfg.DefaultTolerations,
				Schedule: NewSchedule(), Events: events,
			},
			Dispatcher: &WorkDispatcher{
				Client: c, Clock: clk, Kind: kind, Events: events, Assess: cfg.Assess,
				InjectState: NewStateInjector(cfg.StatefulFailoverInjection),
			},
		}
		setups[prefix+"graceful-eviction"] = bc.GracefulEviction.SetupWithManager
		setups[prefix+"application-failover"] = bc.ApplicationFailover.SetupWithManager
		setups[prefix+"failover-scheduler"] = bc.Scheduler.SetupWithManager
		setups[prefix+"work-dispatcher"] = bc.Dispatcher.SetupWithManager
	}
	for n, setup := range setups {
		if err := setup(mgr, name(n)); err != nil {
			return nil, err
		}
	}
	return out, nil
}
