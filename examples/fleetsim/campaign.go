package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.yaml.in/yaml/v3"
)

// CampaignConfig sizes a campaign of randomized fault schedules.
type CampaignConfig struct {
	// Schedules is how many random scenarios run.
	Schedules int
	// FirstSeed seeds the first scenario; scenario i uses FirstSeed+i, so
	// any one of them can be replayed alone.
	FirstSeed int64
	// Duration of each scenario; zero means one hour.
	Duration time.Duration
	// Library, when set, alters the library wiring of every run.
	Library func(*Library)
	// Progress, when set, is called after each schedule.
	Progress func(done, total int)
	// Fleet, when set, is a scenario file: every schedule runs on its
	// clusters, workloads and settings, with its faults replaced by random
	// ones (and its duration kept unless Duration is set). FleetFile names
	// it in errors.
	Fleet     []byte
	FleetFile string
	// Rewrite, when set, edits each schedule's scenario before it runs
	// (a -fleet campaign puts back the faults standing for the export's
	// state).
	Rewrite func(data []byte) ([]byte, error)
	// NoFencing makes the random fleets' Pull agents not fence (no
	// settings.fenceAfter); random fleets fence by default.
	NoFencing bool
}

// CampaignResult is what a campaign found.
type CampaignResult struct {
	Schedules  int
	Steps      int
	Evictions  int
	Restarts   int
	Violations []Violation
	// FailingScenario is the YAML of the first schedule that violated an
	// invariant, ready to replay with -scenario.
	FailingScenario []byte
}

// RunCampaign runs cfg.Schedules random scenarios and checks the invariants
// after every step of each. Schedules run on every available core; the
// result does not depend on how they were spread.
func RunCampaign(cfg CampaignConfig) (CampaignResult, error) {
	type outcome struct {
		stats      Stats
		violations []Violation
		yaml       []byte
		err        error
	}
	var base *Scenario
	if cfg.Fleet != nil {
		var err error
		if base, err = ParseScenario(cfg.FleetFile, cfg.Fleet); err != nil {
			return CampaignResult{}, err
		}
	}
	outcomes := make([]outcome, cfg.Schedules)
	workers := max(1, min(runtime.GOMAXPROCS(0), cfg.Schedules))
	var next atomic.Int64
	var done atomic.Int64
	var progressMu sync.Mutex
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= cfg.Schedules {
					return
				}
				o := &outcomes[i]
				seed := cfg.FirstSeed + int64(i)
				var data []byte
				var err error
				if base != nil {
					data, err = WithRandomFaults(cfg.Fleet, base, seed, cfg.Duration)
				} else {
					data = randomScenario(seed, cfg.Duration, !cfg.NoFencing)
				}
				if err == nil && cfg.Rewrite != nil {
					data, err = cfg.Rewrite(data)
				}
				if err != nil {
					o.err = err
					continue
				}
				sc, err := ParseScenario(fmt.Sprintf("campaign-%d.yaml", seed), data)
				if err != nil {
					o.err = fmt.Errorf("generated scenario %d does not parse: %w", seed, err)
					continue
				}
				e, err := NewEngine(sc, Options{Library: cfg.Library})
				if err != nil {
					o.err = err
					continue
				}
				e.Timeline().Quiet = true
				o.violations = e.Run()
				o.stats = e.Stats()
				if len(o.violations) > 0 {
					o.yaml = data
				}
				n := int(done.Add(1))
				if cfg.Progress != nil {
					progressMu.Lock()
					cfg.Progress(n, cfg.Schedules)
					progressMu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	var res CampaignResult
	for _, o := range outcomes {
		if o.err != nil {
			return res, o.err
		}
		res.Schedules++
		res.Steps += o.stats.Steps
		res.Evictions += o.stats.Evictions
		res.Restarts += o.stats.Restarts
		if len(o.violations) > 0 && res.FailingScenario == nil {
			res.FailingScenario = o.yaml
		}
		res.Violations = append(res.Violations, o.violations...)
	}
	return res, nil
}

// RandomScenario writes a random but valid scenario for seed: a few zones
// of clusters, workloads with random placements and policies, and a fault
// schedule mixing outages, flapping (down/up, and Ready between False and
// Unknown), partitions (also one that starts when a copy starts being
// deleted), zone and fleet outages, workload failures (on one cluster or
// every one), unreadable state, controller restarts and deletions; a
// quarter of the fleets have a tight eviction pacer.
//
// Since fencing (2026-11-27) the Pull agents fence (settings.fenceAfter,
// one to four minutes) and half the schedules gain a long partition,
// preferably of a Pull cluster, in which the cut-off member keeps running
// its copies; both drawn from a stream of their own.
func RandomScenario(seed int64, duration time.Duration) []byte {
	return randomScenario(seed, duration, true)
}

// randomScenario is RandomScenario, with fencing Pull agents or not.
func randomScenario(seed int64, duration time.Duration, fence bool) []byte {
	if duration <= 0 {
		duration = time.Hour
	}
	r := rand.New(rand.NewPCG(uint64(seed), 0xc0ffee))
	// Features added to the generator later (regions, region spreads,
	// ordered affinity groups, suspended scheduling) draw from a stream of
	// their own, so that a seed's fleet, workloads and faults stay what
	// they were and only gain them.
	x := rand.New(rand.NewPCG(uint64(seed), 0x9e0a11))
	// Fencing and long partitions draw from a third stream.
	y := rand.New(rand.NewPCG(uint64(seed), 0xfe7ce5))
	var b strings.Builder
	fmt.Fprintf(&b, "name: campaign-%d\nseed: %d\nduration: %s\nstep: 10s\n", seed, seed, duration)
	fmt.Fprintf(&b, "settings:\n  evictionTimeout: %dm\n  defaultTolerationSeconds: %d\n  gracefulEvictionTimeout: %dm\n  cancelOnRecovery: %v\n  pacePerZone: %v\n",
		1+r.IntN(5), 30*r.IntN(6), 2+r.IntN(9), r.IntN(2) == 0, r.IntN(3) == 0)
	if r.IntN(4) == 0 {
		// A tight pacer: one eviction every 20 to 50 s refuses most of a
		// failover's evictions at first.
		fmt.Fprintf(&b, "  evictionsPerSecond: %g\n", []float64{0.02, 0.025, 0.04, 0.05}[r.IntN(4)])
	}
	fenceAfter := []int{60, 90, 120, 180, 240}[y.IntN(5)]
	if fence {
		fmt.Fprintf(&b, "  fenceAfter: %ds\n", fenceAfter)
	}
	zones := []string{"east", "west", "south"}[:2+r.IntN(2)]
	nClusters := 3 + r.IntN(5)
	// A third of the fleets have regions, two or three, which cut across
	// the zones; now and then a cluster has none.
	nRegions := 0
	if x.IntN(3) == 0 {
		nRegions = 2 + x.IntN(2)
	}
	var clusters, pulls []string
	b.WriteString("clusters:\n")
	for i := 0; i < nClusters; i++ {
		name := fmt.Sprintf("c%d", i)
		clusters = append(clusters, name)
		mode := "Push"
		if r.IntN(3) == 0 {
			mode = "Pull"
			pulls = append(pulls, name)
		}
		region := ""
		if nRegions > 0 && x.IntN(8) > 0 {
			region = fmt.Sprintf(", region: r%d", x.IntN(nRegions))
		}
		fmt.Fprintf(&b, "  - {name: %s, zone: %s%s, syncMode: %s}\n", name, zones[i%len(zones)], region, mode)
	}
	nWorkloads := 2 + r.IntN(5)
	var workloads, suspended []string
	b.WriteString("workloads:\n")
	for i := 0; i < nWorkloads; i++ {
		name := fmt.Sprintf("w%d", i)
		workloads = append(workloads, name)
		if writeRandomWorkload(&b, r, x, name, clusters, nRegions > 0) {
			suspended = append(suspended, name)
		}
	}
	b.WriteString("faults:\n")
	nFaults := 1 + r.IntN(6)
	minutes := int(duration / time.Minute)
	for i := 0; i < nFaults; i++ {
		at := 1 + r.IntN(max(1, minutes*2/3))
		dur := 1 + r.IntN(30)
		c := clusters[r.IntN(len(clusters))]
		switch k := r.IntN(30); {
		case k < 6:
			fmt.Fprintf(&b, "  - {at: %dm, type: outage, cluster: %s, for: %dm}\n", at, c, dur)
		case k < 8:
			fmt.Fprintf(&b, "  - {at: %dm, type: notReady, cluster: %s, for: %dm}\n", at, c, dur)
		case k < 10:
			fmt.Fprintf(&b, "  - {at: %dm, type: partition, cluster: %s, for: %dm}\n", at, c, dur)
		case k < 11:
			fmt.Fprintf(&b, "  - {at: %dm, type: flap, cluster: %s, period: %ds, for: %dm}\n", at, c, 20+10*r.IntN(12), dur)
		case k < 12:
			fmt.Fprintf(&b, "  - {at: %dm, type: zoneOutage, zone: %s, for: %dm}\n", at, zones[r.IntN(len(zones))], dur)
		case k < 14:
			fmt.Fprintf(&b, "  - {at: %dm, type: fleetOutage, for: %dm}\n", at, dur)
		case k < 17:
			fmt.Fprintf(&b, "  - {at: %dm, type: workloadUnhealthy, workload: %s, cluster: %s, for: %dm}\n", at, workloads[r.IntN(len(workloads))], c, dur)
		case k < 19:
			fmt.Fprintf(&b, "  - {at: %dm, type: restart}\n", at)
		case k < 21:
			target := ""
			if r.IntN(3) > 0 {
				target = ", cluster: " + c
			}
			fmt.Fprintf(&b, "  - {at: %dm, type: suspend, workload: %s%s, for: %dm}\n", at, workloads[r.IntN(len(workloads))], target, dur)
		case k < 22:
			fmt.Fprintf(&b, "  - {at: %dm, type: deleteWorkload, workload: %s}\n", at, workloads[r.IntN(len(workloads))])
		case k < 24:
			// Ready flips between False and Unknown, preferably on a Pull
			// cluster (the agent reports unhealthy, then its lease lapses).
			if len(pulls) > 0 {
				c = pulls[r.IntN(len(pulls))]
			}
			fmt.Fprintf(&b, "  - {at: %dm, type: flapReady, cluster: %s, period: %ds, for: %dm}\n", at, c, 30+10*r.IntN(4), 5+r.IntN(26))
		case k < 26:
			// A workload fails on c, and c is cut off the moment its copy
			// starts being deleted.
			w := workloads[r.IntN(len(workloads))]
			fmt.Fprintf(&b, "  - {at: %dm, type: workloadUnhealthy, workload: %s, cluster: %s, for: %dm}\n", at, w, c, dur)
			fmt.Fprintf(&b, "  - {at: %dm, type: partitionOnPurge, cluster: %s, for: %dm}\n", at, c, 1+r.IntN(20))
		case k < 28:
			fmt.Fprintf(&b, "  - {at: %dm, type: workloadUnhealthy, workload: %s, for: %dm}\n", at, workloads[r.IntN(len(workloads))], dur)
		default:
			fmt.Fprintf(&b, "  - {at: %dm, type: stateUnreadable, workload: %s, for: %dm}\n", at, workloads[r.IntN(len(workloads))], 1+r.IntN(10))
		}
	}
	// Half the schedules cut a cluster off for long enough that its
	// workloads fail over (a Pull one when there is one): the member keeps
	// running its copies behind the partition.
	if y.IntN(2) == 0 {
		c := clusters[y.IntN(len(clusters))]
		if len(pulls) > 0 && y.IntN(4) > 0 {
			c = pulls[y.IntN(len(pulls))]
		}
		fmt.Fprintf(&b, "  - {at: %dm, type: partition, cluster: %s, for: %dm}\n", 1+y.IntN(max(1, minutes/2)), c, 12+y.IntN(34))
	}
	// A workload suspended from the start resumes, most of the time; and
	// now and then a workload's scheduling is suspended for a while.
	for _, w := range suspended {
		if x.IntN(4) > 0 {
			fmt.Fprintf(&b, "  - {at: %dm, type: resumeScheduling, workload: %s}\n", 1+x.IntN(max(1, minutes*2/3)), w)
		}
	}
	if x.IntN(4) == 0 {
		at, w, d := 1+x.IntN(max(1, minutes*2/3)), workloads[x.IntN(len(workloads))], 1+x.IntN(30)
		fmt.Fprintf(&b, "  - {at: %dm, type: suspendScheduling, workload: %s, for: %dm}\n", at, w, d)
		// Half the time dispatching to one cluster is suspended while the
		// workload waits: an eviction from it that nothing replaced yet
		// is then held by the re-placement, and undone.
		if x.IntN(2) == 0 {
			fmt.Fprintf(&b, "  - {at: %dm, type: suspend, workload: %s, cluster: %s, for: %dm}\n", min(at+x.IntN(d), minutes-1), w, clusters[x.IntN(len(clusters))], 1+x.IntN(30))
		}
	}
	return []byte(b.String())
}

// WithRandomFaults rewrites the scenario file data (parsed as sc) for
// seed: its fleet, workloads and settings stay, its faults are replaced by
// a random schedule over its own clusters, zones and workloads, and its
// seed becomes seed. Comments and layout of the rest are kept, so the
// result replays as it is with -scenario.
func WithRandomFaults(data []byte, sc *Scenario, seed int64, duration time.Duration) ([]byte, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s: not a scenario mapping", sc.Name)
	}
	if duration <= 0 {
		duration = sc.Duration.D()
	}
	r := rand.New(rand.NewPCG(uint64(seed), 0xfa0175))
	var zones, clusters, workloads []string
	for _, c := range sc.Clusters {
		clusters = append(clusters, c.Name)
		if !slices.Contains(zones, c.Zone) {
			zones = append(zones, c.Zone)
		}
	}
	for _, w := range sc.Workloads {
		workloads = append(workloads, w.Name)
	}
	var faults []FaultSpec
	for range 1 + r.IntN(6) {
		f := FaultSpec{
			At:      Duration(min(duration, sc.Step.D()*time.Duration(1+r.Int64N(max(1, int64(duration*2/3/sc.Step.D())))))),
			For:     Duration(time.Duration(1+r.IntN(30)) * time.Minute),
			Cluster: clusters[r.IntN(len(clusters))],
		}
		k := r.IntN(28)
		if len(workloads) == 0 && k >= 14 {
			k = r.IntN(14) // no workload to fail, suspend or delete
		}
		switch {
		case k < 6:
			f.Type = FaultOutage
		case k < 8:
			f.Type = FaultNotReady
		case k < 10:
			f.Type = FaultPartition
		case k < 11:
			f.Type, f.Period = FaultFlap, Duration(max(sc.Step.D(), time.Duration(20+10*r.IntN(12))*time.Second))
		case k < 12:
			f.Type, f.Cluster, f.Zone = FaultZoneOutage, "", zones[r.IntN(len(zones))]
		case k < 14:
			f.Type, f.Cluster = FaultFleetOutage, ""
		case k < 17:
			f.Type, f.Workload = FaultWorkloadUnhealthy, workloads[r.IntN(len(workloads))]
		case k < 19:
			f.Type, f.Cluster, f.For = FaultRestart, "", 0
		case k < 21:
			f.Type, f.Workload = FaultSuspend, workloads[r.IntN(len(workloads))]
			if r.IntN(3) == 0 {
				f.Cluster = ""
			}
		case k < 22:
			f.Type, f.Cluster, f.Workload, f.For = FaultDelete, "", workloads[r.IntN(len(workloads))], 0
		case k < 24:
			f.Type, f.Period = FaultFlapReady, Duration(max(sc.Step.D(), time.Duration(30+10*r.IntN(4))*time.Second))
		case k < 25:
			// A workload fails on the cluster, which is cut off the moment
			// its copy starts being deleted.
			faults = append(faults, FaultSpec{At: f.At, Type: FaultWorkloadUnhealthy, Cluster: f.Cluster, Workload: workloads[r.IntN(len(workloads))], For: f.For})
			f.Type, f.For = FaultPartitionOnPurge, Duration(time.Duration(1+r.IntN(20))*time.Minute)
		case k < 26:
			f.Type, f.Cluster, f.Workload = FaultWorkloadUnhealthy, "", workloads[r.IntN(len(workloads))]
		default:
			f.Type, f.Cluster, f.Workload, f.For = FaultStateUnreadable, "", workloads[r.IntN(len(workloads))], Duration(time.Duration(1+r.IntN(10))*time.Minute)
		}
		faults = append(faults, f)
	}
	var faultsNode, seedNode yaml.Node
	if err := faultsNode.Encode(faults); err != nil {
		return nil, err
	}
	if err := seedNode.Encode(seed); err != nil {
		return nil, err
	}
	setKey(root.Content[0], "seed", &seedNode)
	setKey(root.Content[0], "faults", &faultsNode)
	if duration != sc.Duration.D() {
		var d yaml.Node
		if err := d.Encode(Duration(duration)); err != nil {
			return nil, err
		}
		setKey(root.Content[0], "duration", &d)
	}
	return yaml.Marshal(&root)
}

// setKey sets key to value in a YAML mapping, adding it when missing.
func setKey(m *yaml.Node, key string, value *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			m.Content[i+1] = value
			return
		}
	}
	m.Content = append(m.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, value)
}

// writeRandomWorkload writes one random workload: r draws what the
// generator always drew, x the features added since (see RandomScenario).
// It reports whether the workload's scheduling is suspended at the start.
func writeRandomWorkload(b *strings.Builder, r, x *rand.Rand, name string, clusters []string, regions bool) (schedulingSuspended bool) {
	kinds := []string{"Deployment", "StatefulSet", "FlinkDeployment"}
	kind := kinds[r.IntN(len(kinds))]
	fmt.Fprintf(b, "  - name: %s\n    kind: %s\n    replicas: %d\n", name, kind, 1+r.IntN(6))
	if kind == "FlinkDeployment" {
		fmt.Fprintf(b, "    state: {jobId: %016x}\n", r.Uint64())
	}
	b.WriteString("    placement:\n")
	// A quarter of the workloads have ordered affinity groups instead of
	// one affinity: two or three groups of random clusters, which may
	// share some; a third of those start in a later group.
	groups := x.IntN(4) == 0
	start := "" // workload fields written after the placement block
	if r.IntN(2) == 0 {
		var names []string
		for _, c := range clusters {
			if r.IntN(3) > 0 {
				names = append(names, c)
			}
		}
		if len(names) > 0 && !groups {
			fmt.Fprintf(b, "      clusterAffinity: {clusterNames: [%s]}\n", strings.Join(names, ", "))
		}
	}
	if groups {
		n := 2 + x.IntN(2)
		b.WriteString("      clusterAffinities:\n")
		for g := range n {
			var names []string
			for _, c := range clusters {
				if x.IntN(2) == 0 {
					names = append(names, c)
				}
			}
			if len(names) == 0 {
				names = append(names, clusters[x.IntN(len(clusters))])
			}
			fmt.Fprintf(b, "        - {affinityName: g%d, clusterNames: [%s]}\n", g, strings.Join(names, ", "))
		}
		if x.IntN(3) == 0 {
			start = fmt.Sprintf("    affinityGroup: g%d\n", 1+x.IntN(n-1))
		}
	}
	divided := kind != "FlinkDeployment" && r.IntN(3) == 0
	zone := ""
	if r.IntN(3) == 0 {
		zone = fmt.Sprintf(", {spreadByField: zone, minGroups: 1, maxGroups: %d}", 1+r.IntN(2))
	}
	if regions && !divided && x.IntN(3) == 0 {
		maxR := 1 + x.IntN(2)
		zone += fmt.Sprintf(", {spreadByField: region, minGroups: %d, maxGroups: %d}", 1+x.IntN(maxR), maxR)
	}
	if divided {
		b.WriteString("      replicaScheduling: {replicaSchedulingType: Divided}\n")
		if zone != "" {
			fmt.Fprintf(b, "      spreadConstraints: [{spreadByField: cluster, minGroups: 1}%s]\n", zone)
		}
	} else {
		maxG := 1 + r.IntN(3)
		minG := 1 + r.IntN(maxG)
		if kind == "FlinkDeployment" {
			minG, maxG = 1, 1
		}
		fmt.Fprintf(b, "      spreadConstraints: [{spreadByField: cluster, minGroups: %d, maxGroups: %d}%s]\n", minG, maxG, zone)
	}
	if x.IntN(12) == 0 {
		start += "    schedulingSuspended: true\n"
		schedulingSuspended = true
	}
	if r.IntN(4) == 0 {
		fmt.Fprintf(b, "      clusterTolerations: [{key: cluster.karmada.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: %d}]\n", 30*r.IntN(10))
	}
	if r.IntN(5) == 0 {
		fmt.Fprintf(b, "    suspension: {dispatchingOnClusters: {clusterNames: [%s]}}\n", clusters[r.IntN(len(clusters))])
	}
	b.WriteString(start)
	modes := []string{"Directly", "Gracefully", "Never"}
	b.WriteString("    failover:\n")
	cm := modes[r.IntN(3)]
	stateful := kind == "FlinkDeployment"
	if stateful && r.IntN(3) > 0 {
		cm = "Directly" // mostly single writers
	}
	fmt.Fprintf(b, "      cluster:\n        purgeMode: %s\n", cm)
	if cm == "Gracefully" {
		fmt.Fprintf(b, "        gracePeriodSeconds: %d\n", 60*(1+r.IntN(10)))
	}
	const jobIDRule = "        statePreservation: {rules: [{aliasLabelName: failover.fleetover.io/jobid, jsonPath: \"{ .jobStatus.jobId }\"}]}\n"
	if stateful {
		b.WriteString(jobIDRule)
	}
	if r.IntN(2) == 0 {
		am := modes[r.IntN(2)]
		if stateful && cm == "Directly" && r.IntN(3) > 0 {
			am = "Directly"
		}
		fmt.Fprintf(b, "      application:\n        decisionConditions: {tolerationSeconds: %d}\n        purgeMode: %s\n        blockPredecessorSeconds: %d\n",
			30*r.IntN(8), am, []int{0, 300, 600, 1800}[r.IntN(4)])
		if stateful {
			b.WriteString(jobIDRule)
		}
		if r.IntN(2) == 0 {
			fmt.Fprintf(b, "        preConditions: {delaySeconds: %d}\n", 60*r.IntN(5))
		}
	}
	return schedulingSuspended
}

func runCampaignCmd(cfg config, stdout, stderr io.Writer, showProgress bool) int {
	seed := cfg.seed
	if seed == 0 {
		seed = 1
	}
	cc := CampaignConfig{Schedules: cfg.campaign, FirstSeed: seed, NoFencing: cfg.noFencing}
	fleet := "random fleets"
	if cfg.fleet != "" {
		run, err := loadFleetRun(cfg.fleet, cfg.scenario, cfg.fleetRules(cfg.rules))
		if err == nil {
			_, err = run.scenario()
		}
		if err != nil {
			fmt.Fprintln(stderr, "fleetsim:", err)
			return 2
		}
		run.DefaultFault = "" // the random faults replace it
		if cfg.output == "json" {
			run.printFindings(stderr)
		} else {
			run.printFindings(stdout)
		}
		cc.Fleet, cc.FleetFile, cc.Rewrite = run.Data, run.Label, run.withStandingFaults
		fleet = "the " + run.Label
	} else if cfg.scenario != "" {
		data, err := readScenarioFile(cfg.scenario)
		if err != nil {
			fmt.Fprintln(stderr, "fleetsim:", err)
			return 2
		}
		cc.Fleet, cc.FleetFile = data, cfg.scenario
		fleet = "the fleet of " + cfg.scenario
	}
	var bar *progressBar
	if showProgress {
		bar = newProgressBar(stderr, "campaign")
		cc.Progress = bar.update
	}
	started := time.Now()
	res, err := RunCampaign(cc)
	if bar != nil {
		bar.done()
	}
	if err != nil {
		fmt.Fprintln(stderr, "fleetsim:", err)
		return 2
	}
	line := fmt.Sprintf("campaign on %s: %d schedules (seeds %d..%d), %d steps, %d evictions, %d controller restarts, %d violations",
		fleet, res.Schedules, seed, seed+int64(res.Schedules)-1, res.Steps, res.Evictions, res.Restarts, len(res.Violations))
	if cfg.report != "" {
		// -report always writes the campaign's result, and the first
		// failing schedule when there is one.
		if err := writeCampaignReport(cfg.report, line, res); err != nil {
			fmt.Fprintln(stderr, "fleetsim: -report:", err)
			return 2
		}
		note := stdout
		if cfg.output == "json" {
			note = stderr
		}
		fmt.Fprintf(note, "fleetsim: campaign report written to %s\n", filepath.Join(cfg.report, "campaign.md"))
	}
	if cfg.output == "json" {
		return writeCampaignJSON(cfg, stdout, stderr, fleet, seed, res)
	}
	fmt.Fprintf(stdout, "%s, in %s\n", line, time.Since(started).Round(time.Millisecond))
	if len(res.Violations) == 0 {
		return 0
	}
	for i, v := range res.Violations {
		if i == 10 {
			fmt.Fprintf(stdout, "  ... %d more\n", len(res.Violations)-10)
			break
		}
		fmt.Fprintf(stdout, "  %v\n", v)
	}
	if cfg.report != "" {
		fmt.Fprintf(stdout, "  replay: go run ./examples/fleetsim -scenario %s\n", filepath.Join(cfg.report, "failing-scenario.yaml"))
	} else {
		replay := fmt.Sprintf("-campaign 1 -seed %d", res.Violations[0].Seed)
		if cfg.fleet != "" {
			replay += " -fleet " + cfg.fleet
		}
		if cfg.scenario != "" {
			replay += " -scenario " + cfg.scenario
		}
		fmt.Fprintf(stdout, "  replay the first failing schedule: go run ./examples/fleetsim %s -report DIR\n", replay)
	}
	return 1
}

// writeCampaignReport writes dir/campaign.md (the result and its
// violations) and, when a schedule failed, dir/failing-scenario.yaml.
func writeCampaignReport(dir, line string, res CampaignResult) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# fleetsim campaign\n\n%s.\n", line)
	if len(res.Violations) > 0 {
		b.WriteString("\n## Violations\n\n")
		for _, v := range res.Violations {
			fmt.Fprintf(&b, "- %v\n", v)
		}
		b.WriteString("\nThe first failing schedule is `failing-scenario.yaml`: `go run ./examples/fleetsim -scenario failing-scenario.yaml` replays it.\n")
		if err := os.WriteFile(filepath.Join(dir, "failing-scenario.yaml"), res.FailingScenario, 0o644); err != nil {
			return err
		}
	} else {
		b.WriteString("\nEvery invariant held in every schedule: no failing schedule to write.\n")
	}
	return os.WriteFile(filepath.Join(dir, "campaign.md"), []byte(b.String()), 0o644)
}

// writeCampaignJSON writes a campaign's result as one JSON document; with
// -report, the first failing schedule is written as in text mode.
func writeCampaignJSON(cfg config, stdout, stderr io.Writer, fleet string, seed int64, res CampaignResult) int {
	out := struct {
		Fleet      string          `json:"fleet"`
		Schedules  int             `json:"schedules"`
		FirstSeed  int64           `json:"firstSeed"`
		Steps      int             `json:"steps"`
		Evictions  int             `json:"evictions"`
		Restarts   int             `json:"controllerRestarts"`
		Violations []jsonViolation `json:"violations"`
		Failing    string          `json:"failingScenario,omitempty"`
	}{Fleet: fleet, Schedules: res.Schedules, FirstSeed: seed, Steps: res.Steps, Evictions: res.Evictions, Restarts: res.Restarts,
		Violations: []jsonViolation{}, Failing: string(res.FailingScenario)}
	for _, v := range res.Violations {
		out.Violations = append(out.Violations, jsonViolation{Invariant: v.Invariant, Step: v.Step, AtSeconds: seconds(v.At),
			Seed: v.Seed, Cluster: v.Cluster, Workload: v.Workload, Detail: v.Detail})
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(stderr, "fleetsim:", err)
		return 2
	}
	if len(res.Violations) > 0 {
		return 1
	}
	return 0
}
