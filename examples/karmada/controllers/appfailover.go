package controllers

import (
	"context"
	"encoding/json"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/suspension"

	workv1alpha2 "github.com/fleetover/fleetover/examples/karmada/apis/work/v1alpha2"
)

// ApplicationHealthRecordsAnnotation holds the application failover
// detector's records of a binding (unhealthy-since and settled, per
// cluster, as JSON). They live on the binding, so a restarted controller
// neither restarts nor skips a toleration countdown (Karmada #7171).
const ApplicationHealthRecordsAnnotation = "failover.fleetover.io/application-health"

// ApplicationFailoverController moves a workload off a cluster where it
// stays unhealthy. Per binding it asks failover.DetectApplicationFailure
// (preconditions, toleration countdown, Unknown handling), applies each
// eviction with eviction.Evict, carrying the state the policy preserves
// (package preservation), and records it in the binding's eviction history
// so the scheduler keeps the workload away for BlockPredecessorSeconds.
type ApplicationFailoverController struct {
	Client client.Client
	Clock  clock.PassiveClock
	// Detector configures the detector (Karmada-compatible switches).
	Detector failover.DetectorConfig
	// Health interprets a cluster's status when the aggregated status
	// carries no health; nil leaves such a cluster Unknown.
	Health  *health.Registry
	Recheck *Rechecker
	Events  *EventSink
}

// SetupWithManager registers the controller and its Rechecker.
func (a *ApplicationFailoverController) SetupWithManager(mgr manager.Manager, name string) error {
	return setupWithRechecker(mgr, name, &workv1alpha2.ResourceBinding{}, a.Recheck, a)
}

// workloadHealth is the health view of the binding's aggregated status:
// the collected health, or the registry's reading of the collected status.
func (a *ApplicationFailoverController) workloadHealth(rb *workv1alpha2.ResourceBinding) []failover.ObservedHealth {
	out := make([]failover.ObservedHealth, 0, len(rb.Status.AggregatedStatus))
	for i := range rb.Status.AggregatedStatus {
		item := &rb.Status.AggregatedStatus[i]
		status := health.Status(item.Health)
		if !status.IsValid() {
			status = a.interpret(rb, item)
		}
		out = append(out, failover.ObservedHealth{
			ClusterName:    item.ClusterName,
			Status:         status,
			CollectedSince: item.CreationTimestamp,
			Settled:        item.Settled,
		})
	}
	return out
}

func (a *ApplicationFailoverController) interpret(rb *workv1alpha2.ResourceBinding, item *workv1alpha2.AggregatedStatusItem) health.Status {
	if a.Health == nil || item.Status == nil || len(item.Status.Raw) == 0 {
		return health.Unknown
	}
	var status map[string]any
	if err := json.Unmarshal(item.Status.Raw, &status); err != nil {
		return health.Unknown
	}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": rb.Spec.Resource.APIVersion,
		"kind":       rb.Spec.Resource.Kind,
		"status":     status,
	}}
	return a.Health.Interpret(obj).Status
}

func decodeRecords(rb *workv1alpha2.ResourceBinding) []failover.WorkloadHealthRecord {
	raw, ok := rb.Annotations[ApplicationHealthRecordsAnnotation]
	if !ok {
		return nil
	}
	var recs []failover.WorkloadHealthRecord
	if err := json.Unmarshal([]byte(raw), &recs); err != nil {
		// A damaged record restarts the countdown rather than guessing.
		return nil
	}
	return recs
}

func encodeRecords(rb *workv1alpha2.ResourceBinding, recs []failover.WorkloadHealthRecord) {
	if len(recs) == 0 {
		delete(rb.Annotations, ApplicationHealthRecordsAnnotation)
		return
	}
	raw, _ := json.Marshal(recs)
	if rb.Annotations == nil {
		rb.Annotations = map[string]string{}
	}
	rb.Annotations[ApplicationHealthRecordsAnnotation] = string(raw)
}

// Reconcile decides for one binding.
func (a *ApplicationFailoverController) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	now := a.Clock.Now()
	var next time.Time
	var evicted []failover.ApplicationEviction
	err := updateBinding(ctx, a.Client, req.NamespacedName, func(rb *workv1alpha2.ResourceBinding) bool {
		next, evicted = time.Time{}, nil
		if !rb.DeletionTimestamp.IsZero() {
			return false
		}
		var policy *failover.ApplicationFailoverBehavior
		if rb.Spec.Failover != nil {
			policy = rb.Spec.Failover.Application
		}
		// Failover is paused where dispatching is suspended (dispatch suspension pauses failover).
		clusters := make([]string, 0, len(rb.Spec.Clusters))
		for _, name := range targetNames(rb) {
			if !suspension.FailoverPaused(rb.Spec.Suspension, name) {
				clusters = append(clusters, name)
			}
		}
		det, err := failover.DetectApplicationFailure(failover.DetectorInput{
			Policy:   policy,
			Clusters: clusters,
			Health:   a.workloadHealth(rb),
			Records:  decodeRecords(rb),
		}, now, a.Detector)
		if err != nil {
			a.Events.event(rb, corev1.EventTypeWarning, "InvalidFailoverPolicy", "%v", err)
			return false
		}
		next = det.NextCheck
		changed := false
		for _, e := range det.Evictions {
			var state map[string]string
			if policy.StatePreservation != nil {
				s, err := extractState(policy.StatePreservation, rb, e.FromCluster)
				if err != nil {
					a.Events.event(rb, corev1.EventTypeWarning, "StatePreservationFailed", "eviction from %s waits: %v", e.FromCluster, err)
					continue
				}
				state = s
			}
			_, ok, err := evictInto(rb, e.Eviction(state))
			if err != nil {
				a.Events.event(rb, corev1.EventTypeWarning, "EvictionRejected", "%v", err)
				continue
			}
			if ok {
				rb.Spec.ActiveEvictionHistory.Record(e.FromCluster, now)
				evicted = append(evicted, e)
				changed = true
			}
		}
		if det.RecordsChanged || changed {
			encodeRecords(rb, det.Records)
			changed = true
		}
		return changed
	})
	if err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	for _, e := range evicted {
		rb := &workv1alpha2.ResourceBinding{}
		rb.Namespace, rb.Name = req.Namespace, req.Name
		a.Events.event(rb, corev1.EventTypeWarning, e.Reason, "evicted from cluster %s: %s", e.FromCluster, e.Message)
	}
	a.Recheck.Replace(req.NamespacedName, next)
	return reconcile.Result{}, nil
}
