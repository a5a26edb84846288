package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// TestExplainFollowsTheOutage: -explain prints the Flink job's chain through
// the embedded outage, in order: settled, the cluster not ready before its
// NoExecute taint, the toleration running out, the Directly dispatch waiting
// for the old copy, and settled on the new cluster.
func TestExplainFollowsTheOutage(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"-explain", "flink"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	text := out.String()
	if strings.Contains(text, "TIMELINE") {
		t.Error("-explain replaces the timeline")
	}
	holds := []string{
		"=> ClusterHealth     ClusterNotReadyWithoutNoExecuteTaint cluster east-1",
		"=> Toleration        TolerationNotExpired",
		"=> Dispatch          WaitingForOldCopy                the new copy on cluster east-2",
		"Workload          Settled                          the workload runs on east-2",
		"SUMMARY",
	}
	at := 0
	for _, h := range holds {
		i := strings.Index(text[at:], h)
		if i < 0 {
			t.Fatalf("missing, or out of order: %q\n%s", h, text)
		}
		at += i + len(h)
	}
	// A chain is printed only when it changes, not at each of the 1,080
	// steps.
	if n := strings.Count(text, "why flink is where it is"); n < 5 || n > 20 {
		t.Errorf("%d chains printed, want one per change", n)
	}
}

func TestExplainRejectsWhatItCannotExplain(t *testing.T) {
	cases := [][]string{
		{"-explain", "nope"},
		{"-explain", ""},
		{"-explain", "web", "-campaign", "3"},
		{"-explain", "web", "-o", "json"},
		{"-explain", "web", "-quiet"},
	}
	for _, args := range cases {
		var errOut bytes.Buffer
		if code := run(args, io.Discard, &errOut); code != 2 || !strings.Contains(errOut.String(), "explain") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message naming -explain", args, code, errOut.String())
		}
	}
}

// -explain speaks one clock: every time is relative to the start, which
// the header states once.
func TestExplainOneClock(t *testing.T) {
	var out bytes.Buffer
	if code := run([]string{"-explain", "flink"}, &out, io.Discard); code != 0 {
		t.Fatalf("exit %d", code)
	}
	text := out.String()
	if n := strings.Count(text, "2026-01-01T"); n != 1 {
		t.Errorf("the start date appears %d times, want once (in the header):\n%s", n, text)
	}
	for _, want := range []string{"times are from the start, 2026-01-01T00:00:00Z", "(until +00:16:30)", "next change by itself at +00:26:30"} {
		if !strings.Contains(text, want) {
			t.Errorf("-explain output lacks %q", want)
		}
	}
}

// On Karmada's rules with failover on and no ClusterTaintPolicy, -explain
// says that nothing will evict, as a warning with the object to create.
func TestExplainKarmadaWithoutTaintPolicy(t *testing.T) {
	dir := writeExport(t, smallExport)
	var out bytes.Buffer
	if code := run([]string{"-fleet", dir, "-karmada-flags", karmadaFailoverOn, "-explain", "shop/web"}, &out, io.Discard); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(out.String(), "!! ClusterHealth     NoNoExecuteTaintSource           cluster m1 is not ready (ClusterNotReachable)") ||
		!strings.Contains(out.String(), "nothing will evict the workload until a ClusterTaintPolicy adds one; create one: apiVersion: policy.karmada.io/v1alpha1, kind: ClusterTaintPolicy") {
		t.Errorf("no NoNoExecuteTaintSource warning:\n%s", out.String())
	}
}

// -explain shows every placement change, evictions and the others alike:
// the Duplicated ingress gateway of the export is evicted from the
// cluster that failed, and topped up on it again once it is back; each
// placement gets its chain, in order.
func TestExplainShowsEveryPlacement(t *testing.T) {
	var out bytes.Buffer
	args := []string{"-fleet", "testdata/karmada-export", "-karmada-flags", karmadaFailoverOn, "-explain", "platform/ingress-gateway"}
	if code := run(args, &out, io.Discard); code != 0 {
		t.Fatalf("exit %d", code)
	}
	text := out.String()
	at := 0
	for _, h := range []string{
		"+00:00:00  why platform/ingress-gateway",
		"the workload runs on aws-use1-a, aws-use1-b, aws-use1-c, gcp-euw1-b, onprem-fra",
		"cluster aws-use1-a",
		"the workload runs on aws-use1-b, aws-use1-c, gcp-euw1-b, onprem-fra",
		"+00:35:30  why platform/ingress-gateway",
		"the workload runs on aws-use1-b, aws-use1-c, gcp-euw1-b, onprem-fra, aws-use1-a",
	} {
		i := strings.Index(text[at:], h)
		if i < 0 {
			t.Fatalf("missing, or out of order: %q\n%s", h, text)
		}
		at += i + len(h)
	}
}
