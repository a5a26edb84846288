package beside

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/rest"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"

	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// Configuration is which controllers do Karmada's failover.
type Configuration string

const (
	// KarmadaAlone is Karmada as its own e2e deploys it: every feature
	// gate on, NoExecute eviction on, its taint manager, gracefulEviction,
	// applicationFailover and clustertaintpolicy controllers running.
	KarmadaAlone Configuration = "K"
	// FleetoverBeside is the same control plane with those four turned
	// off in karmada-controller-manager (--enable-taint-manager=false,
	// --controllers=...,-gracefulEviction,-applicationFailover,-clustertaintpolicy)
	// and fleetover-controller-manager in their place, in its
	// beside-karmada mode.
	FleetoverBeside Configuration = "F"
)

// Namespaces Karmada's components use on the control plane.
const (
	NamespaceSystem  = "karmada-system"
	NamespaceCluster = "karmada-cluster"
)

// Options configure a ControlPlane.
type Options struct {
	Configuration Configuration
	// Assets is the folder of kube-apiserver, etcd and Karmada's
	// components (hack/kube-assets.sh); empty is KUBEBUILDER_ASSETS.
	Assets string
	// KarmadaModuleDir is Karmada's module at the assets' version, whose
	// CRDs the control plane serves.
	KarmadaModuleDir string
	// ControllerManagerArgs are added to karmada-controller-manager's
	// command line (timings a test shortens, say); a later flag wins.
	ControllerManagerArgs []string
	// SchedulerArgs are added to karmada-scheduler's.
	SchedulerArgs []string
	// Scheduler is the binary run as the control plane's scheduler in
	// place of the assets' karmada-scheduler: a build of Karmada's
	// scheduler with out-of-tree plugins, such as
	// fleetover-karmada-scheduler. It takes karmada-scheduler's flags and
	// keeps its name in logs. Empty: karmada-scheduler from Assets.
	Scheduler string
	// Fleetover runs fleetover-controller-manager against the control
	// plane in configuration FleetoverBeside, until ctx ends; the harness
	// gives it the control plane's kubeconfig.
	Fleetover func(ctx context.Context, kubeconfig string) error
	// Dir holds the control plane's files (kubeconfigs, certificates,
	// logs); empty is a new temporary folder, removed by Stop.
	Dir string
	// AuditUsers, when set, has karmada-apiserver keep an audit log of
	// these users' requests (ControlPlane.Audit).
	AuditUsers []string
	// AuditWrites has karmada-apiserver's audit log also hold every user's
	// write requests: what each component wrote, counted by the server
	// (the benchmarks; a log of every write costs the API server time).
	AuditWrites bool
	// Identities, when set, is called once karmada-apiserver serves
	// (Karmada's CRDs, the aggregated Cluster API, the webhook) and before
	// any controller starts. It returns the kubeconfigs the scheduler and
	// fleetover-controller-manager run with; an empty one is the
	// administrator's.
	Identities func(ctx context.Context, cp *ControlPlane) (scheduler, fleetover string, err error)
}

// ControlPlane is one Karmada control plane.
type ControlPlane struct {
	Options
	// Config reaches karmada-apiserver as an administrator.
	Config *rest.Config
	// Client reads, writes and watches Karmada's objects.
	Client client.WithWatch
	// Kubeconfig is the administrator's kubeconfig file.
	Kubeconfig string

	env      *envtest.Environment
	procs    []*process
	cancel   context.CancelFunc
	fleetErr chan error
	ownDir   bool
	auditLog string
	// stopNamespaces stops the stand-in for kube-controller-manager's
	// namespace controller.
	stopNamespaces func()
	// eventLogs read the components' logs for the events they recorded
	// (LoggedEvents).
	eventLogsMu sync.Mutex
	eventLogs   map[string]*eventLog
	// The kubeconfigs of the scheduler and fleetover-controller-manager
	// (Options.Identities).
	schedulerKubeconfig, fleetoverKubeconfig string
}

// Start brings a control plane up: karmada-apiserver with Karmada's CRDs,
// the aggregated Cluster API, karmada-controller-manager and
// karmada-scheduler, and fleetover-controller-manager in configuration
// FleetoverBeside. On an error everything started is stopped.
func Start(ctx context.Context, opts Options) (_ *ControlPlane, err error) {
	cp := &ControlPlane{Options: opts}
	defer func() {
		if err != nil {
			cp.Stop()
		}
	}()
	if cp.Assets == "" {
		cp.Assets = os.Getenv("KUBEBUILDER_ASSETS")
	}
	if cp.Dir == "" {
		if cp.Dir, err = os.MkdirTemp("", "karmada-"+string(opts.Configuration)+"-"); err != nil {
			return nil, err
		}
		cp.ownDir = true
	}
	if opts.Configuration == FleetoverBeside && opts.Fleetover == nil {
		return nil, errors.New("configuration F needs Options.Fleetover")
	}
	address, err := routableAddress()
	if err != nil {
		return nil, err
	}
	ca, err := newAuthority("fleetover harness CA")
	if err != nil {
		return nil, err
	}
	if err := cp.startAPIServer(ca); err != nil {
		return nil, err
	}
	if cp.stopNamespaces, err = startNamespaceController(cp.Config); err != nil {
		return nil, err
	}
	if err := cp.startAggregatedAPIServer(ctx, ca, address); err != nil {
		return nil, err
	}
	if err := cp.startWebhook(ctx, ca); err != nil {
		return nil, err
	}
	cp.schedulerKubeconfig, cp.fleetoverKubeconfig = cp.Kubeconfig, cp.Kubeconfig
	if opts.Identities != nil {
		scheduler, fleetover, err := opts.Identities(ctx, cp)
		if err != nil {
			return nil, fmt.Errorf("identities: %w", err)
		}
		if scheduler != "" {
			cp.schedulerKubeconfig = scheduler
		}
		if fleetover != "" {
			cp.fleetoverKubeconfig = fleetover
		}
	}
	if err := cp.startKarmadaComponents(ctx); err != nil {
		return nil, err
	}
	if opts.Configuration == FleetoverBeside {
		cp.startFleetover()
	}
	return cp, nil
}

func (cp *ControlPlane) startFleetover() {
	fctx, cancel := context.WithCancel(context.Background())
	cp.cancel = cancel
	cp.fleetErr = make(chan error, 1)
	go func() { cp.fleetErr <- cp.Fleetover(fctx, cp.fleetoverKubeconfig) }()
}

// ControllerManager names the component that runs the failover
// controllers in the control plane's configuration: Karmada's controller
// manager in K, fleetover's in F.
func (cp *ControlPlane) ControllerManager() string {
	if cp.Configuration == FleetoverBeside {
		return "fleetover-controller-manager"
	}
	return "karmada-controller-manager"
}

// RestartFailoverControllers restarts the process that runs the failover
// controllers (ControllerManager), as a crash and a new process would:
// only what is in the API server survives.
func (cp *ControlPlane) RestartFailoverControllers(ctx context.Context) error {
	if cp.Configuration == FleetoverBeside {
		cp.cancel()
		if err := <-cp.fleetErr; err != nil {
			return fmt.Errorf("fleetover-controller-manager: %w", err)
		}
		cp.startFleetover()
		return nil
	}
	if p := cp.process("karmada-controller-manager"); p != nil {
		return p.restart(ctx)
	}
	return errors.New("karmada-controller-manager is not running")
}

// startAPIServer starts envtest's kube-apiserver and etcd as
// karmada-apiserver, with the aggregation layer's front proxy configured
// and Karmada's CRDs installed.
func (cp *ControlPlane) startAPIServer(ca *authority) error {
	scheme, err := controllers.NewScheme()
	if err != nil {
		return err
	}
	if err := apiregistrationv1.AddToScheme(scheme); err != nil {
		return err
	}
	proxyCert, proxyKey, err := ca.issue("front-proxy-client")
	if err != nil {
		return err
	}
	files, err := writeFiles(cp.Dir, map[string][]byte{"front-proxy-ca.crt": ca.pem, "front-proxy-client.crt": proxyCert, "front-proxy-client.key": proxyKey})
	if err != nil {
		return err
	}
	crds, err := karmadaCRDDirs(cp.KarmadaModuleDir)
	if err != nil {
		return err
	}
	cp.env = &envtest.Environment{
		CRDDirectoryPaths:        crds,
		ErrorIfCRDPathMissing:    true,
		Scheme:                   scheme,
		BinaryAssetsDirectory:    cp.Assets,
		ControlPlaneStartTimeout: 2 * time.Minute,
	}
	args := cp.env.ControlPlane.GetAPIServer().Configure()
	args.Set("requestheader-client-ca-file", files["front-proxy-ca.crt"])
	args.Set("requestheader-allowed-names", "front-proxy-client")
	args.Set("requestheader-extra-headers-prefix", "X-Remote-Extra-")
	args.Set("requestheader-group-headers", "X-Remote-Group")
	args.Set("requestheader-username-headers", "X-Remote-User")
	args.Set("proxy-client-cert-file", files["front-proxy-client.crt"])
	args.Set("proxy-client-key-file", files["front-proxy-client.key"])
	// No kube-proxy runs: the aggregator dials the Service's endpoint.
	args.Set("enable-aggregator-routing", "true")
	if len(cp.AuditUsers) > 0 || cp.AuditWrites {
		policy, err := writeFiles(cp.Dir, map[string][]byte{"audit-policy.yaml": auditPolicy(cp.AuditUsers, cp.AuditWrites)})
		if err != nil {
			return err
		}
		cp.auditLog = filepath.Join(cp.Dir, "audit.log")
		args.Set("audit-policy-file", policy["audit-policy.yaml"])
		args.Set("audit-log-path", cp.auditLog)
		// One file, never rotated (at the default, the log is rotated at
		// 100 MB, which a benchmark of 1,000 bindings passes, and a count
		// from an offset in it reads the new file short).
		args.Set("audit-log-maxsize", "1048576")
		// Written as requests complete, so a test reads every request made
		// before it looks.
		args.Set("audit-log-mode", "blocking")
	}
	if _, err := cp.env.Start(); err != nil {
		return fmt.Errorf("start karmada-apiserver (kube-apiserver and etcd from %s): %w", cp.Assets, err)
	}
	admin, err := cp.env.ControlPlane.AddUser(envtest.User{Name: "karmada-admin", Groups: []string{"system:masters"}}, &rest.Config{QPS: 1000, Burst: 2000})
	if err != nil {
		return err
	}
	cp.Config = admin.Config()
	kubeconfig, err := admin.KubeConfig()
	if err != nil {
		return err
	}
	paths, err := writeFiles(cp.Dir, map[string][]byte{"karmada.config": kubeconfig})
	if err != nil {
		return err
	}
	cp.Kubeconfig = paths["karmada.config"]
	if cp.Client, err = client.NewWithWatch(cp.Config, client.Options{Scheme: scheme}); err != nil {
		return err
	}
	for _, ns := range []string{NamespaceSystem, NamespaceCluster} {
		if err := cp.Client.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	return nil
}

// karmadaCRDDirs lists the folders of Karmada's CRDs (the chart's bases,
// without the patches that add conversion webhooks).
func karmadaCRDDirs(moduleDir string) ([]string, error) {
	bases := filepath.Join(moduleDir, "charts", "karmada", "_crds", "bases")
	entries, err := os.ReadDir(bases)
	if err != nil {
		return nil, fmt.Errorf("Karmada's CRDs: %w", err)
	}
	var dirs []string
	for _, e := range entries {
		if e.IsDir() {
			dirs = append(dirs, filepath.Join(bases, e.Name()))
		}
	}
	return dirs, nil
}

// startAggregatedAPIServer starts karmada-aggregated-apiserver on address,
// storing in karmada-apiserver's etcd, and registers it for
// cluster.karmada.io/v1alpha1 behind a Service whose endpoint is address.
func (cp *ControlPlane) startAggregatedAPIServer(ctx context.Context, ca *authority, address string) error {
	binary, err := binaryIn(cp.Assets, "karmada-aggregated-apiserver")
	if err != nil {
		return err
	}
	const service = "karmada-aggregated-apiserver"
	cert, key, err := ca.issue(service, address, service+"."+NamespaceSystem+".svc")
	if err != nil {
		return err
	}
	files, err := writeFiles(cp.Dir, map[string][]byte{"aggregated-apiserver.crt": cert, "aggregated-apiserver.key": key})
	if err != nil {
		return err
	}
	port, err := freePort(address)
	if err != nil {
		return err
	}
	args := []string{
		"--kubeconfig=" + cp.Kubeconfig,
		"--authentication-kubeconfig=" + cp.Kubeconfig,
		"--authorization-kubeconfig=" + cp.Kubeconfig,
		"--etcd-servers=" + cp.env.ControlPlane.Etcd.URL.String(),
		"--tls-cert-file=" + files["aggregated-apiserver.crt"],
		"--tls-private-key-file=" + files["aggregated-apiserver.key"],
		"--bind-address=" + address,
		"--secure-port=" + strconv.Itoa(port),
		"--audit-log-path=-",
		"--audit-log-maxage=0",
		"--audit-log-maxbackup=0",
		"--tls-min-version=VersionTLS13",
		"--logging-format=json",
	}
	p, err := startProcess("karmada-aggregated-apiserver", binary, args, cp.Dir)
	if err != nil {
		return err
	}
	cp.procs = append(cp.procs, p)
	p.health = fmt.Sprintf("https://%s:%d/readyz", address, port)
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := p.waitHealthy(wctx, p.health); err != nil {
		return err
	}

	c := cp.Client
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Namespace: NamespaceSystem, Name: service},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Name: "https", Port: 443, TargetPort: intstr.FromInt32(int32(port))}}},
	}
	if err := c.Create(ctx, svc); err != nil {
		return fmt.Errorf("Service %s: %w", service, err)
	}
	slice := &discoveryv1.EndpointSlice{
		ObjectMeta:  metav1.ObjectMeta{Namespace: NamespaceSystem, Name: service, Labels: map[string]string{discoveryv1.LabelServiceName: service}},
		AddressType: discoveryv1.AddressTypeIPv4,
		Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{address}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
		Ports:       []discoveryv1.EndpointPort{{Name: ptr.To("https"), Port: ptr.To(int32(port)), Protocol: ptr.To(corev1.ProtocolTCP)}},
	}
	if err := c.Create(ctx, slice); err != nil {
		return fmt.Errorf("EndpointSlice %s: %w", service, err)
	}
	endpoints := &corev1.Endpoints{ //nolint:staticcheck // the aggregator of some releases resolves through Endpoints
		ObjectMeta: metav1.ObjectMeta{Namespace: NamespaceSystem, Name: service},
		Subsets: []corev1.EndpointSubset{{ //nolint:staticcheck // as above
			Addresses: []corev1.EndpointAddress{{IP: address}},
			Ports:     []corev1.EndpointPort{{Name: "https", Port: int32(port)}},
		}},
	}
	if err := c.Create(ctx, endpoints); err != nil {
		return fmt.Errorf("Endpoints %s: %w", service, err)
	}
	apiService := &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: "v1alpha1.cluster.karmada.io"},
		Spec: apiregistrationv1.APIServiceSpec{
			Group: "cluster.karmada.io", Version: "v1alpha1",
			GroupPriorityMinimum: 2000, VersionPriority: 10,
			Service:  &apiregistrationv1.ServiceReference{Namespace: NamespaceSystem, Name: service, Port: ptr.To(int32(443))},
			CABundle: ca.pem,
		},
	}
	if err := c.Create(ctx, apiService); err != nil {
		return fmt.Errorf("APIService %s: %w", apiService.Name, err)
	}
	// The Cluster API answers once the aggregator routes to it.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		err := c.List(ctx, &clusterv1alpha1.ClusterList{})
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the Cluster API through the aggregator: %w; karmada-aggregated-apiserver's log ends:\n%s", err, p.tail(30))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// startKarmadaComponents starts karmada-controller-manager and
// karmada-scheduler with the flags of Karmada's deploy files, the
// configuration's, and the test's.
func (cp *ControlPlane) startKarmadaComponents(ctx context.Context) error {
	for _, c := range []struct {
		name string
		args []string
	}{
		{"karmada-controller-manager", append(cp.controllerManagerArgs(), cp.ControllerManagerArgs...)},
		{"karmada-scheduler", append([]string{
			"--feature-gates=AllAlpha=true,AllBeta=true",
			"--enable-scheduler-estimator=false",
			"--leader-elect=false",
			"--logging-format=json",
			"--v=2",
		}, cp.SchedulerArgs...)},
	} {
		binary, err := binaryIn(cp.Assets, c.name)
		if c.name == "karmada-scheduler" && cp.Scheduler != "" {
			binary, err = cp.Scheduler, nil
		}
		if err != nil {
			return err
		}
		healthPort, err := freePort("127.0.0.1")
		if err != nil {
			return err
		}
		metricsPort, err := freePort("127.0.0.1")
		if err != nil {
			return err
		}
		kubeconfig := cp.Kubeconfig
		if c.name == "karmada-scheduler" {
			kubeconfig = cp.schedulerKubeconfig
		}
		args := append([]string{
			"--kubeconfig=" + kubeconfig,
			"--metrics-bind-address=127.0.0.1:" + strconv.Itoa(metricsPort),
			"--health-probe-bind-address=127.0.0.1:" + strconv.Itoa(healthPort),
		}, c.args...)
		p, err := startProcess(c.name, binary, args, cp.Dir)
		if err != nil {
			return err
		}
		cp.procs = append(cp.procs, p)
		p.health = fmt.Sprintf("http://127.0.0.1:%d/healthz", healthPort)
		p.metrics = fmt.Sprintf("http://127.0.0.1:%d/metrics", metricsPort)
		wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		err = p.waitHealthy(wctx, p.health)
		cancel()
		if err != nil {
			return fmt.Errorf("%s %s: %w", c.name, joinArgs(args), err)
		}
	}
	return nil
}

// ReplacedControllers are the controllers of karmada-controller-manager
// that fleetover-controller-manager replaces in configuration F, besides
// the taint manager (--enable-taint-manager=false): turned off with
// --controllers, as deploy/karmada-values.yaml does in Karmada's chart.
func ReplacedControllers() []string {
	return []string{"gracefulEviction", "applicationFailover", "clustertaintpolicy"}
}

// controllerManagerArgs are karmada-controller-manager's flags: those of
// Karmada's deploy file (artifacts/deploy/karmada-controller-manager.yaml),
// without leader election (one replica), and in configuration F the four
// failover controllers off.
func (cp *ControlPlane) controllerManagerArgs() []string {
	args := []string{
		"--cluster-status-update-frequency=10s",
		"--feature-gates=AllAlpha=true,AllBeta=true",
		"--enable-no-execute-taint-eviction=true",
		"--logging-format=json",
		"--v=2",
		"--leader-elect=false",
	}
	if cp.Configuration == FleetoverBeside {
		controllers := "--controllers=*,hpaScaleTargetMarker,deploymentReplicasSyncer"
		for _, c := range ReplacedControllers() {
			controllers += ",-" + c
		}
		return append(args, controllers, "--enable-taint-manager=false")
	}
	return append(args, "--controllers=*,hpaScaleTargetMarker,deploymentReplicasSyncer")
}

// Log returns the end of a component's log, for a test's failure message.
func (cp *ControlPlane) Log(component string, lines int) string {
	if p := cp.process(component); p != nil {
		return p.tail(lines)
	}
	return ""
}

// process returns the running component name, or nil.
func (cp *ControlPlane) process(name string) *process {
	for _, p := range cp.procs {
		if p.name == name {
			return p
		}
	}
	return nil
}

// Stop stops every component, fleetover's first, and removes the control
// plane's folder if Start made it.
func (cp *ControlPlane) Stop() {
	if cp.cancel != nil {
		cp.cancel()
		<-cp.fleetErr
	}
	// Karmada's components are each only a client of the API server,
	// which stops after them: they stop side by side.
	var wg sync.WaitGroup
	for _, p := range cp.procs {
		wg.Go(func() { p.stop(10 * time.Second) })
	}
	wg.Wait()
	if cp.stopNamespaces != nil {
		cp.stopNamespaces()
	}
	if cp.env != nil {
		_ = cp.env.Stop()
	}
	if cp.ownDir {
		_ = os.RemoveAll(cp.Dir)
	}
}
