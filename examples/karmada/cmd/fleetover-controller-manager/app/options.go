package app

import (
	"flag"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"

	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// Feature gates, as karmada-controller-manager names them, with Karmada
// v1.17.1's defaults.
const (
	// GateFailover turns cluster failover on (Karmada: off by default).
	GateFailover = "Failover"
	// GateGracefulEviction runs the graceful eviction controller (on).
	GateGracefulEviction = "GracefulEviction"
	// GateStatefulFailoverInjection injects preserved state into the new
	// copy's manifest (off).
	GateStatefulFailoverInjection = "StatefulFailoverInjection"
)

// DefaultGates are Karmada v1.17.1's defaults of the gates above.
func DefaultGates() map[string]bool {
	return map[string]bool{GateFailover: false, GateGracefulEviction: true, GateStatefulFailoverInjection: false}
}

// KarmadaResourceEvictionRate is karmada-controller-manager's default
// --resource-eviction-rate (evictions per second); the library's own
// default (eviction.DefaultEvictionRate) is 50.
const KarmadaResourceEvictionRate = 0.5

// Options are the command line of the binary.
type Options struct {
	// Karmada's names and defaults.
	Controllers                     string
	LeaderElect                     bool
	LeaderElectResourceNamespace    string
	LeaderElectLeaseDuration        time.Duration
	LeaderElectRenewDeadline        time.Duration
	LeaderElectRetryPeriod          time.Duration
	MetricsBindAddress              string
	HealthProbeBindAddress          string
	EnableTaintManager              bool
	GracefulEvictionTimeout         time.Duration
	EnableNoExecuteTaintEviction    bool
	NoExecuteTaintEvictionPurgeMode string
	ResourceEvictionRate            float64
	ClusterMonitorPeriod            time.Duration
	ClusterMonitorGracePeriod       time.Duration
	ClusterStartupGracePeriod       time.Duration
	ClusterSuccessThreshold         time.Duration
	ClusterFailureThreshold         time.Duration
	FeatureGates                    map[string]bool

	// fleetover's own.
	SecondaryEvictionRate float64
	UnhealthyClusterShare float64
	PaceByZone            bool
	NoExecuteAfterTimeout bool
	DirectlyEscapeTimeout time.Duration
	LogFormat             string
}

// NewOptions returns the defaults.
func NewOptions() *Options {
	return &Options{
		Controllers:                     "*",
		LeaderElect:                     true,
		LeaderElectResourceNamespace:    "karmada-system",
		LeaderElectLeaseDuration:        15 * time.Second,
		LeaderElectRenewDeadline:        10 * time.Second,
		LeaderElectRetryPeriod:          2 * time.Second,
		MetricsBindAddress:              ":8080",
		HealthProbeBindAddress:          ":10357",
		EnableTaintManager:              true,
		GracefulEvictionTimeout:         10 * time.Minute,
		NoExecuteTaintEvictionPurgeMode: string(eviction.PurgeGracefully),
		ResourceEvictionRate:            KarmadaResourceEvictionRate,
		ClusterMonitorPeriod:            5 * time.Second,
		ClusterMonitorGracePeriod:       failover.DefaultClusterMonitorGracePeriod,
		ClusterStartupGracePeriod:       failover.DefaultClusterStartupGracePeriod,
		ClusterSuccessThreshold:         failover.DefaultClusterSuccessThreshold,
		ClusterFailureThreshold:         failover.DefaultClusterFailureThreshold,
		FeatureGates:                    DefaultGates(),
		SecondaryEvictionRate:           eviction.DefaultSecondaryEvictionRate,
		DirectlyEscapeTimeout:           eviction.DefaultDirectlyEscapeTimeout,
		LogFormat:                       "json",
	}
}

// AddFlags registers the flags on fs.
func (o *Options) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.Controllers, "controllers", o.Controllers, "Controllers to run, comma separated: '*' runs all, 'name' one, '-name' leaves one out. Names: "+strings.Join(controllers.ControllerNames(), ", ")+". Karmada's own failover stays off with karmada-controller-manager --controllers=-gracefulEviction,-applicationFailover --enable-taint-manager=false.")
	fs.BoolVar(&o.LeaderElect, "leader-elect", o.LeaderElect, "Gain leadership before running the controllers.")
	fs.StringVar(&o.LeaderElectResourceNamespace, "leader-elect-resource-namespace", o.LeaderElectResourceNamespace, "Namespace of the leader election Lease.")
	fs.DurationVar(&o.LeaderElectLeaseDuration, "leader-elect-lease-duration", o.LeaderElectLeaseDuration, "Leader election lease duration.")
	fs.DurationVar(&o.LeaderElectRenewDeadline, "leader-elect-renew-deadline", o.LeaderElectRenewDeadline, "Leader election renew deadline.")
	fs.DurationVar(&o.LeaderElectRetryPeriod, "leader-elect-retry-period", o.LeaderElectRetryPeriod, "Leader election retry period.")
	fs.StringVar(&o.MetricsBindAddress, "metrics-bind-address", o.MetricsBindAddress, "Address of the Prometheus metrics endpoint; 0 disables it.")
	fs.StringVar(&o.HealthProbeBindAddress, "health-probe-bind-address", o.HealthProbeBindAddress, "Address of /healthz and /readyz; 0 disables them.")
	fs.BoolVar(&o.EnableTaintManager, "enable-taint-manager", o.EnableTaintManager, "Run the taint manager (with the Failover gate).")
	fs.DurationVar(&o.GracefulEvictionTimeout, "graceful-eviction-timeout", o.GracefulEvictionTimeout, "How long a graceful eviction task may keep the old copy.")
	fs.BoolVar(&o.EnableNoExecuteTaintEviction, "enable-no-execute-taint-eviction", o.EnableNoExecuteTaintEviction, "Evict bindings that do not tolerate a cluster's NoExecute taints.")
	fs.StringVar(&o.NoExecuteTaintEvictionPurgeMode, "no-execute-taint-eviction-purge-mode", o.NoExecuteTaintEvictionPurgeMode, "Purge mode of NoExecute evictions when the policy names none: Directly or Gracefully.")
	fs.Float64Var(&o.ResourceEvictionRate, "resource-eviction-rate", o.ResourceEvictionRate, "Evictions per second across the fleet in normal mode (Karmada's default 0.5; the library's own default is 50).")
	fs.DurationVar(&o.ClusterMonitorPeriod, "cluster-monitor-period", o.ClusterMonitorPeriod, "How often push-mode clusters are probed.")
	fs.DurationVar(&o.ClusterMonitorGracePeriod, "cluster-monitor-grace-period", o.ClusterMonitorGracePeriod, "Silence after which a cluster's Ready turns Unknown.")
	fs.DurationVar(&o.ClusterStartupGracePeriod, "cluster-startup-grace-period", o.ClusterStartupGracePeriod, "Silence allowed to a cluster that never reported.")
	fs.DurationVar(&o.ClusterSuccessThreshold, "cluster-success-threshold", o.ClusterSuccessThreshold, "How long a cluster must be seen healthy before Ready=True.")
	fs.DurationVar(&o.ClusterFailureThreshold, "cluster-failure-threshold", o.ClusterFailureThreshold, "How long a cluster must be seen unhealthy before Ready=False.")
	fs.Var(gateFlag(o.FeatureGates), "feature-gates", "Comma-separated Gate=true|false pairs. Gates: Failover (default false), GracefulEviction (default true), StatefulFailoverInjection (default false).")
	fs.Float64Var(&o.SecondaryEvictionRate, "fleetover-secondary-eviction-rate", o.SecondaryEvictionRate, "Evictions per second while part of the fleet is unhealthy (fleetover).")
	fs.Float64Var(&o.UnhealthyClusterShare, "fleetover-unhealthy-cluster-threshold", o.UnhealthyClusterShare, "Share of unhealthy clusters from which the secondary rate applies; 0 is the library default 0.55 (fleetover).")
	fs.BoolVar(&o.PaceByZone, "fleetover-pace-by-zone", o.PaceByZone, "Pace evictions and pick the disruption mode per zone (fleetover).")
	fs.BoolVar(&o.NoExecuteAfterTimeout, "fleetover-no-execute-after-timeout", o.NoExecuteAfterTimeout, "Add the NoExecute health taint after the eviction timeout (fleetover).")
	fs.DurationVar(&o.DirectlyEscapeTimeout, "fleetover-directly-escape-timeout", o.DirectlyEscapeTimeout, "How long a Directly purge waits for an unreachable old cluster; negative never escapes (fleetover).")
	fs.StringVar(&o.LogFormat, "log-format", o.LogFormat, "json or text.")
}

// gateFlag parses --feature-gates into the map.
type gateFlag map[string]bool

func (g gateFlag) String() string {
	keys := make([]string, 0, len(g))
	for k := range g {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + strconv.FormatBool(g[k])
	}
	return strings.Join(parts, ",")
}

func (g gateFlag) Set(v string) error {
	known := DefaultGates()
	for _, pair := range strings.Split(v, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		name, value, ok := strings.Cut(pair, "=")
		if !ok {
			return fmt.Errorf("feature gate %q: want Name=true|false", pair)
		}
		if _, ok := known[name]; !ok {
			return fmt.Errorf("unknown feature gate %q", name)
		}
		b, err := strconv.ParseBool(value)
		if err != nil {
			return fmt.Errorf("feature gate %s: %w", name, err)
		}
		g[name] = b
	}
	return nil
}

// Validate checks the options; errors name the flag.
func (o *Options) Validate() error {
	var errs field.ErrorList
	if m := eviction.PurgeMode(o.NoExecuteTaintEvictionPurgeMode).Normalize(); m != eviction.PurgeDirectly && m != eviction.PurgeGracefully {
		errs = append(errs, field.NotSupported(field.NewPath("no-execute-taint-eviction-purge-mode"), o.NoExecuteTaintEvictionPurgeMode, []string{"Directly", "Gracefully"}))
	}
	if o.ResourceEvictionRate <= 0 {
		errs = append(errs, field.Invalid(field.NewPath("resource-eviction-rate"), o.ResourceEvictionRate, "must be positive"))
	}
	if o.SecondaryEvictionRate < 0 {
		errs = append(errs, field.Invalid(field.NewPath("fleetover-secondary-eviction-rate"), o.SecondaryEvictionRate, "must not be negative"))
	}
	if o.UnhealthyClusterShare < 0 || o.UnhealthyClusterShare > 1 {
		errs = append(errs, field.Invalid(field.NewPath("fleetover-unhealthy-cluster-threshold"), o.UnhealthyClusterShare, "must be within [0, 1]"))
	}
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"graceful-eviction-timeout", o.GracefulEvictionTimeout}, {"cluster-monitor-period", o.ClusterMonitorPeriod},
		{"cluster-monitor-grace-period", o.ClusterMonitorGracePeriod}, {"cluster-startup-grace-period", o.ClusterStartupGracePeriod},
	} {
		if d.v <= 0 {
			errs = append(errs, field.Invalid(field.NewPath(d.name), d.v.String(), "must be positive"))
		}
	}
	for _, c := range o.controllerList() {
		name := strings.TrimPrefix(c, "-")
		if c != "*" && !contains(controllers.ControllerNames(), name) {
			errs = append(errs, field.NotSupported(field.NewPath("controllers"), c, append([]string{"*"}, controllers.ControllerNames()...)))
		}
	}
	if o.LogFormat != "json" && o.LogFormat != "text" {
		errs = append(errs, field.NotSupported(field.NewPath("log-format"), o.LogFormat, []string{"json", "text"}))
	}
	return errs.ToAggregate()
}

func (o *Options) controllerList() []string {
	var out []string
	for _, c := range strings.Split(o.Controllers, ",") {
		if c = strings.TrimSpace(c); c != "" {
			out = append(out, c)
		}
	}
	return out
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// Config turns the options into the controllers' configuration. Cluster
// failover (the taint manager) runs only with the Failover gate,
// --enable-taint-manager and --enable-no-execute-taint-eviction, as in
// Karmada; graceful eviction only with the GracefulEviction gate.
func (o *Options) Config() controllers.Config {
	selection := o.controllerList()
	if !o.FeatureGates[GateFailover] || !o.EnableTaintManager || !o.EnableNoExecuteTaintEviction {
		selection = append(selection, "-taintManager")
	}
	if !o.FeatureGates[GateGracefulEviction] {
		selection = append(selection, "-gracefulEviction")
	}
	// A "-name" must win over an earlier "*": put exclusions first.
	sort.SliceStable(selection, func(i, j int) bool {
		return strings.HasPrefix(selection[i], "-") && !strings.HasPrefix(selection[j], "-")
	})
	return controllers.Config{
		Controllers:   selection,
		ProbeInterval: o.ClusterMonitorPeriod,
		ClusterHealth: failover.ClusterHealthConfig{
			FailureThreshold:   o.ClusterFailureThreshold,
			SuccessThreshold:   o.ClusterSuccessThreshold,
			MonitorGracePeriod: o.ClusterMonitorGracePeriod,
			StartupGracePeriod: o.ClusterStartupGracePeriod,
		},
		ClusterTaints:   failover.ClusterTaintConfig{NoExecuteAfterTimeout: o.NoExecuteAfterTimeout},
		ClusterFailover: failover.ClusterFailoverDefaults{PurgeMode: eviction.PurgeMode(o.NoExecuteTaintEvictionPurgeMode).Normalize()},
		Pacer: eviction.PacerConfig{
			Rate:               o.ResourceEvictionRate,
			SecondaryRate:      o.SecondaryEvictionRate,
			UnhealthyThreshold: o.UnhealthyClusterShare,
			PerZone:            o.PaceByZone,
		},
		Assess: eviction.AssessOptions{
			Timeout:               o.GracefulEvictionTimeout,
			DirectlyEscapeTimeout: o.DirectlyEscapeTimeout,
		},
		StatefulFailoverInjection: o.FeatureGates[GateStatefulFailoverInjection],
	}
}
