package karmadaflags

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Karmada's feature gates that change failover.
const (
	// GateFailover turns cluster failover on: the taint manager and the
	// ClusterTaintPolicy controller run only with it.
	GateFailover = "Failover"
	// GateGracefulEviction allows application failovers that purge
	// Gracefully; without it Karmada refuses them.
	GateGracefulEviction = "GracefulEviction"
	// GateStatefulFailoverInjection extracts the preserved state at an
	// eviction and injects it into the new copy; without it no state is
	// carried.
	GateStatefulFailoverInjection = "StatefulFailoverInjection"
)

// Stage is a gate's maturity, which AllAlpha and AllBeta select by.
type Stage string

// The stages Karmada's gates are at.
const (
	Alpha Stage = "ALPHA"
	Beta  Stage = "BETA"
	GA    Stage = "GA"
)

// GateSpec is one feature gate: its default and its stage.
type GateSpec struct {
	Default bool
	Stage   Stage
}

// KnownGates returns karmada-controller-manager's feature gates with their
// defaults (Karmada v1.18.1, including the logging gates it takes from
// Kubernetes' component-base).
func KnownGates() map[string]GateSpec {
	return map[string]GateSpec{
		GateFailover:                        {false, Beta},
		GateGracefulEviction:                {true, Beta},
		"PropagateDeps":                     {true, Beta},
		"CustomizedClusterResourceModeling": {true, Beta},
		"PropagationPolicyPreemption":       {false, Alpha},
		"MultiClusterService":               {false, Alpha},
		"ResourceQuotaEstimate":             {false, Alpha},
		GateStatefulFailoverInjection:       {false, Alpha},
		"PriorityBasedScheduling":           {false, Alpha},
		"FederatedQuotaEnforcement":         {false, Alpha},
		"LoggingAlphaOptions":               {false, Alpha},
		"LoggingBetaOptions":                {true, Beta},
		"ContextualLogging":                 {true, Beta},
		"MultiplePodTemplatesScheduling":    {false, Alpha},
		"ControllerPriorityQueue":           {true, Beta},
		"WorkloadAffinity":                  {false, Alpha},
		"SchedulingOvercommitProtection":    {false, Alpha},
	}
}

// The switches that set every gate of a stage at once, as Kubernetes'
// feature gates have them; a gate set by name wins, wherever it stands.
const (
	AllAlpha = "AllAlpha"
	AllBeta  = "AllBeta"
)

// Gates is the --feature-gates flag: the gates set by name and the
// AllAlpha / AllBeta switches. It is a flag.Value; repeated flags add up,
// a later value for the same gate wins. The zero value is not usable:
// use NewGates.
type Gates struct {
	known map[string]GateSpec
	set   map[string]bool
	all   map[Stage]bool
}

// NewGates returns the gates at Karmada's defaults.
func NewGates() *Gates {
	return &Gates{known: KnownGates(), set: map[string]bool{}, all: map[Stage]bool{}}
}

// Enabled reports whether the gate is on: as set by name, else as its
// stage's All switch says, else its default. An unknown gate is off.
func (g *Gates) Enabled(name string) bool {
	spec, ok := g.known[name]
	if !ok {
		return false
	}
	if v, ok := g.set[name]; ok {
		return v
	}
	if v, ok := g.all[spec.Stage]; ok {
		return v
	}
	return spec.Default
}

// Set parses "Name=true,Other=false" as Kubernetes' --feature-gates does:
// unknown gates and values other than a boolean are errors, naming the
// gate; nothing is changed when any pair is wrong.
func (g *Gates) Set(value string) error {
	set := map[string]bool{}
	all := map[Stage]bool{}
	for _, pair := range strings.Split(value, ",") {
		pair = strings.TrimSpace(pair)
		if pair == "" {
			continue
		}
		name, raw, ok := strings.Cut(pair, "=")
		if !ok {
			return fmt.Errorf("missing bool value for %s", name)
		}
		name = strings.TrimSpace(name)
		b, err := strconv.ParseBool(strings.TrimSpace(raw))
		if err != nil {
			return fmt.Errorf("invalid value of %s=%s, err: %v", name, raw, err)
		}
		switch name {
		case AllAlpha:
			all[Alpha] = b
		case AllBeta:
			all[Beta] = b
		default:
			spec, ok := g.known[name]
			if !ok {
				return fmt.Errorf("unrecognized feature gate: %s", name)
			}
			if spec.Stage == GA && !b {
				return fmt.Errorf("cannot set feature gate %v to %v, feature is locked to true", name, b)
			}
			set[name] = b
		}
	}
	for k, v := range set {
		g.set[k] = v
	}
	for k, v := range all {
		g.all[k] = v
	}
	return nil
}

// String lists the gates and switches given, sorted: the flag's value as
// it would be written again.
func (g *Gates) String() string {
	if g == nil {
		return ""
	}
	var parts []string
	if v, ok := g.all[Alpha]; ok {
		parts = append(parts, AllAlpha+"="+strconv.FormatBool(v))
	}
	if v, ok := g.all[Beta]; ok {
		parts = append(parts, AllBeta+"="+strconv.FormatBool(v))
	}
	names := make([]string, 0, len(g.set))
	for k := range g.set {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		parts = append(parts, k+"="+strconv.FormatBool(g.set[k]))
	}
	return strings.Join(parts, ",")
}

// Effective lists every known gate with its value, sorted by name, as
// "Name=true": what the command line amounts to, for a log line or a
// report header.
func (g *Gates) Effective() string {
	names := make([]string, 0, len(g.known))
	for k := range g.known {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = k + "=" + strconv.FormatBool(g.Enabled(k))
	}
	return strings.Join(parts, ",")
}
