package main

import (
	"fmt"
	"sort"
	"time"

	"github.com/fleetover/fleetover/examples/fleetsim/replay"
)

// timedFault is one primitive change of the ground truth at a moment.
type timedFault struct {
	at    time.Duration
	seq   int // schedule order breaks ties
	kind  string
	spec  FaultSpec
	label string
}

// expandFaults turns the schedule into primitive changes: a fault with a
// duration ("for") gets its own recovery.
func expandFaults(sc *Scenario) []timedFault {
	var out []timedFault
	for i, f := range sc.Faults {
		out = append(out, timedFault{at: f.At.D(), seq: 2 * i, kind: f.Type, spec: f, label: describeFault(f)})
		if f.For > 0 {
			undo := f
			switch f.Type {
			case FaultWorkloadUnhealthy:
				undo.Type = FaultWorkloadHealthy
			case FaultStateUnreadable:
				undo.Type = FaultStateReadable
			case FaultSuspend:
				undo.Type = FaultResume
			case FaultSuspendScheduling:
				undo.Type = FaultResumeScheduling
			case FaultOutage, FaultNotReady, FaultPartition, FaultFlap, FaultFlapReady, FaultZoneOutage, FaultFleetOutage:
				undo.Type = FaultRecover
			default:
				continue
			}
			undo.At = Duration(f.At.D() + f.For.D())
			undo.For = 0
			out = append(out, timedFault{at: undo.At.D(), seq: 2*i + 1, kind: undo.Type, spec: undo, label: describeFault(undo) + " (end of " + f.Type + ")"})
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].at != out[j].at {
			return out[i].at < out[j].at
		}
		return out[i].seq < out[j].seq
	})
	return out
}

func describeFault(f FaultSpec) string {
	switch {
	case f.Cluster != "" && f.Workload != "":
		return fmt.Sprintf("%s %s on %s", f.Type, f.Workload, f.Cluster)
	case f.Cluster != "":
		return fmt.Sprintf("%s %s", f.Type, f.Cluster)
	case f.Zone != "":
		return fmt.Sprintf("%s zone %s", f.Type, f.Zone)
	case f.Workload != "":
		return fmt.Sprintf("%s %s", f.Type, f.Workload)
	}
	return f.Type
}

// applyFaults applies every fault due by now and advances flapping clusters.
func (e *Engine) applyFaults() {
	now := e.Now()
	el := e.Elapsed()
	for e.nextFault < len(e.faults) && e.faults[e.nextFault].at <= el {
		f := e.faults[e.nextFault]
		e.nextFault++
		e.tl.add(e, EvFault, f.spec.Cluster, f.spec.Workload, f.label)
		e.applyFault(f.spec, now)
	}
	for _, c := range e.clusters {
		if c.flap {
			phase := int(now.Sub(c.flapFrom) / c.flapPer)
			c.down = phase%2 == 0
		}
		if c.flapReady {
			phase := int(now.Sub(c.flapFrom) / c.flapPer)
			c.notReady, c.parted = phase%2 == 0, phase%2 == 1
		}
		if !c.partEnd.IsZero() && !now.Before(c.partEnd) {
			c.parted, c.partEnd = false, time.Time{}
			e.tl.add(e, EvFault, c.name, "", "partition during purge ends")
		}
	}
}

// partitionOnPurge cuts c off the control plane when a copy on it starts
// being deleted, if a partitionOnPurge fault armed it: the deletion cannot
// be confirmed until the partition ends.
func (e *Engine) partitionOnPurge(c *cluster) {
	if c.partOnPurge <= 0 || c.parted {
		return
	}
	c.parted, c.partEnd = true, e.Now().Add(c.partOnPurge)
	c.partOnPurge = 0
	e.tl.add(e, EvFault, c.name, "", "partition during purge starts")
}

func (e *Engine) clustersOf(f FaultSpec) []*cluster {
	switch {
	case f.Cluster != "":
		return []*cluster{e.byName[f.Cluster]}
	case f.Zone != "":
		var out []*cluster
		for _, c := range e.clusters {
			if c.zone == f.Zone {
				out = append(out, c)
			}
		}
		return out
	}
	return e.clusters
}

func (e *Engine) applyFault(f FaultSpec, now time.Time) {
	switch f.Type {
	case FaultOutage, FaultZoneOutage, FaultFleetOutage:
		for _, c := range e.clustersOf(f) {
			c.down = true
		}
	case FaultNotReady:
		e.byName[f.Cluster].notReady = true
	case FaultPartition:
		e.byName[f.Cluster].parted = true
	case FaultFlap:
		c := e.byName[f.Cluster]
		c.flap, c.flapPer, c.flapFrom = true, f.Period.D(), now
	case FaultFlapReady:
		c := e.byName[f.Cluster]
		c.flapReady, c.flapPer, c.flapFrom = true, f.Period.D(), now
	case FaultPartitionOnPurge:
		e.byName[f.Cluster].partOnPurge = f.For.D()
	case FaultRecover:
		for _, c := range e.clustersOf(f) {
			c.down, c.notReady, c.parted, c.flap, c.flapReady = false, false, false, false, false
			c.partEnd = time.Time{}
		}
	case FaultWorkloadUnhealthy, FaultWorkloadHealthy:
		w := e.wByName[f.Workload]
		for _, c := range e.clustersOf(f) {
			w.failing[c.idx] = f.Type == FaultWorkloadUnhealthy
		}
	case FaultStateUnreadable, FaultStateReadable:
		e.wByName[f.Workload].stateUnreadable = f.Type == FaultStateUnreadable
	case FaultRestart:
		e.restart()
	case FaultSuspend, FaultResume:
		w := e.wByName[f.Workload]
		w.susp = replay.ChangeSuspension(w.susp, f.Cluster, f.Type == FaultSuspend)
		// A policy change is a binding update: the taint manager looks at
		// the binding's tainted clusters again (a resume ends the pause of
		// their failover).
		for _, t := range w.targets {
			if c := e.byName[t.Name]; hasNoExecute(c.taints) {
				e.taintQueue.Add(c.idx, now)
			}
		}
	case FaultSuspendScheduling:
		e.wByName[f.Workload].schedulingSuspended = true
	case FaultResumeScheduling:
		w := e.wByName[f.Workload]
		if w.schedulingSuspended {
			w.schedulingSuspended = false
			e.replaceLost(w)
		}
	case FaultDelete:
		w := e.wByName[f.Workload]
		if !w.deleted {
			w.deleted = true
			w.targets, w.tasks = nil, nil
			e.purgeDeleted(w)
		}
	}
}
