package main

import (
	"bytes"
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
	var b bytes.Buffer
	printScale(&b, res)
	if !strings.Contains(b.String(), "wave decision time") {
		t.Errorf("report %q", b.String())
	}
}
