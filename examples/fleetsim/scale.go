package main

import (
	"runtime"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/scheduling"
)

// ScaleConfig sizes the scale wave and its fleet (scalegen.go draws it).
type ScaleConfig struct {
	Clusters  int
	Workloads int
	// Regions and ZonesPerRegion lay the clusters out (0: 4 regions of
	// 3 zones); a fleet smaller than that has fewer zones.
	Regions, ZonesPerRegion int
	// FailPercent of the clusters fail, drawn by the seed over every
	// zone; FailZone, when set, fails every cluster of that zone instead.
	FailPercent int
	FailZone    string
	// StatefulEvery makes every n-th workload a stateful Flink job with a
	// ~1.2 KB raw status and a jobId preservation rule.
	StatefulEvery int
	Seed          int64
}

// cpuWall is the time a piece of work took: CPU time of the process (user
// + system; 0 where the platform does not say) and wall time. On a shared
// machine wall time also counts the waits for a core.
type cpuWall struct{ CPU, Wall time.Duration }

func (t *cpuWall) add(o cpuWall) { t.CPU += o.CPU; t.Wall += o.Wall }

// measure runs fn and returns what it took.
func measure(fn func()) cpuWall {
	c0, _ := processCPUTime()
	t0 := time.Now()
	fn()
	wall := time.Since(t0)
	c1, _ := processCPUTime()
	return cpuWall{CPU: c1 - c0, Wall: wall}
}

// ScaleResult is what the wave did and cost.
type ScaleResult struct {
	Clusters, Zones, Regions    int
	Workloads                   int
	Failed, FailedZones         int    // failed clusters, zones with a failed cluster
	FailZone                    string // the zone that failed whole, if one did
	Placements                  int    // copies: binding x cluster pairs
	OnFailed                    int    // copies on a failed cluster
	Planned, Evicted, Extracted int
	Assessed, TasksRemoved      int
	Replaced                    int
	Health, Taints, Plan        cpuWall
	Evict, Assess               cpuWall
	Wave                        cpuWall // every decision of the wave: the sum of the above
	Build                       cpuWall // drawing the fleet, outside the wave
	PeakHeap, Sys               uint64
	GOMAXPROCS                  int
}

// RunScaleWave builds the fleet, fails cfg.FailPercent of its clusters (or
// cfg.FailZone) and times every decision the wave needs on the library's
// hot paths: health reports, taints, the cluster-failover planner, pacing,
// state extraction, task creation, re-placement and two assessment rounds.
func RunScaleWave(cfg ScaleConfig) (ScaleResult, error) {
	var f *scaleFleet
	var err error
	build := measure(func() {
		f, err = buildScaleFleet(cfg)
		runtime.GC()
	})
	if err != nil {
		return ScaleResult{}, err
	}
	res := runWave(f, cfg)
	res.Build = build
	return res, nil
}

// runWave runs the wave on a freshly built fleet (it changes the fleet).
func runWave(f *scaleFleet, cfg ScaleConfig) ScaleResult {
	res := ScaleResult{Clusters: cfg.Clusters, Zones: len(f.zoneNames), Regions: f.nRegions, Workloads: cfg.Workloads,
		FailZone: cfg.FailZone, GOMAXPROCS: runtime.GOMAXPROCS(0)}
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
	failedIn := make(map[uint16]bool)
	for i := range f.failed {
		if f.failed[i] {
			res.Failed++
			failedIn[f.zoneOf[i]] = true
		}
	}
	res.FailedZones = len(failedIn)

	timed := func(d *cpuWall, fn func()) {
		t := measure(fn)
		d.add(t)
		res.Wave.add(t)
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

// candidateWindow returns a few clusters of the failed one's region after
// it, leaving out those the binding already runs on: the candidates a
// scoring scheduler would have kept, as the binding's policy keeps it in
// its region. Zones alternate in the region's list, so the window reaches
// past a zone that failed whole.
func candidateWindow(f *scaleFleet, taints [][]corev1.Taint, failed, binding int) []scheduling.Cluster {
	const window = 4
	var buf [window]scheduling.Cluster
	region := f.inRegion[f.regionOf[failed]]
	n, k := len(region), 0
	start := int(f.regionPos[failed]) + 1 + binding%7
	for i := 0; i < n && k < window; i++ {
		c := region[(start+i)%n]
		if int(c) == failed || containsTarget(f.targets[binding], f.names[c]) {
			continue
		}
		buf[k] = scheduling.Cluster{Name: f.names[c], Taints: taints[c]}
		k++
	}
	return buf[:k]
}
