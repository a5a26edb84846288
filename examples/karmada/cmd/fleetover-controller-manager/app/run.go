package app

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/go-logr/logr"
	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"

	"github.com/fleetover/fleetover/failover"

	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// LeaderElectionID names the Lease the replicas compete for.
const LeaderElectionID = "fleetover-controller-manager"

// NewLogger returns the logger the options ask for: Karmada's
// --logging-format (text or json) and -v (a logr V-level n logs at
// slog level -n, so -v=4 shows V(4) and below).
func NewLogger(o *Options, w io.Writer) logr.Logger {
	opts := &slog.HandlerOptions{Level: slog.Level(-o.Karmada.Verbosity)}
	var h slog.Handler = slog.NewTextHandler(w, opts)
	if o.Karmada.LoggingFormat == "json" {
		h = slog.NewJSONHandler(w, opts)
	}
	return logr.FromSlogHandler(h)
}

// RESTConfig returns the connection to the Karmada control plane: the
// --kubeconfig file when given, else as controller-runtime finds one
// (KUBECONFIG, in-cluster, ~/.kube/config); with --kube-api-qps and
// --kube-api-burst.
func RESTConfig(o *Options) (*rest.Config, error) {
	var cfg *rest.Config
	var err error
	if o.Karmada.Kubeconfig != "" {
		cfg, err = clientcmd.BuildConfigFromFlags("", o.Karmada.Kubeconfig)
		if err != nil {
			return nil, fmt.Errorf("--kubeconfig %s: %w", o.Karmada.Kubeconfig, err)
		}
	} else if cfg, err = ctrl.GetConfig(); err != nil {
		return nil, fmt.Errorf("kubeconfig of the Karmada control plane (give --kubeconfig): %w", err)
	}
	cfg.QPS, cfg.Burst = float32(o.Karmada.KubeAPIQPS), o.Karmada.KubeAPIBurst
	return cfg, nil
}

// Run starts the controllers against the Karmada control plane at cfg and
// blocks until ctx ends. started, when not nil, is called once the manager
// is set up (tests use it to find the controllers).
func Run(ctx context.Context, cfg *rest.Config, o *Options, log logr.Logger, started func(*controllers.Controllers)) error {
	if err := o.Validate(); err != nil {
		return err
	}
	scheme, err := controllers.NewScheme()
	if err != nil {
		return err
	}
	k := o.Karmada
	pprof := ""
	if k.EnablePprof {
		pprof = k.ProfilingBindAddress
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                  scheme,
		Logger:                  log,
		LeaderElection:          k.LeaderElect,
		LeaderElectionID:        LeaderElectionID,
		LeaderElectionNamespace: k.LeaderElectResourceNamespace,
		// Run returns only for the process to end (or, in a test, to run
		// again): the Lease is handed over at once rather than after its
		// duration, so a rolling update leaves no gap in failover.
		LeaderElectionReleaseOnCancel: true,
		LeaseDuration:                 ptr.To(k.LeaderElectLeaseDuration),
		RenewDeadline:                 ptr.To(k.LeaderElectRenewDeadline),
		RetryPeriod:                   ptr.To(k.LeaderElectRetryPeriod),
		// The controllers read the member clusters' Leases only, in
		// karmada-cluster: a cache of that namespace alone needs no
		// permission on the Leases of any other (deploy/'s RBAC).
		Cache: cache.Options{ByObject: map[client.Object]cache.ByObject{
			&coordinationv1.Lease{}: {Namespaces: map[string]cache.Config{controllers.ClusterLeaseNamespace: {}}},
		}},
		Metrics:                metricsserver.Options{BindAddress: k.MetricsBindAddress},
		HealthProbeBindAddress: k.HealthProbeBindAddress,
		PprofBindAddress:       pprof,
		// controller-runtime refuses a controller name a process used
		// before; a second Run in one process (a test restarting the
		// manager) must say it means it.
		Controller: config.Controller{SkipNameValidation: ptr.To(o.RunAgainInProcess)},
	})
	if err != nil {
		return fmt.Errorf("controller manager: %w", err)
	}
	if err := mgr.AddHealthzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	if err := mgr.AddReadyzCheck("ping", healthz.Ping); err != nil {
		return err
	}
	c := o.Config()
	c.Prober = httpProber{timeout: k.ClusterStatusUpdateFrequency}
	ctrls, err := controllers.Setup(ctx, mgr, c)
	if err != nil {
		return err
	}
	for _, f := range o.Ignored() {
		log.Info("flag accepted with no effect: fleetover does not run "+f.Owner, "flag", "--"+f.Name, "value", f.Value)
	}
	if names := o.NotRun(); len(names) > 0 {
		log.Info("controllers left to karmada-controller-manager: fleetover does not run them", "controllers", strings.Join(names, ","))
	}
	log.Info("starting", "controllers", strings.Join(c.Controllers, ","), "featureGates", k.FeatureGates.Effective(),
		"resourceEvictionRate", k.ResourceEvictionRate, "leaderElect", k.LeaderElect)
	if started != nil {
		started(ctrls)
	}
	return mgr.Start(ctx)
}

// httpProber probes a push-mode cluster's API server: reachable when it
// answers at all, healthy when GET /readyz answers 200. It sends no
// credentials; a cluster whose /readyz needs them reads as reachable and
// unhealthy.
type httpProber struct{ timeout time.Duration }

func (p httpProber) Probe(ctx context.Context, cl *clusterv1alpha1.Cluster) failover.ProbeResult {
	if cl.Spec.APIEndpoint == "" {
		return failover.ProbeResult{Message: "no apiEndpoint"}
	}
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimSuffix(cl.Spec.APIEndpoint, "/")+"/readyz", nil)
	if err != nil {
		return failover.ProbeResult{Message: err.Error()}
	}
	client := &http.Client{Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: cl.Spec.InsecureSkipTLSVerification}, //nolint:gosec // the cluster's own setting
	}}
	resp, err := client.Do(req)
	if err != nil {
		return failover.ProbeResult{Message: err.Error()}
	}
	_ = resp.Body.Close()
	return failover.ProbeResult{Reachable: true, Healthy: resp.StatusCode == http.StatusOK, Message: resp.Status}
}
