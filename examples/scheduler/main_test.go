package main

import (
	"bytes"
	"strings"
	"testing"
)

// The story the scheduler tells, every line of it.
func Example() {
	main()
	// Output:
	// 1. health (failover/health)
	//    web on ams     Healthy (healthy)
	//    web on fra     Unhealthy (status.availableReplicas 0 < status.updatedReplicas 3)
	//    orders on par  Healthy (healthy)
	//    orders on dub  Unhealthy (CEL rule returned Unhealthy)
	// 2. tolerations (failover)
	//    web on fra: EvictAfter, 1m0s from now (the not-ready taint came 4m0s ago)
	//    at 09:01:00: EvictNow
	// 3. filters (scheduling)
	//    feasible: [ams par]
	//    fra rejected by TaintToleration: the cluster has a NoSchedule taint the workload does not tolerate
	//    dub rejected by ClusterAffinity: cluster is not in the affinity's cluster names
	// 4. re-placement (scheduling)
	//    web (Duplicated): [ams fra] -> [ams par]
	//      move 3 replica(s) fra -> par: ClusterFailed
	//    api (Divided): [ams=2 fra=1] -> [ams=3]
	//      move 1 replica(s) fra -> ams: ClusterFailed
}

// The re-placement keeps the healthy cluster and never picks the failed one.
func TestStoryReplacesTheFailedCluster(t *testing.T) {
	var b bytes.Buffer
	if err := tell(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"web (Duplicated): [ams fra] -> [ams par]",
		"api (Divided): [ams=2 fra=1] -> [ams=3]",
		"web on fra: EvictAfter, 1m0s from now",
		"orders on dub  Unhealthy",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("story lacks %q:\n%s", want, out)
		}
	}
}
