// Command scheduler is a home-grown multi-cluster scheduler that borrows
// four of fleetover's building blocks and nothing else: no Karmada types, no
// Kubernetes API server. Each package is used on its own:
//
//   - failover/health tells whether the workload is healthy where it runs
//     (a built-in rule for Deployments, a CEL rule for a custom kind);
//   - failover decides how long the workload tolerates a failing cluster's
//     taints;
//   - scheduling filters the fleet and re-places the workload when it must
//     leave a cluster, for a Duplicated and a Divided workload.
//
// It prints a short story of one cluster failing.
package main
