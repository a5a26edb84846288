package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetover/fleetover/examples/fleetsim/replay"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/why"
)

// explainer prints the why-chain of one workload (-explain) each time it
// changes: at the start, and after every step whose chain differs in its
// steps' reasons and clusters, or whose placement differs (not in the
// countdowns' remaining time).
type explainer struct {
	workload string
	out      io.Writer
	last     string
	err      error
}

// observe explains the workload as it stands now, and prints the chain if
// it changed.
func (x *explainer) observe(e *Engine) {
	w := e.wByName[x.workload]
	if w == nil || x.err != nil {
		return
	}
	chain := why.Workload(e.whyInput(w))
	// The placement is part of the signature: a placement change that is
	// no eviction (a Duplicated workload topped up on a cluster that came
	// back) leaves every step's reason as it was, and is a change to show.
	var sig strings.Builder
	sig.WriteString(placementKey(w.targets))
	for i, s := range chain.Steps {
		fmt.Fprintf(&sig, "%d|%s|%s|%s;", btoi(i == chain.Holding), s.Step, s.Reason, s.Cluster)
	}
	if sig.String() == x.last {
		return
	}
	x.last = sig.String()
	if _, x.err = fmt.Fprintf(x.out, "%s  why %s is where it is:\n", formatSimTime(e.Elapsed()), x.workload); x.err != nil {
		return
	}
	x.err = chain.RenderWith(x.out, func(t time.Time) string { return formatSimTime(t.Sub(simEpoch)) })
}

// taintConfig is how the simulated controllers taint w's clusters: the
// timed health taint, and the ClusterTaintPolicies (those of w's first
// target, the clusters of one fleet sharing them here).
func (e *Engine) taintConfig(w *workload) *failover.ClusterTaintConfig {
	st := e.sc.Settings
	cfg := &failover.ClusterTaintConfig{NoExecuteAfterTimeout: *st.NoExecuteTaints, EvictionTimeout: st.EvictionTimeout.D()}
	for _, p := range st.ClusterTaintPolicies {
		if len(p.Clusters) == 0 || (len(w.targets) > 0 && slices.Contains(p.Clusters, w.targets[0].Name)) {
			cfg.Policies = append(cfg.Policies, p.library())
		}
	}
	return cfg
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// whyInput is what the simulated controllers hold about w, in the shape
// why.Workload reads.
func (e *Engine) whyInput(w *workload) why.Input {
	in := why.Input{
		Targets:     w.targets,
		Tasks:       w.tasks,
		Policy:      w.spec.Failover,
		Tolerations: w.tolerations,
		Suspension:  w.susp,
		Placement:   e.replaceRequest(w, w.affinity, w.targets, nil),

		SchedulingSuspended: w.schedulingSuspended,
		Dispatched:          []string{},
		OldCopies:           e.oldCopies(w),
		SchedulerBehind:     e.schedulerBehind(w),
		TargetHealth:        e.copyHealth(w),
		Assess:              e.assessOptions(),
		Gates:               why.Gates{ClusterFailoverOff: !*e.sc.Settings.ClusterFailover},
		ClusterTaints:       e.taintConfig(w),
		Kind:                replay.GVK(w.spec.Kind),
		Now:                 e.Now(),
	}
	for _, c := range e.clusters {
		in.Clusters = append(in.Clusters, why.Cluster{Name: c.name, Zone: c.zone, Conditions: []metav1.Condition{c.cond}, Taints: c.taints})
		if cp := w.copies[c.idx]; cp != nil && !cp.deleting {
			in.Dispatched = append(in.Dispatched, c.name)
		}
	}
	// The later affinity groups, as the scheduler tries them.
	for g := w.group + 1; g < len(w.groups); g++ {
		in.Alternatives = append(in.Alternatives, e.replaceRequest(w, w.groups[g].clusters, w.targets, nil))
	}
	if p, ok := e.lib.Pacer.(*pacerAdapter); ok {
		in.Pacer = p.p
	}
	if s, ok := e.lib.State.(*stateAdapter); ok && s.injector.Enabled {
		in.Injection = &s.injector.Policy
	}
	if w.appFO != nil {
		in.Policy = &failover.FailoverBehavior{Application: w.appFO}
		if w.spec.Failover != nil {
			in.Policy.Cluster = w.spec.Failover.Cluster
		}
		_, in.Application.Health = e.observedHealth(w)
		in.Application.Registry = e.registry
		in.Application.Kind = replay.GVK(w.spec.Kind)
		if d, ok := e.lib.AppDetector.(*detectorAdapter); ok {
			for _, r := range d.d.Export() {
				if r.Binding == w.name() {
					in.Application.Records = append(in.Application.Records, r.WorkloadHealthRecord)
				}
			}
		}
	}
	return in
}
