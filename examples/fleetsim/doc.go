// Command fleetsim runs a simulated fleet of clusters through outages,
// partitions, flapping and workload failures, driving the fleetover library
// exactly as a multi-cluster controller would, on a simulated clock. It
// prints a timeline and a summary, can write a report with an SVG timeline,
// and checks the library's invariants after every step.
//
//	go run ./examples/fleetsim                      # the embedded scenario
//	go run ./examples/fleetsim -scenario my.yaml -report out/
//	go run ./examples/fleetsim -campaign 1000       # randomized fault schedules
//	go run ./examples/fleetsim -scale               # 1,000 clusters, 1,000,000 workloads
//	go run ./examples/fleetsim -fleet examples/fleetsim/testdata/karmada-export
//	                                                # start from a Karmada export
//
// What belongs here: the simulation engine (a fake clock stepped by the
// scenario's step, ground truth for clusters and copies, the controllers'
// loop), the scenario format and its parser, the fault schedule, the
// invariant checks, the campaign, the scale wave and the reports. Every
// failover decision is the library's, called through its public API (see
// library.go); the simulator adds only what a controller adds around it:
// persistence, queues, dispatch and the member clusters.
//
// The engine's files follow the controllers it stands in for: engine.go
// holds the step loop; cluster.go the member clusters' ground truth, Ready
// condition and taints; workload.go a workload and its binding;
// clusterfailover.go the taint manager; appfailover.go application
// failover; evict.go an eviction; targets.go writing a placement;
// dispatch.go dispatch with state injection; gracefuleviction.go the
// graceful eviction controller; member.go the copies on member clusters;
// restart.go a controller restart. fleet.go makes a Karmada export, read
// by the karmadafleet package, into a scenario.
//
// Guarantees: a run is a pure function of the scenario and the seed (the
// same timeline every time); nothing reads the wall clock except the
// figures that say how long a run took; a panic in a step is reported as an
// invariant violation with its step, sim time and seed, never a crash.
//
// See docs/simulator.md for the scenario format.
package main
