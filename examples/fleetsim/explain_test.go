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
