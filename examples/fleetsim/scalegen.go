package main

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/preservation"
)

// The generator of the scale fleet. A real fleet is not a million
// workloads thrown at random clusters: clusters sit in a few regions of
// a few zones each, a workload's policy keeps it in one region (its home)
// and spreads its copies over that region's zones, some pin a single
// cluster, a few run in two regions, and the first regions are the busy
// ones. The generator draws that, from the seed alone, so that a zone or
// cluster outage takes the share of the fleet a real one would.

// Default topology of the scale fleet: four regions of three zones, as a
// fleet in a handful of cloud regions with their availability zones.
const (
	defaultScaleRegions        = 4
	defaultScaleZonesPerRegion = 3
)

// Placement kinds the generator draws, in percent of the stateless
// workloads (stateful ones always run one copy in their home region).
const (
	pctZoneDuplicated = 40 // one copy in each of 2 or 3 zones of the home region (a zone spread)
	pctDivided        = 30 // replicas divided over 2 to 4 clusters of the home region, zones taken in turn
	pctPinned         = 20 // one cluster of the home region (affinity to a cluster name)
	// the rest, 10 %: one copy in each of two regions (a region spread)
)

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
	zones    []string // zone of each cluster
	regions  []string // region of each cluster
	zoneOf   []uint16 // zone index of each cluster
	regionOf []uint16 // region index of each cluster
	failed   []bool
	policies []scalePolicy
	policyOf []uint8
	targets  [][]eviction.TargetCluster
	tasks    [][]eviction.GracefulEvictionTask
	status   [][]byte // raw .status of stateful bindings on their cluster, nil otherwise
	// members lists the bindings placed on each cluster (CSR layout).
	memberOff []int32
	members   []int32
	// inRegion lists each region's clusters by index, so zones alternate
	// in it; regionPos is a cluster's position in its region's list. A
	// re-placement looks for candidates there: a policy keeps a workload
	// in its region.
	inRegion  [][]int32
	regionPos []int32
	zoneNames []string
	nRegions  int
}

// scaleTopology names the clusters and lays them out: cluster i is in zone
// i mod zones, zone z in region z / zonesPerRegion, so every zone has as
// many clusters, one more at most.
func (f *scaleFleet) scaleTopology(cfg ScaleConfig) (zonesPerRegion int, inZone [][]int32) {
	regions, zonesPerRegion := cfg.Regions, cfg.ZonesPerRegion
	if regions <= 0 {
		regions = defaultScaleRegions
	}
	if zonesPerRegion <= 0 {
		zonesPerRegion = defaultScaleZonesPerRegion
	}
	// A small fleet has fewer zones: every zone has a cluster.
	nZones := min(regions*zonesPerRegion, cfg.Clusters)
	f.nRegions = (nZones + zonesPerRegion - 1) / zonesPerRegion
	f.zoneNames = make([]string, nZones)
	for z := range f.zoneNames {
		f.zoneNames[z] = fmt.Sprintf("region-%d%c", z/zonesPerRegion, 'a'+rune(z%zonesPerRegion%26))
	}
	inZone = make([][]int32, nZones)
	f.inRegion = make([][]int32, f.nRegions)
	f.regionPos = make([]int32, cfg.Clusters)
	for i := range f.names {
		z := i % nZones
		r := z / zonesPerRegion
		f.names[i] = fmt.Sprintf("member-%04d", i)
		f.zoneOf[i], f.regionOf[i] = uint16(z), uint16(r)
		f.zones[i] = f.zoneNames[z]
		f.regions[i] = fmt.Sprintf("region-%d", r)
		inZone[z] = append(inZone[z], int32(i))
		f.regionPos[i] = int32(len(f.inRegion[r]))
		f.inRegion[r] = append(f.inRegion[r], int32(i))
	}
	return zonesPerRegion, inZone
}

// failClusters marks the clusters that fail: every cluster of cfg.FailZone
// when it is set (a zone outage), else cfg.FailPercent of the clusters
// drawn by the seed, so the failures fall in every zone.
func (f *scaleFleet) failClusters(cfg ScaleConfig, next func() uint64) error {
	if cfg.FailZone != "" {
		z := slices.Index(f.zoneNames, cfg.FailZone)
		if z < 0 {
			return fmt.Errorf("-fail-zone: no zone %q in the fleet; its zones are %s .. %s", cfg.FailZone, f.zoneNames[0], f.zoneNames[len(f.zoneNames)-1])
		}
		for i := range f.failed {
			f.failed[i] = int(f.zoneOf[i]) == z
		}
		return nil
	}
	n := max(1, cfg.Clusters*cfg.FailPercent/100)
	perm := make([]int32, cfg.Clusters)
	for i := range perm {
		perm[i] = int32(i)
	}
	for i := 0; i < n; i++ { // the first n of a Fisher-Yates shuffle
		j := i + int(next()%uint64(cfg.Clusters-i))
		perm[i], perm[j] = perm[j], perm[i]
		f.failed[perm[i]] = true
	}
	return nil
}

// scalePolicies returns the four policies the fleet's workloads share.
func scalePolicies() ([]scalePolicy, error) {
	stateful := []preservation.StatePreservationRule{{AliasLabelName: "failover.fleetover.io/jobid", JSONPath: "{ .jobStatus.jobId }"}}
	rules, err := preservation.Compile(stateful)
	if err != nil {
		return nil, err
	}
	sixty, never := int64(60), (*int64)(nil)
	tol := func(secs *int64) []corev1.Toleration {
		return failover.AddDefaultClusterTolerations(nil, failover.DefaultTolerationsConfig{NotReadyTolerationSeconds: secs, UnreachableTolerationSeconds: secs})
	}
	return []scalePolicy{
		{tolerations: tol(nil)}, // defaults: 300 s
		{tolerations: tol(&sixty), cluster: &failover.ClusterFailoverBehavior{PurgeMode: eviction.PurgeGracefully}},
		{tolerations: failover.AddDefaultClusterTolerations([]corev1.Toleration{{Key: failover.TaintKeyClusterNotReady, Operator: corev1.TolerationOpExists,
			Effect: corev1.TaintEffectNoExecute, TolerationSeconds: never}}, failover.DefaultTolerationsConfig{}),
			cluster: &failover.ClusterFailoverBehavior{PurgeMode: eviction.PurgeNever}},
		{tolerations: tol(&sixty), cluster: &failover.ClusterFailoverBehavior{PurgeMode: eviction.PurgeDirectly,
			StatePreservation: &preservation.StatePreservation{Rules: stateful}}, rules: rules},
	}, nil
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
		regions:  make([]string, cfg.Clusters),
		zoneOf:   make([]uint16, cfg.Clusters),
		regionOf: make([]uint16, cfg.Clusters),
		failed:   make([]bool, cfg.Clusters),
		policyOf: make([]uint8, cfg.Workloads),
		targets:  make([][]eviction.TargetCluster, cfg.Workloads),
		tasks:    make([][]eviction.GracefulEvictionTask, cfg.Workloads),
		status:   make([][]byte, cfg.Workloads),
	}
	zonesPerRegion, inZone := f.scaleTopology(cfg)
	var err error
	if f.policies, err = scalePolicies(); err != nil {
		return nil, err
	}
	var x uint64 = uint64(cfg.Seed)*0x9e3779b97f4a7c15 + 1
	next := func() uint64 { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x }
	if err := f.failClusters(cfg, next); err != nil {
		return nil, err
	}

	// Region r is home to a share nRegions-r of nRegions+..+1: the first
	// region is the busiest, the last still holds some.
	weightSum := uint64(f.nRegions * (f.nRegions + 1) / 2)
	home := func() int {
		w := next() % weightSum
		for r := 0; ; r++ {
			if w < uint64(f.nRegions-r) {
				return r
			}
			w -= uint64(f.nRegions - r)
		}
	}
	nZones := len(inZone)
	// zonesOf returns region r's zones as indices [lo, hi).
	zonesOf := func(r int) (int, int) { return r * zonesPerRegion, min((r+1)*zonesPerRegion, nZones) }
	pickIn := func(z int) int32 { return inZone[z][next()%uint64(len(inZone[z]))] }

	counts := make([]int32, cfg.Clusters)
	var picked []int32
	for b := 0; b < cfg.Workloads; b++ {
		p := uint8(b % 3)
		if cfg.StatefulEvery > 0 && b%cfg.StatefulEvery == 0 {
			p = 3
		}
		f.policyOf[b] = p
		r := home()
		lo, hi := zonesOf(r)
		zones := hi - lo
		first := lo + int(next()%uint64(zones))
		picked = picked[:0]
		kind := int(next() % 100)
		switch {
		case p == 3 || kind >= pctZoneDuplicated+pctDivided && kind < pctZoneDuplicated+pctDivided+pctPinned:
			picked = append(picked, pickIn(first))
		case kind < pctZoneDuplicated:
			n := min(zones, 2+int(next()%2))
			for i := 0; i < n; i++ {
				picked = append(picked, pickIn(lo+(first-lo+i)%zones))
			}
		case kind < pctZoneDuplicated+pctDivided:
			n := 2 + int(next()%3)
			for i := 0; i < n; i++ {
				// A zone of one cluster may come up twice: a
				// duplicate is dropped, the workload has fewer copies.
				if c := pickIn(lo + (first-lo+i)%zones); !slices.Contains(picked, c) {
					picked = append(picked, c)
				}
			}
		default:
			picked = append(picked, pickIn(first))
			if f.nRegions > 1 {
				r2 := (r + 1 + int(next()%uint64(f.nRegions-1))) % f.nRegions
				lo2, hi2 := zonesOf(r2)
				picked = append(picked, pickIn(lo2+int(next()%uint64(hi2-lo2))))
			}
		}
		ts := make([]eviction.TargetCluster, len(picked))
		for i, c := range picked {
			ts[i] = eviction.TargetCluster{Name: f.names[c]}
			counts[c]++
		}
		f.targets[b] = ts
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
