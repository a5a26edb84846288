package controllers

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/recorder"

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
	// Tolerations is the toleration matching rule, the same for the taint
	// manager's eviction and the scheduler's taint filter.
	Tolerations failover.TolerationOptions
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
	// ProbeInterval is how often push-mode clusters are probed; zero is
	// DefaultProbeInterval.
	ProbeInterval time.Duration
	// EventRecorder receives the controllers' events; nil is the
	// manager's (mgr.GetEventRecorder("fleetover")).
	EventRecorder recorder.EventRecorder
	// Activity, when set, follows every controller's queue, so a caller
	// driving them with a fake Clock can wait until they are idle. Unused
	// with the real clock.
	Activity *Activity
	// Controllers selects the controllers to run, as
	// karmada-controller-manager's --controllers does: "*" runs every
	// controller, "name" runs one, "-name" leaves one out; empty is "*".
	// Names: ControllerNames.
	Controllers []string
}

// ControllerNames lists the controllers Setup can register, by the names
// Config.Controllers uses.
func ControllerNames() []string {
	return []string{"clusterHealth", "taintManager", "gracefulEviction", "applicationFailover", "failoverScheduler", "workDispatcher", "failoverCondition"}
}

// controllerEnabled applies Config.Controllers to name.
func controllerEnabled(name string, selection []string) bool {
	if len(selection) == 0 {
		return true
	}
	enabled := false
	for _, s := range selection {
		switch s {
		case name:
			return true
		case "-" + name:
			return false
		case "*":
			enabled = true
		}
	}
	return enabled
}

// BindingControllers are the reconcilers of one binding kind.
type BindingControllers struct {
	GracefulEviction    *GracefulEvictionController
	ApplicationFailover *ApplicationFailoverController
	Scheduler           *FailoverScheduler
	Dispatcher          *WorkDispatcher
	// FailoverCondition writes the Failover condition when the failover
	// scheduler does not run; nil otherwise (the scheduler's status
	// writes carry it).
	FailoverCondition *FailoverConditionController
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
	if err := IndexBindingsByTaskCluster(ctx, mgr.GetFieldIndexer()); err != nil {
		return nil, err
	}
	rec := cfg.EventRecorder
	if rec == nil {
		rec = mgr.GetEventRecorder("fleetover")
	}
	events := NewEventSink(rec)
	c := mgr.GetClient()
	name := func(n string) string { return cfg.NamePrefix + n }

	pacerCfg := cfg.Pacer
	pacerCfg.Clock = clk
	pacerCfg.Observer = metrics.Pacer()
	pacer, err := eviction.NewPacer(pacerCfg)
	if err != nil {
		return nil, err
	}
	tracker, err := failover.NewClusterHealthTracker(clk, cfg.ClusterHealth)
	if err != nil {
		return nil, err
	}

	out := &Controllers{
		ClusterHealth: &ClusterHealthController{
			Client: c, Clock: clk, Activity: cfg.Activity,
			Tracker: tracker,
			Taints:  cfg.ClusterTaints, Prober: cfg.Prober, ProbeInterval: cfg.ProbeInterval,
			Schedule: NewSchedule(), Events: events,
		},
		TaintManager: &TaintManager{
			Client: c, Clock: clk, Activity: cfg.Activity,
			Planner:            failover.ClusterFailoverPlanner{Defaults: cfg.ClusterFailover, Tolerations: cfg.Tolerations},
			DefaultTolerations: cfg.DefaultTolerations,
			Pacer:              pacer,
			Schedule:           NewSchedule(), Events: events,
			// The example's scheduler runs in this process: the eviction
			// and the new placement are one write.
			InlineScheduling: controllerEnabled("failoverScheduler", cfg.Controllers),
		},
	}
	setups := map[string]func(manager.Manager, string) error{}
	if controllerEnabled("clusterHealth", cfg.Controllers) {
		setups["cluster-health"] = out.ClusterHealth.SetupWithManager
	}
	if controllerEnabled("taintManager", cfg.Controllers) {
		setups["taint-manager"] = out.TaintManager.SetupWithManager
	}
	registry := health.NewRegistry(cfg.Health)
	rules := NewRuleCache()
	out.TaintManager.Rules = rules
	// The Failover condition rides on the status writes the failover
	// scheduler's placement already makes (in the scheduler, and inline in
	// the taint manager and the graceful eviction controller); without the
	// scheduler a controller of its own writes it.
	var conditions *FailoverConditions
	inline := controllerEnabled("failoverScheduler", cfg.Controllers)
	if controllerEnabled("failoverCondition", cfg.Controllers) {
		explain := cfg.ExplainConfig()
		explain.Health, explain.Pacer = registry, pacer
		conditions = &FailoverConditions{Client: c, Explain: explain, Events: events}
	}
	if inline {
		out.TaintManager.Conditions = conditions
	}
	for _, kind := range BindingKinds() {
		prefix, bc := "", &out.BindingControllers
		if kind == ClusterResourceBindingKind {
			prefix, bc = "cluster-", &out.ClusterScoped
		}
		*bc = BindingControllers{
			GracefulEviction: &GracefulEvictionController{
				Client: c, Clock: clk, Activity: cfg.Activity, Kind: kind, Options: cfg.Assess,
				Schedule: NewSchedule(), Events: events,
				InlineScheduling: inline,
			},
			ApplicationFailover: &ApplicationFailoverController{
				Client: c, Clock: clk, Activity: cfg.Activity, Kind: kind, Detector: cfg.Detector,
				Health: registry, Rules: rules,
				Schedule: NewSchedule(), Events: events,
			},
			Scheduler: &FailoverScheduler{
				Client: c, Clock: clk, Activity: cfg.Activity, Kind: kind, DefaultTolerations: cfg.DefaultTolerations, Tolerations: cfg.Tolerations,
				Schedule: NewSchedule(), Events: events,
			},
			Dispatcher: &WorkDispatcher{
				Client: c, Clock: clk, Activity: cfg.Activity, Kind: kind, Events: events, Assess: cfg.Assess,
				InjectState: NewStateInjector(cfg.StatefulFailoverInjection),
			},
		}
		if conditions != nil && inline {
			bc.Scheduler.Conditions, bc.GracefulEviction.Conditions = conditions, conditions
		}
		if conditions != nil && !inline {
			bc.FailoverCondition = &FailoverConditionController{
				Client: c, Clock: clk, Activity: cfg.Activity, Kind: kind, Conditions: conditions, Schedule: NewSchedule(),
			}
			setups[prefix+"failoverCondition"] = bc.FailoverCondition.SetupWithManager
		}
		for n, setup := range map[string]func(manager.Manager, string) error{
			"gracefulEviction":    bc.GracefulEviction.SetupWithManager,
			"applicationFailover": bc.ApplicationFailover.SetupWithManager,
			"failoverScheduler":   bc.Scheduler.SetupWithManager,
			"workDispatcher":      bc.Dispatcher.SetupWithManager,
		} {
			if controllerEnabled(n, cfg.Controllers) {
				setups[prefix+n] = setup
			}
		}
	}
	if _, ok := fakeTicker(clk); ok {
		cfg.Activity.expect(len(setups))
	}
	for n, setup := range setups {
		if err := setup(mgr, name(n)); err != nil {
			return nil, err
		}
	}
	return out, nil
}
