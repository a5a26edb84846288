package main

import (
	"strings"
	"testing"
	"time"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/fencing"
)

// flinkOnPullA: a single-writer job on the Pull cluster a, whose agent
// fences after two minutes (fenceAfter) unless the scenario says
// otherwise, and a long partition of a: the control plane cannot reach it,
// its copy keeps running there.
func flinkOnPullA(settings string) string {
	return `name: flink-on-pull-a
duration: 60m
settings: {evictionTimeout: 1m, defaultTolerationSeconds: 0` + settings + `}
clusters: [{name: a, zone: z1, syncMode: Pull}, {name: b, zone: z2}, {name: c, zone: z3}]
workloads:
  - name: flink
    kind: FlinkDeployment
    replicas: 1
    state: {jobId: 0123456789abcdef0123456789abcdef}
    placement:
      clusterAffinity: {clusterNames: [a, b]}
      spreadConstraints: [{spreadByField: cluster, minGroups: 1, maxGroups: 1}]
    failover:
      cluster:
        purgeMode: Directly
        statePreservation: {rules: [{aliasLabelName: failover.fleetover.io/jobid, jsonPath: "{ .jobStatus.jobId }"}]}
faults:
  - {at: 2m, type: partition, cluster: a, for: 30m}
`
}

// TestPartitionedPullMemberFences: the agent of the cut-off Pull cluster
// stops its copy fenceAfter after its last renewal; the control plane's
// escape waits that fence (counted from the last heartbeat it got), the new
// copy starts only after it and carries fencing epoch 1; when the
// partition heals the old copy is deleted, not resumed. The timeline shows
// the fence.
func TestPartitionedPullMemberFences(t *testing.T) {
	e, v := runWith(t, flinkOnPullA(", fenceAfter: 2m"), nil)
	if len(v) > 0 {
		t.Fatalf("violations with fencing: %v", v)
	}
	part, ok := e.tl.first(0, func(ev Event) bool { return ev.Kind == EvFault && strings.HasPrefix(ev.Detail, "partition a") })
	if !ok {
		t.Fatal("the partition never started")
	}
	fence, ok := e.tl.first(0, func(ev Event) bool { return ev.Kind == EvFence && ev.Cluster == "a" && ev.Workload == "flink" })
	if !ok {
		t.Fatal("the agent never fenced")
	}
	// The last renewal was the step before the partition.
	lastRenewal := part.At - e.sc.Step.D()
	if fence.At != lastRenewal+2*time.Minute || !strings.Contains(fence.Detail, "no lease renewal for 2m0s") {
		t.Errorf("fenced at %v (%s), want at %v, 2m after the last renewal", fence.At, fence.Detail, lastRenewal+2*time.Minute)
	}
	disp, ok := e.tl.first(0, func(ev Event) bool { return ev.Kind == EvDispatch && ev.Cluster == "b" })
	if !ok {
		t.Fatal("no new copy on b")
	}
	if disp.At <= fence.At {
		t.Errorf("new copy at %v, not after the fence at %v", disp.At, fence.At)
	}
	if wait := eviction.FencedEscapeWait(2*time.Minute, eviction.AssessOptions{}); disp.At < lastRenewal+wait {
		t.Errorf("new copy at %v, before the fence wait %v after the last heartbeat", disp.At, wait)
	}
	if !strings.Contains(disp.Detail, eviction.FencingEpochLabel+"=1") || !strings.Contains(disp.Detail, "runs job 0123456789abcdef0123456789abcdef") {
		t.Errorf("new copy %q: want the job resumed with fencing epoch 1", disp.Detail)
	}
	if _, resumed := e.tl.first(0, func(ev Event) bool { return ev.Kind == EvResume }); resumed {
		t.Error("the old copy was resumed, though the workload left a")
	}
	del, ok := e.tl.first(0, func(ev Event) bool { return ev.Kind == EvDelete && ev.Cluster == "a" })
	if !ok || del.At != part.At+30*time.Minute {
		t.Errorf("old copy deleted at %v, want when the partition ends", del.At)
	}
	if e.Stats().Fences != 1 {
		t.Errorf("%d fences, want 1", e.Stats().Fences)
	}
	var text strings.Builder
	if err := e.Timeline().Render(&text); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "fence      flink@a") {
		t.Errorf("the printed timeline does not show the fence:\n%s", text.String())
	}
}

// TestPartitionWithoutFencingIsADoubleWriter: the same schedule with
// agents that do not fence, and with the agents' fence decision broken
// (it never fences): the escape starts the new copy while the old one
// still runs behind the partition, and the oracle says so.
func TestPartitionWithoutFencingIsADoubleWriter(t *testing.T) {
	_, v := runWith(t, flinkOnPullA(""), nil)
	if len(violationsOf(v, InvSingleWriter)) == 0 || len(violationsOf(v, InvSingleWriter)) != len(v) {
		t.Fatalf("agents that do not fence: %v, want the double writer only", v)
	}
	t.Log(v[0])
	holdsAndBreaksFence(t)
}

func holdsAndBreaksFence(t *testing.T) {
	t.Helper()
	holdsAndBreaks(t, flinkOnPullA(", fenceAfter: 2m"), InvSingleWriter, func(l *Library) {
		l.Fence = func(st fencing.State, now time.Time, cfg fencing.Config) fencing.Decision {
			return fencing.Decision{Action: fencing.ActionRun} // declares a fence it never takes
		}
	})
}

// TestShortPartitionResumes: a partition shorter than the failover: the
// agent fences, and resumes the copy when it hears the control plane
// again, since the workload is still placed there.
func TestShortPartitionResumes(t *testing.T) {
	data := strings.Replace(flinkOnPullA(", fenceAfter: 1m"), "defaultTolerationSeconds: 0", "defaultTolerationSeconds: 600", 1)
	data = strings.Replace(data, "for: 30m", "for: 3m", 1)
	e, v := runWith(t, data, nil)
	if len(v) > 0 {
		t.Fatalf("violations: %v", v)
	}
	fence, ok := e.tl.first(0, func(ev Event) bool { return ev.Kind == EvFence })
	if !ok {
		t.Fatal("no fence")
	}
	resume, ok := e.tl.first(0, func(ev Event) bool { return ev.Kind == EvResume && ev.Cluster == "a" })
	if !ok || resume.At != 5*time.Minute {
		t.Fatalf("resumed at %v (%v), want when the partition ends at 5m, after the fence at %v", resume.At, ok, fence.At)
	}
	if e.Stats().Evictions != 0 {
		t.Errorf("%d evictions: the workload tolerates the partition", e.Stats().Evictions)
	}
}

// TestPushPartitionIsTheDocumentedRisk: a Push cluster cannot fence; its
// escape is the documented risk, which the oracle does not count.
func TestPushPartitionIsTheDocumentedRisk(t *testing.T) {
	data := strings.Replace(flinkOnPullA(", fenceAfter: 2m"), "syncMode: Pull", "syncMode: Push", 1)
	e, v := runWith(t, data, nil)
	if len(v) > 0 {
		t.Fatalf("violations: %v", v)
	}
	if _, ok := e.tl.first(0, func(ev Event) bool { return ev.Kind == EvFence }); ok {
		t.Error("a Push cluster fenced")
	}
	if _, ok := e.tl.first(0, func(ev Event) bool { return ev.Kind == EvDispatch && ev.Cluster == "b" }); !ok {
		t.Error("no escape off the Push cluster")
	}
}

// TestFenceAfterMustFitTheEscape: a fence the control plane's escape
// cannot wait for is a scenario error naming the field.
func TestFenceAfterMustFitTheEscape(t *testing.T) {
	_, err := ParseScenario("s.yaml", []byte(flinkOnPullA(", fenceAfter: 10m")))
	if err == nil || !strings.Contains(err.Error(), "settings.directlyEscapeTimeout") || !strings.Contains(err.Error(), "fenceAfter + maxClockSkew + fenceMargin") {
		t.Fatalf("error %v, want one naming the escape the fence does not fit", err)
	}
}

// TestCampaignWithoutFencingFindsTheDoubleWriter: the random schedules
// with agents that do not fence find the double writer a partition makes;
// the same schedules with fencing hold (TestCampaign runs them).
func TestCampaignWithoutFencingFindsTheDoubleWriter(t *testing.T) {
	const schedules = 200
	off, err := RunCampaign(CampaignConfig{Schedules: schedules, FirstSeed: 1, NoFencing: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(violationsOf(off.Violations, InvSingleWriter)) == 0 || len(violationsOf(off.Violations, InvSingleWriter)) != len(off.Violations) {
		t.Fatalf("without fencing: %d violations %v, want double writers only", len(off.Violations), off.Violations)
	}
	if !strings.Contains(string(off.FailingScenario), "type: partition") || strings.Contains(string(off.FailingScenario), "fenceAfter") {
		t.Errorf("the failing schedule has no partition, or fences:\n%s", off.FailingScenario)
	}
	on, err := RunCampaign(CampaignConfig{Schedules: schedules, FirstSeed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(on.Violations) != 0 {
		t.Fatalf("with fencing: %v", on.Violations)
	}
	t.Logf("%d schedules: %d double writers without fencing, none with", schedules, len(off.Violations))
}
