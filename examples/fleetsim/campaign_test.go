package main

import (
	"flag"
	"strings"
	"testing"
	"time"
)

// campaignSchedules sizes TestCampaign: go test -run 'TestCampaign$'
// ./examples/fleetsim -args -schedules 20000 runs the long campaign.
var campaignSchedules = flag.Int("schedules", 1000, "how many random schedules TestCampaign runs (at most raceCampaignSchedules under the race detector)")

// raceCampaignSchedules bounds TestCampaign under the race detector.
const raceCampaignSchedules = 100

// TestCampaign runs 1,000 seeded random fault schedules (-schedules) and
// checks every invariant after every step of each (DESIGN.md section 6 and
// the stateful-failover invariants).
func TestCampaign(t *testing.T) {
	schedules := *campaignSchedules
	if raceDetector && schedules > raceCampaignSchedules {
		// The floor run (hack/test.sh) draws the full count without the
		// race detector; under it, the workers' sharing is what is checked.
		schedules = raceCampaignSchedules
	}
	res, err := RunCampaign(CampaignConfig{Schedules: schedules, FirstSeed: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("campaign: %d schedules, %d steps, %d evictions, %d controller restarts, %d violations",
		res.Schedules, res.Steps, res.Evictions, res.Restarts, len(res.Violations))
	if res.Schedules != schedules {
		t.Fatalf("ran %d schedules, want %d", res.Schedules, schedules)
	}
	if res.Evictions == 0 || res.Restarts == 0 {
		t.Fatalf("the campaign exercised nothing: %d evictions, %d restarts", res.Evictions, res.Restarts)
	}
	for i, v := range res.Violations {
		if i == 5 {
			break
		}
		t.Errorf("%v", v)
	}
	if len(res.Violations) > 0 {
		t.Logf("first failing schedule:\n%s", res.FailingScenario)
	}
}

// FuzzWithRandomFaults: for any seed and duration, the campaign's rewrite
// of the embedded scenario parses and keeps its fleet.
func FuzzWithRandomFaults(f *testing.F) {
	f.Add(int64(1), int64(0))
	f.Add(int64(-7), int64(time.Minute))
	f.Add(int64(3), int64(time.Second)) // shorter than a step
	f.Add(int64(1<<62), int64(31*24*time.Hour))
	base, err := ParseScenario("scenario.yaml", embeddedScenario)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, seed, duration int64) {
		d := time.Duration(duration)
		if d < 0 || d > 31*24*time.Hour {
			d = 0 // outside what a scenario may last: the scenario's own
		}
		data, err := WithRandomFaults(embeddedScenario, base, seed, d)
		if err != nil {
			t.Fatal(err)
		}
		sc, err := ParseScenario("campaign.yaml", data)
		if err != nil {
			t.Fatalf("seed %d, duration %s: %v\n%s", seed, d, err, data)
		}
		if sc.Seed != seed || len(sc.Clusters) != len(base.Clusters) || len(sc.Workloads) != len(base.Workloads) || len(sc.Faults) == 0 {
			t.Fatalf("seed %d: fleet or faults lost: %d clusters, %d workloads, %d faults", seed, len(sc.Clusters), len(sc.Workloads), len(sc.Faults))
		}
	})
}

// The random schedules draw every feature the oracle has to hold the
// controllers to, and every one of them parses.
func TestRandomScenariosDrawEveryFeature(t *testing.T) {
	seen := map[string]int{}
	features := map[string]string{
		"regions":              "region: r",
		"region spreads":       "spreadByField: region",
		"zone spreads":         "spreadByField: zone",
		"affinity groups":      "clusterAffinities:",
		"a later group":        "affinityGroup: g",
		"suspended scheduling": "schedulingSuspended: true",
		"a resume":             "type: resumeScheduling",
		"a suspension":         "type: suspendScheduling",
		"Divided workloads":    "replicaSchedulingType: Divided",
		"unreadable state":     "type: stateUnreadable",
	}
	for seed := int64(1); seed <= 300; seed++ {
		data := RandomScenario(seed, 0)
		if _, err := ParseScenario("campaign.yaml", data); err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, data)
		}
		for name, marker := range features {
			if strings.Contains(string(data), marker) {
				seen[name]++
			}
		}
	}
	for name := range features {
		if seen[name] == 0 {
			t.Errorf("300 schedules drew no %s", name)
		}
	}
}

// The campaign reaches the held re-placement: dispatching to a cluster is
// suspended while a workload waits, with its scheduling suspended, for the
// re-placement of an eviction from it, which the re-placement then undoes.
func TestRandomSchedulesUndoAHeldEviction(t *testing.T) {
	for seed := int64(1); seed <= 100; seed++ {
		sc, err := ParseScenario("campaign.yaml", RandomScenario(seed, 0))
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		e, err := NewEngine(sc, Options{})
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		if v := e.Run(); len(v) > 0 {
			t.Fatalf("seed %d: %v", seed, v[0])
		}
		if _, ok := e.tl.first(0, func(ev Event) bool { return strings.HasPrefix(ev.Detail, "eviction undone") }); ok {
			return
		}
	}
	t.Fatal("100 schedules undid no eviction")
}
