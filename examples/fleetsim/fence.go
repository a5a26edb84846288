package main

import (
	"fmt"
	"time"

	"github.com/fleetover/fleetover/fencing"
)

// fences reports whether c's agent fences: a Pull cluster with the
// scenario's fenceAfter set. A Push cluster runs nothing of the control
// plane, so nothing there can stop a copy the control plane cannot reach.
func (e *Engine) fences(c *cluster) bool { return c.pull && e.sc.Settings.FenceAfter != 0 }

// fenceMembers runs every fencing Pull agent once, right after this
// step's heartbeats: an agent that reached the control plane renewed its
// lease; fencing.Decide then says whether it stops its single-writer
// copies, keeps them stopped, or resumes the ones still placed here. A
// cluster that is down runs no agent, and no copy either: when it comes
// back its agent decides before anything runs (its lease state survives,
// so an overdue lease fences at once).
func (e *Engine) fenceMembers() {
	now := e.Now()
	cfg := fencing.Config{FenceAfter: e.sc.Settings.FenceAfter.D()}
	for _, c := range e.clusters {
		if !e.fences(c) {
			continue
		}
		if c.reachable() {
			c.agent.LastRenewal = now
		}
		if c.down {
			// Its copies are not running; the agent is not either. What
			// it decides when the cluster returns is what it would have
			// decided: model the fence as taken on time, so the copies
			// stay stopped until it hears the control plane again.
			if d := e.lib.Fence(c.agent, now, cfg); d.Action == fencing.ActionFence {
				e.fenceCopies(c, d)
			}
			continue
		}
		switch d := e.lib.Fence(c.agent, now, cfg); d.Action {
		case fencing.ActionFence:
			e.fenceCopies(c, d)
		case fencing.ActionResume:
			e.resumeCopies(c)
			c.agent.FencedAt = time.Time{}
		case fencing.ActionRun:
			// A copy fenced while it was being evicted, whose eviction was
			// then undone (a held re-placement), is placed here again.
			e.resumeCopies(c)
		}
	}
}

// fenceCopies stops every single-writer copy on c.
func (e *Engine) fenceCopies(c *cluster, d fencing.Decision) {
	c.agent.FencedAt = e.Now()
	for _, w := range e.workloads {
		cp := w.copies[c.idx]
		if cp == nil || cp.fenced || !w.singleWriter() {
			continue
		}
		cp.fenced = true
		e.stats.Fences++
		e.tl.add(e, EvFence, c.name, w.name(), fmt.Sprintf("agent fenced the copy: %s", d.Message))
	}
}

// resumeCopies starts again the fenced copies on c still placed there (a
// target, not being deleted); the others stay stopped until their
// deletion, which the control plane now reaches.
func (e *Engine) resumeCopies(c *cluster) {
	for _, w := range e.workloads {
		cp := w.copies[c.idx]
		if cp == nil || !cp.fenced || cp.deleting || !w.isTarget(c.name) || w.deleted {
			continue
		}
		cp.fenced = false
		e.tl.add(e, EvResume, c.name, w.name(), "agent resumed the copy: lease renewed, still placed here")
	}
}
