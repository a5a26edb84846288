package main

import (
	"fmt"
	"os"
	"strings"
)

// A scenario file with a mistake: the error names the file, the line and
// the field.
func ExampleParseScenario() {
	_, err := ParseScenario("scenario.yaml", []byte(`name: demo
clusters:
  - {name: east-1, zone: east}
  - {name: west-1, zone: west}
  - {name: west-2}
faults:
  - {at: 10m, type: outage, cluster: east-9}
`))
	fmt.Println(err)
	// Output:
	// scenario.yaml:5: clusters[2].zone: must not be empty: every cluster belongs to a zone
	// scenario.yaml:7: faults[0].cluster: unknown cluster "east-9"
}

// A whole run of the embedded scenario, summary only.
func Example_run() {
	var out strings.Builder
	code := run([]string{"-quiet"}, &out, os.Stderr)
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if !strings.Contains(line, "wall time") { // depends on the machine
			fmt.Println(line)
		}
	}
	fmt.Println("exit", code)
	// Output:
	// RULES  fleetover's (the library's defaults)
	//   cluster failover: on; NoExecute taints from the health taint, 5m0s after Ready leaves True (fleetover)
	//   default tolerations: not-ready and unreachable NoExecute for 60s, added to every workload
	//   eviction pacing: 50/s fleet-wide with disruption modes (evictions stop while every cluster is unhealthy)
	//   purge Directly: the new copy waits for the old copy's deletion, giving up on an unreachable cluster after 10m0s
	//   state injection: only where one writer is guaranteed (purged Directly, one new target), with a fencing epoch
	//   purge mode of cluster failover when the policy gives none: Gracefully; graceful eviction timeout 10m0s
	//
	// SUMMARY  scenario "embedded", seed 1: 5 clusters, 4 workloads, 3 faults, 1h30m0s of fleet time in 5s steps
	//   outage of east-1 at +00:10:00
	//     time to Ready not True            +30s
	//     time to NoSchedule taint          +30s
	//     time to NoExecute taint           +5m30s
	//     time to first eviction            +6m30s  (api, flink, web evicted)
	//     time to workloads healthy again   +16m50s  (api, flink, web ran there)
	//   workloadUnhealthy: checkout on south-1 at +00:55:00
	//     time to first eviction            +2m5s
	//     time to checkout healthy again    +2m25s
	//   state carried: flink job id e6fdb5c0997c11b0c62d796b3df25e86 arrived on east-2 as label failover.fleetover.io/jobid=e6fdb5c0997c11b0c62d796b3df25e86; the job resumed (1 failover(s))
	//   suspended: web -> west-2 never dispatched to
	//   activity: 4 evictions, 10 dispatches (9 new copies, 1 replica change), 4 deletions, 4 eviction tasks closed, 1 controller restart
	//   invariants: all 13 held after each of 1080 steps (0 violations)
	// exit 0
}
