package main

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/fencing"
)

// cluster is one member cluster: what is really happening to it (ground
// truth, set by the fault schedule) and what the control plane believes
// (its Ready condition and taints).
type cluster struct {
	idx      int
	name     string
	zone     string
	region   string // empty when the scenario gives none
	pull     bool
	down     bool // API server and workloads are down
	notReady bool // reachable, health endpoint fails
	parted   bool // alive, unreachable from the control plane
	flap     bool // alternates down/up every flapPeriod
	flapPer  time.Duration
	flapFrom time.Time
	// flapReady alternates notReady and parted every flapPer: the Ready
	// condition flips between False and Unknown, never back to True.
	flapReady bool
	// partOnPurge: the next deletion of a copy here starts a partition
	// lasting this long; partEnd is when a partition so started ends.
	partOnPurge time.Duration
	partEnd     time.Time

	// lastHeard is the control plane's record of the cluster's last
	// heartbeat (a Pull cluster's lease renewTime); agent is the Pull
	// agent's own record of its lease (fencing.State).
	lastHeard time.Time
	agent     fencing.State

	cond   metav1.Condition
	taints []corev1.Taint
	// taintsDue: the taints must be computed again (the condition changed,
	// or the NoExecute timeout the last computation asked for has come).
	taintsDue  bool
	taintsNext time.Time
}

func (c *cluster) alive() bool     { return !c.down }
func (c *cluster) reachable() bool { return !c.down && !c.parted }
func (c *cluster) healthy() bool   { return !c.down && !c.parted && !c.notReady }
func (c *cluster) ready() bool     { return c.cond.Status == metav1.ConditionTrue }

// monitorClusters feeds this step's heartbeats to the cluster health
// tracker and records Ready transitions.
func (e *Engine) monitorClusters() {
	now := e.Now()
	changed := false
	for _, c := range e.clusters {
		p := probeResult{Heard: c.reachable(), Reachable: c.reachable(), HealthOK: c.healthy()}
		if p.Heard {
			c.lastHeard = now
		}
		r := e.lib.ClusterHealth.Observe(c.name, c.pull, p)
		if r.Status != c.cond.Status || r.Reason != c.cond.Reason {
			from := c.cond.Status
			if r.Status != c.cond.Status {
				c.cond.LastTransitionTime = metav1.NewTime(now)
			}
			c.cond.Status, c.cond.Reason = r.Status, r.Reason
			c.taintsDue = true
			changed = true
			e.tl.add(e, EvReady, c.name, "", fmt.Sprintf("Ready %s -> %s (%s)", from, r.Status, r.Reason))
		}
	}
	unhealthy := 0
	views := make([]eviction.ClusterHealthView, len(e.clusters))
	for i, c := range e.clusters {
		views[i] = eviction.ClusterHealthView{Name: c.name, Zone: c.zone, Healthy: c.ready()}
		if !c.ready() {
			unhealthy++
		}
	}
	if !changed && !e.pacerStale {
		return // the pacer's mode only depends on the clusters' readiness
	}
	e.pacerStale = false
	before := e.lib.Pacer.Mode()
	e.lib.Pacer.Observe(views)
	if m := e.lib.Pacer.Mode(); m != before {
		e.tl.add(e, EvPacer, "", "", fmt.Sprintf("disruption mode %s -> %s (%d of %d clusters not Ready)", before, m, unhealthy, len(e.clusters)))
	}
}

func (e *Engine) taintClusters() {
	now := e.Now()
	for _, c := range e.clusters {
		if !c.taintsDue && (c.taintsNext.IsZero() || now.Before(c.taintsNext)) {
			continue
		}
		next, at := e.lib.Taints(c.cond, c.taints, now)
		if ps := e.taintPolicies[c.idx]; len(ps) > 0 {
			// The ClusterTaintPolicies, after the health taints.
			next = failover.ComputePolicyTaints(ps, []metav1.Condition{c.cond}, next, now).Result
		}
		c.taintsDue, c.taintsNext = false, at
		for _, t := range next {
			if !hasTaint(c.taints, t) {
				e.tl.add(e, EvTaint, c.name, "", fmt.Sprintf("+taint %s:%s", t.Key, t.Effect))
			}
		}
		for _, t := range c.taints {
			if !hasTaint(next, t) {
				e.tl.add(e, EvUntaint, c.name, "", fmt.Sprintf("-taint %s:%s", t.Key, t.Effect))
			}
		}
		c.taints = next
		if hasNoExecute(next) {
			e.taintQueue.Add(c.idx, now)
		}
	}
}

func hasTaint(ts []corev1.Taint, t corev1.Taint) bool {
	for i := range ts {
		if ts[i].Key == t.Key && ts[i].Effect == t.Effect {
			return true
		}
	}
	return false
}
