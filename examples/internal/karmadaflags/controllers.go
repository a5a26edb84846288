package karmadaflags

import (
	"fmt"
	"slices"
	"strings"
)

// The names of karmada-controller-manager's controllers whose work
// fleetover's reference controllers can do.
const (
	// ControllerCluster monitors cluster health (Ready turns Unknown when
	// a cluster falls silent), keeps the health taints and, with
	// --enable-taint-manager and the Failover gate, runs the taint
	// manager.
	ControllerCluster = "cluster"
	// ControllerClusterStatus probes push-mode clusters and posts their
	// Ready condition.
	ControllerClusterStatus = "clusterStatus"
	// ControllerClusterTaintPolicy applies ClusterTaintPolicy objects
	// (with the Failover gate).
	ControllerClusterTaintPolicy = "clustertaintpolicy"
	// ControllerGracefulEviction removes graceful eviction tasks.
	ControllerGracefulEviction = "gracefulEviction"
	// ControllerApplicationFailover evicts unhealthy workloads.
	ControllerApplicationFailover = "applicationFailover"
	// ControllerBinding turns bindings into Works (and injects the
	// preserved state).
	ControllerBinding = "binding"
)

// Controllers returns the names of every controller karmada-controller-
// manager v1.18.1 has, sorted.
func Controllers() []string {
	names := []string{
		"agentcsrapproving", "binding", "bindingStatus", "cluster", "clusterStatus", "clustertaintpolicy",
		"cronFederatedHorizontalPodAutoscaler", "deploymentReplicasSyncer", "endpointSlice", "endpointsliceCollect",
		"endpointsliceDispatch", "execution", "federatedHorizontalPodAutoscaler", "federatedResourceQuotaEnforcement",
		"federatedResourceQuotaStatus", "federatedResourceQuotaSync", "gracefulEviction", "hpaScaleTargetMarker",
		"multiclusterservice", "namespace", "remedy", "serviceExport", "serviceImport", "unifiedAuth",
		"workStatus", "workloadRebalancer", "applicationFailover",
	}
	slices.Sort(names)
	return names
}

// DisabledByDefault returns the controllers "*" does not enable.
func DisabledByDefault() []string {
	return []string{"deploymentReplicasSyncer", "hpaScaleTargetMarker"}
}

// Selection is a --controllers value: "*" enables every controller on by
// default, "name" enables one, "-name" disables one, and the first item
// naming a controller wins over the later ones and over "*".
type Selection []string

// ParseSelection splits a comma-separated --controllers value. Every name
// must be one of known (a leading "-" aside) or "*"; the error names the
// items that are not.
func ParseSelection(value string, known []string) (Selection, error) {
	var out Selection
	var unknown []string
	for _, item := range strings.Split(value, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		if item != "*" && !slices.Contains(known, strings.TrimPrefix(item, "-")) {
			unknown = append(unknown, item)
		}
		out = append(out, item)
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("unknown controller(s) %s; known: %s", strings.Join(unknown, ", "), strings.Join(known, ", "))
	}
	return out, nil
}

// Enabled reports whether the selection runs name, given whether name is
// on by default.
func (s Selection) Enabled(name string, onByDefault bool) bool {
	for _, item := range s {
		switch item {
		case name:
			return true
		case "-" + name:
			return false
		}
	}
	return onByDefault && slices.Contains(s, "*")
}

// Named lists the controllers the selection names (enabled or disabled),
// in order, without "*".
func (s Selection) Named() []string {
	var out []string
	for _, item := range s {
		if item != "*" {
			out = append(out, strings.TrimPrefix(item, "-"))
		}
	}
	return out
}

// String joins the selection back into a flag value.
func (s Selection) String() string { return strings.Join(s, ",") }
