package karmadaflags

import (
	"flag"
	"sort"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Karmada's purge modes for --no-execute-taint-eviction-purge-mode: the
// flag takes exactly these spellings.
const (
	PurgeModeGracefully = "Gracefully"
	PurgeModeDirectly   = "Directly"
)

// ControllerManager is karmada-controller-manager's command line. Every
// flag Karmada v1.18.1 defines has a field, with Karmada's default from
// NewControllerManager; Used says which of them fleetover's controllers
// act on.
type ControllerManager struct {
	Kubeconfig  string
	Controllers Selection

	LeaderElect                  bool
	LeaderElectResourceNamespace string
	LeaderElectLeaseDuration     time.Duration
	LeaderElectRenewDeadline     time.Duration
	LeaderElectRetryPeriod       time.Duration
	MetricsBindAddress           string
	HealthProbeBindAddress       string
	KubeAPIQPS                   float64
	KubeAPIBurst                 int

	// ClusterStatusUpdateFrequency is how often push-mode clusters are
	// probed and their status posted.
	ClusterStatusUpdateFrequency time.Duration
	ClusterSuccessThreshold      time.Duration
	ClusterFailureThreshold      time.Duration
	// ClusterMonitorPeriod is how often the cluster controller looks at
	// every cluster's health signals.
	ClusterMonitorPeriod      time.Duration
	ClusterMonitorGracePeriod time.Duration
	ClusterStartupGracePeriod time.Duration

	ConcurrentClusterSyncs                int
	ConcurrentResourceBindingSyncs        int
	ConcurrentClusterResourceBindingSyncs int

	EnableTaintManager              bool
	GracefulEvictionTimeout         time.Duration
	EnableNoExecuteTaintEviction    bool
	NoExecuteTaintEvictionPurgeMode string
	ResourceEvictionRate            float64

	RateLimiterBaseDelay  time.Duration
	RateLimiterMaxDelay   time.Duration
	RateLimiterQPS        int
	RateLimiterBucketSize int

	EnablePprof          bool
	ProfilingBindAddress string

	LoggingFormat string
	Verbosity     int

	FeatureGates *Gates

	// The flags of the parts of karmada-controller-manager that fleetover
	// does not replace: accepted so that Karmada's command lines parse,
	// with no effect here.
	SkippedPropagatingAPIs                  string
	SkippedPropagatingNamespaces            Selection
	ClusterAPIContext                       string
	ClusterAPIKubeconfig                    string
	ClusterAPIQPS                           float64
	ClusterAPIBurst                         int
	ClusterCacheSyncTimeout                 time.Duration
	ResyncPeriod                            time.Duration
	ConcurrentWorkSyncs                     int
	ConcurrentNamespaceSyncs                int
	ConcurrentPropagationPolicySyncs        int
	ConcurrentClusterPropagationPolicySyncs int
	ConcurrentResourceTemplateSyncs         int
	ConcurrentDependentResourceSyncs        int
	EnableClusterResourceModeling           bool
	FederatedResourceQuotaSyncPeriod        time.Duration
	HPASyncPeriod                           time.Duration
	HPAUpscaleDelay                         time.Duration
	HPADownscaleStabilization               time.Duration
	HPADownscaleDelay                       time.Duration
	HPATolerance                            float64
	HPACPUInitializationPeriod              time.Duration
	HPAInitialReadinessDelay                time.Duration
	LogFlushFrequency                       time.Duration
	VModule                                 string
	LogTextSplitStream                      bool
	LogTextInfoBufferSize                   string
	LogJSONSplitStream                      bool
	LogJSONInfoBufferSize                   string
	Klog                                    map[string]*string
}

// NewControllerManager returns karmada-controller-manager's defaults.
func NewControllerManager() *ControllerManager {
	return &ControllerManager{
		Controllers:                             Selection{"*"},
		LeaderElect:                             true,
		LeaderElectResourceNamespace:            "karmada-system",
		LeaderElectLeaseDuration:                15 * time.Second,
		LeaderElectRenewDeadline:                10 * time.Second,
		LeaderElectRetryPeriod:                  2 * time.Second,
		MetricsBindAddress:                      ":8080",
		HealthProbeBindAddress:                  ":10357",
		KubeAPIQPS:                              40,
		KubeAPIBurst:                            60,
		ClusterStatusUpdateFrequency:            10 * time.Second,
		ClusterSuccessThreshold:                 30 * time.Second,
		ClusterFailureThreshold:                 30 * time.Second,
		ClusterMonitorPeriod:                    5 * time.Second,
		ClusterMonitorGracePeriod:               40 * time.Second,
		ClusterStartupGracePeriod:               60 * time.Second,
		ConcurrentClusterSyncs:                  5,
		ConcurrentResourceBindingSyncs:          5,
		ConcurrentClusterResourceBindingSyncs:   5,
		EnableTaintManager:                      true,
		GracefulEvictionTimeout:                 10 * time.Minute,
		NoExecuteTaintEvictionPurgeMode:         PurgeModeGracefully,
		ResourceEvictionRate:                    0.5,
		RateLimiterBaseDelay:                    5 * time.Millisecond,
		RateLimiterMaxDelay:                     1000 * time.Second,
		RateLimiterQPS:                          10,
		RateLimiterBucketSize:                   100,
		ProfilingBindAddress:                    ":6060",
		LoggingFormat:                           "text",
		FeatureGates:                            NewGates(),
		SkippedPropagatingNamespaces:            Selection{"kube-.*"},
		ClusterAPIQPS:                           40,
		ClusterAPIBurst:                         60,
		ClusterCacheSyncTimeout:                 2 * time.Minute,
		ConcurrentWorkSyncs:                     5,
		ConcurrentNamespaceSyncs:                1,
		ConcurrentPropagationPolicySyncs:        1,
		ConcurrentClusterPropagationPolicySyncs: 1,
		ConcurrentResourceTemplateSyncs:         5,
		ConcurrentDependentResourceSyncs:        2,
		EnableClusterResourceModeling:           true,
		FederatedResourceQuotaSyncPeriod:        5 * time.Minute,
		HPASyncPeriod:                           15 * time.Second,
		HPAUpscaleDelay:                         3 * time.Minute,
		HPADownscaleStabilization:               5 * time.Minute,
		HPADownscaleDelay:                       5 * time.Minute,
		HPATolerance:                            0.1,
		HPACPUInitializationPeriod:              5 * time.Minute,
		HPAInitialReadinessDelay:                30 * time.Second,
		LogFlushFrequency:                       5 * time.Second,
		Klog:                                    map[string]*string{},
	}
}

// owner says, for a flag fleetover's controllers do not act on, whose it
// is in Karmada.
type owner string

// Owners of the accepted flags that have no effect here: why each has
// none.
const (
	ownerDetector         owner = "the resource detector and the policy controllers read it, and they run in karmada-controller-manager"
	ownerExecution        owner = "the execution and work status controllers read it, and they run in karmada-controller-manager"
	ownerClusterAPI       owner = "the Cluster API discovery reads it, and it runs in karmada-controller-manager"
	ownerMemberInformers  owner = "the informers on member clusters read it, and fleetover runs none"
	ownerResourceModeling owner = "the cluster resource modeling reads it, and it runs in karmada-controller-manager"
	ownerHPA              owner = "the FederatedHPA controllers read it, and they run in karmada-controller-manager"
	ownerQuota            owner = "the FederatedResourceQuota controllers read it, and they run in karmada-controller-manager"
	ownerLogging          owner = "klog's file and stream output reads it, and fleetover logs through its structured logger"
	ownerNamespace        owner = "the namespace sync controller reads it, and it runs in karmada-controller-manager"
)

// AddFlags registers every flag of karmada-controller-manager on fs.
func (o *ControllerManager) AddFlags(fs *flag.FlagSet) {
	fs.StringVar(&o.Kubeconfig, "kubeconfig", o.Kubeconfig, "Path to karmada control plane kubeconfig file.")
	fs.Var(&selectionFlag{&o.Controllers, nil}, "controllers", "A list of controllers to enable. '*' enables all on-by-default controllers, 'foo' enables the controller named 'foo', '-foo' disables the controller named 'foo'; the first item naming a controller wins.")
	fs.BoolVar(&o.LeaderElect, "leader-elect", o.LeaderElect, "Start a leader election client and gain leadership before running the controllers.")
	fs.StringVar(&o.LeaderElectResourceNamespace, "leader-elect-resource-namespace", o.LeaderElectResourceNamespace, "The namespace of the leader election Lease.")
	fs.DurationVar(&o.LeaderElectLeaseDuration, "leader-elect-lease-duration", o.LeaderElectLeaseDuration, "How long a non-leader waits after a renewal before it tries to take the lead.")
	fs.DurationVar(&o.LeaderElectRenewDeadline, "leader-elect-renew-deadline", o.LeaderElectRenewDeadline, "How long the leader keeps trying to renew before it stops leading.")
	fs.DurationVar(&o.LeaderElectRetryPeriod, "leader-elect-retry-period", o.LeaderElectRetryPeriod, "How long candidates wait between tries to acquire or renew.")
	fs.StringVar(&o.MetricsBindAddress, "metrics-bind-address", o.MetricsBindAddress, "The TCP address of the Prometheus metrics endpoint; \"0\" disables it.")
	fs.StringVar(&o.HealthProbeBindAddress, "health-probe-bind-address", o.HealthProbeBindAddress, "The TCP address of /healthz and /readyz; \"0\" disables them.")
	fs.Float64Var(&o.KubeAPIQPS, "kube-api-qps", o.KubeAPIQPS, "QPS to use while talking with karmada-apiserver.")
	fs.IntVar(&o.KubeAPIBurst, "kube-api-burst", o.KubeAPIBurst, "Burst to use while talking with karmada-apiserver.")
	fs.DurationVar(&o.ClusterStatusUpdateFrequency, "cluster-status-update-frequency", o.ClusterStatusUpdateFrequency, "How often push-mode clusters are probed and their status posted.")
	fs.DurationVar(&o.ClusterSuccessThreshold, "cluster-success-threshold", o.ClusterSuccessThreshold, "How long a cluster must be seen healthy before it is Ready again.")
	fs.DurationVar(&o.ClusterFailureThreshold, "cluster-failure-threshold", o.ClusterFailureThreshold, "How long a cluster must be seen unhealthy before it is not Ready.")
	fs.DurationVar(&o.ClusterMonitorPeriod, "cluster-monitor-period", o.ClusterMonitorPeriod, "How often the cluster controller looks at every cluster's health signals.")
	fs.DurationVar(&o.ClusterMonitorGracePeriod, "cluster-monitor-grace-period", o.ClusterMonitorGracePeriod, "How long a running cluster may stay silent before its Ready turns Unknown.")
	fs.DurationVar(&o.ClusterStartupGracePeriod, "cluster-startup-grace-period", o.ClusterStartupGracePeriod, "How long a cluster that never reported may stay silent.")
	fs.IntVar(&o.ConcurrentClusterSyncs, "concurrent-cluster-syncs", o.ConcurrentClusterSyncs, "The number of Clusters synced concurrently.")
	fs.IntVar(&o.ConcurrentResourceBindingSyncs, "concurrent-resourcebinding-syncs", o.ConcurrentResourceBindingSyncs, "The number of ResourceBindings synced concurrently.")
	fs.IntVar(&o.ConcurrentClusterResourceBindingSyncs, "concurrent-clusterresourcebinding-syncs", o.ConcurrentClusterResourceBindingSyncs, "The number of ClusterResourceBindings synced concurrently.")
	fs.BoolVar(&o.EnableTaintManager, "enable-taint-manager", o.EnableTaintManager, "Run the taint manager (with the Failover feature gate).")
	fs.DurationVar(&o.GracefulEvictionTimeout, "graceful-eviction-timeout", o.GracefulEvictionTimeout, "How long a graceful eviction task may keep the old copy.")
	fs.BoolVar(&o.EnableNoExecuteTaintEviction, "enable-no-execute-taint-eviction", o.EnableNoExecuteTaintEviction, "Evict workloads that do not tolerate a cluster's NoExecute taints.")
	fs.StringVar(&o.NoExecuteTaintEvictionPurgeMode, "no-execute-taint-eviction-purge-mode", o.NoExecuteTaintEvictionPurgeMode, "Purge mode of NoExecute evictions (only with --enable-no-execute-taint-eviction): \"Directly\" or \"Gracefully\".")
	fs.Float64Var(&o.ResourceEvictionRate, "resource-eviction-rate", o.ResourceEvictionRate, "Resources evicted per second in a cluster failover.")
	fs.DurationVar(&o.RateLimiterBaseDelay, "rate-limiter-base-delay", o.RateLimiterBaseDelay, "The base delay of the controllers' retry backoff.")
	fs.DurationVar(&o.RateLimiterMaxDelay, "rate-limiter-max-delay", o.RateLimiterMaxDelay, "The max delay of the controllers' retry backoff.")
	fs.IntVar(&o.RateLimiterQPS, "rate-limiter-qps", o.RateLimiterQPS, "The QPS of the controllers' retries.")
	fs.IntVar(&o.RateLimiterBucketSize, "rate-limiter-bucket-size", o.RateLimiterBucketSize, "The bucket size of the controllers' retries.")
	fs.BoolVar(&o.EnablePprof, "enable-pprof", o.EnablePprof, "Serve profiling at host:port/debug/pprof/.")
	fs.StringVar(&o.ProfilingBindAddress, "profiling-bind-address", o.ProfilingBindAddress, "The TCP address of profiling, with --enable-pprof.")
	fs.StringVar(&o.LoggingFormat, "logging-format", o.LoggingFormat, "Sets the log format: \"text\" or \"json\".")
	fs.IntVar(&o.Verbosity, "v", o.Verbosity, "Number for the log level verbosity.")
	fs.Var(o.FeatureGates, "feature-gates", "Comma-separated Gate=true|false pairs; AllAlpha and AllBeta set every gate of that stage. Gates: "+strings.Join(sortedGates(), ", ")+".")

	fs.StringVar(&o.SkippedPropagatingAPIs, "skipped-propagating-apis", o.SkippedPropagatingAPIs, usageIgnored(ownerDetector))
	fs.Var(&selectionFlag{&o.SkippedPropagatingNamespaces, nil}, "skipped-propagating-namespaces", usageIgnored(ownerDetector))
	fs.StringVar(&o.ClusterAPIContext, "cluster-api-context", o.ClusterAPIContext, usageIgnored(ownerClusterAPI))
	fs.StringVar(&o.ClusterAPIKubeconfig, "cluster-api-kubeconfig", o.ClusterAPIKubeconfig, usageIgnored(ownerClusterAPI))
	fs.Float64Var(&o.ClusterAPIQPS, "cluster-api-qps", o.ClusterAPIQPS, usageIgnored(ownerClusterAPI))
	fs.IntVar(&o.ClusterAPIBurst, "cluster-api-burst", o.ClusterAPIBurst, usageIgnored(ownerClusterAPI))
	fs.DurationVar(&o.ClusterCacheSyncTimeout, "cluster-cache-sync-timeout", o.ClusterCacheSyncTimeout, usageIgnored(ownerMemberInformers))
	fs.DurationVar(&o.ResyncPeriod, "resync-period", o.ResyncPeriod, usageIgnored(ownerMemberInformers))
	fs.IntVar(&o.ConcurrentWorkSyncs, "concurrent-work-syncs", o.ConcurrentWorkSyncs, usageIgnored(ownerExecution))
	fs.IntVar(&o.ConcurrentNamespaceSyncs, "concurrent-namespace-syncs", o.ConcurrentNamespaceSyncs, usageIgnored(ownerNamespace))
	fs.IntVar(&o.ConcurrentPropagationPolicySyncs, "concurrent-propagation-policy-syncs", o.ConcurrentPropagationPolicySyncs, usageIgnored(ownerDetector))
	fs.IntVar(&o.ConcurrentClusterPropagationPolicySyncs, "concurrent-cluster-propagation-policy-syncs", o.ConcurrentClusterPropagationPolicySyncs, usageIgnored(ownerDetector))
	fs.IntVar(&o.ConcurrentResourceTemplateSyncs, "concurrent-resource-template-syncs", o.ConcurrentResourceTemplateSyncs, usageIgnored(ownerDetector))
	fs.IntVar(&o.ConcurrentDependentResourceSyncs, "concurrent-dependent-resource-syncs", o.ConcurrentDependentResourceSyncs, usageIgnored(ownerDetector))
	fs.BoolVar(&o.EnableClusterResourceModeling, "enable-cluster-resource-modeling", o.EnableClusterResourceModeling, usageIgnored(ownerResourceModeling))
	fs.DurationVar(&o.FederatedResourceQuotaSyncPeriod, "federated-resource-quota-sync-period", o.FederatedResourceQuotaSyncPeriod, usageIgnored(ownerQuota))
	fs.DurationVar(&o.HPASyncPeriod, "horizontal-pod-autoscaler-sync-period", o.HPASyncPeriod, usageIgnored(ownerHPA))
	fs.DurationVar(&o.HPAUpscaleDelay, "horizontal-pod-autoscaler-upscale-delay", o.HPAUpscaleDelay, usageIgnored(ownerHPA))
	fs.DurationVar(&o.HPADownscaleStabilization, "horizontal-pod-autoscaler-downscale-stabilization", o.HPADownscaleStabilization, usageIgnored(ownerHPA))
	fs.DurationVar(&o.HPADownscaleDelay, "horizontal-pod-autoscaler-downscale-delay", o.HPADownscaleDelay, usageIgnored(ownerHPA))
	fs.Float64Var(&o.HPATolerance, "horizontal-pod-autoscaler-tolerance", o.HPATolerance, usageIgnored(ownerHPA))
	fs.DurationVar(&o.HPACPUInitializationPeriod, "horizontal-pod-autoscaler-cpu-initialization-period", o.HPACPUInitializationPeriod, usageIgnored(ownerHPA))
	fs.DurationVar(&o.HPAInitialReadinessDelay, "horizontal-pod-autoscaler-initial-readiness-delay", o.HPAInitialReadinessDelay, usageIgnored(ownerHPA))
	fs.DurationVar(&o.LogFlushFrequency, "log-flush-frequency", o.LogFlushFrequency, usageIgnored(ownerLogging))
	fs.StringVar(&o.VModule, "vmodule", o.VModule, usageIgnored(ownerLogging))
	fs.BoolVar(&o.LogTextSplitStream, "log-text-split-stream", o.LogTextSplitStream, usageIgnored(ownerLogging))
	fs.StringVar(&o.LogTextInfoBufferSize, "log-text-info-buffer-size", o.LogTextInfoBufferSize, usageIgnored(ownerLogging))
	fs.BoolVar(&o.LogJSONSplitStream, "log-json-split-stream", o.LogJSONSplitStream, usageIgnored(ownerLogging))
	fs.StringVar(&o.LogJSONInfoBufferSize, "log-json-info-buffer-size", o.LogJSONInfoBufferSize, usageIgnored(ownerLogging))
	for _, k := range klogFlags() {
		v := k.value
		o.Klog[k.name] = &v
		if k.boolean {
			fs.Var(&klogBool{o.Klog[k.name]}, k.name, usageIgnored(ownerLogging))
		} else {
			fs.StringVar(o.Klog[k.name], k.name, k.value, usageIgnored(ownerLogging))
		}
	}
}

func usageIgnored(o owner) string {
	return "Accepted for Karmada's command line, with no effect here: " + string(o) + "."
}

func sortedGates() []string {
	known := KnownGates()
	names := make([]string, 0, len(known))
	for k, spec := range known {
		names = append(names, k+" (default "+strconv.FormatBool(spec.Default)+")")
	}
	sort.Strings(names)
	return names
}

// klogFlag is one of klog's flags, which Karmada's commands register.
type klogFlag struct {
	name, value string
	boolean     bool
}

func klogFlags() []klogFlag {
	return []klogFlag{
		{"add_dir_header", "false", true}, {"alsologtostderr", "false", true}, {"log_backtrace_at", ":0", false},
		{"log_dir", "", false}, {"log_file", "", false}, {"log_file_max_size", "1800", false},
		{"logtostderr", "true", true}, {"one_output", "false", true}, {"skip_headers", "false", true},
		{"skip_log_headers", "false", true}, {"stderrthreshold", "2", false},
	}
}

// klogBool is a boolean klog flag, kept as text.
type klogBool struct{ v *string }

func (b *klogBool) String() string {
	if b.v == nil {
		return ""
	}
	return *b.v
}

func (b *klogBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	*b.v = strconv.FormatBool(v)
	return nil
}

func (b *klogBool) IsBoolFlag() bool { return true }

// selectionFlag is a comma-separated list flag with pflag's StringSlice
// rule: the first use replaces the default, later uses append.
type selectionFlag struct {
	s   *Selection
	set *bool
}

func (f *selectionFlag) String() string {
	if f.s == nil {
		return ""
	}
	return f.s.String()
}

func (f *selectionFlag) Set(v string) error {
	var items Selection
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			items = append(items, item)
		}
	}
	if f.set == nil {
		f.set = new(bool)
	}
	if !*f.set {
		*f.s = nil
		*f.set = true
	}
	*f.s = append(*f.s, items...)
	return nil
}

// Used reports whether fleetover's controllers act on the Karmada flag
// name; the other flags of karmada-controller-manager are accepted with no
// effect (Ignored lists those given).
func Used(name string) bool {
	switch name {
	case "kubeconfig", "controllers", "leader-elect", "leader-elect-resource-namespace", "leader-elect-lease-duration",
		"leader-elect-renew-deadline", "leader-elect-retry-period", "metrics-bind-address", "health-probe-bind-address",
		"kube-api-qps", "kube-api-burst", "cluster-status-update-frequency", "cluster-success-threshold",
		"cluster-failure-threshold", "cluster-monitor-period", "cluster-monitor-grace-period", "cluster-startup-grace-period",
		"concurrent-cluster-syncs", "concurrent-resourcebinding-syncs", "concurrent-clusterresourcebinding-syncs",
		"enable-taint-manager", "graceful-eviction-timeout", "enable-no-execute-taint-eviction",
		"no-execute-taint-eviction-purge-mode", "resource-eviction-rate", "rate-limiter-base-delay", "rate-limiter-max-delay",
		"rate-limiter-qps", "rate-limiter-bucket-size", "enable-pprof", "profiling-bind-address", "logging-format", "v",
		"feature-gates":
		return true
	}
	return false
}

// IgnoredFlag is a flag given on the command line that fleetover accepts
// and does not act on.
type IgnoredFlag struct {
	Name, Value string
	// Owner names the part of Karmada that acts on it.
	Owner string
}

// Ignored lists the flags of karmada-controller-manager set on fs that
// have no effect in fleetover, sorted by name.
func Ignored(fs *flag.FlagSet) []IgnoredFlag {
	var out []IgnoredFlag
	fs.Visit(func(f *flag.Flag) {
		if o, ok := ignoredOwner(f.Name); ok {
			out = append(out, IgnoredFlag{Name: f.Name, Value: f.Value.String(), Owner: string(o)})
		}
	})
	return out
}

// ignoredOwner says whose a karmada-controller-manager flag is when
// fleetover does not act on it.
func ignoredOwner(name string) (owner, bool) {
	switch name {
	case "skipped-propagating-apis", "skipped-propagating-namespaces", "concurrent-propagation-policy-syncs",
		"concurrent-cluster-propagation-policy-syncs", "concurrent-resource-template-syncs", "concurrent-dependent-resource-syncs":
		return ownerDetector, true
	case "cluster-api-context", "cluster-api-kubeconfig", "cluster-api-qps", "cluster-api-burst":
		return ownerClusterAPI, true
	case "cluster-cache-sync-timeout", "resync-period":
		return ownerMemberInformers, true
	case "concurrent-work-syncs":
		return ownerExecution, true
	case "concurrent-namespace-syncs":
		return ownerNamespace, true
	case "enable-cluster-resource-modeling":
		return ownerResourceModeling, true
	case "federated-resource-quota-sync-period":
		return ownerQuota, true
	case "log-flush-frequency", "vmodule", "log-text-split-stream", "log-text-info-buffer-size", "log-json-split-stream", "log-json-info-buffer-size":
		return ownerLogging, true
	}
	if strings.HasPrefix(name, "horizontal-pod-autoscaler-") {
		return ownerHPA, true
	}
	for _, k := range klogFlags() {
		if k.name == name {
			return ownerLogging, true
		}
	}
	return "", false
}

// Validate returns what karmada-controller-manager refuses, each error
// naming the flag: non-positive cluster periods, a purge mode other than
// Directly or Gracefully while NoExecute eviction is on, a negative
// eviction rate, and an unknown log format. (Karmada checks the purge
// mode only when eviction is on, and takes a rate of 0.)
func (o *ControllerManager) Validate() field.ErrorList {
	var errs field.ErrorList
	for _, d := range []struct {
		name string
		v    time.Duration
	}{
		{"cluster-status-update-frequency", o.ClusterStatusUpdateFrequency},
		{"cluster-monitor-period", o.ClusterMonitorPeriod},
		{"cluster-monitor-grace-period", o.ClusterMonitorGracePeriod},
		{"cluster-startup-grace-period", o.ClusterStartupGracePeriod},
	} {
		if d.v <= 0 {
			errs = append(errs, field.Invalid(flagPath(d.name), d.v.String(), "must be greater than 0"))
		}
	}
	if o.EnableNoExecuteTaintEviction && o.NoExecuteTaintEvictionPurgeMode != PurgeModeGracefully && o.NoExecuteTaintEvictionPurgeMode != PurgeModeDirectly {
		errs = append(errs, field.NotSupported(flagPath("no-execute-taint-eviction-purge-mode"), o.NoExecuteTaintEvictionPurgeMode, []string{PurgeModeDirectly, PurgeModeGracefully}))
	}
	if o.ResourceEvictionRate < 0 {
		errs = append(errs, field.Invalid(flagPath("resource-eviction-rate"), o.ResourceEvictionRate, "must be non-negative"))
	}
	if o.LoggingFormat != "text" && o.LoggingFormat != "json" {
		errs = append(errs, field.NotSupported(flagPath("logging-format"), o.LoggingFormat, []string{"json", "text"}))
	}
	if o.Verbosity < 0 {
		errs = append(errs, field.Invalid(flagPath("v"), o.Verbosity, "must be non-negative"))
	}
	return errs
}

// flagPath names a flag in a field.Error: "--name".
func flagPath(name string) *field.Path { return field.NewPath("--" + name) }
