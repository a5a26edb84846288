package main

import (
	"testing"
)

// TestCampaign runs 1,000 seeded random fault schedules and checks every
// invariant after every step of each (DESIGN.md section 6).
func TestCampaign(t *testing.T) {
	const schedules = 1000
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
