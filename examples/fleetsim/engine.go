package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
)

// simEpoch is the wall time the simulated fleet starts at; every run starts
// there so timelines of the same scenario and seed are identical.
var simEpoch = time.Date(2026, time.January, 1, 0, 0, 0, 0, time.UTC)

// Options change how an Engine runs; the zero value is a normal run.
type Options struct {
	// Seed overrides the scenario's seed when non-zero.
	Seed int64
	// Library replaces some of the library adapters (tests use it to wire
	// a deliberately broken policy).
	Library func(*Library)
	// Progress, when set, is called after every step.
	Progress func(step, total int)
	// KeepGoing records violations and continues instead of stopping at
	// the first one.
	KeepGoing bool
	// Explain names a workload whose why-chain is written to ExplainTo at
	// the start and after every step that changes it (-explain).
	Explain   string
	ExplainTo io.Writer
}

// Engine runs one scenario step by step on a fake clock.
type Engine struct {
	sc        *Scenario
	seed      int64
	clock     *clocktesting.FakeClock
	rng       *rand.Rand
	lib       Library
	opts      Options
	clusters  []*cluster
	byName    map[string]*cluster
	workloads []*workload
	wByName   map[string]*workload
	faults    []timedFault
	nextFault int
	step      int
	steps     int
	tl        *Timeline
	inv       *invariants
	registry  *health.Registry
	stats     Stats
	// taintQueue: when the taint manager plans each cluster next (by index).
	taintQueue eviction.DeadlineQueue[int]
	// pacerStale: the pacer has not seen the current cluster health (at the
	// start and after a restart).
	pacerStale bool
	// explain is -explain's printer; nil when not asked for.
	explain *explainer
	// randomDraws counts what the run drew at random (job ids): none, and
	// the seed changes nothing.
	randomDraws int
	// taintPolicies are the ClusterTaintPolicies of each cluster, by
	// index, in the order they apply.
	taintPolicies [][]failover.ConditionTaintPolicy
}

// Stats counts what happened in a run.
type Stats struct {
	Steps       int
	Evictions   int
	Dispatches  int
	Deletions   int
	TasksClosed int
	Restarts    int
	Fences      int // copies stopped by their cluster's agent
	Violations  int
}

// NewEngine prepares a scenario for running.
func NewEngine(sc *Scenario, opts Options) (*Engine, error) {
	seed := sc.Seed
	if opts.Seed != 0 {
		seed = opts.Seed
	}
	e := &Engine{
		sc:       sc,
		seed:     seed,
		clock:    clocktesting.NewFakeClock(simEpoch),
		rng:      rand.New(rand.NewPCG(uint64(seed), 0x5eed)),
		opts:     opts,
		byName:   map[string]*cluster{},
		wByName:  map[string]*workload{},
		tl:       &Timeline{start: simEpoch},
		registry: health.NewRegistry(health.RegistryConfig{}),
	}
	e.steps = int(sc.Duration.D() / sc.Step.D())
	e.pacerStale = true
	e.taintQueue = must(eviction.NewDeadlineQueue[int](eviction.DeadlineQueueConfig{Clock: e.clock}))
	lib, err := newLibrary(e)
	if err != nil {
		return nil, err
	}
	e.lib = lib
	if opts.Library != nil {
		opts.Library(&e.lib)
	}
	e.inv = newInvariants(e)
	now := e.clock.Now()
	for i, cs := range sc.Clusters {
		c := &cluster{idx: i, name: cs.Name, zone: cs.Zone, region: cs.Region, pull: cs.SyncMode == "Pull"}
		c.cond = metav1.Condition{Type: "Ready", Status: metav1.ConditionTrue, Reason: "ClusterReady", LastTransitionTime: metav1.NewTime(now)}
		for _, t := range cs.Taints {
			c.taints = append(c.taints, corev1.Taint{Key: t.Key, Value: t.Value, Effect: corev1.TaintEffect(t.Effect)})
		}
		c.taintsDue = len(c.taints) > 0
		e.clusters = append(e.clusters, c)
		e.byName[c.name] = c
		var ps []failover.ConditionTaintPolicy
		for _, p := range sc.Settings.ClusterTaintPolicies {
			if len(p.Clusters) == 0 || slices.Contains(p.Clusters, c.name) {
				ps = append(ps, p.library())
			}
		}
		e.taintPolicies = append(e.taintPolicies, ps)
		c.taintsDue = c.taintsDue || len(ps) > 0
	}
	for i := range sc.Workloads {
		w, err := e.newWorkload(i, &sc.Workloads[i])
		if err != nil {
			return nil, err
		}
		e.workloads = append(e.workloads, w)
		e.wByName[w.name()] = w
		e.startEvictions(w)
	}
	e.faults = expandFaults(sc)
	// Initial placement and dispatch: the fleet is healthy at time zero.
	// A workload placed already (a binding's spec.clusters) starts there.
	for _, w := range e.workloads {
		if len(w.spec.Clusters) > 0 {
			start := make([]eviction.TargetCluster, 0, len(w.spec.Clusters))
			for _, t := range w.spec.Clusters {
				r := int32(0)
				if w.divided {
					if r = t.Replicas; r == 0 {
						continue
					}
				}
				start = append(start, eviction.TargetCluster{Name: t.Name, Replicas: r})
			}
			if len(w.groups) > 0 && w.spec.AffinityGroup == "" {
				// Without a group named, the group in use is the first that
				// holds the placement.
				w.useGroup(w.groupHolding(start))
			}
			e.setTargets(w, start)
		}
		e.schedule(w)
		e.dispatch(w)
		for ci, cp := range w.copies {
			if cp != nil {
				cp.created = now.Add(-sc.Settings.StartupDelay.D())
				e.collect(w, e.clusters[ci], cp)
			}
		}
	}
	e.noteHealth()
	if opts.Explain != "" {
		if e.wByName[opts.Explain] == nil {
			return nil, fmt.Errorf("-explain: the scenario has no workload named %q (it has %s)", opts.Explain, strings.Join(e.workloadNames(), ", "))
		}
		e.explain = &explainer{workload: opts.Explain, out: opts.ExplainTo}
		_, e.explain.err = fmt.Fprintf(opts.ExplainTo, "WHY  workload %q in scenario %q, at the start and at every step that changes it; times are from the start, %s\n",
			opts.Explain, sc.Name, simEpoch.Format(time.RFC3339))
		e.explain.observe(e)
	}
	return e, nil
}

// workloadNames lists the scenario's workloads in scenario order.
func (e *Engine) workloadNames() []string {
	names := make([]string, len(e.workloads))
	for i, w := range e.workloads {
		names[i] = w.name()
	}
	return names
}

// ExplainErr is the first error writing the -explain output met.
func (e *Engine) ExplainErr() error {
	if e.explain == nil {
		return nil
	}
	return e.explain.err
}

// Now returns the simulated time.
func (e *Engine) Now() time.Time { return e.clock.Now() }

// Elapsed returns the simulated time since the start.
func (e *Engine) Elapsed() time.Duration { return e.clock.Now().Sub(simEpoch) }

// DrewAtRandom reports whether the run drew anything from its seed.
func (e *Engine) DrewAtRandom() bool { return e.randomDraws > 0 }

// Seed returns the seed of this run.
func (e *Engine) Seed() int64 { return e.seed }

// Timeline returns what happened so far.
func (e *Engine) Timeline() *Timeline { return e.tl }

// Violations returns the invariant violations found so far.
func (e *Engine) Violations() []Violation { return e.inv.violations }

// Stats returns the counters of the run.
func (e *Engine) Stats() Stats { s := e.stats; s.Violations = len(e.inv.violations); return s }

// Run steps through the whole scenario. It stops at the first invariant
// violation unless Options.KeepGoing is set, and returns the violations.
func (e *Engine) Run() []Violation {
	for e.step < e.steps {
		e.Step()
		if len(e.inv.violations) > 0 && !e.opts.KeepGoing {
			break
		}
	}
	return e.inv.violations
}

// Step advances the simulated clock by one step and runs every controller
// once. A panic anywhere in a step is reported as a violation.
func (e *Engine) Step() {
	defer func() {
		if r := recover(); r != nil {
			e.inv.violate(InvNoPanic, "", "", fmt.Sprintf("panic: %v", r))
		}
	}()
	e.step++
	e.stats.Steps++
	e.clock.Step(e.sc.Step.D())
	e.applyFaults()
	e.monitorClusters()
	e.fenceMembers()
	e.taintClusters()
	e.failoverClusters()
	e.failoverApplications()
	for _, w := range e.workloads {
		if w.deleted {
			e.purgeDeleted(w)
			continue
		}
		if len(w.history) > 0 {
			// Expired blocks leave the binding's history, as a controller
			// trims it when it writes the binding.
			w.history.GC(w.blockSecs, e.Now())
		}
		e.schedule(w)
		e.dispatch(w)
		e.assess(w)
		e.syncCopies(w)
	}
	e.inv.endStep()
	if e.explain != nil {
		e.explain.observe(e)
	}
	if !e.tl.Quiet {
		e.noteHealth()
	}
	if e.opts.Progress != nil {
		e.opts.Progress(e.step, e.steps)
	}
}

// startEvictions puts w's evictions in flight at the start (a binding's
// gracefulEvictionTasks) on its binding, with the old copy each leaves
// behind. The graceful eviction controller stamps each task when it first
// sees it, so every grace period counts from the start of the run.
func (e *Engine) startEvictions(w *workload) {
	for _, spec := range w.spec.EvictionTasks {
		t := *spec.DeepCopy()
		t.CreationTimestamp = nil
		w.tasks = append(w.tasks, t)
		r := w.spec.Replicas
		if w.divided && t.Replicas != nil {
			r = *t.Replicas
		}
		if r == 0 {
			continue
		}
		cp := &copyState{replicas: r, created: e.Now()}
		// The old copy runs the job its preserved state names.
		cp.jobID = e.jobIDFor(w, t.PreservedLabelState)
		if w.origJob == "" {
			w.origJob = cp.jobID
		}
		w.copies[e.byName[t.FromCluster].idx] = cp
	}
}
