package app

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"

	"github.com/fleetover/fleetover/examples/internal/karmadaflags"
	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// Feature gates, as karmada-controller-manager names them.
const (
	GateFailover                  = karmadaflags.GateFailover
	GateGracefulEviction          = karmadaflags.GateGracefulEviction
	GateStatefulFailoverInjection = karmadaflags.GateStatefulFailoverInjection
)

// The controllers that are fleetover's own, beside Karmada's names.
const (
	ControllerFailoverScheduler = controllers.ControllerFailoverScheduler
	ControllerFailoverCondition = controllers.ControllerFailoverCondition
)

// The modes of the manager (--fleetover-mode).
const (
	// ModeStandalone runs every failover part, with fleetover's own
	// cluster health, failover scheduler and Work dispatcher: the example
	// on its own.
	ModeStandalone = "standalone"
	// ModeBesideKarmada runs beside Karmada's own control plane and writes
	// only what the Karmada controllers it replaces wrote: the taint
	// manager's and application failover's evictions, the graceful
	// eviction tasks' removal, the ClusterTaintPolicy taints and the
	// Failover condition. Cluster conditions and health taints stay with
	// Karmada's cluster controllers, spec.clusters with karmada-scheduler,
	// Works and injection with Karmada's binding controller: the
	// controllers that would write them (cluster, clusterStatus, binding,
	// failoverScheduler) do not run, whatever --controllers says.
	ModeBesideKarmada = "beside-karmada"
)

// karmadaRateZeroInterval is how long Karmada holds every eviction when
// --resource-eviction-rate is 0: its eviction queue then waits its maximum
// delay before each one. fleetover's pacer keeps that pace fleet-wide.
const karmadaRateZeroInterval = 1800 * time.Second

// renamed are the controller names earlier versions of this binary took,
// with Karmada's name that replaced each.
func renamed() map[string]string {
	return map[string]string{"clusterHealth": "cluster (and clusterStatus for the probes)", "taintManager": "cluster with --enable-taint-manager", "workDispatcher": "binding"}
}

// Options are the command line of the binary: karmada-controller-manager's
// (package karmadaflags: every flag of Karmada v1.18.1, with its meaning,
// default and validation) and fleetover's own, prefixed --fleetover-.
type Options struct {
	Karmada *karmadaflags.ControllerManager

	// RunAgainInProcess lets Run start in a process that ran it before (a
	// test restarting the manager in place); no flag sets it.
	RunAgainInProcess bool

	// fleetover's own.
	Mode                  string
	SecondaryEvictionRate float64
	UnhealthyClusterShare float64
	PaceByZone            bool
	NoExecuteAfterTimeout bool
	DirectlyEscapeTimeout time.Duration

	// fs is the flag set AddFlags filled, read by Ignored.
	fs *flag.FlagSet
}

// NewOptions returns the defaults: Karmada's for Karmada's flags.
func NewOptions() *Options {
	return &Options{
		Karmada:               karmadaflags.NewControllerManager(),
		Mode:                  ModeStandalone,
		SecondaryEvictionRate: eviction.DefaultSecondaryEvictionRate,
		DirectlyEscapeTimeout: eviction.DefaultDirectlyEscapeTimeout,
	}
}

// AddFlags registers karmada-controller-manager's flags and fleetover's
// on fs.
func (o *Options) AddFlags(fs *flag.FlagSet) {
	o.fs = fs
	o.Karmada.AddFlags(fs)
	fs.StringVar(&o.Mode, "fleetover-mode", o.Mode, "standalone: every failover part, with fleetover's own cluster health, scheduler and Work dispatcher; beside-karmada: only what Karmada's taint manager, gracefulEviction, applicationFailover and clustertaintpolicy controllers write, beside Karmada's own control plane (fleetover).")
	fs.Float64Var(&o.SecondaryEvictionRate, "fleetover-secondary-eviction-rate", o.SecondaryEvictionRate, "Evictions per second while part of the fleet is unhealthy (fleetover).")
	fs.Float64Var(&o.UnhealthyClusterShare, "fleetover-unhealthy-cluster-threshold", o.UnhealthyClusterShare, "Share of unhealthy clusters from which the secondary rate applies; 0 is the library default 0.55 (fleetover).")
	fs.BoolVar(&o.PaceByZone, "fleetover-pace-by-zone", o.PaceByZone, "Pace evictions and pick the disruption mode per zone (fleetover).")
	fs.BoolVar(&o.NoExecuteAfterTimeout, "fleetover-no-execute-after-timeout", o.NoExecuteAfterTimeout, "Add the NoExecute health taint after the eviction timeout (fleetover).")
	fs.DurationVar(&o.DirectlyEscapeTimeout, "fleetover-directly-escape-timeout", o.DirectlyEscapeTimeout, "How long a Directly purge waits for an unreachable old cluster; negative never escapes (fleetover).")
}

// Parse reads args into the options: a flag of another Karmada component
// is refused naming that component, any other unknown flag as the flag
// package refuses it.
func (o *Options) Parse(args []string) error {
	if o.fs == nil {
		fs := flag.NewFlagSet("fleetover-controller-manager", flag.ContinueOnError)
		o.AddFlags(fs)
	}
	if err := karmadaflags.Foreign(args); err != nil {
		return err
	}
	return o.fs.Parse(args)
}

// knownControllers are the names --controllers takes: Karmada's, and the
// two that are fleetover's own.
func knownControllers() []string {
	return append(karmadaflags.Controllers(), ControllerFailoverScheduler, ControllerFailoverCondition)
}

// Validate checks the options as karmada-controller-manager does, then
// the values fleetover adds and the library's own rules; errors name the
// flag.
func (o *Options) Validate() error {
	errs := o.Karmada.Validate()
	var unknown []string
	for _, name := range o.Karmada.Controllers.Named() {
		if to, ok := renamed()[name]; ok {
			errs = append(errs, field.Invalid(field.NewPath("--controllers"), name, "renamed to Karmada's name: "+to))
			continue
		}
		if !slices.Contains(knownControllers(), name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		errs = append(errs, field.NotSupported(field.NewPath("--controllers"), strings.Join(unknown, ","), append([]string{"*"}, knownControllers()...)))
	}
	if o.Mode != ModeStandalone && o.Mode != ModeBesideKarmada {
		errs = append(errs, field.NotSupported(field.NewPath("--fleetover-mode"), o.Mode, []string{ModeStandalone, ModeBesideKarmada}))
	}
	if o.SecondaryEvictionRate < 0 {
		errs = append(errs, field.Invalid(field.NewPath("--fleetover-secondary-eviction-rate"), o.SecondaryEvictionRate, "must not be negative"))
	}
	if o.UnhealthyClusterShare < 0 || o.UnhealthyClusterShare > 1 {
		errs = append(errs, field.Invalid(field.NewPath("--fleetover-unhealthy-cluster-threshold"), o.UnhealthyClusterShare, "must be within [0, 1]"))
	}
	if len(errs) > 0 {
		return errs.ToAggregate()
	}
	// What the library refuses, in the flags' names.
	c := o.Config()
	for _, e := range append(append(append(
		failover.ValidateClusterHealthConfig(c.ClusterHealth, field.NewPath("cluster")),
		failover.ValidateClusterTaintConfig(c.ClusterTaints, field.NewPath("taints"))...),
		eviction.ValidatePacerConfig(c.Pacer, field.NewPath("pacer"))...),
		eviction.ValidateAssessOptions(c.Assess, field.NewPath("assess"))...) {
		e.Field = flagOf(e.Field)
		errs = append(errs, e)
	}
	return errs.ToAggregate()
}

// flagOf names the flag that sets a library configuration field.
func flagOf(path string) string {
	if f, ok := map[string]string{
		"cluster.failureThreshold":     "--cluster-failure-threshold",
		"cluster.successThreshold":     "--cluster-success-threshold",
		"cluster.monitorGracePeriod":   "--cluster-monitor-grace-period",
		"cluster.startupGracePeriod":   "--cluster-startup-grace-period",
		"pacer.rate":                   "--resource-eviction-rate",
		"pacer.secondaryRate":          "--fleetover-secondary-eviction-rate",
		"pacer.unhealthyThreshold":     "--fleetover-unhealthy-cluster-threshold",
		"assess.timeout":               "--graceful-eviction-timeout",
		"assess.directlyEscapeTimeout": "--fleetover-directly-escape-timeout",
	}[path]; ok {
		return f
	}
	return path
}

// Enabled reports whether Karmada's --controllers runs the named
// controller here: on by default, unless the selection says otherwise.
func (o *Options) enabled(name string) bool {
	return o.Karmada.Controllers.Enabled(name, !slices.Contains(karmadaflags.DisabledByDefault(), name))
}

// Config turns the options into the controllers' configuration, with
// Karmada's meaning for each of Karmada's flags:
//   - the cluster controller keeps the silence rule and the health taints,
//     clusterStatus probes push-mode clusters (every
//     --cluster-status-update-frequency), and the cluster controller is
//     looked at every --cluster-monitor-period;
//   - the taint manager runs inside the cluster controller, with
//     --enable-taint-manager, the Failover gate and
//     --enable-no-execute-taint-eviction;
//   - the clustertaintpolicy controller needs the Failover gate;
//   - gracefulEviction and applicationFailover run whatever the gates say;
//     with GracefulEviction off an application failover that purges
//     Gracefully is refused, and without StatefulFailoverInjection no
//     state is read or injected;
//   - a --resource-eviction-rate of 0 holds each eviction 30 minutes in
//     Karmada: the pacer keeps one every 30 minutes.
func (o *Options) Config() controllers.Config {
	k := o.Karmada
	gates := k.FeatureGates
	run := map[string]bool{
		controllers.ControllerCluster:             o.enabled(karmadaflags.ControllerCluster),
		controllers.ControllerClusterStatus:       o.enabled(karmadaflags.ControllerClusterStatus),
		controllers.ControllerTaintManager:        o.enabled(karmadaflags.ControllerCluster) && k.EnableTaintManager && gates.Enabled(GateFailover) && k.EnableNoExecuteTaintEviction,
		controllers.ControllerClusterTaintPolicy:  o.enabled(karmadaflags.ControllerClusterTaintPolicy) && gates.Enabled(GateFailover),
		controllers.ControllerGracefulEviction:    o.enabled(karmadaflags.ControllerGracefulEviction),
		controllers.ControllerApplicationFailover: o.enabled(karmadaflags.ControllerApplicationFailover),
		controllers.ControllerBinding:             o.enabled(karmadaflags.ControllerBinding),
		controllers.ControllerFailoverScheduler:   o.enabled(ControllerFailoverScheduler),
		controllers.ControllerFailoverCondition:   o.enabled(ControllerFailoverCondition),
	}
	if o.Mode == ModeBesideKarmada {
		// Karmada's cluster, clusterStatus and binding controllers and
		// karmada-scheduler write these; the taint manager stays, as
		// Karmada runs its own inside the cluster controller.
		for _, name := range []string{controllers.ControllerCluster, controllers.ControllerClusterStatus, controllers.ControllerBinding, controllers.ControllerFailoverScheduler} {
			run[name] = false
		}
	}
	selection := make([]string, 0, len(run))
	for _, name := range controllers.ControllerNames() {
		if run[name] {
			selection = append(selection, name)
		} else {
			selection = append(selection, "-"+name)
		}
	}
	rate := k.ResourceEvictionRate
	if rate == 0 {
		rate = 1 / karmadaRateZeroInterval.Seconds()
	}
	purge := eviction.PurgeMode(k.NoExecuteTaintEvictionPurgeMode)
	if !k.EnableNoExecuteTaintEviction {
		// Karmada reads the mode only with NoExecute eviction on.
		purge = ""
	}
	return controllers.Config{
		Controllers:   selection,
		ProbeInterval: k.ClusterStatusUpdateFrequency,
		MonitorPeriod: k.ClusterMonitorPeriod,
		ClusterHealth: failover.ClusterHealthConfig{
			FailureThreshold:   k.ClusterFailureThreshold,
			SuccessThreshold:   k.ClusterSuccessThreshold,
			MonitorGracePeriod: k.ClusterMonitorGracePeriod,
			StartupGracePeriod: k.ClusterStartupGracePeriod,
		},
		ClusterTaints: failover.ClusterTaintConfig{NoExecuteAfterTimeout: o.NoExecuteAfterTimeout},
		// Beside Karmada a binding tolerates what its policy says: Karmada
		// adds no default tolerations since v1.15.
		NoDefaultTolerations: o.Mode == ModeBesideKarmada,
		ClusterFailover:      failover.ClusterFailoverDefaults{PurgeMode: purge.Normalize()},
		Pacer: eviction.PacerConfig{
			Rate:               rate,
			SecondaryRate:      o.SecondaryEvictionRate,
			UnhealthyThreshold: o.UnhealthyClusterShare,
			PerZone:            o.PaceByZone,
		},
		Assess: eviction.AssessOptions{
			Timeout:               k.GracefulEvictionTimeout,
			DirectlyEscapeTimeout: o.DirectlyEscapeTimeout,
		},
		StatefulFailoverInjection: gates.Enabled(GateStatefulFailoverInjection),
		GracefulEvictionDisabled:  !gates.Enabled(GateGracefulEviction),
		Concurrency: controllers.Concurrency{
			Clusters:                k.ConcurrentClusterSyncs,
			ResourceBindings:        k.ConcurrentResourceBindingSyncs,
			ClusterResourceBindings: k.ConcurrentClusterResourceBindingSyncs,
		},
		RateLimiter: controllers.RateLimiterOptions{
			BaseDelay:  k.RateLimiterBaseDelay,
			MaxDelay:   k.RateLimiterMaxDelay,
			QPS:        k.RateLimiterQPS,
			BucketSize: k.RateLimiterBucketSize,
		},
	}
}

// NotRun lists the Karmada controllers --controllers enables that run in
// karmada-controller-manager, not here: the manager says so in its log.
func (o *Options) NotRun() []string {
	var out []string
	for _, name := range karmadaflags.Controllers() {
		switch name {
		case karmadaflags.ControllerCluster, karmadaflags.ControllerClusterStatus, karmadaflags.ControllerClusterTaintPolicy,
			karmadaflags.ControllerGracefulEviction, karmadaflags.ControllerApplicationFailover, karmadaflags.ControllerBinding:
			continue
		}
		if o.enabled(name) {
			out = append(out, name)
		}
	}
	return out
}

// Ignored lists the flags given that karmada-controller-manager defines
// and fleetover does not act on.
func (o *Options) Ignored() []karmadaflags.IgnoredFlag {
	if o.fs == nil {
		return nil
	}
	return karmadaflags.Ignored(o.fs)
}

// String is a one-line summary of what the options enable, for the log.
func (o *Options) String() string {
	return fmt.Sprintf("controllers=%s featureGates=%s", strings.Join(o.Config().Controllers, ","), o.Karmada.FeatureGates.Effective())
}
