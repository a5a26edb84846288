package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/preservation"
	"github.com/fleetover/fleetover/scheduling"
)

// ScaleConfig sizes the scale wave.
type ScaleConfig struct {
	Clusters    int
	Workloads   int
	FailPercent int
	// StatefulEvery makes every n-th workload a stateful Flink job with a
	// ~1.2 KB raw status and a jobId preservation rule.
	StatefulEvery int
	Seed          int64
}

// ScaleResult is what the wave cost.
type ScaleResult struct {
	Clusters, Workloads, Failed int
	Placements                  int // binding x cluster pairs
	OnFailed                    int // bindings with a copy on a failed cluster
	Planned, Evicted, Extracted int
	Assessed, TasksRemoved      int
	Replaced                    int
	Health, Taints, Plan        time.Duration
	Evict, Assess               time.Duration
	Wave                        time.Duration // every decision of the wave (wall)
	WaveCPU                     time.Duration // the same, in CPU time of the process (0 when unknown)
	Build                       time.Duration
	PeakHeap, Sys               uint64
	GOMAXPROCS                  int
}

// scalePolicy is one of the few policies the fleet's workloads share, as
// workloads share a handful of PropagationPolicies in real fleets.
type scalePolicy struct {
	tolerations []corev1.Toleration
	cluster     *failover.ClusterFailoverBehavior
	rules       *preservation.Rules
}

// scaleFleet keeps a million bindings in flat slices indexed by binding
// number: no map or string per workload besides its placement.
type scaleFleet struct {
	names    []string
	zones    []string
	failed   []bool
	policies []scalePolicy
	policyOf []uint8
	targets  [][]eviction.TargetCluster
	tasks    [][]eviction.GracefulEvictionTask
	status   [][]byte // raw .status of stateful bindings on their cluster, nil otherwise
	// members lists the bindings placed on each cluster (CSR layout).
	memberOff []int32
	members   []int32
}

const flinkStatusTemplate = `{"clusterInfo":{"flink-revision":"a1b2c3d4 @ 2025-06-01T10:00:00+01:00","flink-version":"1.20.1","total-cpu":"4.0","total-memory":"8589934592"},` +
	`"jobManagerDeploymentStatus":"READY","lifecycleState":"STABLE","observedGeneration":3,` +
	`"jobStatus":{"checkpointInfo":{"formatType":"FULL","lastCheckpoint":{"formatType":"FULL","timeStamp":1734462491693,"triggerType":"PERIODIC"},` +
	`"lastPeriodicCheckpointTimestamp":1734462491693,"triggerId":"447b790bb9c88da9ae753f00f45acb0e","triggerTimestamp":1734462506836,"triggerType":"PERIODIC"},` +
	`"jobId":"%s","jobName":"orders-%d","savepointInfo":{"lastPeriodicSavepointTimestamp":0,"savepointHistory":[]},"startTime":"1734400000000","state":"RUNNING","updateTime":"1734462506836"},` +
	`"reconciliationStatus":{"lastReconciledSpec":"{\"spec\":{\"job\":{\"jarURI\":\"local:///opt/flink/examples/streaming/StateMachineExample.jar\",\"parallelism\":2,\"upgradeMode\":\"savepoint\",\"state\":\"running\"},\"flinkVersion\":\"v1_20\",\"serviceAccount\":\"flink\"}}",` +
	`"lastStableSpec":"{\"spec\":{\"job\":{\"parallelism\":2}}}","reconciliationTimestamp":1734400000000,"state":"DEPLOYED"},` +
	`"taskManager":{"labelSelector":"component=taskmanager,app=orders","replicas":2}}`

func buildScaleFleet(cfg ScaleConfig) (*scaleFleet, error) {
	f := &scaleFleet{
		names:    make([]string, cfg.Clusters),
		zones:    make([]string, cfg.Clusters),
		failed:   make([]bool, cfg.Clusters),
		policyOf: make([]uint8, cfg.Workloads),
		targets:  make([][]eviction.TargetCluster, cfg.Workloads),
		tasks:    make([][]eviction.GracefulEvictionTask, cfg.Workloads),
		status:   make([][]byte, cfg.Workloads),
	}
	for i := range f.names {
		f.names[i] = fmt.Sprintf("member-%04d", i)
		f.zones[i] = fmt.Sprintf("zone-%d", i%10)
	}
	// Every tenth cluster fails: failures spread over every zone.
	step := max(1, 100/max(1, cfg.FailPercent))
	for i := 0; i < cfg.Clusters; i += step {
		f.failed[i] = true
	}
	stateful := []preservation.StatePreservationRule{{AliasLabelName: "failover.fleetover.io/jobid", JSONPath: "{ .jobStatus.jobId }"}}
	rules, err := preservation.Compile(stateful)
	if err != nil {
		return nil, err
	}
	sixty, never := int64(60), (*int64)(nil)
	tol := func(secs *int64) []corev1.Toleration {
		return failover.AddDefaultClusterTolerations(nil, failover.DefaultTolerationsConfig{NotReadyTolerationSeconds: secs, UnreachableTolerationSeconds: secs})
	}
	f.policies = []scalePolicy{
		{tolerations: tol(nil)}, // defaults: 300 s
		{tolerations: tol(&sixty), cluster: &failover.ClusterFailoverBehavior{PurgeMode: eviction.PurgeGracefully}},
		{tolerations: failover.AddDefaultClusterTolerations([]corev1.Toleration{{Key: failover.TaintKeyClusterNotReady, Operator: corev1.TolerationOpExists,
			Effect: corev1.TaintEffectNoExecute, TolerationSeconds: never}}, failover.DefaultTolerationsConfig{}),
			cluster: &failover.ClusterFailoverBehavior{PurgeMode: eviction.PurgeNever}},
		{tolerations: tol(&sixty), cluster: &failover.ClusterFailoverBehavior{PurgeMode: eviction.PurgeDirectly,
			StatePreservation: &preservation.StatePreservation{Rules: stateful}}, rules: rules},
	}

	counts := make([]int32, cfg.Clusters)
	var x uint64 = uint64(cfg.Seed)*0x9e3779b97f4a7c15 + 1
	next := func() uint64 { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x }
	for b := 0; b < cfg.Workloads; b++ {
		p := uint8(b % 3)
		if cfg.StatefulEvery > 0 && b%cfg.StatefulEvery == 0 {
			p = 3
		}
		f.policyOf[b] = p
		a := int(next() % uint64(cfg.Clusters))
		if p == 3 || b%2 == 0 {
			f.targets[b] = []eviction.TargetCluster{{Name: f.names[a]}}
			counts[a]++
		} else {
			c := (a + 1 + int(next()%uint64(cfg.Clusters-1))) % cfg.Clusters
			f.targets[b] = []eviction.TargetCluster{{Name: f.names[a]}, {Name: f.names[c]}}
			counts[a]++
			counts[c]++
		}
		if p == 3 {
			f.status[b] = []byte(fmt.Sprintf(flinkStatusTemplate, fmt.Sprintf("%016x%016x", next(), uint64(b)), b))
		}
	}
	f.memberOff = make([]int32, cfg.Clusters+1)
	for i, n := range counts {
		f.memberOff[i+1] = f.memberOff[i] + n
	}
	f.members = make([]int32, f.memberOff[cfg.Clusters])
	fill := make([]int32, cfg.Clusters)
	copy(fill, f.memberOff[:cfg.Clusters])
	index := make(map[string]int, cfg.Clusters)
	for i, n := range f.names {
		index[n] = i
	}
	for b, ts := range f.targets {
		for _, t := range ts {
			c := index[t.Name]
			f.members[fill[c]] = int32(b)
			fill[c]++
		}
	}
	return f, nil
}

// RunScaleWave builds the fleet, fails cfg.FailPercent of its clusters and
// times every decision the wave needs on the library's hot paths: health
// reports, taints, the cluster-failover planner, pacing, state extraction,
// task creation, re-placement and two assessment rounds.
func RunScaleWave(cfg ScaleConfig) (ScaleResult, error) {
	started := time.Now()
	f, err := buildScaleFleet(cfg)
	if err != nil { // a constant configuration within the bounds: cannot happen
		panic(err)
	}
	runtime.GC()
	build := time.Since(started)
	res := runWave(f, cfg)
	res.Build = build
	return res, nil
}

// runWave runs the wave on a freshly built fleet (it changes the fleet).
func runWave(f *scaleFleet, cfg ScaleConfig) ScaleResult {
	res := ScaleResult{Clusters: cfg.Clusters, Workloads: cfg.Workloads, GOMAXPROCS: runtime.GOMAXPROCS(0)}
	res.Placements = len(f.members)
	clk := clocktesting.NewFakeClock(simEpoch)
	tracker := must(failover.NewClusterHealthTracker(clk, failover.ClusterHealthConfig{}))
	for _, n := range f.names {
		tracker.Register(n, failover.ClusterSyncModePush)
	}
	conds := make([]metav1.Condition, cfg.Clusters)
	taints := make([][]corev1.Taint, cfg.Clusters)
	taintCfg := failover.ClusterTaintConfig{NoExecuteAfterTimeout: true}
	pacer, err := eviction.NewPacer(eviction.PacerConfig{Clock: clk, Rate: eviction.MaxEvictionRate, Burst: eviction.MaxEvictionBurst})
	if err != nil { // a constant configuration within the bounds: cannot happen
		panic(err)
	}
	planner := failover.ClusterFailoverPlanner{}
	views := make([]eviction.ClusterHealthView, cfg.Clusters)
	filters := scheduling.DefaultFilters()
	var filterRes scheduling.Result
	var plan failover.ClusterFailoverPlan
	var bindings []failover.ClusterBinding
	var assessment eviction.Assessment
	healthyView := eviction.HealthLookupFunc(func(string) health.Status { return health.Healthy })
	// The wave measures decisions, not deletions: every old copy is taken
	// as deleted by the time the replacements are healthy.
	oldCopiesGone := eviction.OldCopyLookupFunc(func(string) eviction.OldCopy { return eviction.OldCopy{Gone: true} })
	for i := range f.failed {
		if f.failed[i] {
			res.Failed++
		}
	}

	timed := func(d *time.Duration, fn func()) {
		c0, _ := processCPUTime()
		t0 := time.Now()
		fn()
		el := time.Since(t0)
		c1, _ := processCPUTime()
		*d += el
		res.Wave += el
		res.WaveCPU += c1 - c0
	}
	probeAll := func() {
		for i, n := range f.names {
			c, _ := tracker.ObserveProbe(n, failover.ProbeResult{Reachable: !f.failed[i], Healthy: !f.failed[i]})
			conds[i] = c
		}
	}
	taintAll := func() {
		for i := range f.names {
			diff, _ := failover.ComputeClusterTaints(taintCfg, conds[i:i+1], taints[i], clk.Now())
			if diff.Changed {
				taints[i] = diff.Result
			}
			views[i] = eviction.ClusterHealthView{Name: f.names[i], Zone: f.zones[i], Healthy: conds[i].Status == metav1.ConditionTrue}
		}
		pacer.Observe(views)
	}
	planAll := func(act bool) {
		for c := range f.names {
			if !f.failed[c] {
				continue
			}
			mem := f.members[f.memberOff[c]:f.memberOff[c+1]]
			bindings = bindings[:0]
			for _, b := range mem {
				p := &f.policies[f.policyOf[b]]
				bindings = append(bindings, failover.ClusterBinding{Key: strconv.Itoa(int(b)), Tolerations: p.tolerations, Failover: p.cluster})
			}
			planner.PlanInto(&plan, taints[c], bindings, clk.Now())
			res.Planned += len(mem)
			if !act {
				continue
			}
			for _, ev := range plan.Evict {
				b := mem[ev.Index]
				if !pacer.TryAccept(f.zones[c]) {
					continue
				}
				p := &f.policies[f.policyOf[b]]
				e := ev.Eviction(f.names[c])
				e.CreatedAt = clk.Now()
				if p.rules != nil {
					state, err := p.rules.ExtractFromJSON(f.status[b])
					if err != nil {
						continue // the eviction waits for a readable status
					}
					e.PreservedLabelState = state
					res.Extracted++
				}
				out, err := eviction.Evict(f.targets[b], f.tasks[b], e)
				if err != nil || out.Outcome != eviction.EvictTaskAdded {
					continue
				}
				res.Evicted++
				// Re-place on the first feasible cluster of a small window
				// of candidates after the failed one.
				cands := candidateWindow(f, taints, c, int(b))
				sw := scheduling.Workload{Tolerations: p.tolerations, EvictionTasks: out.Tasks, Now: clk.Now()}
				scheduling.RunFiltersInto(&filterRes, &sw, cands, filters...)
				targets := out.Targets
				for _, n := range filterRes.Feasible {
					if !containsTarget(targets, n) {
						targets = append(targets, eviction.TargetCluster{Name: n})
						res.Replaced++
						break
					}
				}
				f.targets[b], f.tasks[b] = targets, out.Tasks
			}
		}
	}
	assessAll := func() {
		for c := range f.names {
			if !f.failed[c] {
				continue
			}
			for _, b := range f.members[f.memberOff[c]:f.memberOff[c+1]] {
				if len(f.tasks[b]) == 0 {
					continue
				}
				in := eviction.AssessInput{Tasks: f.tasks[b], Targets: f.targets[b], Health: healthyView, OldCopies: oldCopiesGone, Now: clk.Now()}
				eviction.AssessInto(&assessment, &in, &eviction.AssessOptions{})
				res.Assessed++
				if len(assessment.Removed) > 0 {
					res.TasksRemoved += len(assessment.Removed)
					f.tasks[b] = nil
				} else if assessment.Stamped {
					f.tasks[b] = append(f.tasks[b][:0], assessment.Kept...)
				}
			}
		}
	}
	for c := range f.names {
		if f.failed[c] {
			res.OnFailed += int(f.memberOff[c+1] - f.memberOff[c])
		}
	}

	// t=0 .. 40 s: the failed clusters stop answering; probes every 10 s.
	for t := 0; t <= 4; t++ {
		timed(&res.Health, probeAll)
		timed(&res.Taints, taintAll)
		clk.Step(10 * time.Second)
	}
	// 5 minutes after Ready went False: NoExecute, and a first plan that
	// only starts countdowns.
	clk.Step(failover.DefaultEvictionTimeout)
	timed(&res.Health, probeAll)
	timed(&res.Taints, taintAll)
	timed(&res.Plan, func() { planAll(false) })
	// 300 s later every default toleration has run out.
	clk.Step(time.Duration(failover.DefaultTolerationSeconds) * time.Second)
	timed(&res.Evict, func() { planAll(true) })
	// The graceful eviction controller: a round that judges new tasks, and
	// one once the replacements are healthy.
	clk.Step(10 * time.Second)
	timed(&res.Assess, assessAll)
	clk.Step(30 * time.Second)
	timed(&res.Assess, assessAll)

	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	// Sys never shrinks: it is the peak of what the runtime obtained.
	res.Sys = ms.Sys
	res.PeakHeap = ms.HeapSys
	runtime.KeepAlive(f)
	return res
}

func containsTarget(ts []eviction.TargetCluster, name string) bool {
	for i := range ts {
		if ts[i].Name == name {
			return true
		}
	}
	return false
}

// candidateWindow returns the next few clusters after the failed one, the
// candidates a scoring scheduler would have kept for this binding.
func candidateWindow(f *scaleFleet, taints [][]corev1.Taint, failed, binding int) []scheduling.Cluster {
	const window = 4
	var buf [window]scheduling.Cluster
	n := len(f.names)
	start := (failed + 1 + binding%7) % n
	for i := 0; i < window; i++ {
		c := (start + i) % n
		buf[i] = scheduling.Cluster{Name: f.names[c], Taints: taints[c]}
	}
	return buf[:]
}

func runScale(cfg config, stdout, stderr io.Writer) int {
	prev := runtime.GOMAXPROCS(1) // the target is one core
	defer runtime.GOMAXPROCS(prev)
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	fmt.Fprintf(stdout, "scale: building %d clusters and %d workloads...\n", cfg.clusters, cfg.workloads)
	res, err := RunScaleWave(ScaleConfig{Clusters: cfg.clusters, Workloads: cfg.workloads, FailPercent: cfg.failPct, StatefulEvery: 10, Seed: max(1, cfg.seed)})
	if err != nil {
		fmt.Fprintln(stderr, "fleetsim:", err)
		return 2
	}
	printScale(stdout, res)
	return 0
}

func printScale(w io.Writer, r ScaleResult) {
	fmt.Fprintf(w, "scale wave: %d clusters (%d failed), %d workloads, %d placements, %d on failed clusters, GOMAXPROCS=%d\n",
		r.Clusters, r.Failed, r.Workloads, r.Placements, r.OnFailed, r.GOMAXPROCS)
	fmt.Fprintf(w, "  decisions: %d planned, %d evicted (%d with state extracted), %d re-placed, %d assessments, %d tasks removed\n",
		r.Planned, r.Evicted, r.Extracted, r.Replaced, r.Assessed, r.TasksRemoved)
	fmt.Fprintf(w, "  time: health %s, taints %s, plan %s, evict+extract+re-place %s, assess %s\n",
		r.Health.Round(time.Millisecond), r.Taints.Round(time.Millisecond), r.Plan.Round(time.Millisecond), r.Evict.Round(time.Millisecond), r.Assess.Round(time.Millisecond))
	fmt.Fprintf(w, "  wave decision time: %s CPU, %s wall (target <= 2s on one core); fleet built in %s\n",
		r.WaveCPU.Round(time.Millisecond), r.Wave.Round(time.Millisecond), r.Build.Round(time.Millisecond))
	fmt.Fprintf(w, "  memory: Go runtime Sys %.0f MiB, heap %.0f MiB (target <= 2 GiB)\n", float64(r.Sys)/(1<<20), float64(r.PeakHeap)/(1<<20))
}
