package app

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"

	"github.com/fleetover/fleetover/failover"

	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// LeaderElectionID names the Lease the replicas compete for.
const LeaderElectionID = "fleetover-controller-manager"

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
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                  scheme,
		Logger:                  log,
		LeaderElection:          o.LeaderElect,
		LeaderElectionID:        LeaderElectionID,
		LeaderElectionNamespace: o.LeaderElectResourceNamespace,
		LeaseDuration:           ptr.To(o.LeaderElectLeaseDuration),
		RenewDeadline:           ptr.To(o.LeaderElectRenewDeadline),
		RetryPeriod:             ptr.To(o.LeaderElectRetryPeriod),
		Metrics:                 metricsserver.Options{BindAddress: o.MetricsBindAddress},
		HealthProbeBindAddress:  o.HealthProbeBindAddress,
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
	c.Prober = httpProber{timeout: o.ClusterMonitorPeriod}
	ctrls, err := controllers.Setup(ctx, mgr, c)
	if err != nil {
		return err
	}
	log.Info("starting", "controllers", c.Controllers, "featureGates", gateFlag(o.FeatureGates).String(),
		"resourceEvictionRate", o.ResourceEvictionRate, "leaderElect", o.LeaderElect)
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
