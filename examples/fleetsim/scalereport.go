package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"time"
)

func runScale(cfg config, stdout, stderr io.Writer) int {
	prev := runtime.GOMAXPROCS(1) // the target is one core
	defer runtime.GOMAXPROCS(prev)
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	scfg := ScaleConfig{Clusters: cfg.clusters, Workloads: cfg.workloads, FailPercent: cfg.failPct, FailZone: cfg.failZone,
		StatefulEvery: 10, Seed: max(1, cfg.seed)}
	fmt.Fprintf(stdout, "scale: building %d clusters and %d workloads (seed %d)...\n", scfg.Clusters, scfg.Workloads, scfg.Seed)
	var res ScaleResult
	var err error
	run := measure(func() { res, err = RunScaleWave(scfg) })
	if err != nil {
		fmt.Fprintln(stderr, "fleetsim:", err)
		return 2
	}
	printScale(stdout, res, run)
	return 0
}

// printScale reports the wave: every count says what it counts, and every
// time is CPU and wall as in the line of the target, since on a shared
// machine the two differ. run is the whole run of the command (building
// the fleet, the wave, the rest).
func printScale(w io.Writer, r ScaleResult, run cpuWall) {
	fmt.Fprintf(w, "scale wave: %d clusters in %d zones of %d regions, %d workloads, GOMAXPROCS=%d\n",
		r.Clusters, r.Zones, r.Regions, r.Workloads, r.GOMAXPROCS)
	if r.FailZone != "" {
		fmt.Fprintf(w, "  failed: %d clusters, every one of zone %s\n", r.Failed, r.FailZone)
	} else {
		fmt.Fprintf(w, "  failed: %d clusters, drawn over %d of the %d zones\n", r.Failed, r.FailedZones, r.Zones)
	}
	fmt.Fprintf(w, "  copies: %d (workload x cluster placements), %d of them on failed clusters\n", r.Placements, r.OnFailed)
	fmt.Fprintln(w, "  decisions:")
	for _, c := range []struct {
		label string
		n     int
		what  string
	}{
		{"planned", r.Planned, "planner decisions: two passes over the copies on failed clusters"},
		{"evicted", r.Evicted, "copies evicted; the others tolerate the taint forever or the pacer refused them"},
		{"state extracted", r.Extracted, "evictions of a stateful job that carry its job id"},
		{"re-placed", r.Replaced, "evicted copies given another cluster of their region"},
		{"assessments", r.Assessed, "judgments of a workload's eviction tasks, over two rounds"},
		{"tasks removed", r.TasksRemoved, "eviction tasks done: the replacement is healthy, the old copy gone"},
	} {
		fmt.Fprintf(w, "    %-15s %9d  %s\n", c.label, c.n, c.what)
	}
	fmt.Fprintln(w, "  time per step:")
	for _, s := range []struct {
		label string
		t     cpuWall
	}{
		{"health", r.Health}, {"taints", r.Taints}, {"plan", r.Plan}, {"evict+extract+re-place", r.Evict}, {"assess", r.Assess},
	} {
		fmt.Fprintf(w, "    %-22s %s\n", s.label, s.t)
	}
	fmt.Fprintf(w, "  wave decision time: %s (target <= 2s on one core)\n", r.Wave)
	fmt.Fprintf(w, "  fleet built in: %s (outside the wave)\n", r.Build)
	fmt.Fprintf(w, "  whole run: %s (process user+sys and wall from start to end of the run)\n", run)
	fmt.Fprintf(w, "  memory: Go runtime Sys %.0f MiB, heap %.0f MiB (target <= 2 GiB)\n", float64(r.Sys)/(1<<20), float64(r.PeakHeap)/(1<<20))
}

// String prints t as the target line does: "493ms CPU, 848ms wall".
func (t cpuWall) String() string {
	cpu := roundTime(t.CPU) + " CPU"
	if _, ok := processCPUTime(); !ok {
		cpu = "unknown CPU"
	}
	return cpu + ", " + roundTime(t.Wall) + " wall"
}

// roundTime keeps three significant digits or so: milliseconds, and
// microseconds below one.
func roundTime(d time.Duration) string {
	if d < time.Millisecond {
		return d.Round(time.Microsecond).String()
	}
	return d.Round(time.Millisecond).String()
}
