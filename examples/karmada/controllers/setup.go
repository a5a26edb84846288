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

	"github.com/fleetover/fleetover/examples/internal/karmadaflags"
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
	// NoDefaultTolerations adds no default tolerations at all: a binding
	// tolerates what its policy says and nothing more, as in Karmada since
	// v1.15 (its webhook stopped adding them).
	NoDefaultTolerations bool
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
	// StatefulFailoverInjection is Karmada's feature gate of that name:
	// with it, an eviction extracts the state the policy preserves (and
	// waits until it can be read) and the new copy's manifest carries it;
	// without it, as in Karmada, no state is read and none is injected.
	StatefulFailoverInjection bool
	// GracefulEvictionDisabled is Karmada's GracefulEviction feature gate
	// turned off: an application failover whose purge mode is Gracefully
	// is refused (a Warning event says so), as Karmada refuses it. The
	// graceful eviction controller runs either way.
	GracefulEvictionDisabled bool
	// Registerer receives the metrics; nil is controller-runtime's registry.
	Registerer prometheus.Registerer
	// NamePrefix prefixes the controllers' names (several managers in one
	// process, as in tests).
	NamePrefix string
	// ProbeInterval is how often push-mode clusters are probed (Karmada's
	// --cluster-status-update-frequency); zero is DefaultProbeInterval.
	ProbeInterval time.Duration
	// MonitorPeriod is the longest the cluster controller goes without
	// looking at a cluster (Karmada's --cluster-monitor-period); zero
	// looks only when something is due (a silence deadline, a probe).
	MonitorPeriod time.Duration
	// EventRecorder receives the controllers' events; nil is the
	// manager's (mgr.GetEventRecorder("fleetover")).
	EventRecorder recorder.EventRecorder
	// Activity, when set, follows every controller's queue, so a caller
	// driving them with a fake Clock can wait until they are idle. Unused
	// with the real clock.
	Activity *Activity
	// Concurrency is how many objects of each kind the controllers work on
	// at once; zero fields are one.
	Concurrency Concurrency
	// RateLimiter paces every controller's retries after errors.
	RateLimiter RateLimiterOptions
	// Controllers selects the controllers to run, with the rules of
	// karmada-controller-manager's --controllers: "*" runs every
	// controller, "name" runs one, "-name" leaves one out, and the first
	// item naming a controller wins; empty is "*". Names: ControllerNames.
	Controllers []string
}

// Concurrency is the number of workers per kind of object, as
// karmada-controller-manager's --concurrent-*-syncs flags set it.
type Concurrency struct {
	Clusters                int
	ResourceBindings        int
	ClusterResourceBindings int
}

// The names Config.Controllers selects by. Those that are also Karmada's
// mean what they mean in karmada-controller-manager; the others are
// fleetover's own.
const (
	// ControllerCluster keeps the Ready condition's silence rule (Unknown
	// when nothing is heard) and the health taints.
	ControllerCluster = "cluster"
	// ControllerClusterStatus probes push-mode clusters and posts their
	// Ready condition. Without it they are not probed, and turn Unknown
	// once silent for the monitor grace period.
	ControllerClusterStatus = "clusterStatus"
	// ControllerTaintManager evicts workloads from clusters with
	// untolerated NoExecute taints (Karmada runs its taint manager inside
	// its cluster controller; the command line's --enable-taint-manager
	// and Failover gate select this one).
	ControllerTaintManager = "taintManager"
	// ControllerClusterTaintPolicy applies ClusterTaintPolicy objects.
	ControllerClusterTaintPolicy = "clustertaintpolicy"
	// ControllerGracefulEviction removes graceful eviction tasks.
	ControllerGracefulEviction = "gracefulEviction"
	// ControllerApplicationFailover evicts unhealthy workloads.
	ControllerApplicationFailover = "applicationFailover"
	// ControllerBinding turns bindings into Works, holding back a new copy
	// under a Directly purge and injecting the preserved state (Karmada's
	// binding controller).
	ControllerBinding = "binding"
	// ControllerFailoverScheduler re-places evicted workloads (fleetover's;
	// karmada-scheduler's work in Karmada).
	ControllerFailoverScheduler = "failoverScheduler"
	// ControllerFailoverCondition writes the Failover condition and its
	// events (fleetover's).
	ControllerFailoverCondition = "failoverCondition"
)

// ControllerNames lists the controllers Setup can register, by the names
// Config.Controllers uses.
func ControllerNames() []string {
	return []string{ControllerCluster, ControllerClusterStatus, ControllerTaintManager, ControllerClusterTaintPolicy,
		ControllerGracefulEviction, ControllerApplicationFailover, ControllerBinding, ControllerFailoverScheduler,
		ControllerFailoverCondition}
}

// controllerEnabled applies Config.Controllers to name: every controller
// is on by default.
func controllerEnabled(name string, selection []string) bool {
	if len(selection) == 0 {
		return true
	}
	return karmadaflags.Selection(selection).Enabled(name, true)
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
	ClusterHealth      *ClusterHealthController
	TaintManager       *TaintManager
	ClusterTaintPolicy *ClusterTaintPolicyController
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

	queue := func(workers int) QueueOptions {
		return QueueOptions{Activity: cfg.Activity, MaxConcurrentReconciles: workers, RateLimiter: cfg.RateLimiter}
	}
	enabled := func(name string) bool { return controllerEnabled(name, cfg.Controllers) }
	inline := enabled(ControllerFailoverScheduler)
	out := &Controllers{
		ClusterHealth: &ClusterHealthController{
			Client: c, Clock: clk, Queue: queue(cfg.Concurrency.Clusters),
			Tracker: tracker,
			Taints:  cfg.ClusterTaints, Prober: cfg.Prober, ProbeInterval: cfg.ProbeInterval, MonitorPeriod: cfg.MonitorPeriod,
			WithoutProbes: !enabled(ControllerClusterStatus),
			WithoutTaints: !enabled(ControllerCluster),
			Schedule:      NewSchedule(), Events: events,
		},
		TaintManager: &TaintManager{
			Client: c, Clock: clk, Queue: queue(cfg.Concurrency.Clusters),
			Planner:              failover.ClusterFailoverPlanner{Defaults: cfg.ClusterFailover, Tolerations: cfg.Tolerations},
			DefaultTolerations:   cfg.DefaultTolerations,
			NoDefaultTolerations: cfg.NoDefaultTolerations,
			Pacer:                pacer,
			Schedule:             NewSchedule(), Events: events,
			PreserveState: cfg.StatefulFailoverInjection,
			// The example's scheduler runs in this process: the eviction
			// and the new placement are one write.
			InlineScheduling: inline,
		},
		ClusterTaintPolicy: &ClusterTaintPolicyController{
			Client: c, Clock: clk, Queue: queue(cfg.Concurrency.Clusters), Events: events,
		},
	}
	setups := map[string]func(manager.Manager, string) error{}
	if enabled(ControllerCluster) || enabled(ControllerClusterStatus) {
		setups["cluster-health"] = out.ClusterHealth.SetupWithManager
	}
	if enabled(ControllerTaintManager) {
		setups["taint-manager"] = out.TaintManager.SetupWithManager
	}
	if enabled(ControllerClusterTaintPolicy) {
		setups["cluster-taint-policy"] = out.ClusterTaintPolicy.SetupWithManager
	}
	registry := health.NewRegistry(cfg.Health)
	rules := NewRuleCache()
	out.TaintManager.Rules = rules
	// The Failover condition rides on the status writes the failover
	// scheduler's placement already makes (in the scheduler, and inline in
	// the taint manager and the graceful eviction controller); without the
	// scheduler a controller of its own writes it.
	var conditions *FailoverConditions
	if enabled(ControllerFailoverCondition) {
		explain := cfg.ExplainConfig()
		explain.Health, explain.Pacer = registry, pacer
		conditions = &FailoverConditions{Client: c, Explain: explain, Events: events}
	}
	if inline {
		out.TaintManager.Conditions = conditions
	}
	for _, kind := range BindingKinds() {
		prefix, bc := "", &out.BindingControllers
		workers := cfg.Concurrency.ResourceBindings
		if kind == ClusterResourceBindingKind {
			prefix, bc, workers = "cluster-", &out.ClusterScoped, cfg.Concurrency.ClusterResourceBindings
		}
		*bc = BindingControllers{
			GracefulEviction: &GracefulEvictionController{
				Client: c, Clock: clk, Queue: queue(workers), Kind: kind, Options: cfg.Assess,
				Schedule: NewSchedule(), Events: events,
				InlineScheduling: inline,
			},
			ApplicationFailover: &ApplicationFailoverController{
				Client: c, Clock: clk, Queue: queue(workers), Kind: kind, Detector: cfg.Detector,
				Health: registry, Rules: rules,
				PreserveState:       cfg.StatefulFailoverInjection,
				RefuseGracefulPurge: cfg.GracefulEvictionDisabled,
				Schedule:            NewSchedule(), Events: events,
			},
			Scheduler: &FailoverScheduler{
				Client: c, Clock: clk, Queue: queue(workers), Kind: kind, DefaultTolerations: cfg.DefaultTolerations, NoDefaultTolerations: cfg.NoDefaultTolerations, Tolerations: cfg.Tolerations,
				Schedule: NewSchedule(), Events: events,
			},
			Dispatcher: &WorkDispatcher{
				Client: c, Clock: clk, Queue: queue(workers), Kind: kind, Events: events, Assess: cfg.Assess,
				InjectState: NewStateInjector(cfg.StatefulFailoverInjection),
			},
		}
		if conditions != nil && inline {
			bc.Scheduler.Conditions, bc.GracefulEviction.Conditions = conditions, conditions
		}
		if conditions != nil && !inline {
			bc.FailoverCondition = &FailoverConditionController{
				Client: c, Clock: clk, Queue: queue(workers), Kind: kind, Conditions: conditions, Schedule: NewSchedule(),
			}
			setups[prefix+"failover-condition"] = bc.FailoverCondition.SetupWithManager
		}
		for n, setup := range map[string]func(manager.Manager, string) error{
			ControllerGracefulEviction:    bc.GracefulEviction.SetupWithManager,
			ControllerApplicationFailover: bc.ApplicationFailover.SetupWithManager,
			ControllerFailoverScheduler:   bc.Scheduler.SetupWithManager,
			ControllerBinding:             bc.Dispatcher.SetupWithManager,
		} {
			if enabled(n) {
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
