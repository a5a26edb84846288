package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Zero means zero or is an error, never a silent default.
func TestZeroSettingsAreErrors(t *testing.T) {
	for key, def := range map[string]string{
		"evictionTimeout": "5m0s", "failureThreshold": "30s", "gracefulEvictionTimeout": "10m0s", "startupDelay": "20s",
	} {
		_, err := ParseScenario("s.yaml", []byte("settings:\n  "+key+": 0s\nclusters: [{name: a, zone: z}]\n"))
		want := "s.yaml:2: settings." + key + ": must be greater than 0: 0 is not taken as " + def
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: 0s: err = %v, want %q", key, err, want)
		}
	}
	_, err := ParseScenario("s.yaml", []byte("settings:\n  evictionsPerSecond: 0\nclusters: [{name: a, zone: z}]\n"))
	if err == nil || !strings.Contains(err.Error(), "settings.evictionsPerSecond: must be greater than 0") {
		t.Errorf("evictionsPerSecond 0: err = %v", err)
	}
	// defaultTolerationSeconds 0 is honoured: zero seconds.
	sc, err := ParseScenario("s.yaml", []byte("settings:\n  defaultTolerationSeconds: 0\nclusters: [{name: a, zone: z}]\n"))
	if err != nil || *sc.Settings.DefaultTolerationSeconds != 0 {
		t.Errorf("defaultTolerationSeconds 0: %v", err)
	}
}

// -seed on a run that draws nothing at random says so.
func TestSeedWithoutRandomness(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"-seed", "7", "-quiet", "-scenario", "testdata/replay/zone-spread.yaml"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	if !strings.Contains(errOut.String(), "fleetsim: -seed 7: this run drew nothing at random") {
		t.Errorf("stderr %q does not say the seed changed nothing", errOut.String())
	}
	// A Flink job without a job id draws one: no note.
	dir := t.TempDir()
	p := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(p, []byte("clusters: [{name: a, zone: z}]\nworkloads: [{name: j, kind: FlinkDeployment, replicas: 1}]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	errOut.Reset()
	if code := run([]string{"-seed", "7", "-quiet", "-scenario", p}, &out, &errOut); code != 0 || strings.Contains(errOut.String(), "drew nothing") {
		t.Errorf("exit %d; the run draws a job id, yet: %s", code, errOut.String())
	}
}

// -campaign N -report DIR writes the campaign's result, failing or not.
func TestCampaignReportWritten(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	if code := run([]string{"-campaign", "3", "-report", dir}, &out, &bytes.Buffer{}); code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	md, err := os.ReadFile(filepath.Join(dir, "campaign.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "campaign on random fleets: 3 schedules (seeds 1..3)") || !strings.Contains(string(md), "Every invariant held") {
		t.Errorf("campaign.md:\n%s", md)
	}
}

// Errors name the flag they came from; an export given to -scenario says
// to use -fleet; a scenario kept inside the -fleet directory is left out
// of the fleet, reported.
func TestFlagErrorsAndMixedInputs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-scenario", "nope.yaml"}, "fleetsim: -scenario: open nope.yaml: no such file or directory"},
		{[]string{"-fleet", "nope"}, "fleetsim: -fleet: stat nope: no such file or directory"},
		{[]string{"-scenario", "testdata/karmada-export/clusters.yaml"}, "fleetsim: -scenario: testdata/karmada-export/clusters.yaml holds Karmada objects (kubectl get -o yaml output), not a scenario: run it with -fleet testdata/karmada-export/clusters.yaml"},
	} {
		var errOut bytes.Buffer
		if code := run(tc.args, &bytes.Buffer{}, &errOut); code != 2 {
			t.Errorf("%q: exit %d", tc.args, code)
		}
		if !strings.HasPrefix(errOut.String(), tc.want) {
			t.Errorf("%q: stderr %q, want %q", tc.args, errOut.String(), tc.want)
		}
	}
	dir := writeExport(t, smallExport)
	if err := os.WriteFile(filepath.Join(dir, "faults.yaml"), []byte("faults:\n- {at: 1m, type: outage, cluster: m2}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := runOut(t, 0, "-fleet", dir, "-quiet")
	if !strings.Contains(out, "a fleetsim scenario, not a Karmada object: left out of the fleet (lay it over the fleet with -scenario)") {
		t.Errorf("the scenario in the directory is not reported:\n%s", out)
	}
}
