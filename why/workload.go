package why

import (
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/preservation"
	"github.com/fleetover/fleetover/scheduling"
	"github.com/fleetover/fleetover/suspension"
)

// Cluster is what the explanation reads of a member cluster.
type Cluster struct {
	Name string
	// Zone is the pacer's zone of the cluster ("" for a global pacer).
	Zone       string
	Conditions []metav1.Condition
	Taints     []corev1.Taint
}

// Gates says which failover controllers run. The zero value has both on.
type Gates struct {
	// ClusterFailoverOff: nothing evicts on NoExecute taints (Karmada: the
	// Failover feature gate, --enable-taint-manager or
	// --enable-no-execute-taint-eviction is off).
	ClusterFailoverOff bool
	// ApplicationFailoverOff: nothing evicts on workload health.
	ApplicationFailoverOff bool
}

// Application is what application failover reads of the workload.
type Application struct {
	// Kind is the workload's kind, and Registry the health interpreters the
	// controller runs with; with a Registry, a kind it cannot interpret is
	// reported (its health is never known, so it never fails over).
	Kind     schema.GroupVersionKind
	Registry *health.Registry
	// Health is the workload's health per target cluster, and Records the
	// detector's records for the binding, as the controller holds them.
	Health  []failover.ObservedHealth
	Records []failover.WorkloadHealthRecord
	Config  failover.DetectorConfig
}

// Input is what a controller already holds about one workload.
type Input struct {
	// Targets is the placement and Tasks the graceful eviction tasks.
	Targets []eviction.TargetCluster
	Tasks   []eviction.GracefulEvictionTask
	// Clusters are the fleet's clusters; the targets' are read.
	Clusters []Cluster
	// Policy is the workload's failover behaviour; nil has no application
	// failover.
	Policy *failover.FailoverBehavior
	// Tolerations are the workload's cluster tolerations with the
	// controller's defaults added (failover.AddDefaultClusterTolerations),
	// decided under TolerationOptions.
	Tolerations       []corev1.Toleration
	TolerationOptions failover.TolerationOptions
	Gates             Gates
	// Pacer is the eviction pacer, read only (State and When); nil leaves
	// pacing out.
	Pacer eviction.Pacer
	// Application is read when Policy has application failover.
	Application Application
	// Suspension is the workload's dispatch suspension; nil suspends
	// nothing.
	Suspension *suspension.Suspension
	// Placement is the re-placement request as the scheduler would make it
	// (Workload, Type, Clusters, Filters, ...; Targets and Evicted are set
	// here); nil leaves placement out.
	Placement *scheduling.Request
	// Alternatives are re-placement requests tried in order when Placement
	// places nothing, as the later groups of Karmada's clusterAffinities
	// are: the first that places is the answer, and it takes the whole
	// placement (a target its filters reject leaves as well). Targets and
	// Evicted are set here, as for Placement. A nil entry is skipped.
	Alternatives []*scheduling.Request
	// SchedulingSuspended reports that the scheduler leaves the workload
	// alone (Karmada's spec.suspension.scheduling): nothing re-places the
	// lost clusters until scheduling resumes.
	SchedulingSuspended bool
	// Dispatched lists the targets that already run a copy; the dispatch
	// gate is asked only about the others. Nil asks about every target.
	Dispatched []string
	// OldCopies, TargetHealth, SchedulerBehind and Assess are what
	// eviction.Assess and eviction.DispatchBlocked read. A nil
	// OldCopyLookupFunc or HealthLookupFunc counts as none given.
	OldCopies       eviction.OldCopyLookup
	TargetHealth    eviction.HealthLookup
	SchedulerBehind bool
	Assess          eviction.AssessOptions
	// Injection is the state injection policy; nil leaves the state step out.
	Injection *preservation.InjectionPolicy
	// ClusterTaints is how the controller taints clusters (the timed
	// NoExecute health taint, the ClusterTaintPolicies); nil when unknown.
	// Given, a cluster that is not ready and carries no NoExecute taint is
	// explained by it: held until the taint is due, or a warning when
	// nothing will ever add one (Karmada without a ClusterTaintPolicy).
	ClusterTaints *failover.ClusterTaintConfig
	// Kind is the workload's kind; empty takes Application.Kind. A kind
	// whose failover restarts it from scratch without preserved state
	// (StatefulKind) is reported when it fails over without any.
	Kind schema.GroupVersionKind
	// Now is the one clock of the explanation: every Until and every
	// wait is counted from it, also the pacer's (whose own clock may be
	// another).
	Now time.Time
}

// Workload answers "why is this workload where it is": the chain from its
// clusters' health through tolerations, pacing, application health,
// evictions, placement and dispatch to the graceful eviction of the old
// copies, ending at the first step that holds it. Every step is the
// library's own decision on in, explained.
func Workload(in Input) Chain {
	c := Chain{Holding: -1}
	now := in.Now
	in.OldCopies, in.TargetHealth = knownOldCopies(in.OldCopies), knownHealth(in.TargetHealth)
	if errs := failover.ValidateFailoverBehavior(in.Policy, field.NewPath("failover")); len(errs) > 0 {
		c.add(Explanation{Step: StepPolicy, Reason: ReasonInvalidFailoverPolicy, Holds: true, Warning: true,
			Message: "the failover policy is invalid, so no failover decision is taken: " + errs.ToAggregate().Error()})
		return c
	}
	var lost []string
	for _, t := range in.Targets {
		cl := findCluster(in.Clusters, t.Name)
		if cl == nil {
			c.add(Explanation{Step: StepClusterHealth, Cluster: t.Name, Reason: ReasonClusterNotFound, Holds: true, Warning: true,
				Message: fmt.Sprintf("target cluster %s does not exist", t.Name)})
			continue
		}
		if h := ClusterHealth(cl.Name, cl.Conditions, cl.Taints); h.Reason != ReasonClusterReady {
			if h.Reason == ReasonClusterNotReadyNoTaint && in.ClusterTaints != nil && !in.Gates.ClusterFailoverOff {
				h = NoExecuteTaintDue(h, cl.Conditions, *in.ClusterTaints)
			}
			c.add(h)
		}
		if !hasNoExecute(cl.Taints) {
			continue
		}
		if suspension.FailoverPaused(in.Suspension, cl.Name) {
			c.add(Explanation{Step: StepToleration, Cluster: cl.Name, Reason: ReasonFailoverPaused, Holds: true,
				Message: fmt.Sprintf("dispatching to cluster %s is suspended, which pauses its failover", cl.Name)})
			continue
		}
		d := in.TolerationOptions.Evaluate(cl.Taints, in.Tolerations, now)
		step := Toleration(cl.Name, d)
		if d.Action != failover.EvictNow {
			c.add(step)
			continue
		}
		if in.Gates.ClusterFailoverOff {
			step.Reason, step.Holds, step.Warning = ReasonClusterFailoverOff, true, true
			step.Message += ", but cluster failover is off"
			c.add(step)
			continue
		}
		c.add(step)
		if in.Pacer == nil {
			c.add(Explanation{Step: StepEviction, Cluster: cl.Name, Reason: ReasonEvictionDue, Until: now,
				Message: fmt.Sprintf("the workload is evicted from cluster %s now", cl.Name)})
		} else {
			at, ok := PacerWait(in.Pacer, cl.Zone, now)
			p := Pacing(cl.Name, in.Pacer.State(cl.Zone), at, ok, now)
			c.add(p)
			if p.Holds {
				continue
			}
		}
		lost = append(lost, cl.Name)
	}
	if in.Policy != nil && in.Policy.Application != nil {
		lost = append(lost, c.application(in)...)
	}
	for _, t := range in.Tasks {
		c.add(EvictionTask(t))
	}
	c.placement(in, lost)
	for _, t := range in.Targets {
		if in.Dispatched != nil && slices.Contains(in.Dispatched, t.Name) {
			// A copy that runs already: say when it started without the
			// state its kind needs.
			if e, ok := noStateCarried(in, t.Name); ok {
				c.add(e)
			}
			continue
		}
		if e, ok := Dispatch(t.Name, in.Suspension.DispatchSuspended(t.Name), eviction.DispatchBlocked(t.Name, in.Tasks, in.OldCopies, now, in.Assess)); ok {
			c.add(e)
		}
		if in.Injection != nil && eviction.StateCarrier(t.Name, in.Tasks) != nil {
			c.add(State(t.Name, in.Targets, in.Tasks, *in.Injection))
		} else if e, ok := noStateCarried(in, t.Name); ok {
			c.add(e)
		}
	}
	if len(in.Tasks) > 0 {
		a := eviction.Assess(eviction.AssessInput{Tasks: in.Tasks, Targets: in.Targets, SchedulerBehind: in.SchedulerBehind,
			Health: in.TargetHealth, OldCopies: in.OldCopies, Now: now}, in.Assess)
		for _, e := range GracefulEviction(a) {
			c.add(e)
		}
	}
	if c.Holding < 0 {
		names := make([]string, len(in.Targets))
		for i, t := range in.Targets {
			names[i] = t.Name
		}
		c.add(Explanation{Step: StepWorkload, Reason: ReasonSettled,
			Message: fmt.Sprintf("the workload runs on %s; nothing holds it", orText(strings.Join(names, ", "), "no cluster"))})
	}
	c.NextChange = earliestAfter(c.Steps, now)
	return c
}

// noStateCarried explains a new copy of a stateful kind on target that
// starts without state: the failover that placed it (a task whose old
// copy is not on target) preserved none, because the policy has no
// statePreservation for it.
func noStateCarried(in Input, target string) (Explanation, bool) {
	kind := in.Kind
	if kind.Empty() {
		kind = in.Application.Kind
	}
	if !StatefulKind(kind) || eviction.StateCarrier(target, in.Tasks) != nil {
		return Explanation{}, false
	}
	for _, t := range in.Tasks {
		if t.FromCluster == target || slices.Contains(t.ClustersBeforeFailover, target) {
			continue
		}
		field := "failover.cluster.statePreservation"
		if t.Reason == eviction.ReasonApplicationFailure {
			field = "failover.application.statePreservation"
		}
		return Explanation{Step: StepState, Cluster: target, Reason: ReasonNoStateToCarry, Warning: true,
			Message: fmt.Sprintf("the %s on cluster %s starts from scratch: the failover from cluster %s preserved no state, as the policy has no %s; add rules such as {aliasLabelName: failover.fleetover.io/jobid, jsonPath: \"{ .jobStatus.jobId }\"} (and purge Directly, so one copy writes it)",
				kind.Kind, target, t.FromCluster, field)}, true
	}
	return Explanation{}, false
}

// StatefulKind reports whether a workload of kind loses its progress when
// it fails over without preserved state: a FlinkDeployment restarts its
// job from nothing unless it gets the job (and its checkpoint) to resume.
func StatefulKind(kind schema.GroupVersionKind) bool {
	return kind.Kind == "FlinkDeployment" && (kind.Group == "" || kind.Group == "flink.apache.org")
}

// application adds the application failover steps and returns the clusters
// the detector evicts now.
func (c *Chain) application(in Input) []string {
	app := in.Application
	failing := slices.ContainsFunc(app.Health, func(h failover.ObservedHealth) bool { return h.Status != health.Healthy })
	switch {
	case app.Registry != nil && !registered(app.Registry, app.Kind):
		c.add(Explanation{Step: StepApplicationHealth, Reason: ReasonNoHealthInterpreter, Holds: true, Warning: true,
			Message: fmt.Sprintf("no health interpreter is registered for %s, so its health is never known and application failover never fires", app.Kind.Kind)})
		return nil
	case !failing:
		return nil
	case in.Gates.ApplicationFailoverOff:
		c.add(Explanation{Step: StepApplicationHealth, Reason: ReasonApplicationFailoverOff, Holds: true, Warning: true,
			Message: "the workload is not healthy everywhere, but application failover is off"})
		return nil
	}
	// A cluster whose failover a dispatch suspension pauses is not judged.
	names := make([]string, 0, len(in.Targets))
	for _, t := range in.Targets {
		if !suspension.FailoverPaused(in.Suspension, t.Name) {
			names = append(names, t.Name)
		}
	}
	din := failover.DetectorInput{Policy: in.Policy.Application, Clusters: names, Health: app.Health, Records: app.Records}
	det, err := failover.DetectApplicationFailure(din, in.Now, app.Config)
	if err != nil {
		c.add(Explanation{Step: StepPolicy, Reason: ReasonInvalidFailoverPolicy, Holds: true, Warning: true,
			Message: "application failover cannot decide: " + err.Error()})
		return nil
	}
	var lost []string
	for _, n := range names {
		e := ApplicationHealth(n, din, det)
		if e.Reason == ReasonWorkloadHealthy {
			continue
		}
		c.add(e)
		if e.Reason == ReasonApplicationEvictionDue {
			lost = append(lost, n)
		}
	}
	return lost
}

func registered(r *health.Registry, gvk schema.GroupVersionKind) bool {
	_, ok := r.Lookup(gvk)
	return ok
}

// placement adds the re-placement step for the lost clusters: those
// evicted now, and those an earlier eviction left unreplaced.
func (c *Chain) placement(in Input, lost []string) {
	if in.Placement == nil {
		return
	}
	// The clusters evicted now are still targets; those an earlier eviction
	// took away come with the replicas their tasks recorded.
	var kept, evicted []eviction.TargetCluster
	for _, t := range in.Targets {
		if slices.Contains(lost, t.Name) {
			evicted = append(evicted, t)
		} else {
			kept = append(kept, t)
		}
	}
	for _, t := range eviction.UnreplacedTargets(in.Targets, in.Tasks, in.Placement.Replicas) {
		evicted = append(evicted, t)
		lost = append(lost, t.Name)
	}
	if len(lost) == 0 {
		return
	}
	if in.SchedulingSuspended {
		c.add(Explanation{Step: StepPlacement, Reason: ReasonSchedulingSuspended, Holds: true,
			Message: fmt.Sprintf("scheduling is suspended: the workload on %s is placed elsewhere once it resumes", strings.Join(lost, ", "))})
		return
	}
	req := *in.Placement
	req.Targets, req.Evicted = kept, evicted
	if req.Workload != nil && knownOldCopies(req.Workload.OldCopies) == nil {
		// What is left of the evicted clusters' copies decides whether a
		// suspension holds them.
		w := *req.Workload
		w.OldCopies = in.OldCopies
		req.Workload = &w
	}
	plan, err := scheduling.Replace(&req)
	if err == nil && (!plan.Changed || plan.Reason != "") {
		for _, alt := range in.Alternatives {
			if alt == nil {
				continue // no placement to try
			}
			altReq := alternativeRequest(alt, kept, evicted)
			if altPlan, altErr := scheduling.Replace(altReq); altErr == nil && altPlan.Changed && altPlan.Reason == "" {
				plan = altPlan
				break
			}
		}
	}
	c.add(Placement(lost, plan, err))
}

// alternativeRequest is alt with the placement it would take over: the
// kept targets its filters let stay, and everything else evicted.
func alternativeRequest(alt *scheduling.Request, kept, evicted []eviction.TargetCluster) *scheduling.Request {
	req := *alt
	req.Targets, req.Evicted = nil, slices.Clone(evicted)
	var w scheduling.Workload
	if alt.Workload != nil {
		w = *alt.Workload
		if w.OldCopies != nil && knownOldCopies(w.OldCopies) == nil {
			cleaned := *alt.Workload
			cleaned.OldCopies = nil
			req.Workload = &cleaned
		}
	}
	for _, t := range kept {
		w.Placement = append(w.Placement, t.Name)
	}
	res := scheduling.RunFilters(&w, alt.Clusters, alt.FiltersInUse()...)
	for _, t := range kept {
		if _, rejected := res.Rejected[t.Name]; rejected {
			req.Evicted = append(req.Evicted, t)
		} else {
			req.Targets = append(req.Targets, t)
		}
	}
	return &req
}

// knownOldCopies is l, or nil when l is a nil OldCopyLookupFunc: a lookup
// with no function knows nothing, as no lookup does.
func knownOldCopies(l eviction.OldCopyLookup) eviction.OldCopyLookup {
	if f, ok := l.(eviction.OldCopyLookupFunc); ok && f == nil {
		return nil
	}
	return l
}

// knownHealth is l, or nil when l is a nil HealthLookupFunc.
func knownHealth(l eviction.HealthLookup) eviction.HealthLookup {
	if f, ok := l.(eviction.HealthLookupFunc); ok && f == nil {
		return nil
	}
	return l
}

func findCluster(clusters []Cluster, name string) *Cluster {
	for i := range clusters {
		if clusters[i].Name == name {
			return &clusters[i]
		}
	}
	return nil
}

// earliestAfter is the first Until after now: the next change by itself.
func earliestAfter(steps []Explanation, now time.Time) time.Time {
	var next time.Time
	for _, s := range steps {
		if s.Until.After(now) && (next.IsZero() || s.Until.Before(next)) {
			next = s.Until
		}
	}
	return next
}
