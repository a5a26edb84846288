package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/scheduling"
)

func mustParse(t *testing.T, data string) *Scenario {
	t.Helper()
	sc, err := ParseScenario("test.yaml", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

// directlyJobFailover is the failover block of a single-writer Flink job:
// it leaves a failed cluster Directly and carries its job id.
const directlyJobFailover = `    failover:
      cluster:
        purgeMode: Directly
        statePreservation: {rules: [{aliasLabelName: failover.fleetover.io/jobid, jsonPath: "{ .jobStatus.jobId }"}]}
`

func runEmbedded(t *testing.T) *Engine {
	t.Helper()
	sc, err := ParseScenario("scenario.yaml", embeddedScenario)
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEngine(sc, Options{KeepGoing: true})
	if err != nil {
		t.Fatal(err)
	}
	if v := e.Run(); len(v) > 0 {
		t.Fatalf("embedded scenario violates invariants: %v", v)
	}
	return e
}

func TestEmbeddedScenarioOutcomes(t *testing.T) {
	e := runEmbedded(t)
	sum := e.Summarize()

	if len(sum.Outages) != 2 {
		t.Fatalf("want the outage of east-1 and the failure of checkout, got %+v", sum.Outages)
	}
	if a := sum.Outages[1]; a.Workload != "checkout" || a.Cluster != "south-1" || a.FirstEviction != 2*time.Minute+5*time.Second {
		// Unhealthy from the first status after the fault (+5 s), then the
		// policy's 120 s toleration.
		t.Errorf("application failover: %+v", a)
	}
	o := sum.Outages[0]
	// Push cluster, failure threshold 30 s: Ready=False 30 s after the fault;
	// NoExecute 5 min later; the default toleration (60 s in the scenario)
	// then runs out.
	if o.Cluster != "east-1" || o.NotReady != 30*time.Second || o.NoSchedule != 30*time.Second {
		t.Errorf("detection: %+v", o)
	}
	if o.NoExecute != 5*time.Minute+30*time.Second || o.FirstEviction != 6*time.Minute+30*time.Second {
		t.Errorf("NoExecute at %s, first eviction at %s", o.NoExecute, o.FirstEviction)
	}
	if strings.Join(o.Affected, ",") != "api,flink,web" || strings.Join(o.Evicted, ",") != "api,flink,web" {
		t.Errorf("affected %v, evicted %v", o.Affected, o.Evicted)
	}
	// flink (Directly) waits for its unreachable old copy until the escape
	// (10 min after its task), then starts and becomes healthy.
	if o.HealthyAgain < o.FirstEviction+eviction.DefaultDirectlyEscapeTimeout || o.HealthyAgain > o.FirstEviction+eviction.DefaultDirectlyEscapeTimeout+time.Minute {
		t.Errorf("healthy again at %s", o.HealthyAgain)
	}

	if len(sum.States) != 1 {
		t.Fatalf("state reports %+v", sum.States)
	}
	st := sum.States[0]
	if st.Workload != "flink" || st.Original != "e6fdb5c0997c11b0c62d796b3df25e86" || st.Injected != st.Original || !st.Resumed || st.Cluster == "east-1" {
		t.Errorf("flink state not carried: %+v", st)
	}
	if len(sum.Suspended) != 1 || sum.Suspended[0] != "web -> west-2" {
		t.Errorf("suspended %v", sum.Suspended)
	}
	if e.dispatchedTo("web", "west-2") {
		t.Error("web was dispatched to the suspended cluster west-2")
	}
	if sum.Activity.Restarts != 1 {
		t.Errorf("restarts %d", sum.Activity.Restarts)
	}

	// Divided 1:2 moves all 6 replicas to west-1 (the failover overview's example).
	api := e.wByName["api"]
	if placementKey(api.targets) != "[west-1=6]" {
		t.Errorf("api placement %s", placementKey(api.targets))
	}
	// checkout failed over on its own health and stays off south-1 for its
	// 30 min block window.
	checkout := e.wByName["checkout"]
	if checkout.isTarget("south-1") || len(checkout.targets) != 1 {
		t.Errorf("checkout targets %v", checkout.targets)
	}
	if _, ok := e.tl.first(0, func(ev Event) bool {
		return ev.Kind == EvEvict && ev.Workload == "checkout" && strings.Contains(ev.Detail, "ApplicationFailure")
	}); !ok {
		t.Error("checkout was not evicted by application failover")
	}
	// Each old copy was deleted once its cluster could be reached again.
	for _, w := range []string{"web", "api", "flink"} {
		if e.wByName[w].copies[e.byName["east-1"].idx] != nil {
			t.Errorf("%s still has a copy on east-1", w)
		}
	}
}

func TestEmbeddedScenarioIsReproducible(t *testing.T) {
	a, b := runEmbedded(t), runEmbedded(t)
	var ta, tb bytes.Buffer
	if err := a.Timeline().Render(&ta); err != nil {
		t.Fatal(err)
	}
	if err := b.Timeline().Render(&tb); err != nil {
		t.Fatal(err)
	}
	if ta.String() != tb.String() {
		t.Error("two runs of the same scenario and seed differ")
	}
}

func TestEngineStepsTheFakeClock(t *testing.T) {
	sc := mustParse(t, "duration: 1m\nstep: 15s\nclusters: [{name: a, zone: z}]\n")
	e, err := NewEngine(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !e.Now().Equal(simEpoch) {
		t.Fatalf("starts at %s", e.Now())
	}
	var seen []int
	e.opts.Progress = func(step, total int) {
		if total != 4 {
			t.Errorf("total %d", total)
		}
		seen = append(seen, step)
	}
	e.Run()
	if e.Elapsed() != time.Minute || len(seen) != 4 || seen[3] != 4 {
		t.Errorf("elapsed %s, progress %v", e.Elapsed(), seen)
	}
}

func TestTimelineRender(t *testing.T) {
	tl := &Timeline{Events: []Event{
		{At: 90 * time.Second, Kind: EvFault, Cluster: "east-1", Detail: "outage east-1"},
		{At: time.Hour + 2*time.Minute + 3*time.Second, Kind: EvEvict, Cluster: "east-1", Workload: "web", Detail: "evicted"},
		{At: 2 * time.Hour, Kind: EvRestart, Detail: "restart"},
	}}
	var b bytes.Buffer
	if err := tl.Render(&b); err != nil {
		t.Fatal(err)
	}
	want := "" +
		"sim time   event      subject     detail\n" +
		"+00:01:30  fault      east-1      outage east-1\n" +
		"+01:02:03  evict      web@east-1  evicted\n" +
		"+02:00:00  restart    fleet       restart\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestTimelineQuietKeepsViolationsOnly(t *testing.T) {
	sc := mustParse(t, validHead)
	e, err := NewEngine(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	e.tl.Quiet = true
	e.tl.add(e, EvFault, "a", "", "x")
	e.inv.violate(InvNoPanic, "a", "", "boom")
	if len(e.tl.Events) != 1 || e.tl.Events[0].Kind != EvViolation {
		t.Errorf("events %+v", e.tl.Events)
	}
}

// fleetOutage: every cluster goes down long enough for the NoExecute taints
// and tolerations to run out.
const fleetOutage = `name: fleet-outage
duration: 40m
settings: {evictionTimeout: 1m, defaultTolerationSeconds: 30}
clusters:
  - {name: a, zone: z1}
  - {name: b, zone: z2}
  - {name: c, zone: z3}
workloads:
  - {name: w, kind: Deployment, replicas: 2, placement: {spreadConstraints: [{spreadByField: cluster, minGroups: 1, maxGroups: 1}]}}
faults:
  - {at: 5m, type: fleetOutage, for: 20m}
`

func TestFleetOutageEvictsNothing(t *testing.T) {
	e, err := NewEngine(mustParse(t, fleetOutage), Options{KeepGoing: true})
	if err != nil {
		t.Fatal(err)
	}
	if v := e.Run(); len(v) > 0 {
		t.Fatalf("violations: %v", v)
	}
	if e.Stats().Evictions != 0 {
		t.Errorf("%d evictions during a fleet-wide outage", e.Stats().Evictions)
	}
	if _, ok := e.tl.first(0, func(ev Event) bool { return ev.Kind == EvPacer && strings.Contains(ev.Detail, "FullDisruption") }); !ok {
		t.Error("the pacer never reported FullDisruption")
	}
}

// alwaysAccept is a broken pacer: it ignores the disruption mode.
type alwaysAccept struct{ pacerSeam }

func (alwaysAccept) TryAccept(string) bool { return true }

func TestBrokenPacerIsCaught(t *testing.T) {
	e, err := NewEngine(mustParse(t, fleetOutage), Options{Library: func(l *Library) {
		l.Pacer = alwaysAccept{l.Pacer}
	}})
	if err != nil {
		t.Fatal(err)
	}
	v := e.Run()
	if len(v) == 0 || v[0].Invariant != InvNoFullOutageEvict {
		t.Fatalf("want a %s violation, got %v", InvNoFullOutageEvict, v)
	}
	msg := v[0].Error()
	t.Log(msg)
	for _, part := range []string{"step ", "sim time +00:", "seed ", "w@"} {
		if !strings.Contains(msg, part) {
			t.Errorf("violation %q does not name %q", msg, part)
		}
	}
}

// A workload whose state stays unreadable waits for it without spending
// the pacer's tokens: with one eviction every 25 s, "stuck" is tried first
// on every pass and must not keep "web", on the same failed cluster, from
// leaving.
func TestUnreadableStateSpendsNoPacerToken(t *testing.T) {
	e, err := NewEngine(mustParse(t, `name: unreadable
duration: 40m
settings: {evictionTimeout: 1m, defaultTolerationSeconds: 30, evictionsPerSecond: 0.04, pacePerZone: true}
clusters:
  - {name: a, zone: z1}
  - {name: b, zone: z2}
workloads:
  - name: stuck
    kind: FlinkDeployment
    replicas: 1
    state: {jobId: 0123456789abcdef}
    clusters: [{name: a}]
    placement: {spreadConstraints: [{spreadByField: cluster, minGroups: 1, maxGroups: 1}]}
`+directlyJobFailover+`  - name: web
    kind: Deployment
    replicas: 1
    clusters: [{name: a}]
    placement: {spreadConstraints: [{spreadByField: cluster, minGroups: 1, maxGroups: 1}]}
faults:
  - {at: 1m, type: stateUnreadable, workload: stuck, for: 39m}
  - {at: 2m, type: outage, cluster: a, for: 30m}
`), Options{KeepGoing: true})
	if err != nil {
		t.Fatal(err)
	}
	if v := e.Run(); len(v) > 0 {
		t.Fatalf("violations: %v", v)
	}
	ev, ok := e.tl.first(0, func(ev Event) bool { return ev.Kind == EvEvict && ev.Workload == "web" && ev.Reason != "" })
	if !ok {
		t.Fatal("web never left a: the unreadable workload took the pacer's tokens")
	}
	// Down at 2m, NoExecute 1m after the Ready condition turns, then 30 s
	// of toleration and a token at most 25 s away.
	if at := ev.At; at > 6*time.Minute {
		t.Errorf("web left a at %s, want by 6m", formatSimTime(at))
	}
	if _, ok := e.tl.first(0, func(ev Event) bool { return ev.Kind == EvEvict && ev.Workload == "stuck" && ev.Reason != "" }); ok {
		t.Error("stuck was evicted without its state")
	}
}

// appFailover: the workload fails on its cluster; the policy keeps it away
// from there for 30 minutes, but only two clusters exist.
const appFailover = `name: app-failover
duration: 60m
clusters:
  - {name: a, zone: z1}
  - {name: b, zone: z2}
workloads:
  - name: w
    kind: Deployment
    replicas: 2
    placement: {spreadConstraints: [{spreadByField: cluster, minGroups: 1, maxGroups: 1}]}
    failover:
      application:
        decisionConditions: {tolerationSeconds: 30}
        purgeMode: Gracefully
        blockPredecessorSeconds: 1800
faults:
  - {at: 2m, type: workloadUnhealthy, workload: w, cluster: a, for: 3m}
  - {at: 10m, type: workloadUnhealthy, workload: w, cluster: b}
`

func TestApplicationFailoverRespectsBlockWindow(t *testing.T) {
	e, err := NewEngine(mustParse(t, appFailover), Options{KeepGoing: true})
	if err != nil {
		t.Fatal(err)
	}
	if v := e.Run(); len(v) > 0 {
		t.Fatalf("violations: %v", v)
	}
	// w left a at 2m30s and b at 10m30s; a stays blocked until 32m30s,
	// so w returns to a only after that.
	back, ok := e.tl.first(11*time.Minute, func(ev Event) bool { return ev.Kind == EvDispatch && ev.Workload == "w" && ev.Cluster == "a" })
	if !ok {
		t.Fatal("w never returned to a")
	}
	if back.At < 32*time.Minute+30*time.Second {
		t.Errorf("w returned to a at %s, inside its block window", formatSimTime(back.At))
	}
}

func TestBrokenEvictionHistoryIsCaught(t *testing.T) {
	e, err := NewEngine(mustParse(t, appFailover), Options{Library: func(l *Library) {
		// Ignores the block window: every cluster is always allowed.
		l.Blocked = func(eviction.EvictionHistory, string, *int32, time.Time) bool { return false }
	}})
	if err != nil {
		t.Fatal(err)
	}
	v := e.Run()
	if len(v) == 0 || v[0].Invariant != InvNoBlockedReturn || v[0].Cluster != "a" {
		t.Fatalf("want a %s violation on a, got %v", InvNoBlockedReturn, v)
	}
}

// forgetfulHealth is a broken restart: Import drops the debounce state.
type forgetfulHealth struct{ clusterHealthSeam }

func (forgetfulHealth) Import([]byte) error { return nil }

func TestRestartThatLosesCountdownsIsCaught(t *testing.T) {
	sc := mustParse(t, `name: restart
duration: 20m
clusters: [{name: a, zone: z1}, {name: b, zone: z2}]
faults:
  - {at: 1m, type: outage, cluster: a}
  - {at: 1m20s, type: restart}
`)
	e, err := NewEngine(sc, Options{Library: func(l *Library) {
		l.ClusterHealth = forgetfulHealth{l.ClusterHealth}
	}})
	if err != nil {
		t.Fatal(err)
	}
	v := e.Run()
	if len(v) == 0 || v[0].Invariant != InvRestartCountdowns {
		t.Fatalf("want a %s violation, got %v", InvRestartCountdowns, v)
	}
	// The same scenario with the library's export/import keeps every countdown.
	e, err = NewEngine(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v := e.Run(); len(v) > 0 {
		t.Fatalf("violations with the real tracker: %v", v)
	}
}

func TestSuspendedWorkloadIsNeverDispatched(t *testing.T) {
	e, err := NewEngine(mustParse(t, `name: delete
duration: 30m
clusters: [{name: a, zone: z1}, {name: b, zone: z2}]
workloads:
  - name: w
    kind: Deployment
    replicas: 1
    suspension: {dispatching: true}
faults:
  - {at: 1m, type: partition, cluster: b, for: 5m}
  - {at: 2m, type: deleteWorkload, workload: w}
`), Options{KeepGoing: true})
	if err != nil {
		t.Fatal(err)
	}
	if v := e.Run(); len(v) > 0 {
		t.Fatalf("violations: %v", v)
	}
	if e.Stats().Dispatches != 0 {
		t.Errorf("%d dispatches of a suspended workload", e.Stats().Dispatches)
	}
}

func TestDeletionRemovesCopiesOfSuspendedWorkload(t *testing.T) {
	sc := mustParse(t, `name: delete
duration: 30m
clusters: [{name: a, zone: z1}, {name: b, zone: z2}]
workloads:
  - name: w
    kind: Deployment
    replicas: 1
faults:
  - {at: 1m, type: partition, cluster: b, for: 5m}
  - {at: 90s, type: suspend, workload: w}
  - {at: 2m, type: deleteWorkload, workload: w}
`)
	e, err := NewEngine(sc, Options{KeepGoing: true})
	if err != nil {
		t.Fatal(err)
	}
	if v := e.Run(); len(v) > 0 {
		t.Fatalf("violations: %v", v)
	}
	if !suspendedFor(e.wByName["w"], "a") {
		t.Fatal("w is not suspended: the test proves nothing")
	}
	for ci, cp := range e.wByName["w"].copies {
		if cp != nil {
			t.Errorf("copy left on %s", e.clusters[ci].name)
		}
	}
	delA, okA := e.tl.first(0, func(ev Event) bool { return ev.Kind == EvDelete && ev.Cluster == "a" })
	delB, okB := e.tl.first(0, func(ev Event) bool { return ev.Kind == EvDelete && ev.Cluster == "b" })
	if !okA || delA.At != 2*time.Minute {
		t.Errorf("the copy on a was deleted at %v (ok=%v), want at once (+2m)", delA.At, okA)
	}
	if !okB || delB.At != 6*time.Minute {
		t.Errorf("the copy on the partitioned cluster b was deleted at %v (ok=%v), want when b became reachable at +6m", delB.At, okB)
	}
}

func TestRunCLI(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(nil, &out, &errOut); code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut.String())
	}
	for _, want := range []string{"TIMELINE", "SUMMARY", "time to Ready not True", "state carried: flink", "web -> west-2 never dispatched", "0 violations"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if errOut.Len() != 0 {
		t.Errorf("progress bar drawn on a non-terminal: %q", errOut.String())
	}
}

func TestRunCLIBadScenario(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(p, []byte("clusters:\n  - {name: a, zone: z}\n  - {name: b}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	if code := run([]string{"-scenario", p}, &out, &errOut); code != 2 {
		t.Fatalf("exit %d", code)
	}
	want := "fleetsim: -scenario: " + p + ":3: clusters[1].zone: must not be empty"
	if !strings.HasPrefix(errOut.String(), want) {
		t.Errorf("stderr %q, want prefix %q", errOut.String(), want)
	}
	if code := run([]string{"-scenario", filepath.Join(dir, "missing.yaml")}, &out, &errOut); code != 2 {
		t.Errorf("missing file: exit %d", code)
	}
	if code := run([]string{"-nosuchflag"}, io.Discard, io.Discard); code != 2 {
		t.Errorf("bad flag: exit %d", code)
	}
}

func TestReportWritesMarkdownAndValidSVG(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	if code := run([]string{"-report", dir, "-quiet", "-progress"}, &out, io.Discard); code != 0 {
		t.Fatalf("exit %d", code)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# fleetsim report: embedded", "![timeline](timeline.svg)", "| +00:16:30 | evict | flink@east-1 |"} {
		if !bytes.Contains(md, []byte(want)) {
			t.Errorf("report.md lacks %q", want)
		}
	}
	svg, err := os.ReadFile(filepath.Join(dir, "timeline.svg"))
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(svg))
	rects, texts := 0, map[string]bool{}
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("timeline.svg is not well-formed XML: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if el.Name.Local == "rect" {
				rects++
			}
		case xml.CharData:
			texts[strings.TrimSpace(string(el))] = true
		}
	}
	for _, lane := range []string{"east-1 (east)", "south-1 (south)", "web", "flink", "Ready=False", "taint NoExecute"} {
		if !texts[lane] {
			t.Errorf("SVG has no %q label", lane)
		}
	}
	if rects < 20 {
		t.Errorf("only %d rects", rects)
	}
}

func TestProgressBar(t *testing.T) {
	var b bytes.Buffer
	p := newProgressBar(&b, "x")
	p.width = 10
	p.update(1, 4)
	p.update(1, 4) // same percentage: not redrawn
	p.update(4, 4)
	p.done()
	want := "\rx [##........]  25% (1/4)\rx [##########] 100% (4/4)\n"
	if b.String() != want {
		t.Errorf("got %q want %q", b.String(), want)
	}
}

func TestRunCLICampaignAndScale(t *testing.T) {
	var out bytes.Buffer
	if code := run([]string{"-campaign", "20", "-seed", "5"}, &out, io.Discard); code != 0 {
		t.Fatalf("campaign exit %d: %s", code, out.String())
	}
	if !strings.HasPrefix(out.String(), "campaign on random fleets: 20 schedules (seeds 5..24), 7200 steps,") || !strings.Contains(out.String(), " 0 violations") {
		t.Errorf("campaign output %q", out.String())
	}
	out.Reset()
	if code := run([]string{"-scale", "-clusters", "20", "-workloads", "2000"}, &out, io.Discard); code != 0 {
		t.Fatalf("scale exit %d", code)
	}
	if !strings.Contains(out.String(), "20 clusters in 12 zones of 4 regions, 2000 workloads") || !strings.Contains(out.String(), "failed: 2 clusters") ||
		!strings.Contains(out.String(), "GOMAXPROCS=1") {
		t.Errorf("scale output %q", out.String())
	}
}

func TestRunCLIRejectsBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-campaign", "0"}, "fleetsim: -campaign: must be between 1 and 10000000 schedules, got 0"},
		{[]string{"-campaign", "-5"}, "fleetsim: -campaign: must be between 1 and 10000000 schedules, got -5"},
		{[]string{"-clusters", "20"}, "fleetsim: -clusters: only sizes the -scale wave; add -scale"},
		{[]string{"-workloads", "20"}, "fleetsim: -workloads: only sizes the -scale wave; add -scale"},
		{[]string{"-fail-percent", "20"}, "fleetsim: -fail-percent: only sizes the -scale wave; add -scale"},
		{[]string{"-scale", "-campaign", "3"}, "fleetsim: -campaign: does nothing with -scale"},
		{[]string{"-scale", "-scenario", "x.yaml"}, "fleetsim: -scenario: does nothing with -scale"},
		{[]string{"-scale", "-clusters", "1"}, "fleetsim: -clusters: must be between 2 and 65535, got 1"},
		{[]string{"-scale", "-fail-percent", "0"}, "fleetsim: -fail-percent: must be between 1 and 100, got 0"},
		{[]string{"-scale", "-workloads", "0"}, "fleetsim: -workloads: must be between 1 and 100000000, got 0"},
		{[]string{"-fail-zone", "region-0a"}, "fleetsim: -fail-zone: only sizes the -scale wave; add -scale"},
		{[]string{"-scale", "-fail-zone", "region-0a", "-fail-percent", "5"}, "fleetsim: -fail-zone: fails a whole zone instead of -fail-percent"},
		{[]string{"-scale", "-fail-zone", ""}, "fleetsim: -fail-zone: names a zone of the -scale fleet"},
		{[]string{"-campaign", "2", "-quiet"}, "fleetsim: -quiet: does nothing with -campaign"},
		{[]string{"extra"}, `fleetsim: unexpected argument "extra"`},
		{[]string{"-o", "yaml"}, `fleetsim: -o: must be text or json, got "yaml"`},
		{[]string{"-scale", "-o", "json"}, "fleetsim: -o json: the -scale wave prints text figures only"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := run(tc.args, &out, &errOut); code != 2 {
				t.Fatalf("exit %d, want 2 (a usage error)", code)
			}
			if !strings.HasPrefix(errOut.String(), tc.want) {
				t.Errorf("stderr %q, want prefix %q", errOut.String(), tc.want)
			}
			if !strings.Contains(errOut.String(), "Usage of fleetsim:") {
				t.Errorf("stderr lacks the usage: %q", errOut.String())
			}
			if out.Len() != 0 {
				t.Errorf("a usage error ran something: %q", out.String())
			}
		})
	}
}

func TestCampaignRunsOnTheScenarioFleet(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "fleet.yaml")
	fleet := "# my fleet\nname: mine\nduration: 20m\nstep: 10s\nclusters: [{name: x1, zone: zx}, {name: y1, zone: zy}]\n" +
		"workloads:\n  - {name: app, kind: Deployment, replicas: 2, placement: {spreadConstraints: [{minGroups: 1, maxGroups: 1}]}}\n" +
		"faults:\n  - {at: 1m, type: outage, cluster: x1}\n"
	if err := os.WriteFile(p, []byte(fleet), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if code := run([]string{"-campaign", "4", "-scenario", p}, &out, io.Discard); code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	// 20m at 10s steps: 120 steps per schedule, the scenario's own.
	if want := "campaign on the fleet of " + p + ": 4 schedules (seeds 1..4), 480 steps,"; !strings.HasPrefix(out.String(), want) {
		t.Errorf("output %q, want prefix %q", out.String(), want)
	}
	base := mustParse(t, fleet)
	for seed := int64(1); seed <= 4; seed++ {
		data, err := WithRandomFaults([]byte(fleet), base, seed, 0)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := ParseScenario("campaign.yaml", data)
		if err != nil {
			t.Fatalf("seed %d: the rewritten scenario does not parse: %v\n%s", seed, err, data)
		}
		if sc.Name != "mine" || len(sc.Clusters) != 2 || sc.Clusters[0].Name != "x1" || len(sc.Workloads) != 1 || sc.Workloads[0].Name != "app" || sc.Seed != seed {
			t.Errorf("seed %d: the campaign changed the fleet: %+v", seed, sc)
		}
		if !bytes.Contains(data, []byte("# my fleet")) {
			t.Errorf("seed %d: comments lost", seed)
		}
		for _, f := range sc.Faults {
			if f.Cluster != "" && f.Cluster != "x1" && f.Cluster != "y1" || f.Zone != "" && f.Zone != "zx" && f.Zone != "zy" || f.Workload != "" && f.Workload != "app" {
				t.Errorf("seed %d: fault %+v is not on the scenario's fleet", seed, f)
			}
		}
	}
	var errOut bytes.Buffer
	if code := run([]string{"-campaign", "2", "-scenario", filepath.Join(dir, "missing.yaml")}, io.Discard, &errOut); code != 2 {
		t.Errorf("a missing scenario: exit %d, want 2", code)
	}
	if !strings.Contains(errOut.String(), "missing.yaml: no such file or directory") {
		t.Errorf("a missing scenario is not reported: %q", errOut.String())
	}
}

// lonely: the workload may only run on a; a stops being Ready but stays
// reachable, so its copy keeps running there while nothing can replace it.
const lonely = `name: lonely
duration: 40m
settings: {evictionTimeout: 1m, defaultTolerationSeconds: 30, gracefulEvictionTimeout: 2m}
clusters: [{name: a, zone: z1}, {name: b, zone: z2}]
workloads:
  - name: w
    kind: Deployment
    replicas: 2
    placement: {clusterAffinity: {clusterNames: [a]}}
faults:
  - {at: 2m, type: notReady, cluster: a, for: 30m}
`

func TestLastCopyIsKept(t *testing.T) {
	e, err := NewEngine(mustParse(t, lonely), Options{KeepGoing: true})
	if err != nil {
		t.Fatal(err)
	}
	if v := e.Run(); len(v) > 0 {
		t.Fatalf("violations: %v", v)
	}
	if e.Stats().Evictions != 1 {
		t.Errorf("evictions %d, want 1", e.Stats().Evictions)
	}
	// Its grace period ran out long ago, but with no target the task stays
	// and so does the copy on a; when a recovers the workload returns there.
	if _, ok := e.tl.first(0, func(ev Event) bool { return ev.Kind == EvDelete && ev.Workload == "w" }); ok {
		t.Error("the only copy of w was deleted")
	}
}

func TestReleasingTheLastCopyIsCaught(t *testing.T) {
	e, err := NewEngine(mustParse(t, lonely), Options{Library: func(l *Library) {
		// Karmada's behaviour: an empty target list counts as all healthy.
		l.Assess = func(in eviction.AssessInput, opts eviction.AssessOptions) eviction.Assessment {
			opts.EmptyTargetsAreHealthy = true
			return eviction.Assess(in, opts)
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	v := e.Run()
	if len(v) == 0 || v[0].Invariant != InvLastCopyKept {
		t.Fatalf("want a %s violation, got %v", InvLastCopyKept, v)
	}
}

// stuckScheduler never places anything.
type stuckScheduler struct{}

func (stuckScheduler) Place(*Engine, *workload) []eviction.TargetCluster { return nil }

func TestSchedulerThatNeverReplacesIsCaught(t *testing.T) {
	sc := mustParse(t, `name: stuck
duration: 60m
settings: {evictionTimeout: 1m, defaultTolerationSeconds: 30}
clusters: [{name: a, zone: z1}, {name: b, zone: z2}]
workloads:
  - {name: w, kind: Deployment, replicas: 1, placement: {clusterAffinity: {clusterNames: [a, b]}, spreadConstraints: [{spreadByField: cluster, minGroups: 1, maxGroups: 1}]}}
faults:
  - {at: 2m, type: outage, cluster: a}
`)
	e, err := NewEngine(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	e.lib.Placement = stuckScheduler{}
	e.lib.Replace = func(req *scheduling.Request) (scheduling.Plan, error) {
		return scheduling.Plan{Targets: req.Targets, Reason: scheduling.ReasonInsufficientCandidates}, nil
	}
	v := e.Run()
	if len(v) == 0 || v[0].Invariant != InvNoZeroCopies || v[0].Workload != "w" {
		t.Fatalf("want a %s violation for w, got %v", InvNoZeroCopies, v)
	}
	// The same fleet with the library's scheduling moves w to b in time.
	e, err = NewEngine(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v := e.Run(); len(v) > 0 || !e.wByName["w"].isTarget("b") {
		t.Fatalf("violations %v, targets %v", v, e.wByName["w"].targets)
	}
}

func TestSuspensionPausesFailoverUntilResume(t *testing.T) {
	e, err := NewEngine(mustParse(t, `name: pause
duration: 40m
settings: {evictionTimeout: 1m, defaultTolerationSeconds: 30}
clusters: [{name: a, zone: z1}, {name: b, zone: z2}]
workloads:
  - {name: w, kind: Deployment, replicas: 1, placement: {spreadConstraints: [{spreadByField: cluster, minGroups: 1, maxGroups: 1}]}}
faults:
  - {at: 5m, type: suspend, workload: w, cluster: a, for: 15m}
  - {at: 6m, type: outage, cluster: a}
`), Options{KeepGoing: true})
	if err != nil {
		t.Fatal(err)
	}
	if v := e.Run(); len(v) > 0 {
		t.Fatalf("violations: %v", v)
	}
	cond, ok := e.tl.first(0, func(ev Event) bool { return ev.Kind == EvHold && strings.Contains(ev.Detail, "Dispatching=False") })
	if !ok || cond.At != 5*time.Minute {
		t.Errorf("Dispatching=False announced at %v (ok=%v)", cond.At, ok)
	}
	ev, ok := e.tl.first(0, func(ev Event) bool { return ev.Kind == EvEvict && ev.Workload == "w" })
	if !ok {
		t.Fatal("w never left a")
	}
	// NoExecute at 7m30s, toleration out at 8m, but failover waits for the
	// resume at 20m, and then happens in the same step.
	if resumed, ok := e.tl.first(cond.At+time.Second, func(ev Event) bool { return ev.Kind == EvHold && strings.Contains(ev.Detail, "Dispatching=True") }); ok {
		t.Errorf("Dispatching=True announced at %s for a cluster w no longer targets", formatSimTime(resumed.At))
	}
	if ev.At != 20*time.Minute {
		t.Errorf("w evicted at %s, want right after the resume at +00:20:00", formatSimTime(ev.At))
	}
	if !e.wByName["w"].isTarget("b") {
		t.Errorf("w targets %v", e.wByName["w"].targets)
	}
}

func TestRunCLIWritesJSON(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"-o", "json"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var doc struct {
		Scenario string `json:"scenario"`
		Outages  []struct {
			Cluster    string   `json:"cluster"`
			NoSchedule *float64 `json:"noScheduleTaintAfterSeconds"`
			Healthy    *float64 `json:"workloadsHealthyAgainAfterSeconds"`
		} `json:"clusterFaults"`
		Failures []struct {
			Workload      string   `json:"workload"`
			Cluster       string   `json:"cluster"`
			FirstEviction *float64 `json:"firstEvictionAfterSeconds"`
		} `json:"workloadFailures"`
		Old      json.RawMessage `json:"outages"`
		Activity struct {
			NewCopies      int `json:"newCopies"`
			ReplicaChanges int `json:"replicaChanges"`
		} `json:"activity"`
		Violations []any `json:"violations"`
		Timeline   []struct {
			AtSeconds float64 `json:"atSeconds"`
			Kind      string  `json:"kind"`
			Job       string  `json:"job"`
		} `json:"timeline"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out.String())
	}
	e := runEmbedded(t)
	sum := e.Summarize()
	if doc.Scenario != "embedded" || len(doc.Timeline) != len(e.Timeline().Events) || len(doc.Outages)+len(doc.Failures) != len(sum.Outages) || doc.Violations == nil {
		t.Fatalf("document does not match the run: %d events (want %d), %d faults (want %d)", len(doc.Timeline), len(e.Timeline().Events), len(doc.Outages)+len(doc.Failures), len(sum.Outages))
	}
	// Each key holds what it names: the workload failure of checkout is
	// not among the cluster faults, and "outages" is gone.
	if len(doc.Failures) != 1 || doc.Failures[0].Workload != "checkout" || doc.Failures[0].Cluster != "south-1" || doc.Failures[0].FirstEviction == nil || doc.Old != nil {
		t.Errorf("workloadFailures %+v, outages %s", doc.Failures, doc.Old)
	}
	o := doc.Outages[0]
	if o.Cluster != "east-1" || o.NoSchedule == nil || *o.NoSchedule != sum.Outages[0].NoSchedule.Seconds() || o.Healthy == nil || *o.Healthy != sum.Outages[0].HealthyAgain.Seconds() {
		t.Errorf("outage figures %+v, summary %+v", o, sum.Outages[0])
	}
	dispatches, jobs := 0, 0
	for _, ev := range doc.Timeline {
		if ev.Kind == string(EvDispatch) {
			dispatches++
		}
		if ev.Job != "" {
			jobs++
		}
	}
	if dispatches != doc.Activity.NewCopies+doc.Activity.ReplicaChanges || jobs != 2 {
		t.Errorf("%d dispatch events, activity %+v, %d events name a job (want 2, flink's two copies)", dispatches, doc.Activity, jobs)
	}
	out.Reset()
	if code := run([]string{"-o", "json", "-quiet"}, &out, io.Discard); code != 0 || bytes.Contains(out.Bytes(), []byte(`"timeline"`)) {
		t.Errorf("-quiet -o json: exit %d, timeline present: %v", code, bytes.Contains(out.Bytes(), []byte(`"timeline"`)))
	}
}

// FuzzParseArgs: any command line is either a usage error (exit code 2,
// a message on stderr) or a configuration within every flag's bounds.
func FuzzParseArgs(f *testing.F) {
	f.Add("-campaign\x000")
	f.Add("-scale\x00-clusters\x0020")
	f.Add("-clusters\x005")
	f.Add("-o\x00json\x00-quiet")
	f.Add("-campaign\x003\x00-scenario\x00x.yaml")
	f.Fuzz(func(t *testing.T, line string) {
		var args []string
		if line != "" {
			args = strings.Split(line, "\x00")
		}
		var errOut bytes.Buffer
		cfg, set, code := parseArgs(args, &errOut)
		switch code {
		case -1:
		case 0:
			return // -h
		case 2:
			if errOut.Len() == 0 {
				t.Fatal("a usage error without a message")
			}
			return
		default:
			t.Fatalf("exit code %d", code)
		}
		if set["campaign"] && (cfg.campaign < 1 || cfg.campaign > maxCampaignSchedules) {
			t.Fatalf("accepted -campaign %d", cfg.campaign)
		}
		if (set["clusters"] || set["workloads"] || set["fail-percent"] || set["fail-zone"]) && !cfg.scale {
			t.Fatal("accepted a -scale size without -scale")
		}
		if cfg.scale && (set["campaign"] || set["scenario"] || set["report"] || set["quiet"] || set["progress"] || cfg.output != "text" ||
			cfg.clusters < 2 || cfg.clusters > maxScaleClusters || cfg.workloads < 1 || cfg.workloads > maxScaleWorkloads || cfg.failPct < 1 || cfg.failPct > 100) {
			t.Fatalf("accepted -scale with %+v (flags %v)", cfg, set)
		}
		if set["fail-zone"] && (set["fail-percent"] || cfg.failZone == "") {
			t.Fatalf("accepted -fail-zone %q with %v", cfg.failZone, set)
		}
		if cfg.output != "text" && cfg.output != "json" {
			t.Fatalf("accepted -o %q", cfg.output)
		}
	})
}

// A copy started without preserved state is its own job from the start:
// a first copy, placed after the start because its scheduling was
// suspended until then, reports the workload's job id while its job has
// not run yet. Only a copy that resumes preserved state reports a
// submission of its own until then, which the library must not carry.
func TestFirstCopyReportsItsOwnJobBeforeItRuns(t *testing.T) {
	e, err := NewEngine(mustParse(t, `name: first-copy
duration: 10m
clusters:
  - {name: a, zone: z1}
workloads:
  - name: job
    kind: FlinkDeployment
    replicas: 1
    state: {jobId: 0123456789abcdef}
    schedulingSuspended: true
    placement: {spreadConstraints: [{spreadByField: cluster, minGroups: 1, maxGroups: 1}]}
`+directlyJobFailover+`faults:
  - {at: 1m, type: workloadUnhealthy, workload: job, for: 9m}
  - {at: 2m, type: resumeScheduling, workload: job}
`), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for e.Elapsed() < 4*time.Minute {
		e.Step()
	}
	w := e.wByName["job"]
	cp := w.copies[e.byName["a"].idx]
	if cp == nil || cp.settled {
		t.Fatalf("copy on a: %+v, want one that never ran its job", cp)
	}
	if !strings.Contains(string(cp.collected), `"jobId":"0123456789abcdef"`) {
		t.Errorf("the first copy reports %s, want the workload's job", cp.collected)
	}
}
