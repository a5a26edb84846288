package main

import (
	"bytes"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/examples/fleetsim/replay"
)

var update = flag.Bool("update", false, "rewrite the replay fixtures from the simulator's runs")

// replayDir holds the scenarios the reference controllers replay and the
// fixture of each (examples/karmada/controllers/replay_test.go).
const replayDir = "testdata/replay"

// replayScenarios are the replayed scenarios: the embedded one, and the
// scenario files in replayDir.
func replayScenarios(t *testing.T) map[string][]byte {
	t.Helper()
	out := map[string][]byte{"embedded": embeddedScenario}
	files, err := filepath.Glob(filepath.Join(replayDir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f[:len(f)-len(".yaml")])] = data
	}
	return out
}

// TestReplayFixtures runs each replayed scenario and checks its fixture
// still says what the simulator decides; -update rewrites them.
func TestReplayFixtures(t *testing.T) {
	scenarios := replayScenarios(t)
	if len(scenarios) < 3 {
		t.Fatalf("%d replayed scenarios, want the embedded one and at least two in %s", len(scenarios), replayDir)
	}
	for name, data := range scenarios {
		t.Run(name, func(t *testing.T) {
			sc, err := ParseScenario(name+".yaml", data)
			if err != nil {
				t.Fatal(err)
			}
			fx, err := replayFixture(sc)
			if err != nil {
				t.Fatal(err)
			}
			if len(fx.Evictions) == 0 {
				t.Fatal("the scenario evicts nothing: a replay would compare nothing")
			}
			var buf bytes.Buffer
			if err := replay.Write(&buf, fx); err != nil {
				t.Fatal(err)
			}
			// What the controllers replay must be what Read accepts.
			if _, err := replay.Read(bytes.NewReader(buf.Bytes())); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(replayDir, name+".golden.json")
			if *update {
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (write it with: go test ./examples/fleetsim -run TestReplayFixtures -update)", err)
			}
			if diff := cmp.Diff(string(want), buf.String()); diff != "" {
				t.Fatalf("the simulator no longer decides what %s says (-fixture +now); if the change is meant, rewrite it with -update and run the Karmada replay:\n%s", path, diff)
			}
		})
	}
}

// replayFaults lists the primitive faults for the replay. A flapping
// cluster is down for a period, up for the next, and so on, from the flap
// until the cluster's next recovery (or the end of the run): each change
// becomes an outage or a recovery of its own, so the replay needs no clock
// of its own for the flap.
func replayFaults(faults []timedFault, duration time.Duration) []replay.Fault {
	var out []replay.Fault
	for i, f := range faults {
		if f.kind != FaultFlap {
			rf := replay.Fault{At: metav1.Duration{Duration: f.at}, Type: f.kind, Cluster: f.spec.Cluster, Zone: f.spec.Zone, Workload: f.spec.Workload}
			if f.kind == FaultPartitionOnPurge {
				rf.For = &metav1.Duration{Duration: f.spec.For.D()}
			}
			out = append(out, rf)
			continue
		}
		end := duration
		for _, later := range faults[i+1:] {
			if later.kind == FaultRecover && (later.spec.Cluster == f.spec.Cluster || (later.spec.Cluster == "" && later.spec.Zone == "")) {
				end = later.at
				break
			}
		}
		period := f.spec.Period.D()
		for k, at := 0, f.at; at < end && period > 0; k, at = k+1, at+period {
			kind := FaultOutage
			if k%2 == 1 {
				kind = FaultRecover
			}
			out = append(out, replay.Fault{At: metav1.Duration{Duration: at}, Type: kind, Cluster: f.spec.Cluster})
		}
	}
	slices.SortStableFunc(out, func(a, b replay.Fault) int {
		switch {
		case a.At.Duration < b.At.Duration:
			return -1
		case a.At.Duration > b.At.Duration:
			return 1
		}
		return 0
	})
	return out
}

// replayFixture runs sc and records it for the replay.
func replayFixture(sc *Scenario) (*replay.Fixture, error) {
	e, err := NewEngine(sc, Options{})
	if err != nil {
		return nil, err
	}
	st := sc.Settings
	fx := &replay.Fixture{
		Version:  replay.Version,
		Scenario: sc.Name,
		Step:     metav1.Duration{Duration: sc.Step.D()},
		Duration: metav1.Duration{Duration: sc.Duration.D()},
		Settings: replay.Settings{
			FailureThreshold:          metav1.Duration{Duration: st.FailureThreshold.D()},
			SuccessThreshold:          metav1.Duration{Duration: st.SuccessThreshold.D()},
			MonitorGracePeriod:        metav1.Duration{Duration: st.MonitorGracePeriod.D()},
			StartupGracePeriod:        metav1.Duration{Duration: st.StartupGracePeriod.D()},
			EvictionTimeout:           metav1.Duration{Duration: st.EvictionTimeout.D()},
			NoExecuteTaints:           *st.NoExecuteTaints,
			DefaultTolerationSeconds:  *st.DefaultTolerationSeconds,
			GracefulEvictionTimeout:   metav1.Duration{Duration: st.GracefulEvictionTimeout.D()},
			ClusterPurgeMode:          st.ClusterPurgeMode,
			StartupDelay:              metav1.Duration{Duration: st.StartupDelay.D()},
			EvictionsPerSecond:        st.EvictionsPerSecond,
			PacePerZone:               st.PacePerZone,
			CancelOnRecovery:          st.CancelOnRecovery,
			StatefulFailoverInjection: *st.StatefulInjection,
		},
	}
	for _, c := range sc.Clusters {
		fx.Clusters = append(fx.Clusters, replay.Cluster{Name: c.Name, Zone: c.Zone, Region: c.Region, SyncMode: c.SyncMode})
	}
	for _, w := range e.workloads {
		spec := w.spec
		rw := replay.Workload{
			Name: spec.Name, Kind: spec.Kind, Replicas: spec.Replicas, Divided: w.divided,
			Tolerations: spec.Tolerations, Failover: spec.Failover, Suspension: spec.Suspend, State: spec.State,
			Initial:             slices.Clone(w.targets),
			StaticWeights:       w.weights,
			SchedulingSuspended: spec.SchedulingSuspended,
		}
		if a := spec.Placement.ClusterAffinity; a != nil {
			rw.ClusterNames = a.ClusterNames
		}
		if b := w.clusterSpread; b != (groupBounds{}) {
			rw.ClusterSpread = &replay.SpreadConstraint{MinGroups: int32(b.min), MaxGroups: int32(b.max)}
		}
		if b := w.zoneSpread; b != (groupBounds{}) {
			rw.ZoneSpread = &replay.SpreadConstraint{MinGroups: int32(b.min), MaxGroups: int32(b.max)}
		}
		// From the spec, not w: a Divided workload's bounds are ignored on
		// both sides, but its need for a region still filters.
		for _, sp := range spec.Placement.SpreadConstraints {
			if sp.SpreadByField == SpreadByRegion {
				rw.RegionSpread = &replay.SpreadConstraint{MinGroups: int32(sp.MinGroups), MaxGroups: int32(sp.MaxGroups)}
			}
		}
		if len(w.groups) > 0 && w.group != 0 {
			rw.AffinityGroup = w.groups[w.group].name
		}
		for _, g := range w.groups {
			rw.AffinityGroups = append(rw.AffinityGroups, replay.AffinityGroup{Name: g.name, ClusterNames: slices.Sorted(maps.Keys(g.clusters))})
		}
		fx.Workloads = append(fx.Workloads, rw)
	}
	fx.Faults = replayFaults(e.faults, sc.Duration.D())
	e.Run()
	if v := e.Violations(); len(v) > 0 {
		return nil, v[0]
	}
	for i, w := range e.workloads {
		fx.Workloads[i].Final = slices.Clone(w.targets)
	}
	at := func(d time.Duration) metav1.Duration { return metav1.Duration{Duration: d} }
	for _, ev := range e.Timeline().Events {
		switch {
		case ev.Kind == EvEvict && ev.Reason != "":
			fx.Evictions = append(fx.Evictions, replay.Eviction{At: at(ev.At), Workload: ev.Workload, Cluster: ev.Cluster, Reason: ev.Reason, PurgeMode: ev.PurgeMode})
		case ev.Kind == EvDispatch && len(ev.Labels) > 0:
			// The fencing epoch is the simulator's own numbering of its
			// failovers (eviction.NextFencingEpoch over its binding); the
			// replay compares the state carried, not the epoch.
			labels := maps.Clone(ev.Labels)
			delete(labels, eviction.FencingEpochLabel)
			if len(labels) == 0 {
				continue
			}
			fx.Injections = append(fx.Injections, replay.Injection{At: at(ev.At), Workload: ev.Workload, Cluster: ev.Cluster, Labels: labels})
		}
	}
	return fx, nil
}

// The fixture records what the timeline shows: every eviction, in order,
// with its reason and purge mode.
func TestReplayFixtureFollowsTheTimeline(t *testing.T) {
	sc, err := ParseScenario("scenario.yaml", embeddedScenario)
	if err != nil {
		t.Fatal(err)
	}
	fx, err := replayFixture(sc)
	if err != nil {
		t.Fatal(err)
	}
	want := []replay.Eviction{
		{At: metav1.Duration{Duration: 16*time.Minute + 30*time.Second}, Workload: "web", Cluster: "east-1", Reason: eviction.ReasonTaintUntolerated, PurgeMode: eviction.PurgeGracefully},
		{At: metav1.Duration{Duration: 16*time.Minute + 30*time.Second}, Workload: "api", Cluster: "east-1", Reason: eviction.ReasonTaintUntolerated, PurgeMode: eviction.PurgeGracefully},
		{At: metav1.Duration{Duration: 16*time.Minute + 30*time.Second}, Workload: "flink", Cluster: "east-1", Reason: eviction.ReasonTaintUntolerated, PurgeMode: eviction.PurgeDirectly},
		{At: metav1.Duration{Duration: 57*time.Minute + 5*time.Second}, Workload: "checkout", Cluster: "south-1", Reason: eviction.ReasonApplicationFailure, PurgeMode: eviction.PurgeGracefully},
	}
	if diff := cmp.Diff(want, fx.Evictions); diff != "" {
		t.Fatalf("evictions (-want +got):\n%s", diff)
	}
	final := map[string][]eviction.TargetCluster{}
	for _, w := range fx.Workloads {
		final[w.Name] = w.Final
	}
	if got := final["flink"]; len(got) != 1 || got[0].Name != "east-2" {
		t.Errorf("flink ends on %v, want east-2", got)
	}
	if len(fx.Injections) != 1 || fx.Injections[0].Cluster != "east-2" || fx.Injections[0].Labels["failover.fleetover.io/jobid"] != "e6fdb5c0997c11b0c62d796b3df25e86" {
		t.Errorf("injections = %+v, want flink's job id on east-2", fx.Injections)
	}
	if n := len(fx.Faults); n != 5 {
		t.Errorf("%d primitive faults, want 5 (outage, restart, unhealthy and the two recoveries)", n)
	}
}

// A flap becomes an outage and a recovery per period, until the cluster's
// recovery or the end of the run; other faults pass as they are.
func TestReplayFaultsExpandAFlap(t *testing.T) {
	m := time.Minute
	faults := []timedFault{
		{at: 1 * m, kind: FaultFlap, spec: FaultSpec{Type: FaultFlap, Cluster: "a", Period: Duration(2 * m)}},
		{at: 2 * m, kind: FaultOutage, spec: FaultSpec{Type: FaultOutage, Cluster: "b"}},
		{at: 6 * m, kind: FaultRecover, spec: FaultSpec{Type: FaultRecover, Cluster: "a"}},
		{at: 7 * m, kind: FaultFlap, spec: FaultSpec{Type: FaultFlap, Cluster: "c", Period: Duration(3 * m)}},
	}
	var got []string
	for _, f := range replayFaults(faults, 12*m) {
		got = append(got, fmt.Sprintf("%s %s %s", f.At.Duration, f.Type, f.Cluster))
	}
	want := []string{
		"1m0s outage a", "2m0s outage b", "3m0s recover a", "5m0s outage a", "6m0s recover a",
		"7m0s outage c", "10m0s recover c",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("faults (-want +got):\n%s", diff)
	}
}
