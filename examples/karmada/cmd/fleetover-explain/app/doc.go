// Package app is fleetover-explain: it reads one binding of a Karmada
// control plane, its clusters, its Works and its failover policy, asks the
// library why the workload is where it is (controllers.ExplainBinding,
// the same explanation the controllers write into the binding's Failover
// condition) and prints the chain as a person reads it. Run is the whole
// command, callable with any rest.Config (the tests point it at envtest).
package app
