package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// figureScenarios are every embedded scenario and the export, each as a
// scenario to run: the embedded one, the replay scenarios, and the
// testdata export under Karmada's rules (failover on) and fleetover's.
func figureScenarios(t *testing.T) map[string]*Scenario {
	t.Helper()
	out := map[string]*Scenario{}
	sc, err := loadScenario("")
	if err != nil {
		t.Fatal(err)
	}
	out["embedded"] = sc
	files, _ := filepath.Glob("testdata/replay/*.yaml")
	for _, f := range files {
		if out[f], err = loadScenario(f); err != nil {
			t.Fatal(err)
		}
	}
	k, err := parseKarmadaFlags(karmadaFailoverOn)
	if err != nil {
		t.Fatal(err)
	}
	for _, rules := range []string{RulesKarmada, RulesFleetover} {
		run, err := loadFleetRun(exportDir, "", fleetRules{Rules: rules, Karmada: k})
		if err != nil {
			t.Fatal(err)
		}
		if out["export/"+rules], err = run.scenario(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// TestSummaryMatchesTimeline reads every figure of the summary against the
// timeline, on its own reading of the rows, for every embedded scenario
// and the export: a figure the timeline contradicts fails.
func TestSummaryMatchesTimeline(t *testing.T) {
	if len(figureScenarios(t)) < 12 {
		t.Fatal("fewer scenarios than the replay directory and the export hold")
	}
	for name, sc := range figureScenarios(t) {
		t.Run(name, func(t *testing.T) {
			e := runFigureScenario(t, sc)
			sum := e.Summarize()
			if len(sum.Outages) == 0 {
				t.Fatal("no fault measured")
			}
			for _, o := range sum.Outages {
				checkOutage(t, e, o)
			}
		})
	}
}

// runFigureScenario runs sc to its end, violations and all.
func runFigureScenario(t *testing.T, sc *Scenario) *Engine {
	t.Helper()
	e, err := NewEngine(sc, Options{KeepGoing: true})
	if err != nil {
		t.Fatal(err)
	}
	e.Run()
	return e
}

func checkOutage(t *testing.T, e *Engine, o OutageReport) {
	t.Helper()
	evs := e.Timeline().Events
	name := o.Label + " on " + o.Cluster
	row := -1
	for i, ev := range evs {
		if ev.Kind == EvFault && ev.At == o.At && ev.Detail == o.Label {
			row = i
			break
		}
	}
	if row < 0 {
		t.Errorf("%s: the summary says at %s, and the timeline has no such fault row", name, formatSimTime(o.At))
		return
	}
	end := e.Elapsed() + time.Nanosecond
	next := end
	for _, ev := range evs[row:] {
		if ev.Kind == EvFault && ev.At > o.At {
			next = ev.At
			break
		}
	}
	first := func(pred func(Event) bool) time.Duration {
		for _, ev := range evs[row:] {
			if pred(ev) {
				return ev.At - o.At
			}
		}
		return notYet
	}
	check := func(figure string, got, want time.Duration) {
		if got != want {
			t.Errorf("%s: %s is %s in the summary, %s in the timeline", name, figure, fmtRel(got), fmtRel(want))
		}
	}
	if o.Workload == "" {
		check("time to Ready not True", o.NotReady, first(func(ev Event) bool {
			return ev.Kind == EvReady && ev.Cluster == o.Cluster && strings.HasPrefix(ev.Detail, "Ready True -> ")
		}))
		// A failure taint on the cluster when the fault hit counts as 0.
		carries := map[string]bool{}
		for _, c := range e.sc.Clusters {
			if c.Name == o.Cluster {
				for _, tn := range c.Taints {
					carries[tn.Key+":"+tn.Effect] = true
				}
			}
		}
		for _, ev := range evs[:row] {
			if ev.Cluster == o.Cluster && ev.Kind == EvTaint {
				carries[strings.TrimPrefix(ev.Detail, "+taint ")] = true
			}
			if ev.Cluster == o.Cluster && ev.Kind == EvUntaint {
				delete(carries, strings.TrimPrefix(ev.Detail, "-taint "))
			}
		}
		for _, effect := range []string{"NoSchedule", "NoExecute"} {
			want := first(func(ev Event) bool {
				return ev.Kind == EvTaint && ev.Cluster == o.Cluster && strings.HasSuffix(ev.Detail, ":"+effect)
			})
			if carries["cluster.karmada.io/not-ready:"+effect] || carries["cluster.karmada.io/unreachable:"+effect] {
				want = 0
			}
			got := o.NoSchedule
			if effect == "NoExecute" {
				got = o.NoExecute
			}
			check("time to "+effect+" taint", got, want)
		}
	}
	check("time to first eviction", o.FirstEviction, first(func(ev Event) bool {
		return ev.Kind == EvEvict && ev.Cluster == o.Cluster && strings.HasPrefix(ev.Detail, detailEvicted) && (o.Workload == "" || ev.Workload == o.Workload)
	}))
	// Healthy again: each affected workload's health rows, read here.
	healthyAt := func(w string, at time.Duration, inclusive bool) bool {
		h := true
		for _, ev := range evs {
			if ev.At > at || (!inclusive && ev.At == at) {
				break
			}
			if ev.Kind == EvHealth && ev.Workload == w {
				h = ev.Detail == detailHealthy
			}
		}
		return h
	}
	hurt := false
	for _, w := range o.Affected {
		wasHealthy := healthyAt(w, o.At, false)
		for _, ev := range evs[row:] {
			if ev.At >= next {
				break
			}
			if ev.Kind == EvHealth && ev.Workload == w && ev.Detail != detailHealthy {
				hurt = true
			}
		}
		if !wasHealthy {
			hurt = true
		}
	}
	switch {
	case len(o.Affected) == 0:
	case !hurt:
		check("time to healthy again (never hurt)", o.HealthyAgain, 0)
	case o.HealthyAgain == notYet:
		allHealthy := true
		for _, w := range o.Affected {
			allHealthy = allHealthy && healthyAt(w, e.Elapsed(), true)
		}
		if allHealthy {
			t.Errorf("%s: never healthy again in the summary, yet every affected workload ends healthy", name)
		}
	default:
		at := o.At + o.HealthyAgain
		for _, w := range o.Affected {
			if !healthyAt(w, at, true) {
				t.Errorf("%s: healthy again at %s in the summary, but %s is not healthy then", name, formatSimTime(at), w)
			}
		}
		if o.HealthyAgain == 0 {
			t.Errorf("%s: hurt, yet healthy again at +0s", name)
		}
	}
}

// flap.yaml's flap fault has its own summary block.
func TestFlapHasASummaryBlock(t *testing.T) {
	sc, err := loadScenario("testdata/replay/flap.yaml")
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEngine(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	e.Run()
	var b strings.Builder
	if err := e.Summarize().Render(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "  flap of ") {
		t.Errorf("no flap block:\n%s", b.String())
	}
}

// The export's gcp-euw1-c carries its not-ready NoSchedule taint already,
// and its fault row is the first step's: the summary says both.
func TestSummaryOfTheExportStartingFaults(t *testing.T) {
	out := runOut(t, 0, "-fleet", exportDir, "-karmada-flags", karmadaFailoverOn, "-quiet")
	for _, want := range []string{
		"  notReady of gcp-euw1-c at +00:00:05\n    time to Ready not True            +0s\n    time to NoSchedule taint          +0s (carried already)",
		"  workloadUnhealthy: shop/web on gcp-euw1-b at +00:00:05",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the summary lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "time to shop/web healthy again    +0s") {
		t.Errorf("shop/web is unhealthy from the start, yet healthy again at +0s:\n%s", out)
	}
}

// The SVG's hover over a taint names each taint's whole span: the
// not-ready NoSchedule taint of the embedded outage stays until +00:40:30.
func TestSVGTaintHover(t *testing.T) {
	dir := t.TempDir()
	runOut(t, 0, "-quiet", "-report", dir)
	svg, err := os.ReadFile(filepath.Join(dir, "timeline.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(svg), "taint cluster.karmada.io/not-ready:NoSchedule +00:10:30..+00:40:30") {
		t.Errorf("no hover with the NoSchedule taint's whole span")
	}
	if strings.Contains(string(svg), "+00:10:30..+00:15:30") {
		t.Errorf("a hover still cuts the NoSchedule span at the NoExecute taint")
	}
}

// A placement loses a cluster only by an eviction of the workload from it:
// topping a workload up adds clusters and takes none away, so a cluster
// that goes not ready, or gets a taint, keeps what it runs until the taint
// manager or application failover evicts it (with a task, at the pace),
// as Karmada's scheduler keeps a cluster the binding is on. Read from the
// timeline of every embedded scenario and the export.
func TestPlacementLosesClustersOnlyByEviction(t *testing.T) {
	for name, sc := range figureScenarios(t) {
		t.Run(name, func(t *testing.T) {
			e := runFigureScenario(t, sc)
			placed := map[string][]string{}
			// evicted[workload][cluster]: evicted since last placed there.
			evicted := map[string]map[string]bool{}
			checked := 0
			for _, ev := range e.Timeline().Events {
				switch ev.Kind {
				case EvEvict:
					if evicted[ev.Workload] == nil {
						evicted[ev.Workload] = map[string]bool{}
					}
					evicted[ev.Workload][ev.Cluster] = true
				case EvPlace:
					next, ok := placementClusters(ev.Detail)
					if !ok {
						continue
					}
					for _, c := range placed[ev.Workload] {
						if slices.Contains(next, c) {
							continue
						}
						checked++
						if !evicted[ev.Workload][c] {
							t.Errorf("%s %s: %s left %s without an eviction (%s)", formatSimTime(ev.At), ev.Workload, c, ev.Detail, name)
						}
					}
					for _, c := range next {
						if !slices.Contains(placed[ev.Workload], c) {
							delete(evicted[ev.Workload], c)
						}
					}
					placed[ev.Workload] = next
				}
			}
			t.Logf("%d clusters left a placement", checked)
		})
	}
}

// placementClusters reads the clusters of a place row's "placement [a,
// b=3]".
func placementClusters(detail string) ([]string, bool) {
	rest, ok := strings.CutPrefix(detail, "placement [")
	if !ok {
		return nil, false
	}
	rest = strings.TrimSuffix(rest, "]")
	var out []string
	for _, f := range strings.Split(rest, ", ") {
		if name, _, _ := strings.Cut(f, "="); name != "" {
			out = append(out, name)
		}
	}
	return out, true
}
