// Package replay is the record of a simulator run that the reference
// controllers replay.
//
// The simulator (examples/fleetsim) is a model of the reference
// controllers. A Fixture holds what both sides need to run the same
// scenario, the fleet, the workloads with their first placement, the
// settings and the primitive faults in order, and what the simulator
// decided: the evictions in order, the state injected into new copies
// and every workload's final placement. fleetsim's tests write one per
// replayed scenario (go test ./examples/fleetsim -run TestReplayFixtures
// -update) and fail when a run no longer matches its fixture;
// examples/karmada's replay test drives its controllers through the same
// faults on a real API server and compares. A difference is a defect in
// one of the two.
//
// Status and Object are the member clusters' side of the model: the
// status a copy reports and the object the health interpreters read. The
// simulator's members and the replay's member emulator both use them, so
// the two sides decide on the same documents.
//
// The package has no dependencies beyond the library's, so the Karmada
// example module can read fixtures without importing the simulator.
package replay
