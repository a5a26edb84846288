package main

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// placementOf returns w's placement as placementKey prints it.
func placementOf(e *Engine, w string) string { return placementKey(e.wByName[w].targets) }

// zoneFleet: three clusters in z1, one each in z2 and z3.
const zoneFleet = `name: zones
duration: 30m
settings: {evictionTimeout: 1m, defaultTolerationSeconds: 30}
clusters:
  - {name: a, zone: z1}
  - {name: b, zone: z1}
  - {name: c, zone: z2}
  - {name: d, zone: z3}
  - {name: e, zone: z1}
`

func TestZoneSpreadIsHonoredInPlacementAndFailover(t *testing.T) {
	e := mustEngine(t, zoneFleet+`workloads:
  - name: w
    kind: Deployment
    replicas: 1
    placement:
      spreadConstraints:
        - {spreadByField: zone, minGroups: 1, maxGroups: 1}
        - {spreadByField: cluster, minGroups: 2, maxGroups: 2}
faults:
  - {at: 2m, type: outage, cluster: a, for: 20m}
`)
	if got := placementOf(e, "w"); got != "[a, b]" {
		t.Fatalf("initial placement %s, want [a, b]: two clusters of one zone", got)
	}
	w := e.wByName["w"]
	evicted := false
	runChecking(t, e, func() {
		if z := groupsOf(e, targetNames(w), zoneOf); z > 1 {
			t.Fatalf("at %s the placement %s spans %d zones, the zone spread allows 1", formatSimTime(e.Elapsed()), placementOf(e, "w"), z)
		}
		evicted = evicted || !w.isTarget("a")
	})
	if !evicted {
		t.Fatal("the outage of a evicted nothing; the test proves nothing")
	}
	if got := placementOf(e, "w"); got != "[b, e]" {
		t.Errorf("placement after the failover %s, want [b, e]: the replacement stays in zone z1", got)
	}
}

func TestZoneSpreadMinimumPicksClustersInSeveralZones(t *testing.T) {
	e := mustEngine(t, zoneFleet+`workloads:
  - name: w
    kind: Deployment
    replicas: 1
    placement:
      clusterAffinity: {zones: [z1, z2]}
      spreadConstraints:
        - {spreadByField: cluster, minGroups: 2, maxGroups: 2}
        - {spreadByField: zone, minGroups: 2, maxGroups: 2}
`)
	if got := placementOf(e, "w"); got != "[a, c]" {
		t.Errorf("placement %s, want [a, c]: two clusters in two zones", got)
	}
	w := e.wByName["w"]
	if w.clusterSpread != (groupBounds{2, 2}) || w.zoneSpread != (groupBounds{2, 2}) {
		t.Errorf("the workload keeps cluster spread %+v and zone spread %+v, want both {2 2}", w.clusterSpread, w.zoneSpread)
	}
}

func TestZoneSpreadTheFleetCannotMeetPlacesNothing(t *testing.T) {
	e := mustEngine(t, zoneFleet+`workloads:
  - name: w
    kind: Deployment
    replicas: 1
    placement:
      clusterAffinity: {zones: [z1]}
      spreadConstraints:
        - {spreadByField: cluster, minGroups: 1, maxGroups: 3}
        - {spreadByField: zone, minGroups: 2}
`)
	if got := placementOf(e, "w"); got != "[]" {
		t.Errorf("placement %s, want none: the affinity leaves one zone, the spread needs two", got)
	}
}

func TestSpreadConstraintsAreValidatedAsKarmadaDoes(t *testing.T) {
	for _, tc := range []struct {
		name, spread, want string
	}{
		{"zone without cluster", "[{spreadByField: zone, minGroups: 1, maxGroups: 1}]",
			"test.yaml:15: workloads[0].placement.spreadConstraints: a zone spread constraint needs a cluster spread constraint beside it"},
		{"two cluster constraints", "[{spreadByField: cluster, maxGroups: 1}, {maxGroups: 2}]",
			"test.yaml:15: workloads[0].placement.spreadConstraints[1].spreadByField: a second cluster spread constraint"},
		{"two zone constraints", "[{spreadByField: cluster, maxGroups: 1}, {spreadByField: zone, maxGroups: 1}, {spreadByField: zone, maxGroups: 2}]",
			"test.yaml:15: workloads[0].placement.spreadConstraints[2].spreadByField: a second zone spread constraint"},
		{"region without cluster", "[{spreadByField: region, minGroups: 2}]",
			"test.yaml:15: workloads[0].placement.spreadConstraints: a region spread constraint needs a cluster spread constraint beside it"},
		{"provider", "[{spreadByField: cluster, maxGroups: 1}, {spreadByField: provider, maxGroups: 1}]",
			`test.yaml:15: workloads[0].placement.spreadConstraints[1].spreadByField: must be cluster, zone or region, got "provider"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseScenario("test.yaml", []byte(zoneFleet+"workloads:\n  - name: w\n    kind: Deployment\n    replicas: 1\n    placement:\n      spreadConstraints: "+tc.spread+"\n"))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("want a *ParseError, got %v", err)
			}
			if got := pe.Errors[0].Error(); !strings.HasPrefix(got, tc.want) {
				t.Errorf("got  %s\nwant %s...", got, tc.want)
			}
		})
	}
}

// weightedScenario has a Divided workload w of replicas replicas with the given
// static weight list, on clusters a (z1), b and c (z2).
func weightedScenario(replicas int, weights, faults string) string {
	return `name: weights
duration: 20m
settings: {evictionTimeout: 1m, defaultTolerationSeconds: 30}
clusters: [{name: a, zone: z1}, {name: b, zone: z2}, {name: c, zone: z2}]
workloads:
  - name: w
    kind: Deployment
    replicas: ` + strconv.Itoa(replicas) + `
    placement:
      replicaScheduling:
        replicaSchedulingType: Divided
        weightPreference:
          staticWeightList: ` + weights + `
faults: ` + faults + `
`
}

func TestStaticWeightsFollowKarmada(t *testing.T) {
	for _, tc := range []struct {
		name     string
		replicas int
		weights  string
		want     string
	}{
		{"by zone", 5, "[{targetCluster: {zones: [z1]}, weight: 1}, {targetCluster: {zones: [z2]}, weight: 2}]", "[a=1, b=2, c=2]"},
		{"a cluster no rule names is left out", 6, "[{targetCluster: {clusterNames: [a]}, weight: 1}, {targetCluster: {clusterNames: [b]}, weight: 1}]", "[a=3, b=3]"},
		{"a cluster two rules name takes the highest", 8, "[{targetCluster: {clusterNames: [b]}, weight: 3}, {targetCluster: {clusterNames: [a, b]}, weight: 1}]", "[a=2, b=6]"},
		{"names and zones both must match", 4, "[{targetCluster: {clusterNames: [a, b], zones: [z2]}, weight: 1}]", "[b=4]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := mustEngine(t, weightedScenario(tc.replicas, tc.weights, "[]"))
			if got := placementOf(e, "w"); got != tc.want {
				t.Errorf("placement %s, want %s", got, tc.want)
			}
		})
	}
}

func TestFailoverKeepsAClusterWithoutWeightOut(t *testing.T) {
	e := mustEngine(t, weightedScenario(6, "[{targetCluster: {clusterNames: [a]}, weight: 1}, {targetCluster: {clusterNames: [b]}, weight: 1}]",
		"[{at: 2m, type: outage, cluster: a}]"))
	if v := e.Run(); len(v) > 0 {
		t.Fatal(v)
	}
	if got := placementOf(e, "w"); got != "[b=6]" {
		t.Errorf("placement after a failed %s, want [b=6]: c has no weight", got)
	}
}

func TestStaticWeightsOfUnknownZonesAreRejected(t *testing.T) {
	_, err := ParseScenario("test.yaml", []byte(weightedScenario(2, "[{targetCluster: {zones: [mars]}, weight: 1}]", "[]")))
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("want a *ParseError, got %v", err)
	}
	want := "test.yaml:13: workloads[0].placement.replicaScheduling.weightPreference.staticWeightList[0].targetCluster.zones[0]: unknown zone \"mars\""
	if got := pe.Errors[0].Error(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// A failover re-placement never leaves the affinity, not even when the
// zone spread leaves no cluster of it to choose from: the workload then
// keeps no copy rather than one outside its affinity.
func TestReplacementStaysInTheAffinityUnderAZoneSpread(t *testing.T) {
	e := mustEngine(t, zoneFleet+`workloads:
  - name: w
    kind: Deployment
    replicas: 1
    placement:
      clusterAffinity: {clusterNames: [c, d]}
      spreadConstraints:
        - {spreadByField: cluster, minGroups: 1, maxGroups: 1}
        - {spreadByField: zone, minGroups: 1, maxGroups: 2}
faults:
  - {at: 2m, type: outage, cluster: c, for: 25m}
  - {at: 2m, type: outage, cluster: d, for: 25m}
`)
	evicted := false
	for e.step < e.steps {
		e.Step()
		w := e.wByName["w"]
		for _, tc := range w.targets {
			if tc.Name != "c" && tc.Name != "d" {
				t.Fatalf("at %s w is placed on %s, outside its affinity [c, d]", formatSimTime(e.Elapsed()), placementOf(e, "w"))
			}
		}
		evicted = evicted || len(w.targets) == 0
	}
	if !evicted {
		t.Fatal("the outages evicted nothing; the test proves nothing")
	}
}

// A Divided workload's spread constraints are ignored, as Karmada's
// scheduler ignores them for a division by static weight or by none: the
// replicas go to every cluster of the affinity, over three zones where the
// zone spread says one, and stay spread after a failover.
func TestDividedWorkloadIgnoresItsSpread(t *testing.T) {
	e := mustEngine(t, zoneFleet+`workloads:
  - name: w
    kind: Deployment
    replicas: 6
    placement:
      clusterAffinity: {clusterNames: [a, b, c, d]}
      replicaScheduling: {replicaSchedulingType: Divided}
      spreadConstraints:
        - {spreadByField: cluster, minGroups: 1, maxGroups: 1}
        - {spreadByField: zone, minGroups: 1, maxGroups: 1}
faults:
  - {at: 2m, type: outage, cluster: a, for: 25m}
`)
	targetNames := func() []string {
		var out []string
		for _, tc := range e.wByName["w"].targets {
			out = append(out, tc.Name)
		}
		slices.Sort(out)
		return out
	}
	e.Step()
	if got := targetNames(); !slices.Equal(got, []string{"a", "b", "c", "d"}) {
		t.Fatalf("first placement %s, want every cluster of the affinity: a, b, c, d", placementOf(e, "w"))
	}
	for e.step < e.steps {
		e.Step()
	}
	if got := targetNames(); !slices.Equal(got, []string{"b", "c", "d"}) {
		t.Fatalf("placement after a's outage %s, want b, c, d", placementOf(e, "w"))
	}
	if v := e.Violations(); len(v) > 0 {
		t.Fatalf("violations: %v", v)
	}
}

// regionFleet: a and b in r1, c in r2, d in r3, and aa, which sorts next
// to a, in no region.
const regionFleet = `name: regions
duration: 30m
settings: {evictionTimeout: 1m, defaultTolerationSeconds: 30}
clusters:
  - {name: a, zone: z1, region: r1}
  - {name: aa, zone: z6}
  - {name: b, zone: z2, region: r1}
  - {name: c, zone: z3, region: r2}
  - {name: d, zone: z4, region: r3}
`

// regionWorkload is a Duplicated workload on two clusters, with the given
// extra spread constraints.
func regionWorkload(spreads string) string {
	return `workloads:
  - name: w
    kind: Deployment
    replicas: 1
    placement:
      spreadConstraints:
        - {spreadByField: cluster, minGroups: 2, maxGroups: 2}` + spreads + `
faults:
  - {at: 2m, type: outage, cluster: c, for: 20m}
`
}

// mustEngine parses the scenario data and starts an engine on it.
func mustEngine(t *testing.T, data string) *Engine {
	t.Helper()
	e, err := NewEngine(mustParse(t, data), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// targetNames lists the clusters w is placed on.
func targetNames(w *workload) []string {
	names := make([]string, 0, len(w.targets))
	for _, tc := range w.targets {
		names = append(names, tc.Name)
	}
	return names
}

// runChecking steps e to its end, calling check after every step, and
// fails when the run broke an invariant.
func runChecking(t *testing.T, e *Engine, check func()) {
	t.Helper()
	for e.step < e.steps {
		e.Step()
		check()
	}
	if v := e.Violations(); len(v) > 0 {
		t.Fatal(v)
	}
}

func TestRegionSpreadIsHonoredInPlacementAndFailover(t *testing.T) {
	for _, tc := range []struct {
		name, spreads, first, after string
	}{
		// Two regions: the first placement opens them, skipping the
		// cluster without one; the failover of c stays in two regions.
		{"two regions", "\n        - {spreadByField: region, minGroups: 2, maxGroups: 2}", "[a, c]", "[a, d]"},
		// Without it, aa is a cluster like any other: it opens a zone and
		// sorts right after a, and the outage of c touches nothing.
		{"no region spread", "", "[a, aa]", "[a, aa]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := mustEngine(t, regionFleet+regionWorkload(tc.spreads))
			if got := placementOf(e, "w"); got != tc.first {
				t.Fatalf("initial placement %s, want %s", got, tc.first)
			}
			w := e.wByName["w"]
			moved := false
			runChecking(t, e, func() {
				if w.regionSpread != (groupBounds{}) && (w.isTarget("aa") || !w.spans(e, targetNames(w))) {
					t.Fatalf("at %s the placement %s leaves the region spread", formatSimTime(e.Elapsed()), placementOf(e, "w"))
				}
				moved = moved || (tc.first != tc.after && !w.isTarget("c"))
			})
			if got := placementOf(e, "w"); got != tc.after {
				t.Errorf("placement after the outage of c %s, want %s", got, tc.after)
			}
			if tc.first != tc.after && !moved {
				t.Error("the outage of c moved nothing")
			}
		})
	}
}

func TestRegionSpreadMaximumKeepsOneRegion(t *testing.T) {
	e := mustEngine(t, regionFleet+`workloads:
  - name: w
    kind: Deployment
    replicas: 1
    placement:
      spreadConstraints:
        - {spreadByField: cluster, minGroups: 1, maxGroups: 2}
        - {spreadByField: region, minGroups: 1, maxGroups: 1}
faults:
  - {at: 2m, type: outage, cluster: a, for: 20m}
`)
	if got := placementOf(e, "w"); got != "[a, b]" {
		t.Fatalf("initial placement %s, want [a, b]: both clusters of r1", got)
	}
	w := e.wByName["w"]
	onlyB := false
	runChecking(t, e, func() {
		for _, tc := range w.targets {
			if r := e.byName[tc.Name].region; r != "r1" {
				t.Fatalf("at %s the placement %s reaches region %q", formatSimTime(e.Elapsed()), placementOf(e, "w"), r)
			}
		}
		onlyB = onlyB || placementOf(e, "w") == "[b]"
	})
	if !onlyB {
		t.Error("the outage of a never left the workload on b alone: r1 has no other cluster")
	}
	if got := placementOf(e, "w"); got != "[a, b]" {
		t.Errorf("placement after a recovered %s, want [a, b] again", got)
	}
}

// groupsWorkload is a Duplicated workload on one cluster whose
// clusterAffinities put a first and c or d (zones z2, z3) second.
const groupsWorkload = `workloads:
  - name: w
    kind: Deployment
    replicas: 1
    placement:
      clusterAffinities:
        - {affinityName: primary, clusterNames: [a]}
        - {affinityName: backup, zones: [z2, z3]}
      spreadConstraints:
        - {spreadByField: cluster, minGroups: 1, maxGroups: 1}
`

func TestAffinityGroupsFailOverToTheNextGroupAndStay(t *testing.T) {
	e := mustEngine(t, zoneFleet+groupsWorkload+`faults:
  - {at: 2m, type: outage, cluster: a, for: 10m}
`)
	if got := placementOf(e, "w"); got != "[a]" {
		t.Fatalf("initial placement %s, want [a]: the first group", got)
	}
	w := e.wByName["w"]
	runChecking(t, e, func() {
		for _, tc := range w.targets {
			if tc.Name == "b" || tc.Name == "e" {
				t.Fatalf("at %s the placement %s left both groups", formatSimTime(e.Elapsed()), placementOf(e, "w"))
			}
		}
	})
	// a came back at 12m; the workload stays in the backup group.
	if got := placementOf(e, "w"); got != "[c]" || w.groups[w.group].name != "backup" {
		t.Errorf("placement %s by group %q, want [c] by \"backup\"", got, w.groups[w.group].name)
	}
	var tl strings.Builder
	if err := e.Timeline().Render(&tl); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(tl.String(), `no room in affinity group "primary": re-placed by "backup"`) {
		t.Error("the timeline does not say the placement moved to the backup group")
	}
}

func TestAffinityGroupsFirstPlacementSkipsAGroupWithoutRoom(t *testing.T) {
	fleet := strings.Replace(zoneFleet, "{name: a, zone: z1}", "{name: a, zone: z1, taints: [{key: maintenance, effect: NoSchedule}]}", 1)
	e := mustEngine(t, fleet+groupsWorkload)
	if got := placementOf(e, "w"); got != "[c]" {
		t.Errorf("placement %s, want [c]: a is tainted, so the backup group places", got)
	}
}

func TestAffinityGroupsAreValidated(t *testing.T) {
	for _, tc := range []struct {
		name, placement, want string
	}{
		{"both affinities", "{clusterAffinity: {clusterNames: [a]}, clusterAffinities: [{affinityName: x, clusterNames: [b]}]}",
			"test.yaml:14: workloads[0].placement.clusterAffinities: clusterAffinity and clusterAffinities exclude each other"},
		{"no name", "{clusterAffinities: [{clusterNames: [b]}]}",
			"test.yaml:14: workloads[0].placement.clusterAffinities[0].affinityName: must not be empty"},
		{"a name twice", "{clusterAffinities: [{affinityName: x, clusterNames: [a]}, {affinityName: x, clusterNames: [b]}]}",
			`test.yaml:14: workloads[0].placement.clusterAffinities[1].affinityName: "x" names an earlier group too`},
		{"unknown cluster", "{clusterAffinities: [{affinityName: x, clusterNames: [a]}, {affinityName: y, clusterNames: [q]}]}",
			`test.yaml:14: workloads[0].placement.clusterAffinities[1].clusterNames[0]: unknown cluster "q"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseScenario("test.yaml", []byte(zoneFleet+"workloads:\n  - name: w\n    kind: Deployment\n    replicas: 1\n    placement: "+tc.placement+"\n"))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("want a *ParseError, got %v", err)
			}
			if got := pe.Errors[0].Error(); !strings.HasPrefix(got, tc.want) {
				t.Errorf("got  %s\nwant %s...", got, tc.want)
			}
		})
	}
}

// overlappingGroups is a Duplicated workload on one cluster whose groups
// share b: primary is a and b, backup is b and c.
const overlappingGroups = `workloads:
  - name: w
    kind: Deployment
    replicas: 1
    placement:
      clusterAffinities:
        - {affinityName: primary, clusterNames: [a, b]}
        - {affinityName: backup, clusterNames: [b, c]}
      spreadConstraints:
        - {spreadByField: cluster, minGroups: 1, maxGroups: 1}
`

// A workload that starts in a later affinity group (the binding's
// status.schedulerObservingAffinityName) stays within it and the groups
// after it, even on a cluster an earlier group also selects.
func TestAffinityGroupInUseAtTheStart(t *testing.T) {
	t.Run("placed on a cluster both groups select", func(t *testing.T) {
		e := mustEngine(t, zoneFleet+overlappingGroups+`    clusters: [{name: b}]
    affinityGroup: backup
faults:
  - {at: 2m, type: outage, cluster: b, for: 10m}
`)
		w := e.wByName["w"]
		if got := w.groups[w.group].name; got != "backup" {
			t.Fatalf("group in use at the start %q, want backup", got)
		}
		runChecking(t, e, func() {
			if w.isTarget("a") {
				t.Fatalf("at %s the placement %s went back to the primary group", formatSimTime(e.Elapsed()), placementOf(e, "w"))
			}
		})
		if got := placementOf(e, "w"); got != "[c]" {
			t.Errorf("placement after the outage of b %s, want [c]: backup's other cluster", got)
		}
	})
	t.Run("not placed yet", func(t *testing.T) {
		e := mustEngine(t, zoneFleet+overlappingGroups+"    affinityGroup: backup\n")
		if got := placementOf(e, "w"); got != "[b]" && got != "[c]" {
			t.Errorf("placement %s, want b or c: the backup group places, though primary has room", got)
		}
	})
	t.Run("without it", func(t *testing.T) {
		// The same start without the field: the first group that holds b
		// is in use, and the failover goes to a.
		e := mustEngine(t, zoneFleet+overlappingGroups+`    clusters: [{name: b}]
faults:
  - {at: 2m, type: outage, cluster: b, for: 10m}
`)
		e.Run()
		if got := placementOf(e, "w"); got != "[a]" {
			t.Errorf("placement after the outage of b %s, want [a]: primary holds b, and a is its other cluster", got)
		}
	})
	t.Run("a name no group has", func(t *testing.T) {
		_, err := ParseScenario("test.yaml", []byte(zoneFleet+overlappingGroups+"    affinityGroup: standby\n"))
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("want a *ParseError, got %v", err)
		}
		if got, want := pe.Errors[0].Error(), `test.yaml:20: workloads[0].affinityGroup: "standby" names no group of placement.clusterAffinities`; got != want {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	})
}

// A workload whose scheduling is suspended loses its cluster: it is
// evicted but not re-placed until scheduling resumes, at the start (the
// binding's spec.suspension.scheduling) or by a fault.
func TestSuspendedSchedulingWaitsForTheResume(t *testing.T) {
	for _, tc := range []struct{ name, workload, faults string }{
		{"suspended at the start", "    schedulingSuspended: true\n", "  - {at: 10m, type: resumeScheduling, workload: w}\n"},
		{"suspended by a fault", "", "  - {at: 1m, type: suspendScheduling, workload: w, for: 9m}\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := mustEngine(t, `name: suspended
duration: 20m
settings: {evictionTimeout: 1m, defaultTolerationSeconds: 30}
clusters: [{name: a, zone: z1}, {name: b, zone: z2}]
workloads:
  - name: w
    kind: Deployment
    replicas: 1
    clusters: [{name: a}]
    placement: {spreadConstraints: [{spreadByField: cluster, minGroups: 1, maxGroups: 1}]}
`+tc.workload+`faults:
  - {at: 2m, type: outage, cluster: a, for: 15m}
`+tc.faults)
			w := e.wByName["w"]
			evicted := false
			runChecking(t, e, func() {
				evicted = evicted || w.hasTask("a")
				if e.Elapsed() < 10*time.Minute && w.isTarget("b") {
					t.Fatalf("at %s placed on b while scheduling is suspended", formatSimTime(e.Elapsed()))
				}
			})
			if !evicted {
				t.Fatal("the outage of a evicted nothing; the test proves nothing")
			}
			if got := placementOf(e, "w"); got != "[b]" {
				t.Errorf("placement after the resume %s, want [b]", got)
			}
			var tl strings.Builder
			if err := e.Timeline().Render(&tl); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(tl.String(), "re-placement waits: scheduling is suspended") {
				t.Error("the timeline does not say the re-placement waits")
			}
		})
	}
}

// A zone maximum and a region minimum together: two clusters in one zone
// and two regions. The spread-first choice opens a region per cluster and
// so a zone per cluster; the fullest-zone fallback picks east, whose
// clusters share a region. Only west and south hold such a pair, and the
// first placement finds one.
func TestFirstPlacementFindsAPairTheGreedyChoiceMisses(t *testing.T) {
	e := mustEngine(t, `name: zone-and-region
duration: 10m
clusters:
  - {name: c0, zone: east, region: r0}
  - {name: c1, zone: west, region: r1}
  - {name: c2, zone: south, region: r1}
  - {name: c3, zone: east, region: r0}
  - {name: c4, zone: west, region: r0}
  - {name: c5, zone: south, region: r0}
workloads:
  - name: w
    kind: Deployment
    replicas: 1
    placement:
      spreadConstraints:
        - {spreadByField: cluster, minGroups: 2, maxGroups: 2}
        - {spreadByField: zone, minGroups: 1, maxGroups: 1}
        - {spreadByField: region, minGroups: 2, maxGroups: 2}
`)
	w := e.wByName["w"]
	names := targetNames(w)
	if len(names) != 2 || groupsOf(e, names, zoneOf) != 1 || groupsOf(e, names, regionOf) != 2 {
		t.Fatalf("placement %s, want two clusters of one zone in two regions", placementOf(e, "w"))
	}
	if got := placementOf(e, "w"); got != "[c1, c4]" {
		t.Errorf("placement %s, want [c1, c4]: the first such pair in preference order", got)
	}
}
