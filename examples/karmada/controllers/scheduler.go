package controllers

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/api/policy/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/examples/karmada/carrier"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/scheduling"
)

// FailoverScheduler is the scheduler's failover half, enough to close the
// loop in this example: when an eviction left a binding with fewer clusters
// than it had (a task's ClustersBeforeFailover), it asks
// scheduling.Replace for the new placement (filters: taints, evictions in
// progress, eviction history within BlockPredecessorSeconds, suspension).
// It also expires the eviction history (eviction.EvictionHistory.GC) and
// reports the generation it observed. Initial placement is not its job.
// As Karmada's scheduler, it leaves alone a binding whose scheduling is
// suspended (spec.suspension.scheduling): it neither re-places it nor
// reports its generation until the suspension is lifted.
type FailoverScheduler struct {
	Client client.Client
	Clock  clock.PassiveClock
	// Queue tunes this controller's work queue and workers.
	Queue QueueOptions
	// Kind is the binding kind it reconciles.
	Kind BindingKind
	// DefaultTolerations are added to each binding's tolerations, unless
	// NoDefaultTolerations, as the taint manager does.
	DefaultTolerations   failover.DefaultTolerationsConfig
	NoDefaultTolerations bool
	// Tolerations is the toleration matching rule: the taint manager's
	// planner must have the same, so a workload evicted from a cluster is
	// never placed back on it.
	Tolerations failover.TolerationOptions
	// Schedule records when each object is due for its next look.
	Schedule *Schedule
	Events   *EventSink
	// Conditions, when set, keeps each binding's Failover condition in the
	// scheduler's status write, and the scheduler also looks at a binding
	// when its clusters or Works change (see FailoverConditions).
	Conditions *FailoverConditions
}

// SetupWithManager registers the scheduler.
func (s *FailoverScheduler) SetupWithManager(mgr manager.Manager, name string) error {
	if s.Conditions == nil {
		return setupController(mgr, name, s.Kind.NewObject(), s.Clock, s.Queue, s)
	}
	return explanationWatches(builder.ControllerManagedBy(mgr).
		Named(name).
		For(s.Kind.NewObject()).
		WithOptions(controllerOptions(s.Clock, s.Queue)), s.Client, s.Kind).
		Complete(s)
}

func blockSeconds(fb *failover.FailoverBehavior) *int32 {
	if fb != nil && fb.Application != nil {
		return fb.Application.BlockPredecessorSeconds
	}
	return nil
}

// Reconcile re-places one binding when it lost clusters.
func (s *FailoverScheduler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	now := s.Clock.Now()
	clusters := &clusterv1alpha1.ClusterList{}
	if err := s.Client.List(ctx, clusters); err != nil {
		return reconcile.Result{}, err
	}

	var next time.Time
	var plan scheduling.Plan
	var affinityName string
	var problems []string
	rb := s.Kind.NewObject()
	rb.SetNamespace(req.Namespace)
	rb.SetName(req.Name)
	err := patchObject(ctx, s.Client, rb, func(client.Object) bool {
		next, plan, affinityName, problems = time.Time{}, scheduling.Plan{}, "", nil
		if !rb.GetDeletionTimestamp().IsZero() {
			return false
		}
		fb, err := failoverPolicy(ctx, s.Client, rb)
		if err != nil {
			problems = append(problems, err.Error())
			return false
		}
		block := blockSeconds(fb)
		history, err := carrier.DecodeEvictionHistory(rb.GetAnnotations())
		if err != nil {
			problems = append(problems, err.Error())
		}
		removed, expiry := history.GC(block, now)
		changed := removed > 0 && setEvictionHistory(rb, history)
		next = expiry
		p, name, placed, err := replaceLost(rb, newFleet(clusters.Items), bindingOldCopies(ctx, s.Client, rb), history, block, defaultTolerations{config: s.DefaultTolerations, none: s.NoDefaultTolerations}, s.Tolerations, now)
		if err != nil {
			problems = append(problems, err.Error())
			return changed
		}
		plan, affinityName = p, name
		next = earliest(next, p.Filtered.RetryAt)
		return changed || placed
	})
	if err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	for _, p := range problems {
		s.Events.event(rb, corev1.EventTypeWarning, "SchedulingFailed", "%s", p)
	}
	if len(plan.Held) > 0 {
		s.Events.event(rb, corev1.EventTypeNormal, scheduling.ReasonFailoverPaused, "eviction from %v undone: dispatching there is suspended", plan.Held)
	} else if !plan.Changed && plan.Reason != "" {
		s.Events.event(rb, corev1.EventTypeWarning, plan.Reason, "no new placement yet")
	}
	// rb is what the spec patch returned (or the latest read): the status
	// write starts from it without another read.
	var status statusUpdate
	status.add(observeGeneration)
	recordAffinityName(&status, affinityName)
	var condition conditionUpdate
	if s.Conditions != nil {
		works, err := bindingWorks(ctx, s.Client, rb)
		if err != nil {
			return reconcile.Result{}, err
		}
		s.Conditions.addTo(ctx, &status, clusters.Items, works, now, &condition)
	}
	if err := status.apply(ctx, s.Client, rb); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	condition.record(s.Events, rb)
	return s.Schedule.Result(req.NamespacedName, now, next), nil
}

// lostClusters is eviction.Unreplaced on the binding's spec: the clusters
// an eviction took away that nothing has replaced yet.
func lostClusters(spec *workv1alpha2.ResourceBindingSpec) []string {
	return eviction.Unreplaced(targetNames(spec), toTasks(spec.GracefulEvictionTasks))
}

// replaceLost is the failover scheduler's placement, run on a binding in
// hand: when an eviction left it with fewer clusters than a task's
// ClustersBeforeFailover (lostClusters), scheduling.Replace picks the
// replacements (filters: taints matched with tolerations, evictions in
// progress, the eviction history within block, suspension; the binding's
// affinity, its spreads) and spec.clusters gets them. With
// clusterAffinities it tries the groups in order from the one in use
// (affinityTerms) and takes the first that places what was lost. It
// reports the plan, the name of the affinity term it placed by (empty for
// a placement without clusterAffinities, or when nothing was placed) and
// whether spec changed. The scheduler runs it in its own
// reconcile; the taint manager runs it in the reconcile that evicts, so the
// eviction and the new placement are one write.
func replaceLost(rb client.Object, fl *fleet, old eviction.OldCopyLookup, history eviction.EvictionHistory, block *int32,
	defaults defaultTolerations, tolerations failover.TolerationOptions, now time.Time) (scheduling.Plan, string, bool, error) {
	spec := bindingSpec(rb)
	// The taint manager and the application-failover controller ran
	// eviction.Evict; what they took out of the placement is what their
	// tasks recorded.
	evicted := eviction.UnreplacedTargets(toTargets(spec.Clusters), toTasks(spec.GracefulEvictionTasks), spec.Replicas)
	if len(evicted) == 0 || spec.SchedulingSuspended() {
		// Karmada's scheduler leaves a binding whose scheduling is
		// suspended alone; the lost clusters wait for the resume.
		return scheduling.Plan{}, "", false, nil
	}
	terms := affinityTerms(spec.Placement, bindingStatus(rb).SchedulerObservedAffinityName)
	var first scheduling.Plan
	for i, term := range terms {
		sreq := termRequest(rb, fl, term, history, block, defaults, tolerations, now)
		sreq.Targets, sreq.Evicted = toTargets(spec.Clusters), evicted
		sreq.Workload.OldCopies = old
		if i > 0 {
			// A later affinity group takes the whole placement, as
			// Karmada's scheduler moves it: the clusters that stayed but
			// lie outside the group leave it too.
			group := compileAffinity(term.affinity)
			var inGroup []eviction.TargetCluster
			leaving := slices.Clone(evicted)
			for _, t := range sreq.Targets {
				if cl := fl.cluster(t.Name); cl != nil && group.matches(cl) {
					inGroup = append(inGroup, t)
				} else {
					leaving = append(leaving, t)
				}
			}
			sreq.Targets, sreq.Evicted = inGroup, leaving
		}
		p, err := scheduling.Replace(sreq)
		if err != nil {
			return p, "", false, err
		}
		if i == 0 {
			first = p
		}
		if !p.Changed || p.Reason != "" {
			continue // nothing placed within this group: try the next one
		}
		writePlan(rb, p, history)
		return p, term.name, true, nil
	}
	// No group has room: the answer for the group in use stands, and
	// says why. Clusters it held still get their eviction undone.
	if len(first.Held) > 0 {
		writePlan(rb, first, history)
		return first, "", true, nil
	}
	return first, "", false, nil
}

// writePlan writes a plan's placement to rb's spec. A cluster the plan
// held (dispatching there became suspended after the eviction, while its
// Work still ran: its failover is paused) is in that placement again, with
// that Work; its eviction is undone: its task goes, as
// scheduling.Plan.WithoutHeldTasks says (left in place, it would purge the
// Work the placement keeps), and so does its eviction history entry (the
// workload never left). The failover there is decided again when
// dispatching resumes.
func writePlan(rb client.Object, p scheduling.Plan, history eviction.EvictionHistory) {
	spec := bindingSpec(rb)
	targets := make([]workv1alpha2.TargetCluster, 0, len(p.Targets))
	for _, tc := range p.Targets {
		targets = append(targets, workv1alpha2.TargetCluster{Name: tc.Name, Replicas: tc.Replicas})
	}
	spec.Clusters = targets
	if len(p.Held) == 0 {
		return
	}
	spec.GracefulEvictionTasks = slices.DeleteFunc(slices.Clone(spec.GracefulEvictionTasks), func(t workv1alpha2.GracefulEvictionTask) bool {
		return slices.Contains(p.Held, t.FromCluster)
	})
	if h := slices.Clone(history); h.Forget(p.Held...) {
		setEvictionHistory(rb, h)
	}
}

// recordAffinityName adds to a status update the name of the affinity
// term a re-placement placed by (status.schedulerObservingAffinityName, as
// Karmada's scheduler records it), when it is one of clusterAffinities and
// not the name already there; the next re-placement starts from that term.
func recordAffinityName(u *statusUpdate, name string) {
	if name == "" {
		return
	}
	u.add(func(o client.Object) bool {
		st := bindingStatus(o)
		if st.SchedulerObservedAffinityName == name {
			return false
		}
		st.SchedulerObservedAffinityName = name
		return true
	})
}

// recordSchedulerObservation adds the failover scheduler's observation to
// a status update: once a binding has no lost cluster left to place, all
// the scheduler would do with its new generation is report that it saw it
// (status.schedulerObservedGeneration, as Karmada's scheduler does after
// every generation). A controller that wrote the spec itself, with the
// scheduler's placement in the same write or leaving nothing to place,
// reports it in its own status write; the scheduler then finds nothing to
// write. Bindings being deleted and bindings with a lost cluster are left
// to the scheduler, and bindings whose scheduling is suspended to no one
// until it resumes.
func recordSchedulerObservation(u *statusUpdate) {
	u.add(func(o client.Object) bool {
		return o.GetDeletionTimestamp().IsZero() && len(lostClusters(bindingSpec(o))) == 0 && observeGeneration(o)
	})
}

// observeGeneration brings status.schedulerObservedGeneration up to the
// binding's generation, as Karmada's scheduler reports each generation it
// saw; it reports whether that changed the status. A binding whose
// scheduling is suspended is one the scheduler does not look at.
func observeGeneration(o client.Object) bool {
	st := bindingStatus(o)
	if st.SchedulerObservedGeneration == o.GetGeneration() || bindingSpec(o).SchedulingSuspended() {
		return false
	}
	st.SchedulerObservedGeneration = o.GetGeneration()
	return true
}

// failoverRequest is the failover scheduler's re-placement request for
// binding rb, without its Targets and Evicted: the fleet, the filters
// (taints matched with tolerations, evictions in progress, the eviction
// history within block, suspension; the placement's cluster affinity, or
// the clusterAffinities term in use, read whole: names, exclusions, label
// and field selectors), its spread by
// cluster, region and zone (a spread by provider, as in Karmada, only
// needs every candidate to name its provider; a Divided placement weighted
// statically or evenly keeps only that need, as Karmada's scheduler ignores
// such a placement's spread constraints), and for
// divided replicas the division: aggregated, or by the
// static weight list (Karmada's rule: a cluster weighs the highest weight
// of the rules that select it; every cluster weighs the same when no
// cluster the replicas could go to has a weight). The explanation asks the
// same question.
func failoverRequest(rb client.Object, fl *fleet, history eviction.EvictionHistory, block *int32,
	defaults defaultTolerations, tolerations failover.TolerationOptions, now time.Time) *scheduling.Request {
	term := affinityTerms(bindingSpec(rb).Placement, bindingStatus(rb).SchedulerObservedAffinityName)[0]
	return termRequest(rb, fl, term, history, block, defaults, tolerations, now)
}

// termRequest is failoverRequest with the cluster affinity of term.
func termRequest(rb client.Object, fl *fleet, term affinityTerm, history eviction.EvictionHistory, block *int32,
	defaults defaultTolerations, tolerations failover.TolerationOptions, now time.Time) *scheduling.Request {
	spec := bindingSpec(rb)
	clusters := fl.clusters
	var clusterTolerations []corev1.Toleration
	sreq := &scheduling.Request{
		Type:     scheduling.Duplicated,
		Replicas: spec.Replicas,
		Clusters: fl.scheduling,
		Filters: []scheduling.Filter{
			scheduling.TaintToleration(tolerations),
			scheduling.EvictionInProgress(),
			scheduling.EvictionHistoryFilter(),
			scheduling.Suspended(),
		},
	}
	if p := spec.Placement; p != nil {
		clusterTolerations = p.ClusterTolerations
		// The clusters the affinity selects, matched once for the filter
		// and the weights.
		selected := term.selected(fl)
		if term.affinity != nil {
			sreq.Filters = append(sreq.Filters, scheduling.SelectedClusters(selected))
		}
		if rs := p.ReplicaScheduling; rs != nil && rs.ReplicaSchedulingType == policyv1alpha1.ReplicaSchedulingTypeDivided {
			sreq.Type = scheduling.Divided
			switch {
			case rs.ReplicaDivisionPreference == policyv1alpha1.ReplicaDivisionPreferenceAggregated:
				sreq.Division = scheduling.DivideAggregated
			case rs.WeightPreference != nil && len(rs.WeightPreference.StaticWeightList) > 0:
				sreq.StaticWeights = usableWeights(staticWeights(rs.WeightPreference.StaticWeightList, clusters), selected, clusters, lostClusters(spec))
			}
		}
		if needed := spreadFields(p.SpreadConstraints); len(needed) > 0 {
			sreq.Filters = append(sreq.Filters, spreadFieldFilter(fl, needed))
		}
		if !spreadIgnored(p.ReplicaScheduling) {
			for _, sc := range p.SpreadConstraints {
				bounds := &scheduling.SpreadConstraint{MinGroups: int32(sc.MinGroups), MaxGroups: int32(sc.MaxGroups)}
				switch sc.SpreadByField {
				case policyv1alpha1.SpreadByFieldCluster:
					sreq.Spread = bounds
				case policyv1alpha1.SpreadByFieldRegion:
					sreq.RegionSpread = bounds
				case policyv1alpha1.SpreadByFieldZone:
					sreq.ZoneSpread = bounds
				}
			}
		}
	}
	sreq.Workload = &scheduling.Workload{
		Name:                    string(kindOf(rb)) + "/" + client.ObjectKeyFromObject(rb).String(),
		Tolerations:             defaults.add(clusterTolerations),
		EvictionTasks:           toTasks(spec.GracefulEvictionTasks),
		History:                 history,
		BlockPredecessorSeconds: block,
		Suspension:              toSuspension(spec.Suspension),
		Now:                     now,
	}
	return sreq
}

// usableWeights is weights when some Ready cluster that the affinity
// selected and the replicas could move to has one, and nil (every cluster
// weighs the same) otherwise.
func usableWeights(weights map[string]int64, selected map[string]bool, clusters []clusterv1alpha1.Cluster, lost []string) map[string]int64 {
	for i := range clusters {
		cl := &clusters[i]
		if weights[cl.Name] > 0 && selected[cl.Name] && !slices.Contains(lost, cl.Name) &&
			meta.IsStatusConditionTrue(cl.Status.Conditions, clusterv1alpha1.ClusterConditionReady) {
			return weights
		}
	}
	return nil
}

// spreadIgnored reports whether Karmada's scheduler ignores the spread
// constraints of a placement with this replica scheduling: Divided and
// Weighted (the default Karmada's admission gives an empty preference),
// by a static weight list or with no weight preference at all.
func spreadIgnored(rs *policyv1alpha1.ReplicaSchedulingStrategy) bool {
	if rs == nil || rs.ReplicaSchedulingType != policyv1alpha1.ReplicaSchedulingTypeDivided {
		return false
	}
	if p := rs.ReplicaDivisionPreference; p != policyv1alpha1.ReplicaDivisionPreferenceWeighted && p != "" {
		return false
	}
	wp := rs.WeightPreference
	return wp == nil || (len(wp.StaticWeightList) > 0 && wp.DynamicWeight == "")
}

// spreadFields lists the cluster fields that spread constraints group by,
// other than the cluster itself: each candidate must have them.
func spreadFields(constraints []policyv1alpha1.SpreadConstraint) []policyv1alpha1.SpreadFieldValue {
	var out []policyv1alpha1.SpreadFieldValue
	for _, sc := range constraints {
		switch sc.SpreadByField {
		case policyv1alpha1.SpreadByFieldProvider, policyv1alpha1.SpreadByFieldRegion, policyv1alpha1.SpreadByFieldZone:
			out = append(out, sc.SpreadByField)
		}
	}
	return out
}

// filterSpreadConstraint names spreadFieldFilter in rejections, after
// Karmada's filter plugin.
const filterSpreadConstraint = "SpreadConstraint"

// spreadFieldFilter rejects a cluster that lacks a field the placement
// spreads by, as Karmada's SpreadConstraint filter plugin does.
func spreadFieldFilter(fl *fleet, fields []policyv1alpha1.SpreadFieldValue) scheduling.Filter {
	return scheduling.NamedFilter(filterSpreadConstraint, func(_ *scheduling.Workload, c *scheduling.Cluster) scheduling.Status {
		cl := fl.cluster(c.Name)
		if cl == nil {
			return scheduling.Fit()
		}
		for _, field := range fields {
			var missing bool
			switch field {
			case policyv1alpha1.SpreadByFieldProvider:
				missing = cl.Spec.Provider == ""
			case policyv1alpha1.SpreadByFieldRegion:
				missing = cl.Spec.Region == ""
			case policyv1alpha1.SpreadByFieldZone:
				missing = len(cl.Spec.Zones) == 0
			}
			if missing {
				return scheduling.Reject(fmt.Sprintf("the cluster has no %s, which the placement spreads by", field))
			}
		}
		return scheduling.Fit()
	})
}
