package main

import (
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/fencing"
	"github.com/fleetover/fleetover/preservation"
	"github.com/fleetover/fleetover/scheduling"
)

// pacerConfig is the pacer configuration a scenario's settings make; the
// scenario check validates it with eviction.ValidatePacerConfig.
func pacerConfig(st Settings) eviction.PacerConfig {
	return eviction.PacerConfig{
		Rate:    st.EvictionsPerSecond,
		Burst:   max(1, int(st.EvictionsPerSecond)),
		PerZone: st.PacePerZone,
	}
}

// newLibrary wires the library packages the way a controller would, with
// the scenario's settings and the engine's fake clock.
func newLibrary(e *Engine) (Library, error) {
	st := e.sc.Settings
	var pacer pacerSeam
	if st.karmada() {
		pacer = newKarmadaQueue(e.clock, st.EvictionsPerSecond)
	} else {
		pacerCfg := pacerConfig(st)
		pacerCfg.Clock = e.clock
		p, err := eviction.NewPacer(pacerCfg)
		if err != nil {
			return Library{}, err
		}
		pacer = &pacerAdapter{p: p}
	}
	// Karmada's binding controller injects the newest task's state only
	// when that task purges Directly, into a target that is not among the
	// task's clusters before the failover: the zero InjectionPolicy's rule.
	// It injects nothing, besides, into a binding with more than one
	// target (the policy counts the new targets only): stateAdapter
	// checks that under Karmada's rules.
	injector := preservation.Injector{Enabled: *st.StatefulInjection}
	taintCfg := failover.ClusterTaintConfig{
		NoExecuteAfterTimeout: *st.NoExecuteTaints,
		EvictionTimeout:       st.EvictionTimeout.D(),
	}
	planner := failover.ClusterFailoverPlanner{Defaults: failover.ClusterFailoverDefaults{
		PurgeMode:          st.ClusterPurgeMode,
		GracePeriodSeconds: int32(st.GracefulEvictionTimeout.D() / time.Second),
	}}
	return Library{
		ClusterHealth: newHealthAdapter(e),
		Taints: func(cond metav1.Condition, existing []corev1.Taint, now time.Time) ([]corev1.Taint, time.Time) {
			diff, _ := failover.ComputeClusterTaints(taintCfg, []metav1.Condition{cond}, existing, now)
			return diff.Result, diff.NextCheck
		},
		Planner:     planner.Plan,
		AppDetector: &detectorAdapter{d: must(failover.NewDetector(e.clock, failover.DetectorConfig{UnknownResetsCountdown: st.karmada()}))},
		Pacer:       pacer,
		State:       &stateAdapter{injector: injector, singleTarget: st.karmada(), rules: map[string]*preservation.Rules{}},
		Placement:   newPlacement(),
		Replace:     scheduling.Replace,
		Interpret: func(obj *unstructured.Unstructured) health.Status {
			return e.registry.Interpret(obj).Status
		},
		Assess:        eviction.Assess,
		Evict:         eviction.Evict,
		DispatchGate:  eviction.DispatchBlocked,
		DeleteOldCopy: eviction.DeleteOldCopy,
		Fence:         fencing.Decide,
	}, nil
}

// must unwraps a constructor given a constant configuration, which it
// cannot refuse.
func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// healthAdapter feeds probes and leases to failover's ClusterHealthTracker.
type healthAdapter struct {
	e *Engine
	t failover.ClusterHealthTracker
}

func newHealthAdapter(e *Engine) *healthAdapter {
	st := e.sc.Settings
	t, _ := failover.NewClusterHealthTracker(e.clock, failover.ClusterHealthConfig{ // validateScenario checked it
		FailureThreshold:   st.FailureThreshold.D(),
		SuccessThreshold:   st.SuccessThreshold.D(),
		MonitorGracePeriod: st.MonitorGracePeriod.D(),
		StartupGracePeriod: st.StartupGracePeriod.D(),
	})
	for _, c := range e.sc.Clusters {
		mode := failover.ClusterSyncModePush
		if c.SyncMode == "Pull" {
			mode = failover.ClusterSyncModePull
		}
		t.Register(c.Name, mode)
	}
	return &healthAdapter{e: e, t: t}
}

func (h *healthAdapter) Observe(cluster string, pull bool, p probeResult) readiness {
	var cond metav1.Condition
	var err error
	if pull {
		// The agent renews its lease and posts status only while it can
		// reach the control plane.
		if p.Heard {
			if err = h.t.ObserveLease(cluster, h.e.Now()); err == nil {
				_, err = h.t.ObserveProbe(cluster, failover.ProbeResult{Reachable: true, Healthy: p.HealthOK})
			}
		}
		cond, _ = h.t.Ready(cluster)
	} else {
		cond, err = h.t.ObserveProbe(cluster, failover.ProbeResult{Reachable: p.Reachable, Healthy: p.HealthOK})
	}
	if err != nil || cond.Status == "" {
		return readiness{Status: metav1.ConditionTrue, Reason: failover.ReasonClusterReady}
	}
	return readiness{Status: cond.Status, Reason: cond.Reason}
}

// Export persists the tracker state as JSON, the way a controller would
// keep it on the Cluster objects.
func (h *healthAdapter) Export() ([]byte, error) { return json.Marshal(h.t.ExportAll()) }

func (h *healthAdapter) Import(data []byte) error {
	var all map[string]failover.ClusterHealthState
	if err := json.Unmarshal(data, &all); err != nil {
		return err
	}
	for name, s := range all {
		if err := h.t.Import(name, s); err != nil {
			return fmt.Errorf("cluster %s: %w", name, err)
		}
	}
	return nil
}

// pacerAdapter drives eviction's fleet-wide Pacer.
type pacerAdapter struct {
	p    eviction.Pacer
	mode eviction.DisruptionMode
}

func (a *pacerAdapter) Observe(views []eviction.ClusterHealthView) {
	// The timeline shows the most disrupted zone's mode (the fleet's, when
	// the pacer is global).
	a.mode = eviction.DisruptionNormal
	for _, st := range a.p.Observe(views) {
		if st.Mode == eviction.DisruptionFull || (st.Mode == eviction.DisruptionPartial && a.mode == eviction.DisruptionNormal) {
			a.mode = st.Mode
		}
	}
}
func (a *pacerAdapter) TryAccept(zone string) bool { return a.p.TryAccept(zone) }
func (a *pacerAdapter) Mode() string {
	if a.mode == "" {
		return string(eviction.DisruptionNormal)
	}
	return string(a.mode)
}

// karmadaQueue is Karmada's taint manager eviction queue: each eviction is
// held 1/--resource-eviction-rate seconds on its own (30 minutes at a rate
// of 0), and the queue's default rate limiter lets at most 10 through per
// second after a burst of 100. There are no disruption modes: a fleet-wide
// outage evicts as any other.
type karmadaQueue struct {
	clock   clockNow
	delay   time.Duration
	first   map[string]time.Time
	tokens  float64
	updated time.Time
}

type clockNow interface{ Now() time.Time }

// Karmada's default controller rate limiter (--rate-limiter-qps,
// --rate-limiter-bucket-size) and its hold at a rate of 0.
const (
	karmadaQueueQPS     = 10
	karmadaQueueBurst   = 100
	karmadaZeroRateHold = 1800 * time.Second
)

func newKarmadaQueue(clk clockNow, rate float64) *karmadaQueue {
	return &karmadaQueue{clock: clk, delay: karmadaHold(rate), first: map[string]time.Time{}, tokens: karmadaQueueBurst, updated: clk.Now()}
}

// karmadaHold is how long Karmada's queue holds each eviction at rate.
func karmadaHold(rate float64) time.Duration {
	if rate <= 0 {
		return karmadaZeroRateHold
	}
	return time.Duration(float64(time.Second) / rate).Round(time.Millisecond)
}

func (q *karmadaQueue) Observe([]eviction.ClusterHealthView) {}

// Due reports whether the eviction key has waited its hold; the first ask
// starts the hold.
func (q *karmadaQueue) Due(key string) bool {
	now := q.clock.Now()
	at, ok := q.first[key]
	if !ok {
		q.first[key] = now
		at = now
	}
	return !now.Before(at.Add(q.delay))
}

// Done forgets key once its eviction happened.
func (q *karmadaQueue) Done(key string) { delete(q.first, key) }

func (q *karmadaQueue) TryAccept(string) bool {
	now := q.clock.Now()
	q.tokens = min(karmadaQueueBurst, q.tokens+now.Sub(q.updated).Seconds()*karmadaQueueQPS)
	q.updated = now
	if q.tokens < 1 {
		return false
	}
	q.tokens--
	return true
}

func (q *karmadaQueue) Mode() string { return "Karmada's eviction queue" }

// keyedPacer holds each eviction on its own before the pacer is asked
// (Karmada's queue).
type keyedPacer interface {
	Due(key string) bool
	Done(key string)
}

// stateAdapter compiles each workload's rules once and extracts from the
// raw collected status; injection picks the state through preservation's
// carrier rules.
type stateAdapter struct {
	injector preservation.Injector
	// singleTarget injects only into a workload placed on one cluster
	// (Karmada's binding controller).
	singleTarget bool
	rules        map[string]*preservation.Rules
}

func (s *stateAdapter) Extract(w *workload, raw []byte, app bool) (map[string]string, error) {
	key := w.name() + "/cluster"
	sp := (*preservation.StatePreservation)(nil)
	if fb := w.spec.Failover; fb != nil {
		if app && fb.Application != nil {
			sp, key = fb.Application.StatePreservation, w.name()+"/application"
		} else if !app && fb.Cluster != nil {
			sp = fb.Cluster.StatePreservation
		}
	}
	if sp == nil {
		return nil, nil
	}
	r, ok := s.rules[key]
	if !ok {
		var err error
		if r, err = preservation.Compile(sp.Rules); err != nil {
			return nil, err
		}
		s.rules[key] = r
	}
	return r.ExtractFromJSON(raw)
}

func (s *stateAdapter) Inject(manifest *unstructured.Unstructured, targets []eviction.TargetCluster, tasks []eviction.GracefulEvictionTask, cluster string) (bool, error) {
	if s.singleTarget && len(targets) > 1 {
		return false, nil
	}
	return s.injector.InjectFor(manifest, cluster, targets, tasks)
}

// detectorAdapter keeps failover's application-failover Detector and
// persists its records as JSON across a restart.
type detectorAdapter struct{ d failover.Detector }

func (a *detectorAdapter) Detect(binding string, p *failover.ApplicationFailoverBehavior, clusters []string, h []failover.ObservedHealth) (failover.Detection, error) {
	return a.d.Detect(binding, p, clusters, h)
}

func (a *detectorAdapter) Export() ([]byte, error) { return json.Marshal(a.d.Export()) }

func (a *detectorAdapter) Import(data []byte) error {
	var recs []failover.DetectorRecord
	if err := json.Unmarshal(data, &recs); err != nil {
		return err
	}
	return a.d.Import(recs)
}
