package controllers_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/prometheus/client_golang/prometheus"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// Flags of BenchmarkClusterFailoverEvictions. The client-side rate limiter
// is QPS and Burst of rest.Config, one token bucket per REST client
// (controller-runtime makes one per resource type): envtest's config has
// 1000 and 2000; ctrl.GetConfig (the binary) turns the limiter off (QPS -1)
// when the kubeconfig sets no QPS, leaving the API server's priority and
// fairness to pace the writes.
var (
	evictionBindings = flag.Int("evictions.bindings", 10000, "BenchmarkClusterFailoverEvictions: bindings on the failed cluster")
	evictionQPS      = flag.Float64("evictions.qps", 0, "BenchmarkClusterFailoverEvictions: rest.Config QPS of the controllers and of the bare loops (0: envtest's; -1: no client-side limit)")
	evictionBurst    = flag.Int("evictions.burst", 0, "BenchmarkClusterFailoverEvictions: rest.Config Burst (0: envtest's)")
	evictionBare     = flag.String("evictions.bare", "1,3,8", "BenchmarkClusterFailoverEvictions: goroutines of each bare loop, comma-separated (empty: none)")
	evictionWriters  = flag.Int("evictions.writers", 0, "BenchmarkClusterFailoverEvictions: the taint manager's EvictionWorkers (0: its default)")
	evictionTimeout  = flag.Duration("evictions.timeout", 30*time.Minute, "BenchmarkClusterFailoverEvictions: how long the failover may take")
)

// evictionCounter watches the manager's HTTP traffic during a failover: the
// successful writes to the bindings of one namespace (spec and status
// patches), the events it posts, and the first patch bodies of each kind,
// which the bare loops send again.
type evictionCounter struct {
	next      http.RoundTripper
	namespace string
	want      int64
	done      chan struct{}

	spec, status, events atomic.Int64
	mu                   sync.Mutex
	specBody, statusBody []byte
}

func (c *evictionCounter) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Method == http.MethodPatch && req.GetBody != nil {
		if r, err := req.GetBody(); err == nil {
			body, _ = io.ReadAll(r)
		}
	}
	resp, err := c.next.RoundTrip(req)
	if err != nil || resp.StatusCode >= 300 || req.Method == http.MethodGet {
		return resp, err
	}
	path := req.URL.Path
	prefix := "/apis/work.karmada.io/v1alpha2/namespaces/" + c.namespace + "/resourcebindings/"
	switch {
	case strings.Contains(path, "/events"):
		c.events.Add(1)
	case strings.HasPrefix(path, prefix) && strings.HasSuffix(path, "/status") && req.Method == http.MethodPatch:
		c.mu.Lock()
		if c.statusBody == nil {
			c.statusBody = body
		}
		c.mu.Unlock()
		c.finish(c.status.Add(1), c.spec.Load())
	case strings.HasPrefix(path, prefix) && req.Method == http.MethodPatch:
		c.mu.Lock()
		if c.specBody == nil {
			c.specBody = body
		}
		c.mu.Unlock()
		c.finish(c.status.Load(), c.spec.Add(1))
	}
	return resp, err
}

func (c *evictionCounter) finish(status, spec int64) {
	if status == c.want && spec == c.want {
		close(c.done)
	}
}

// BenchmarkClusterFailoverEvictions measures how fast the taint manager
// moves bindings off a cluster that got an untolerated NoExecute taint, on
// the real API server, with the pacer out of the way (MaxEvictionRate,
// MaxEvictionBurst): -evictions.bindings ResourceBindings (default 10,000)
// on one cluster, one healthy cluster to go to. Each eviction is the two
// writes TestClusterFailoverWrites counts for it (the spec patch with the
// eviction, the task and the new placement; the status patch with the
// scheduler's observation). The taint manager and the failover scheduler
// run; nothing else (Works and task completion come later and are not on
// this path).
//
// It reports, for the same number of bindings and the same client QPS and
// Burst: evictions/s of the controller (from the taint to the last status
// write), and evictions/s of a bare client sending the very patch bodies
// the controller sent (resourceVersion aside) and the event it posted, in a
// loop, from each number
// of goroutines in -evictions.bare (default 1, 3 and 8; the taint manager
// writes from -evictions.writers, default DefaultEvictionWorkers, 3), each
// on fresh bindings. ns/op is the controller's whole failover.
//
//	cd examples/karmada
//	KUBEBUILDER_ASSETS=$(bash ../../hack/kube-assets.sh) go test -run '^$' -bench ClusterFailoverEvictions -benchtime 1x ./controllers/
func BenchmarkClusterFailoverEvictions(b *testing.B) {
	if restConfig == nil {
		b.Fatal("no API server: run with KUBEBUILDER_ASSETS set (bash hack/test.sh builds it)")
	}
	n := *evictionBindings
	rc := rest.CopyConfig(restConfig)
	if *evictionQPS != 0 {
		rc.QPS = float32(*evictionQPS)
	}
	if *evictionBurst != 0 {
		rc.Burst = *evictionBurst
	}
	b.Logf("%d bindings; client QPS %g, Burst %d (per client and resource type); bare loops from %s goroutines", n, rc.QPS, rc.Burst, *evictionBare)
	setup, err := client.New(restConfig, client.Options{Scheme: testScheme})
	if err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	for i := 0; i < b.N; i++ {
		run := failoverRun(b, setup, rc, n)
		b.ReportMetric(run.controller, "evictions/s")
		for _, w := range run.bareWorkers {
			b.ReportMetric(run.bare[w], fmt.Sprintf("bare-%dw-evictions/s", w))
		}
		b.ReportMetric(float64(run.events)/float64(n), "events/eviction")
	}
}

type failoverFigures struct {
	controller  float64
	events      int64
	bareWorkers []int
	bare        map[int]float64 // evictions/s by goroutines
}

// failoverRun runs one controller failover of n bindings (timed) and the
// two bare loops (not timed by the benchmark, measured by hand).
func failoverRun(b *testing.B, setup client.Client, rc *rest.Config, n int) failoverFigures {
	ctx := b.Context()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "evictions-"}}
	if err := setup.Create(ctx, ns); err != nil {
		b.Fatal(err)
	}
	failed, healthy := ns.Name+"-failed", ns.Name+"-healthy"
	for _, name := range []string{failed, healthy} {
		cl := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: clusterv1alpha1.ClusterSpec{SyncMode: clusterv1alpha1.Push}}
		if err := setup.Create(ctx, cl); err != nil {
			b.Fatal(err)
		}
		cl.Status.Conditions = []metav1.Condition{{Type: clusterv1alpha1.ClusterConditionReady, Status: metav1.ConditionTrue, Reason: "ClusterReady", LastTransitionTime: metav1.NewTime(epoch)}}
		if err := setup.Status().Update(ctx, cl); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = setup.Delete(context.Background(), cl) })
	}
	b.Cleanup(func() {
		_ = setup.DeleteAllOf(context.Background(), &workv1alpha2.ResourceBinding{}, client.InNamespace(ns.Name))
	})

	// The controllers' bindings, created before the manager starts so its
	// cache holds them all when the taint lands.
	createBindings(b, setup, ns.Name, "rb", failed, n, true)
	counter := &evictionCounter{namespace: ns.Name, want: int64(n), done: make(chan struct{})}
	mrc := rest.CopyConfig(rc)
	mrc.Wrap(func(rt http.RoundTripper) http.RoundTripper { counter.next = rt; return counter })
	mgr, err := ctrl.NewManager(mrc, manager.Options{
		Scheme:                 testScheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		b.Fatal(err)
	}
	mctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	ctrls, err := controllers.Setup(mctx, mgr, controllers.Config{
		// The real clock: the benchmark measures wall time, and
		// controller-runtime's default queues report their metrics.
		Pacer:       eviction.PacerConfig{Rate: eviction.MaxEvictionRate, Burst: eviction.MaxEvictionBurst},
		Registerer:  prometheus.NewRegistry(),
		NamePrefix:  ns.Name + "-",
		Controllers: []string{"taintManager", "failoverScheduler"},
	})
	if err != nil {
		b.Fatal(err)
	}
	ctrls.TaintManager.EvictionWorkers = *evictionWriters
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := mgr.Start(mctx); err != nil {
			b.Errorf("manager: %v", err)
		}
	}()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		b.Fatal("the manager's cache did not sync")
	}
	// The cache is synced when its first list is in; the bindings are all
	// in it once the index finds them.
	waitFor(b, "the manager's cache holds every binding", func() bool {
		list := &workv1alpha2.ResourceBindingList{}
		return mgr.GetCache().List(ctx, list, client.InNamespace(ns.Name), client.MatchingFields{controllers.BindingTargetClusterIndex: failed}) == nil && len(list.Items) == n
	})
	// The scheduler looks at every binding once after the start (finding
	// them scheduled, it writes nothing): let it finish first, so the
	// failover is measured in a running controller.
	waitFor(b, "the scheduler's first pass", func() bool {
		return queueDone(b, ns.Name+"-failoverScheduler", n)
	})
	if w := counter.spec.Load() + counter.status.Load(); w != 0 {
		b.Fatalf("%d writes to the bindings before the failover", w)
	}

	b.StartTimer()
	start := time.Now()
	now := metav1.Now()
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cl := &clusterv1alpha1.Cluster{}
		if err := setup.Get(ctx, types.NamespacedName{Name: failed}, cl); err != nil {
			return err
		}
		cl.Spec.Taints = append(cl.Spec.Taints, corev1.Taint{Key: "maintenance", Effect: corev1.TaintEffectNoExecute, TimeAdded: &now})
		return setup.Update(ctx, cl)
	}); err != nil {
		b.Fatal(err)
	}
	select {
	case <-counter.done:
	case <-time.After(*evictionTimeout):
		b.Fatalf("after %v, %d spec and %d status writes of %d", *evictionTimeout, counter.spec.Load(), counter.status.Load(), n)
	}
	elapsed := time.Since(start)
	b.StopTimer()
	figures := failoverFigures{controller: float64(n) / elapsed.Seconds(), events: counter.events.Load(), bare: map[int]float64{}}
	writers := ctrls.TaintManager.EvictionWorkers
	if writers <= 0 {
		writers = controllers.DefaultEvictionWorkers
	}
	b.Logf("controller (%d eviction writers): %d evictions (%d spec, %d status writes, %d events) in %v: %.0f evictions/s",
		writers, n, counter.spec.Load(), counter.status.Load(), figures.events, elapsed.Round(time.Millisecond), figures.controller)
	cancel()
	wg.Wait()

	counter.mu.Lock()
	specBody, statusBody := counter.specBody, counter.statusBody
	counter.mu.Unlock()
	bare, err := client.New(rc, client.Options{Scheme: testScheme})
	if err != nil {
		b.Fatal(err)
	}
	for _, w := range strings.Split(*evictionBare, ",") {
		if w = strings.TrimSpace(w); w == "" {
			continue
		}
		workers, err := strconv.Atoi(w)
		if err != nil || workers < 1 {
			b.Fatalf("-evictions.bare: %q is no number of goroutines", w)
		}
		figures.bareWorkers = append(figures.bareWorkers, workers)
	}
	for _, workers := range figures.bareWorkers {
		bindings := createBindings(b, setup, ns.Name, fmt.Sprintf("bare%d", workers), failed, n, false)
		start := time.Now()
		parallel(b, workers, len(bindings), func(i int) error {
			return bareEviction(ctx, bare, bindings[i], specBody, statusBody)
		})
		elapsed := time.Since(start)
		rate := float64(n) / elapsed.Seconds()
		b.Logf("bare loop, %d goroutine(s): %d evictions (spec, status, event) in %v: %.0f evictions/s", workers, n, elapsed.Round(time.Millisecond), rate)
		figures.bare[workers] = rate
	}
	return figures
}

// createBindings creates n ResourceBindings placed on cluster, from 16
// goroutines, and returns them as created. scheduled also writes their
// status as the scheduler would have (no running scheduler sees the bare
// loops' bindings).
func createBindings(b *testing.B, c client.Client, namespace, prefix, cluster string, n int, scheduled bool) []*workv1alpha2.ResourceBinding {
	out := make([]*workv1alpha2.ResourceBinding, n)
	parallel(b, 16, n, func(i int) error {
		rb := &workv1alpha2.ResourceBinding{
			ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: fmt.Sprintf("%s-%05d", prefix, i)},
			Spec: workv1alpha2.ResourceBindingSpec{
				Resource: workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: namespace, Name: fmt.Sprintf("%s-%05d", prefix, i)},
				Replicas: 1,
				Clusters: []workv1alpha2.TargetCluster{{Name: cluster, Replicas: 1}},
			},
		}
		out[i] = rb
		if err := c.Create(context.Background(), rb); err != nil || !scheduled {
			return err
		}
		// Scheduled: the scheduler has seen this generation.
		rb.Status.SchedulerObservedGeneration = rb.Generation
		return c.Status().Update(context.Background(), rb)
	})
	return out
}

// queueDone reports whether the workqueue of the controller named name has
// taken at least adds items and holds none, in process or waiting
// (controller-runtime's workqueue metrics).
func queueDone(b *testing.B, name string, adds int) bool {
	families, err := ctrlmetrics.Registry.Gather()
	if err != nil {
		b.Fatal(err)
	}
	value := func(family string) (float64, bool) {
		for _, f := range families {
			if f.GetName() != family {
				continue
			}
			for _, m := range f.GetMetric() {
				for _, l := range m.GetLabel() {
					if l.GetName() == "name" && l.GetValue() == name {
						switch {
						case m.Gauge != nil:
							return m.Gauge.GetValue(), true
						case m.Counter != nil:
							return m.Counter.GetValue(), true
						}
					}
				}
			}
		}
		return 0, false
	}
	added, ok1 := value("workqueue_adds_total")
	depth, ok2 := value("workqueue_depth")
	busy, ok3 := value("workqueue_unfinished_work_seconds")
	return ok1 && ok2 && ok3 && added >= float64(adds) && depth == 0 && busy == 0
}

// bareEviction sends the controller's two patch bodies to rb, each with the
// resourceVersion of the object it patches, as the controller's optimistic
// lock does, then posts an event about rb like the controller's.
func bareEviction(ctx context.Context, c client.Client, rb *workv1alpha2.ResourceBinding, specBody, statusBody []byte) error {
	failed := rb.Spec.Clusters[0].Name
	body, err := withResourceVersion(specBody, rb.ResourceVersion)
	if err != nil {
		return err
	}
	if err := c.Patch(ctx, rb, client.RawPatch(types.MergePatchType, body)); err != nil {
		return err
	}
	if body, err = withResourceVersion(statusBody, rb.ResourceVersion); err != nil {
		return err
	}
	if err := c.Status().Patch(ctx, rb, client.RawPatch(types.MergePatchType, body)); err != nil {
		return err
	}
	// The event the taint manager records (its recorder sends it as
	// protobuf; this one goes as JSON).
	event := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "events.k8s.io/v1",
		"kind":       "Event",
		"metadata": map[string]any{
			"namespace": rb.Namespace,
			"name":      rb.Name + "." + strconv.FormatInt(time.Now().UnixNano(), 16),
		},
		"eventTime":           metav1.NewMicroTime(time.Now()).Format("2006-01-02T15:04:05.000000Z07:00"),
		"reportingController": "fleetover",
		"reportingInstance":   "fleetover-bench",
		"action":              eviction.ReasonTaintUntolerated,
		"reason":              eviction.ReasonTaintUntolerated,
		"type":                corev1.EventTypeWarning,
		"note":                "evicted from cluster " + failed + ": cluster taint maintenance:NoExecute is not tolerated",
		"regarding": map[string]any{
			"apiVersion":      "work.karmada.io/v1alpha2",
			"kind":            "ResourceBinding",
			"namespace":       rb.Namespace,
			"name":            rb.Name,
			"uid":             string(rb.UID),
			"resourceVersion": rb.ResourceVersion,
		},
	}}
	return c.Create(ctx, event)
}

func withResourceVersion(patch []byte, rv string) ([]byte, error) {
	var p map[string]any
	if err := json.Unmarshal(patch, &p); err != nil {
		return nil, fmt.Errorf("patch %q: %w", patch, err)
	}
	meta, _ := p["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		p["metadata"] = meta
	}
	meta["resourceVersion"] = rv
	var buf bytes.Buffer
	err := json.NewEncoder(&buf).Encode(p)
	return buf.Bytes(), err
}

// parallel runs do(0..n-1) from workers goroutines and fails b on the first
// error.
func parallel(b *testing.B, workers, n int, do func(i int) error) {
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := do(i); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
}

// waitFor polls cond until it holds, for at most a minute.
func waitFor(b *testing.B, what string, cond func() bool) {
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			b.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
