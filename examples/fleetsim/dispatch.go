package main

import (
	"fmt"
	"maps"
	"slices"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/suspension"
)

// dispatch applies w's manifest to every target cluster that lacks it, as
// the binding and execution controllers would.
func (e *Engine) dispatch(w *workload) {
	now := e.Now()
	for _, t := range w.targets {
		c := e.byName[t.Name]
		want := w.spec.Replicas
		if w.divided {
			want = t.Replicas
		}
		// The Work's Dispatching condition, written only when it changes;
		// a suspension (or a resume) goes on the timeline.
		had := len(w.workConds[c.idx]) > 0
		if up := suspension.SetDispatchingCondition(&w.workConds[c.idx], w.susp, c.name, 1, now); up.Transitioned && (up.Suspended || had) {
			cond := w.workConds[c.idx][0]
			e.tl.add(e, EvHold, c.name, w.name(), fmt.Sprintf("Work condition Dispatching=%s (%s)", cond.Status, cond.Reason))
		}
		cp := w.copies[c.idx]
		if cp != nil && !cp.deleting && cp.replicas == want {
			continue
		}
		if suspension.Decide(w.susp, c.name, suspension.OperationApply) == suspension.ActionHold {
			continue
		}
		if cp == nil || cp.deleting {
			gate := e.lib.DispatchGate(c.name, w.tasks, e.oldCopies(w), now, e.assessOptions())
			if gate.Blocked {
				e.noteHold(w, c.name, "dispatch held: old copy on "+gate.BlockedBy+" is being purged directly")
				continue
			}
		}
		if !c.reachable() {
			continue
		}
		e.inv.onDispatch(w, c)
		delete(w.heldNoted, c.name)
		if cp != nil && !cp.deleting {
			cp.replicas = want
			e.stats.Dispatches++
			e.tl.add(e, EvDispatch, c.name, w.name(), fmt.Sprintf("replicas -> %d", want))
			continue
		}
		// The manifest for the new cluster carries the preserved state.
		manifest := objectOf(w, &copyState{replicas: want}, nil)
		if _, err := e.lib.State.Inject(manifest, w.targets, e.liveTasks(w), c.name); err != nil {
			e.noteHold(w, c.name, "dispatch held: preserved state cannot be injected: "+err.Error())
			continue
		}
		labels := manifest.GetLabels()
		cp = &copyState{replicas: want, created: now, labels: labels}
		cp.jobID = e.jobIDFor(w, labels)
		if cp.jobID != "" && len(labels) > 0 {
			// A copy that resumes preserved state reports a submission of
			// its own until the job it resumes runs. One started without
			// state is its own job from the start: the operator fixes its
			// id when it deploys it.
			w.submits++
			cp.submitJob = fmt.Sprintf("5ab%013x%016x", w.idx, w.submits)
		}
		w.copies[c.idx] = cp
		e.inv.onNewCopy(w, c, cp)
		e.stats.Dispatches++
		ev := Event{Kind: EvDispatch, Cluster: c.name, Workload: w.name(), Detail: fmt.Sprintf("%s (%d replicas)", detailDispatched, want), Job: cp.jobID}
		if len(labels) > 0 {
			ev.Detail += ", injected " + formatLabels(labels)
			ev.Labels = labels
		}
		if cp.jobID != "" {
			ev.Detail += ", runs job " + cp.jobID
		}
		e.tl.addEvent(e, ev)
	}
}

func (e *Engine) noteHold(w *workload, cluster, msg string) {
	if w.heldNoted[cluster] {
		return
	}
	w.heldNoted[cluster] = true
	e.tl.add(e, EvHold, cluster, w.name(), msg)
}

// jobIDFor is the stateful workload's operator: a copy started with a
// preserved job id label resumes that job; otherwise it starts a new one.
func (e *Engine) jobIDFor(w *workload, labels map[string]string) string {
	if w.spec.Kind != "FlinkDeployment" {
		return ""
	}
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		if v := labels[k]; v != "" && k != eviction.FencingEpochLabel {
			return v
		}
	}
	if w.origJob == "" {
		if id := w.spec.State["jobId"]; id != "" {
			w.origJob = id
			return id
		}
	}
	w.jobSeq++
	e.randomDraws++
	id := fmt.Sprintf("%016x%016x", e.rng.Uint64(), uint64(w.jobSeq))
	if w.origJob == "" {
		w.origJob = id
	}
	return id
}
