package main

import (
	"github.com/fleetover/fleetover/eviction"
)

// restart simulates a controller restart: every tracker exports its state,
// a new tracker is built and imports it.
func (e *Engine) restart() {
	e.stats.Restarts++
	fresh, err := newLibrary(e)
	if err != nil {
		e.inv.violate(InvRestartCountdowns, "", "", "restart: "+err.Error())
		return
	}
	if e.opts.Library != nil {
		e.opts.Library(&fresh)
	}
	move := func(name string, from interface{ Export() ([]byte, error) }, to interface{ Import([]byte) error }) {
		data, err := from.Export()
		if err == nil {
			err = to.Import(data)
		}
		if err != nil {
			e.inv.violate(InvRestartCountdowns, "", "", name+": "+err.Error())
		}
	}
	move("cluster health", e.lib.ClusterHealth, fresh.ClusterHealth)
	move("application failover", e.lib.AppDetector, fresh.AppDetector)
	if p, ok := e.lib.Pacer.(interface{ Export() ([]byte, error) }); ok {
		if q, ok := fresh.Pacer.(interface{ Import([]byte) error }); ok {
			move("pacer", p, q)
		}
	}
	e.lib.ClusterHealth = &shadowHealth{live: fresh.ClusterHealth, shadow: e.lib.ClusterHealth, inv: e.inv}
	e.lib.AppDetector = &shadowDetector{live: fresh.AppDetector, shadow: e.lib.AppDetector, inv: e.inv}
	e.lib.Pacer = fresh.Pacer
	e.pacerStale = true
	// The taint manager's queue lives in memory: a restarted controller
	// lists every cluster and plans the tainted ones again at once.
	e.taintQueue.ShutDown()
	e.taintQueue = must(eviction.NewDeadlineQueue[int](eviction.DeadlineQueueConfig{Clock: e.clock}))
	for _, c := range e.clusters {
		if hasNoExecute(c.taints) {
			e.taintQueue.Add(c.idx, e.Now())
		}
	}
	e.tl.add(e, EvRestart, "", "", "controllers restarted; tracker state exported and imported")
}
