package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/examples/karmada/carrier"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/suspension"
)

// ApplicationFailoverController moves a workload off a cluster where it
// stays unhealthy. Per binding of its Kind it asks
// failover.DetectApplicationFailure (preconditions, toleration countdown,
// Unknown handling), applies each eviction with eviction.Evict, carrying the
// state the policy preserves (package preservation), and records it in the
// binding's eviction history (EvictionHistoryAnnotation) so the scheduler
// keeps the workload away for blockPredecessorSeconds.
type ApplicationFailoverController struct {
	Client client.Client
	Clock  clock.PassiveClock
	// Queue tunes this controller's work queue and workers.
	Queue QueueOptions
	// Kind is the binding kind it reconciles.
	Kind BindingKind
	// Detector configures the detector (Karmada-compatible switches).
	Detector failover.DetectorConfig
	// Health interprets a cluster's status when the aggregated status
	// carries no health; nil leaves such a cluster Unknown.
	Health *health.Registry
	// Rules caches compiled state-preservation rules; nil compiles each time.
	Rules *RuleCache
	// PreserveState extracts the state a policy preserves at the eviction
	// (Karmada's StatefulFailoverInjection gate); off, no state is read.
	PreserveState bool
	// RefuseGracefulPurge refuses evictions whose purge mode is Gracefully,
	// as Karmada does with its GracefulEviction gate off: a Warning event
	// says so and the workload stays.
	RefuseGracefulPurge bool
	// Schedule records when each object is due for its next look.
	Schedule *Schedule
	Events   *EventSink
}

// SetupWithManager registers the controller.
func (a *ApplicationFailoverController) SetupWithManager(mgr manager.Manager, name string) error {
	return setupController(mgr, name, a.Kind.NewObject(), a.Clock, a.Queue, a)
}

// workloadHealth is the health view of the binding's aggregated status:
// the collected health, or the registry's reading of the collected status,
// with the first-collection time and settled flag from obs.
func (a *ApplicationFailoverController) workloadHealth(spec *workv1alpha2.ResourceBindingSpec, status *workv1alpha2.ResourceBindingStatus, obs []StatusObservation) []failover.ObservedHealth {
	out := make([]failover.ObservedHealth, 0, len(status.AggregatedStatus))
	for i := range status.AggregatedStatus {
		item := &status.AggregatedStatus[i]
		st := health.Status(item.Health)
		if !st.IsValid() {
			st = a.interpret(spec, item)
		}
		wh := failover.ObservedHealth{ClusterName: item.ClusterName, Status: st}
		for _, o := range obs {
			if o.ClusterName == item.ClusterName {
				wh.CollectedSince, wh.Settled = o.FirstCollected, o.Settled
			}
		}
		out = append(out, wh)
	}
	return out
}

func (a *ApplicationFailoverController) interpret(spec *workv1alpha2.ResourceBindingSpec, item *workv1alpha2.AggregatedStatusItem) health.Status {
	if a.Health == nil || item.Status == nil || len(item.Status.Raw) == 0 {
		return health.Unknown
	}
	var status map[string]any
	if err := json.Unmarshal(item.Status.Raw, &status); err != nil {
		return health.Unknown
	}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": spec.Resource.APIVersion,
		"kind":       spec.Resource.Kind,
		"status":     status,
	}}
	return a.Health.Interpret(obj).Status
}

// appDecision is what one reconcile decided, kept outside the conflict
// retries so that its events are recorded once.
type appDecision struct {
	next     time.Time
	evicted  []failover.ApplicationEviction
	warnings []string
	invalid  error
}

// Reconcile decides for one binding.
func (a *ApplicationFailoverController) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	now := a.Clock.Now()
	rb := a.Kind.NewObject()
	rb.SetNamespace(req.Namespace)
	rb.SetName(req.Name)
	var d appDecision
	err := patchObject(ctx, a.Client, rb, func(client.Object) bool {
		d = appDecision{}
		if !rb.GetDeletionTimestamp().IsZero() {
			return false
		}
		spec, status := bindingSpec(rb), bindingStatus(rb)
		fb, err := failoverPolicy(ctx, a.Client, rb)
		if err != nil {
			d.invalid = err
			return false
		}
		var policy *failover.ApplicationFailoverBehavior
		if fb != nil {
			policy = fb.Application
		}
		changed := false
		obs, err := decodeStatusObservations(rb.GetAnnotations())
		if err != nil {
			d.warnings = append(d.warnings, err.Error())
		}
		obs = observeStatus(obs, statusItems(status), now)
		if policy != nil && setStatusObservations(rb, obs) {
			changed = true
		}
		records, err := decodeRecords(rb.GetAnnotations())
		if err != nil {
			// A damaged record restarts the countdown rather than guessing.
			d.warnings = append(d.warnings, err.Error())
		}
		// Failover is paused where dispatching is suspended (dispatch suspension pauses failover).
		clusters := make([]string, 0, len(spec.Clusters))
		for _, name := range targetNames(spec) {
			if !suspension.FailoverPaused(toSuspension(spec.Suspension), name) {
				clusters = append(clusters, name)
			}
		}
		det, err := failover.DetectApplicationFailure(failover.DetectorInput{
			Policy:   policy,
			Clusters: clusters,
			Health:   a.workloadHealth(spec, status, obs),
			Records:  records,
		}, now, a.Detector)
		if err != nil {
			d.invalid = err
			return false
		}
		d.next = det.NextCheck
		history, err := carrier.DecodeEvictionHistory(rb.GetAnnotations())
		if err != nil {
			d.warnings = append(d.warnings, err.Error())
		}
		for _, e := range det.Evictions {
			if a.RefuseGracefulPurge && e.PurgeMode.Normalize() == eviction.PurgeGracefully {
				d.warnings = append(d.warnings, fmt.Sprintf("eviction from %s refused: the GracefulEviction feature gate must be enabled when purgeMode is %s", e.FromCluster, e.PurgeMode))
				continue
			}
			var state map[string]string
			if a.PreserveState && policy.StatePreservation != nil {
				s, err := extractState(a.Rules, policy.StatePreservation, status, e.FromCluster)
				if err != nil {
					d.warnings = append(d.warnings, fmt.Sprintf("eviction from %s waits: %v", e.FromCluster, err))
					continue
				}
				state = s
			}
			// Stamped at the decision, in the same write: the graceful
			// eviction controller then has no stamp to write.
			ev := e.Eviction(state)
			ev.CreatedAt = now
			_, ok, err := evictInto(spec, ev, lastFencingEpoch(ctx, a.Client, rb))
			if err != nil {
				d.warnings = append(d.warnings, err.Error())
				continue
			}
			if ok {
				history.Record(e.FromCluster, now)
				d.evicted = append(d.evicted, e)
				changed = true
			}
		}
		if len(d.evicted) > 0 {
			setEvictionHistory(rb, history)
		}
		// The detector keeps a proposed eviction's record until the
		// cluster leaves the targets, so its records are saved as they
		// come back: an eviction that waits keeps its countdown.
		if setRecords(rb, det.Records) {
			changed = true
		}
		return changed
	})
	if err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	if d.invalid != nil {
		a.Events.event(rb, corev1.EventTypeWarning, "InvalidFailoverPolicy", "%v", d.invalid)
	}
	for _, w := range d.warnings {
		a.Events.event(rb, corev1.EventTypeWarning, "ApplicationFailoverWaits", "%s", w)
	}
	for _, e := range d.evicted {
		a.Events.evicted(rb, e.FromCluster)
		a.Events.event(rb, corev1.EventTypeWarning, e.Reason, "evicted from cluster %s: %s", e.FromCluster, e.Message)
	}
	return a.Schedule.Result(req.NamespacedName, now, d.next), nil
}
