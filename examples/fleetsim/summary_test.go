package main

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestSummaryAgreesWithTheTimeline reads the embedded run's printed
// timeline row by row and checks every count and time of the summary
// against it.
func TestSummaryAgreesWithTheTimeline(t *testing.T) {
	e := runEmbedded(t)
	var text bytes.Buffer
	if err := e.Timeline().Render(&text); err != nil {
		t.Fatal(err)
	}
	type row struct{ at, kind, subject, detail string }
	var rows []row
	for _, line := range strings.Split(strings.TrimSpace(text.String()), "\n")[1:] {
		f := strings.Fields(line)
		rows = append(rows, row{f[0], f[1], f[2], strings.Join(f[3:], " ")})
	}
	count := func(pred func(row) bool) int {
		n := 0
		for _, r := range rows {
			if pred(r) {
				n++
			}
		}
		return n
	}
	first := func(pred func(row) bool) string {
		for _, r := range rows {
			if pred(r) {
				return r.at
			}
		}
		return "never"
	}
	sum := e.Summarize()
	a := sum.Activity
	for _, tc := range []struct {
		name string
		got  int
		kind string
	}{
		{"evictions", a.Evictions, "evict"},
		{"dispatches", a.NewCopies + a.ReplicaChanges, "dispatch"},
		{"deletions", a.Deletions, "delete"},
		{"tasks closed", a.TasksClosed, "task-done"},
		{"restarts", a.Restarts, "restart"},
	} {
		if want := count(func(r row) bool { return r.kind == tc.kind }); tc.got != want {
			t.Errorf("%s: the summary says %d, the timeline has %d %q rows", tc.name, tc.got, want, tc.kind)
		}
	}
	if a.ReplicaChanges != 1 || a.NewCopies != 9 {
		t.Errorf("new copies %d, replica changes %d; want 9 and 1 (api's replicas -> 6)", a.NewCopies, a.ReplicaChanges)
	}
	rel := func(from time.Duration, at string) string {
		if at == "never" {
			return at
		}
		d, err := time.ParseDuration(strings.Replace(strings.Replace(strings.TrimPrefix(at, "+"), ":", "h", 1), ":", "m", 1) + "s")
		if err != nil {
			t.Fatal(err)
		}
		return fmtRel(d - from)
	}
	o := sum.Outages[0]
	after := func(pred func(row) bool) func(row) bool {
		return func(r row) bool { return r.at >= "+00:10:00" && pred(r) }
	}
	for _, tc := range []struct {
		name string
		got  time.Duration
		pred func(row) bool
	}{
		{"Ready not True", o.NotReady, func(r row) bool { return r.kind == "ready" && strings.HasPrefix(r.detail, "Ready True ->") }},
		{"NoSchedule", o.NoSchedule, func(r row) bool { return r.kind == "taint" && strings.HasSuffix(r.detail, ":NoSchedule") }},
		{"NoExecute", o.NoExecute, func(r row) bool { return r.kind == "taint" && strings.HasSuffix(r.detail, ":NoExecute") }},
		{"first eviction", o.FirstEviction, func(r row) bool { return r.kind == "evict" }},
		// The last of the three workloads that ran on east-1 to be
		// healthy again is flink.
		{"healthy again", o.HealthyAgain, func(r row) bool { return r.kind == "health" && r.subject == "flink" && r.detail == detailHealthy }},
	} {
		if want := rel(o.At, first(after(tc.pred))); fmtRel(tc.got) != want {
			t.Errorf("%s: the summary says %s, the timeline %s", tc.name, fmtRel(tc.got), want)
		}
	}
}

// TestOutageFiguresMeasureWhatTheyAreNamedFor checks the figures on a
// timeline written by hand, where the NoExecute taint comes before the
// NoSchedule one and a second fault follows.
func TestOutageFiguresMeasureWhatTheyAreNamedFor(t *testing.T) {
	m := func(d int) time.Duration { return time.Duration(d) * time.Minute }
	events := []Event{
		{At: 0, Kind: EvDispatch, Cluster: "a", Workload: "w1", Detail: "dispatched (1 replicas)"},
		{At: 0, Kind: EvDispatch, Cluster: "a", Workload: "w2", Detail: "dispatched (1 replicas)"},
		{At: 0, Kind: EvDispatch, Cluster: "b", Workload: "w3", Detail: "dispatched (1 replicas)"},
		{At: 0, Kind: EvDispatch, Cluster: "a", Workload: "w4", Detail: "dispatched (1 replicas)"},
		{At: m(1), Kind: EvDelete, Cluster: "a", Workload: "w4", Detail: "old copy deleted"},
		{At: m(2), Kind: EvTaint, Cluster: "a", Detail: "+taint x:NoExecute"},
		{At: m(5), Kind: EvFault, Cluster: "a", Detail: "outage a"},
		{At: m(5), Kind: EvHealth, Workload: "w1", Detail: detailNotHealthy + "a unreachable"},
		{At: m(6), Kind: EvReady, Cluster: "a", Detail: "Ready True -> False (ClusterNotReachable)"},
		{At: m(7), Kind: EvTaint, Cluster: "a", Detail: "+taint y:NoExecute"},
		{At: m(8), Kind: EvTaint, Cluster: "a", Detail: "+taint y:NoSchedule"},
		{At: m(9), Kind: EvEvict, Cluster: "a", Workload: "w1", Detail: "eviction deferred by the pacer"},
		{At: m(9), Kind: EvPacer, Cluster: "a", Workload: "w1", Detail: "eviction deferred by the pacer (FullDisruption)"},
		{At: m(10), Kind: EvEvict, Cluster: "b", Workload: "w3", Detail: "evicted (TaintUntolerated, purge Gracefully)"},
		{At: m(11), Kind: EvEvict, Cluster: "a", Workload: "w1", Detail: "evicted (TaintUntolerated, purge Gracefully)"},
		{At: m(12), Kind: EvHealth, Workload: "w1", Detail: detailHealthy},
		{At: m(14), Kind: EvFault, Cluster: "b", Detail: "outage b"},
		{At: m(14), Kind: EvHealth, Workload: "w2", Detail: detailNotHealthy + "b unreachable"},
		{At: m(20), Kind: EvHealth, Workload: "w2", Detail: detailHealthy},
	}
	r := measureOutage(events, timedFault{at: m(5), kind: FaultOutage, spec: FaultSpec{Cluster: "a"}, label: "outage a"}, "a", nil)
	want := OutageReport{Fault: FaultOutage, Cluster: "a", At: m(5), NotReady: m(1), NoSchedule: m(3), NoExecute: m(2),
		FirstEviction: m(6), HealthyAgain: m(7), Affected: []string{"w1", "w2"}, Evicted: []string{"w1"}}
	if got, wantS := strings.ReplaceAll(fmtOutage(r), " ", ""), strings.ReplaceAll(fmtOutage(want), " ", ""); got != wantS {
		t.Errorf("\n got %s\nwant %s", got, wantS)
	}
	// w2 stopped being healthy only after the next fault: that is not
	// blamed on this one (w2 counts as never hurt). The outage of b hits
	// w3, which stays healthy, and evicts nothing after it.
	r = measureOutage(events, timedFault{at: m(14), kind: FaultOutage, spec: FaultSpec{Cluster: "b"}, label: "outage b"}, "b", nil)
	if r.HealthyAgain != 0 || strings.Join(r.Affected, ",") != "w3" || r.FirstEviction != notYet || r.NoSchedule != notYet {
		t.Errorf("outage of b: %s", fmtOutage(r))
	}
}

func fmtOutage(r OutageReport) string {
	var b strings.Builder
	for _, d := range []time.Duration{r.NotReady, r.NoSchedule, r.NoExecute, r.FirstEviction, r.HealthyAgain} {
		b.WriteString(fmtRel(d) + " ")
	}
	return b.String() + strings.Join(r.Affected, ",") + " / " + strings.Join(r.Evicted, ",")
}

// shortOutage: a cluster is down for 2 minutes, less than its workloads
// tolerate; nothing is evicted, and the workloads are healthy again when
// it is back.
const shortOutage = `name: short
duration: 20m
settings: {evictionTimeout: 5m, defaultTolerationSeconds: 600}
clusters: [{name: a, zone: z1}, {name: b, zone: z2}]
workloads:
  - {name: on-a, kind: Deployment, replicas: 1, placement: {clusterAffinity: {clusterNames: [a]}}}
  - {name: on-b, kind: Deployment, replicas: 1, placement: {clusterAffinity: {clusterNames: [b]}}}
faults:
  - {at: 3m, type: outage, cluster: a, for: 2m}
  - {at: 10m, type: notReady, cluster: b, for: 2m}
`

func TestHealthyAgainWithoutEviction(t *testing.T) {
	e, err := NewEngine(mustParse(t, shortOutage), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v := e.Run(); len(v) > 0 {
		t.Fatal(v)
	}
	sum := e.Summarize()
	if len(sum.Outages) != 2 {
		t.Fatalf("outages %+v", sum.Outages)
	}
	a := sum.Outages[0]
	if a.FirstEviction != notYet || a.HealthyAgain != 2*time.Minute || strings.Join(a.Affected, ",") != "on-a" {
		t.Errorf("outage of a: first eviction %s, healthy again %s, affected %v; want never, +2m0s, [on-a]", fmtRel(a.FirstEviction), fmtRel(a.HealthyAgain), a.Affected)
	}
	// b's health endpoint fails but its copy keeps serving: never hurt.
	b := sum.Outages[1]
	if b.HealthyAgain != 0 || b.NotReady == notYet {
		t.Errorf("notReady of b: healthy again %s, Ready not True %s; want +0s and a time", fmtRel(b.HealthyAgain), fmtRel(b.NotReady))
	}
	var out bytes.Buffer
	if err := sum.Render(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"time to workloads healthy again   +2m0s  (on-a ran there)",
		"time to workloads healthy again   +0s  (on-b ran there), never unhealthy",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
}
