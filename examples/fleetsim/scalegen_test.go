package main

import (
	"slices"
	"testing"
)

// largeFleet is the fleet of the issue: 10,000 workloads, on the default
// -scale cluster count and seed.
var largeFleet = ScaleConfig{Clusters: 1000, Workloads: 10_000, FailPercent: 10, StatefulEvery: 10, Seed: 1}

// TestScaleFleetSpreadsLikeARealFleet: the generated fleet's workloads lie
// on many clusters in every zone, a workload's copies in different zones,
// and the failed clusters fall in every zone, not in one.
func TestScaleFleetSpreadsLikeARealFleet(t *testing.T) {
	f, err := buildScaleFleet(largeFleet)
	if err != nil {
		t.Fatal(err)
	}
	perCluster := make([]int, len(f.names))
	perZone := map[string]int{}
	index := map[string]int{}
	for i, n := range f.names {
		index[n] = i
	}
	sameZone := 0
	for b, ts := range f.targets {
		if len(ts) == 0 {
			t.Fatalf("workload %d has no cluster", b)
		}
		zones := map[string]bool{}
		for _, tc := range ts {
			c := index[tc.Name]
			perCluster[c]++
			perZone[f.zones[c]]++
			zones[f.zones[c]] = true
		}
		if len(ts) > 1 && len(zones) < 2 {
			sameZone++
		}
	}
	if sameZone > 0 {
		t.Errorf("%d workloads have all their copies in one zone: a zone outage takes every copy", sameZone)
	}
	slices.Sort(perCluster)
	if top := perCluster[len(perCluster)-1] + perCluster[len(perCluster)-2]; top*20 > largeFleet.Workloads {
		t.Errorf("the two busiest clusters hold %d copies of %d workloads, want under 5 %%", top, largeFleet.Workloads)
	}
	if perCluster[0] == 0 {
		t.Error("a cluster holds no workload")
	}
	failedZones := map[string]bool{}
	allZones := map[string]bool{}
	for i, z := range f.zones {
		allZones[z] = true
		if f.failed[i] {
			failedZones[z] = true
		}
	}
	if len(allZones) < 6 {
		t.Errorf("%d zones, want several", len(allZones))
	}
	for z := range allZones {
		if perZone[z] == 0 {
			t.Errorf("zone %s holds no workload", z)
		}
	}
	if len(failedZones) < len(allZones)/2 {
		t.Errorf("the failed clusters lie in %d of %d zones, want them spread over most", len(failedZones), len(allZones))
	}
}

// TestScaleFleetKeepsWorkloadsInTheirRegion: the clusters lie in regions of
// zones; a workload's copies lie in one region, two for a region spread
// (about a tenth of the workloads); the first region is the busiest and
// every region holds some.
func TestScaleFleetKeepsWorkloadsInTheirRegion(t *testing.T) {
	f, err := buildScaleFleet(largeFleet)
	if err != nil {
		t.Fatal(err)
	}
	if f.nRegions != defaultScaleRegions || len(f.zoneNames) != defaultScaleRegions*defaultScaleZonesPerRegion {
		t.Fatalf("%d regions, %d zones", f.nRegions, len(f.zoneNames))
	}
	index := map[string]int{}
	for i, n := range f.names {
		index[n] = i
	}
	perRegion := make([]int, f.nRegions)
	twoRegions, multi := 0, 0
	for b, ts := range f.targets {
		regions := map[uint16]bool{}
		for _, tc := range ts {
			regions[f.regionOf[index[tc.Name]]] = true
		}
		for r := range regions {
			perRegion[r]++
		}
		switch len(regions) {
		case 1:
		case 2:
			twoRegions++
		default:
			t.Fatalf("workload %d runs in %d regions", b, len(regions))
		}
		if len(ts) > 1 {
			multi++
		}
	}
	if share := twoRegions * 100 / largeFleet.Workloads; share < 5 || share > 15 {
		t.Errorf("%d %% of the workloads span two regions, want about 10", share)
	}
	if share := multi * 100 / largeFleet.Workloads; share < 50 {
		t.Errorf("%d %% of the workloads have more than one copy, want most", share)
	}
	for r := 1; r < f.nRegions; r++ {
		if perRegion[r] == 0 || perRegion[r] >= perRegion[r-1] {
			t.Errorf("workloads per region %v: want every region some, the first ones busier", perRegion)
			break
		}
	}
}

// TestScaleFleetIsTheSeeds: the fleet is a function of the seed.
func TestScaleFleetIsTheSeeds(t *testing.T) {
	cfg := largeFleet
	cfg.Workloads = 2000
	a, _ := buildScaleFleet(cfg)
	b, _ := buildScaleFleet(cfg)
	if !slices.EqualFunc(a.targets, b.targets, slices.Equal) || !slices.Equal(a.failed, b.failed) {
		t.Error("two fleets of one seed differ")
	}
	cfg.Seed++
	c, _ := buildScaleFleet(cfg)
	if slices.EqualFunc(a.targets, c.targets, slices.Equal) {
		t.Error("two seeds drew one fleet")
	}
}

// TestScaleZoneOutageEvictsTheZonesShare: a zone that fails whole takes
// its share of the fleet's copies with it, and the wave moves the
// workloads that do not tolerate the failure to the region's other zones.
func TestScaleZoneOutageEvictsTheZonesShare(t *testing.T) {
	for _, tc := range []struct {
		zone   string
		region int
	}{{"region-0a", 0}, {"region-3c", 3}} {
		zone := tc.zone
		t.Run(zone, func(t *testing.T) {
			cfg := largeFleet
			cfg.Clusters, cfg.FailZone = 240, zone
			res, err := RunScaleWave(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if res.Failed != cfg.Clusters/res.Zones || res.FailedZones != 1 {
				t.Errorf("%d clusters in %d zones failed, want the zone's %d", res.Failed, res.FailedZones, cfg.Clusters/res.Zones)
			}
			// The zone's share: a third of its region's, which is 4, 3,
			// 2 or 1 tenths of the workloads.
			want := float64(res.Regions-tc.region) / float64(res.Regions*(res.Regions+1)/2) / defaultScaleZonesPerRegion
			if got := float64(res.OnFailed) / float64(res.Placements); got < want*0.7 || got > want*1.4 {
				t.Errorf("%d of %d copies on the failed zone (%.3f), want about its share %.3f", res.OnFailed, res.Placements, got, want)
			}
			// One policy in three tolerates the not-ready taint forever.
			if res.Evicted*2 < res.OnFailed || res.Evicted >= res.OnFailed {
				t.Errorf("evicted %d of the %d copies on the failed zone, want about two in three", res.Evicted, res.OnFailed)
			}
			if res.Replaced != res.Evicted || res.TasksRemoved != res.Evicted {
				t.Errorf("evicted %d, re-placed %d, tasks removed %d: the region's other zones take them all", res.Evicted, res.Replaced, res.TasksRemoved)
			}
		})
	}
	if _, err := RunScaleWave(ScaleConfig{Clusters: 20, Workloads: 10, FailZone: "nowhere", Seed: 1}); err == nil {
		t.Error("a zone the fleet lacks failed")
	}
}
