package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/examples/fleetsim/karmadafleet"
	"github.com/fleetover/fleetover/examples/internal/karmadaflags"
)

// karmadaLine is karmada-controller-manager's command line a -fleet run
// models (-karmada-flags), read by the parser the reference controller
// manager reads it with (package karmadaflags).
type karmadaLine struct {
	// Line is the command line as given; empty for Karmada's defaults.
	Line  string
	Flags *karmadaflags.ControllerManager
	// set lists the flags given.
	set map[string]bool
	// ignored are the flags given that change nothing in the simulation.
	ignored []string
}

// parseKarmadaFlags reads -karmada-flags: karmada-controller-manager's own
// flag names and syntax. A flag of another Karmada component, an unknown
// flag, a bad value and what karmada-controller-manager refuses are errors.
func parseKarmadaFlags(line string) (*karmadaLine, error) {
	args, err := karmadaflags.Split(line)
	if err != nil {
		return nil, err
	}
	if err := karmadaflags.Foreign(args); err != nil {
		return nil, err
	}
	k := &karmadaLine{Line: line, Flags: karmadaflags.NewControllerManager(), set: map[string]bool{}}
	fs := flag.NewFlagSet("karmada-controller-manager", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	k.Flags.AddFlags(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q: give flags only", fs.Arg(0))
	}
	if errs := k.Flags.Validate(); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	fs.Visit(func(f *flag.Flag) {
		k.set[f.Name] = true
		if !simulatedKarmadaFlag(f.Name) {
			k.ignored = append(k.ignored, "--"+f.Name)
		}
	})
	return k, nil
}

// simulatedKarmadaFlag reports whether the simulation follows the
// karmada-controller-manager flag name.
func simulatedKarmadaFlag(name string) bool {
	switch name {
	case "feature-gates", "enable-taint-manager", "enable-no-execute-taint-eviction", "no-execute-taint-eviction-purge-mode",
		"resource-eviction-rate", "graceful-eviction-timeout", "cluster-success-threshold", "cluster-failure-threshold",
		"cluster-monitor-grace-period", "cluster-startup-grace-period", "controllers":
		return true
	}
	return false
}

// controllerRuns reports whether --controllers runs the Karmada controller.
func (k *karmadaLine) controllerRuns(name string) bool {
	return k.Flags.Controllers.Enabled(name, true)
}

// clusterFailover: the taint manager evicts on NoExecute taints.
func (k *karmadaLine) clusterFailover() bool {
	f := k.Flags
	return k.controllerRuns(karmadaflags.ControllerCluster) && f.EnableTaintManager &&
		f.FeatureGates.Enabled(karmadaflags.GateFailover) && f.EnableNoExecuteTaintEviction
}

// taintPoliciesRun: the clustertaintpolicy controller applies the
// ClusterTaintPolicies.
func (k *karmadaLine) taintPoliciesRun() bool {
	return k.controllerRuns(karmadaflags.ControllerClusterTaintPolicy) && k.Flags.FeatureGates.Enabled(karmadaflags.GateFailover)
}

// rate is the eviction rate the flags give: Karmada holds each eviction
// 30 minutes at a rate of 0.
func (k *karmadaLine) rate() float64 {
	if r := k.Flags.ResourceEvictionRate; r > 0 {
		return math.Max(r, minEvictionsPerSecond)
	}
	return 1 / karmadaZeroRateHold.Seconds()
}

// genSettings is the settings block of a -fleet run's scenario, with the
// scenario format's field names.
type genSettings struct {
	Rules                   string            `json:"rules"`
	ClusterFailover         *bool             `json:"clusterFailover,omitempty"`
	ClusterTaintPolicies    []TaintPolicySpec `json:"clusterTaintPolicies,omitempty"`
	ClusterPurgeMode        string            `json:"clusterPurgeMode,omitempty"`
	EvictionsPerSecond      float64           `json:"evictionsPerSecond,omitempty"`
	GracefulEvictionTimeout string            `json:"gracefulEvictionTimeout,omitempty"`
	FailureThreshold        string            `json:"failureThreshold,omitempty"`
	SuccessThreshold        string            `json:"successThreshold,omitempty"`
	MonitorGracePeriod      string            `json:"monitorGracePeriod,omitempty"`
	StartupGracePeriod      string            `json:"startupGracePeriod,omitempty"`
	StatefulInjection       *bool             `json:"statefulFailoverInjection,omitempty"`
}

// settings is the settings block for rules (RulesKarmada or
// RulesFleetover) on the fleet f. Karmada's side follows every flag;
// fleetover's takes the same timing flags (thresholds, grace periods, the
// eviction rate and purge mode when given) and otherwise the library's
// defaults. Both apply the export's ClusterTaintPolicies, Karmada's only
// where its Failover gate runs their controller.
func (k *karmadaLine) settings(rules string, f *karmadafleet.Fleet, note func(string)) (genSettings, error) {
	fl := k.Flags
	s := genSettings{Rules: rules}
	dur := func(d time.Duration) string { return d.String() }
	s.GracefulEvictionTimeout = dur(fl.GracefulEvictionTimeout)
	s.FailureThreshold, s.SuccessThreshold = dur(fl.ClusterFailureThreshold), dur(fl.ClusterSuccessThreshold)
	s.MonitorGracePeriod, s.StartupGracePeriod = dur(fl.ClusterMonitorGracePeriod), dur(fl.ClusterStartupGracePeriod)
	karmada := rules == RulesKarmada
	if karmada || k.set["resource-eviction-rate"] {
		s.EvictionsPerSecond = k.rate()
	}
	if (karmada && fl.EnableNoExecuteTaintEviction) || k.set["no-execute-taint-eviction-purge-mode"] {
		s.ClusterPurgeMode = fl.NoExecuteTaintEvictionPurgeMode
	}
	if karmada {
		on := k.clusterFailover()
		s.ClusterFailover = &on
		inj := fl.FeatureGates.Enabled(karmadaflags.GateStatefulFailoverInjection)
		s.StatefulInjection = &inj
	}
	if karmada && !k.taintPoliciesRun() {
		if len(f.TaintPolicies) > 0 && note != nil {
			note(fmt.Sprintf("%d ClusterTaintPolicies are not applied: Karmada runs their controller only with the Failover feature gate", len(f.TaintPolicies)))
		}
		return s, nil
	}
	for _, p := range f.TaintPolicies {
		spec := TaintPolicySpec{Name: p.ConditionTaintPolicy().Name}
		if p.TargetClusters != nil {
			sel, err := selectClusters(f, *p.TargetClusters)
			if err != nil {
				return s, fmt.Errorf("ClusterTaintPolicy %s: spec.targetClusters: %w", p.Name, err)
			}
			if len(sel) == 0 {
				continue // it targets no cluster of the export
			}
			if len(sel) < len(f.Clusters) {
				spec.Clusters = sel
			}
		}
		for _, m := range p.AddOnConditions {
			spec.AddOnConditions = append(spec.AddOnConditions, matchSpec(m))
		}
		for _, m := range p.RemoveOnConditions {
			spec.RemoveOnConditions = append(spec.RemoveOnConditions, matchSpec(m))
		}
		for _, t := range p.Taints {
			spec.Taints = append(spec.Taints, TaintSpec{Key: t.Key, Value: t.Value, Effect: string(t.Effect)})
		}
		s.ClusterTaintPolicies = append(s.ClusterTaintPolicies, spec)
	}
	return s, nil
}

func matchSpec(m karmadafleet.MatchCondition) MatchSpec {
	out := MatchSpec{ConditionType: m.ConditionType, Operator: m.Operator}
	for _, v := range m.StatusValues {
		out.StatusValues = append(out.StatusValues, string(v))
	}
	return out
}

// describeFlags says what the command line amounts to, for the header.
func (k *karmadaLine) describeFlags() []string {
	var out []string
	if k.Line == "" {
		out = append(out, "karmada-controller-manager flags: none given (-karmada-flags): every flag at Karmada's default")
	} else {
		out = append(out, "karmada-controller-manager flags (-karmada-flags): "+k.Line+"; every other flag at Karmada's default")
	}
	gates := k.Flags.FeatureGates
	out = append(out, fmt.Sprintf("feature gates: Failover=%t, GracefulEviction=%t, StatefulFailoverInjection=%t",
		gates.Enabled(karmadaflags.GateFailover), gates.Enabled(karmadaflags.GateGracefulEviction), gates.Enabled(karmadaflags.GateStatefulFailoverInjection)))
	if len(k.ignored) > 0 {
		out = append(out, "flags that change nothing here (the simulator probes every cluster once a step and models no other controller): "+strings.Join(k.ignored, " "))
	}
	return out
}

// describeRules writes, for a run's header, the rules the settings st
// stand for and what follows from them.
func describeRules(st Settings) []string {
	var out []string
	onOff := func(b bool, on, off string) string {
		if b {
			return on
		}
		return off
	}
	var noExec []string
	if *st.NoExecuteTaints {
		noExec = append(noExec, fmt.Sprintf("the health taint, %s after Ready leaves True (fleetover)", st.EvictionTimeout.D()))
	}
	for _, p := range st.ClusterTaintPolicies {
		for _, t := range p.Taints {
			if t.Effect == "NoExecute" {
				noExec = append(noExec, "ClusterTaintPolicy "+p.Name)
				break
			}
		}
	}
	if st.karmada() {
		out = append(out, "RULES  Karmada's (v1.17 and v1.18 decide failover alike; a kubectl export does not record the release)")
	} else {
		out = append(out, "RULES  fleetover's (the library's defaults)")
	}
	switch {
	case !*st.ClusterFailover:
		out = append(out, "  cluster failover: off, nothing evicts on a cluster's taints (Karmada: the Failover gate, --enable-taint-manager and --enable-no-execute-taint-eviction must all be on)")
	case len(noExec) == 0:
		out = append(out, "  cluster failover: on, but nothing adds a NoExecute taint (the cluster controller adds NoSchedule only): nothing evicts until a ClusterTaintPolicy adds one")
	default:
		out = append(out, "  cluster failover: on; NoExecute taints from "+strings.Join(noExec, ", "))
	}
	if *st.DefaultTolerations {
		out = append(out, fmt.Sprintf("  default tolerations: not-ready and unreachable NoExecute for %ds, added to every workload", *st.DefaultTolerationSeconds))
	} else {
		out = append(out, "  default tolerations: none (karmada-webhook adds none since v1.15): a workload tolerates only what its policy lists")
	}
	if st.karmada() {
		out = append(out, fmt.Sprintf("  eviction pacing: each eviction held %s (--resource-eviction-rate %g), at most %d/s after a burst of %d; no disruption modes, so a fleet-wide outage evicts too",
			karmadaHold(st.EvictionsPerSecond), st.EvictionsPerSecond, karmadaQueueQPS, karmadaQueueBurst))
		out = append(out, fmt.Sprintf("  purge Directly: the new copy waits while the old copy's Work remains; the task times out after --graceful-eviction-timeout (%s) and the new copy then starts, the old one unconfirmed and unfenced (Karmada #6671)",
			st.GracefulEvictionTimeout.D()))
		out = append(out, "  "+onOff(*st.StatefulInjection, "state injection: the newest task's state, only when it purges Directly and the workload has one target, not a cluster it ran on before (StatefulFailoverInjection gate on)", "state injection: off (the StatefulFailoverInjection gate is alpha, off by default): a stateful workload restarts from scratch"))
		out = append(out, "  graceful eviction: a task whose workload has no target left goes at its grace period, and the last copy with it (Karmada #7455); application failover: an Unknown health resets the countdown (#7431)")
	} else {
		out = append(out, fmt.Sprintf("  eviction pacing: %g/s fleet-wide with disruption modes (evictions stop while every cluster is unhealthy)", st.EvictionsPerSecond))
		out = append(out, fmt.Sprintf("  purge Directly: the new copy waits for the old copy's deletion, giving up on an unreachable cluster after %s", eviction.DefaultDirectlyEscapeTimeout))
		out = append(out, "  "+onOff(*st.StatefulInjection, "state injection: only where one writer is guaranteed (purged Directly, one new target), with a fencing epoch", "state injection: off"))
	}
	out = append(out, fmt.Sprintf("  purge mode of cluster failover when the policy gives none: %s; graceful eviction timeout %s", orDefault(string(st.ClusterPurgeMode), "Gracefully"), st.GracefulEvictionTimeout.D()))
	return out
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// fleetAssumptions are what a -fleet run takes for granted, for the
// header.
func fleetAssumptions() []string {
	return []string{
		"assumed: controller restarts keep the Ready debounce and application failover countdowns (Karmada loses both, #7408 and #7171: not modelled)",
		"assumed: the simulator's health rules judge every copy (Karmada's bundled Lua rule for FlinkDeployment agrees on the states simulated)",
		"assumed: a new copy is healthy 20s after it is dispatched; the control plane runs once every step",
	}
}

// errFlag prefixes err with the flag it came from, unless it names one.
func errFlag(flagName string, err error) error {
	if err == nil {
		return nil
	}
	prefix := "-" + flagName + ": "
	if strings.HasPrefix(err.Error(), prefix) || strings.HasPrefix(err.Error(), "fleetsim: ") {
		return err
	}
	return &flagError{flag: flagName, err: err}
}

// flagError is an error that came from one flag's value.
type flagError struct {
	flag string
	err  error
}

// Error names the flag on every line, one line per problem.
func (e *flagError) Error() string {
	lines := strings.Split(e.err.Error(), "\n")
	for i, l := range lines {
		lines[i] = "-" + e.flag + ": " + l
	}
	return strings.Join(lines, "\n")
}
func (e *flagError) Unwrap() error { return e.err }

// printErr reports err on stderr, every line as fleetsim's.
func printErr(w io.Writer, err error) {
	for _, l := range strings.Split(err.Error(), "\n") {
		fmt.Fprintln(w, "fleetsim: "+l)
	}
}
