package main

import (
	"bytes"
	"io"
	"regexp"
	"strings"
	"testing"
)

func TestScaleWaveSmall(t *testing.T) {
	res, err := RunScaleWave(ScaleConfig{Clusters: 40, Workloads: 6000, FailPercent: 10, StatefulEvery: 10, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed != 4 {
		t.Errorf("failed %d clusters, want 4", res.Failed)
	}
	if res.OnFailed == 0 || res.Planned != 2*res.OnFailed {
		t.Errorf("planned %d for %d bindings on failed clusters (two planner passes)", res.Planned, res.OnFailed)
	}
	// One policy in three tolerates the not-ready taint forever: those
	// bindings are planned but never evicted.
	if res.Evicted == 0 || res.Evicted >= res.OnFailed {
		t.Errorf("evicted %d of %d", res.Evicted, res.OnFailed)
	}
	if res.Extracted == 0 || res.Extracted > res.Evicted {
		t.Errorf("extracted state for %d of %d evictions", res.Extracted, res.Evicted)
	}
	if res.Replaced != res.Evicted {
		t.Errorf("re-placed %d of %d evictions", res.Replaced, res.Evicted)
	}
	if res.TasksRemoved != res.Evicted {
		t.Errorf("%d tasks removed for %d evictions: every replacement is healthy", res.TasksRemoved, res.Evicted)
	}
}

// timeRE is a time as the target line states it: CPU, then wall.
const timeRE = `(\d[\d.]*(ns|µs|ms|s|m\d+s)|unknown) CPU, \d[\d.]*(ns|µs|ms|s|m\d+s) wall`

// TestScaleOutputSaysWhatItCounts holds -scale's output to its shape, not
// its timings: every count has a label saying what it counts, and every
// time, the whole run's too, is CPU and wall as in the line of the target.
func TestScaleOutputSaysWhatItCounts(t *testing.T) {
	var out bytes.Buffer
	if code := run([]string{"-scale", "-clusters", "40", "-workloads", "3000", "-seed", "2"}, &out, io.Discard); code != 0 {
		t.Fatalf("exit %d", code)
	}
	text := out.String()
	for _, re := range []string{
		`(?m)^scale wave: 40 clusters in 12 zones of 4 regions, 3000 workloads, GOMAXPROCS=1$`,
		`(?m)^  failed: 4 clusters, drawn over \d+ of the 12 zones$`,
		`(?m)^  copies: \d+ \(workload x cluster placements\), \d+ of them on failed clusters$`,
		`(?m)^    planned +\d+  planner decisions: `,
		`(?m)^    evicted +\d+  copies evicted; `,
		`(?m)^    state extracted +\d+  evictions of a stateful job `,
		`(?m)^    re-placed +\d+  evicted copies given another cluster`,
		`(?m)^    assessments +\d+  judgments of a workload's eviction tasks`,
		`(?m)^    tasks removed +\d+  eviction tasks done`,
		`(?m)^    health +` + timeRE + `$`,
		`(?m)^    evict\+extract\+re-place +` + timeRE + `$`,
		`(?m)^  wave decision time: ` + timeRE + ` \(target <= 2s on one core\)$`,
		`(?m)^  fleet built in: ` + timeRE + ` \(outside the wave\)$`,
		`(?m)^  whole run: ` + timeRE + ` \(process user\+sys and wall from start to end of the run\)$`,
	} {
		if !regexp.MustCompile(re).MatchString(text) {
			t.Errorf("no line matches %s in\n%s", re, text)
		}
	}
	// A count without a label is a bare number after a colon or a comma.
	if m := regexp.MustCompile(`(?m)^.*[:,] \d+$`).FindString(text); m != "" {
		t.Errorf("a count says not what it counts: %q", m)
	}
	out.Reset()
	if code := run([]string{"-scale", "-clusters", "40", "-workloads", "3000", "-fail-zone", "region-1b"}, &out, io.Discard); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out.String(), "\n  failed: 3 clusters, every one of zone region-1b\n") {
		t.Errorf("a zone outage's output:\n%s", out.String())
	}
	var errOut bytes.Buffer
	if code := run([]string{"-scale", "-clusters", "40", "-fail-zone", "region-9z"}, &out, &errOut); code != 2 ||
		!strings.Contains(errOut.String(), `no zone "region-9z" in the fleet`) {
		t.Errorf("an unknown zone: exit %d, %q", code, errOut.String())
	}
}
