package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/clock"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/fleetover/fleetover/failover"
)

// ClusterHealthController keeps each ManagedCluster's health taints. An
// OCM cluster reports from its klusterlet: the registration agent renews
// the Lease managed-cluster-lease in the cluster's namespace and sets the
// ManagedClusterConditionAvailable condition. Both go into failover's
// ClusterHealthTracker (every OCM cluster is a pull-mode cluster): a
// renewal is a sign of life, the condition is the agent's verdict, and
// silence for the monitor grace period makes the cluster Unknown. The
// tracker's debounced Ready condition then gives the taints, through
// failover.ComputeClusterTaints with OCM's keys: unavailable for
// Ready=False, unreachable for Unknown.
//
// It writes spec.taints (only the keys it is configured with; other taints
// are kept) and the tracker state annotation, in one optimistic write. It
// never writes the cluster's status: the conditions belong to the
// klusterlet and the hub's registration controller.
type ClusterHealthController struct {
	Client client.Client
	Clock  clock.PassiveClock
	// Tracker holds the debounce state; its clock must be Clock.
	Tracker failover.ClusterHealthTracker
	// Taints configures the health taints.
	Taints  failover.ClusterTaintConfig
	Recheck *Rechecker
	Events  *EventSink
}

// SetupWithManager registers the controller and its Rechecker.
func (c *ClusterHealthController) SetupWithManager(mgr manager.Manager, name string) error {
	if err := mgr.Add(c.Recheck); err != nil {
		return err
	}
	return builder.ControllerManagedBy(mgr).
		Named(name).
		For(&clusterv1.ManagedCluster{}).
		Watches(&coordinationv1.Lease{}, handler.EnqueueRequestsFromMapFunc(clusterOfLease)).
		WatchesRawSource(c.Recheck.Source()).
		Complete(c)
}

func clusterOfLease(_ context.Context, o client.Object) []reconcile.Request {
	if o.GetName() != ClusterLeaseName {
		return nil
	}
	return []reconcile.Request{{NamespacedName: types.NamespacedName{Name: o.GetNamespace()}}}
}

// Reconcile observes one cluster and writes its taints.
func (c *ClusterHealthController) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	mc := &clusterv1.ManagedCluster{}
	if err := c.Client.Get(ctx, req.NamespacedName, mc); err != nil {
		if apierrors.IsNotFound(err) {
			c.Tracker.Forget(req.Name)
			c.Recheck.Cancel(req.NamespacedName)
		}
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	c.track(mc)
	if err := c.observe(ctx, mc); err != nil {
		return reconcile.Result{}, err
	}
	now := c.Clock.Now()
	var ready *metav1.Condition
	if cond, ok := c.Tracker.Ready(mc.Name); ok {
		ready = &cond
	}
	nextTaints, err := c.write(ctx, mc.Name, ready, now)
	if err != nil {
		return reconcile.Result{}, err
	}
	next, _ := c.Tracker.NextCheck(mc.Name)
	c.Recheck.Replace(req.NamespacedName, earliest(next, nextTaints))
	return reconcile.Result{}, nil
}

// track registers the cluster with the tracker, importing the persisted
// state first so that a restart continues every countdown.
func (c *ClusterHealthController) track(mc *clusterv1.ManagedCluster) {
	if _, ok := c.Tracker.Export(mc.Name); ok {
		return
	}
	if raw, ok := mc.Annotations[ClusterHealthStateAnnotation]; ok {
		var st failover.ClusterHealthState
		if err := json.Unmarshal([]byte(raw), &st); err == nil {
			st.SyncMode = failover.ClusterSyncModePull
			if err := c.Tracker.Import(mc.Name, st); err == nil {
				return
			}
		}
		c.Events.event(mc, corev1.EventTypeWarning, "ClusterHealthStateInvalid", "annotation %s ignored: the health countdowns restart", ClusterHealthStateAnnotation)
	}
	c.Tracker.Register(mc.Name, failover.ClusterSyncModePull)
}

// observe feeds the klusterlet's latest report to the tracker: a lease
// renewal newer than the last one heard, with the agent's Available
// verdict as of then, or a change of that verdict.
func (c *ClusterHealthController) observe(ctx context.Context, mc *clusterv1.ManagedCluster) error {
	st, _ := c.Tracker.Export(mc.Name)
	var lastHeard time.Time
	if st.LastHeard != nil {
		lastHeard = st.LastHeard.Time
	}
	heard := time.Time{}
	lease := &coordinationv1.Lease{}
	err := c.Client.Get(ctx, types.NamespacedName{Namespace: mc.Name, Name: ClusterLeaseName}, lease)
	if client.IgnoreNotFound(err) != nil {
		return err
	}
	if err == nil && lease.Spec.RenewTime != nil && lease.Spec.RenewTime.After(lastHeard) {
		heard = lease.Spec.RenewTime.Time
		if err := c.Tracker.ObserveLease(mc.Name, heard); err != nil {
			return err
		}
	}
	available := condition(mc.Status.Conditions, clusterv1.ManagedClusterConditionAvailable)
	if heard.IsZero() && !verdictIsNews(available, st, lastHeard) {
		return nil
	}
	if report, ok := agentReport(available); ok {
		if _, err := c.Tracker.ObserveProbe(mc.Name, report); err != nil {
			return err
		}
	}
	return nil
}

// verdictIsNews reports whether the klusterlet's Available verdict, seen
// without a new lease renewal, is a report the tracker has not had. A
// transition time is cut down to its second and a heard time rounded up to
// one, so a verdict given just after a renewal the controller heard first
// can read up to a second older than it: within that second it may still
// be news. It is news only if it would change what the tracker holds (the
// published condition, or the one pending across the debounce), and, once
// silence made the cluster Unknown, only if it was given after the cluster
// was last heard from. A verdict the tracker already holds is no sign of
// life: fed again, it would move the last-heard time to now, which after a
// restart (the persisted last-heard time is the verdict's second) would
// start the silence countdown again from the restart.
func verdictIsNews(available *metav1.Condition, st failover.ClusterHealthState, lastHeard time.Time) bool {
	if available == nil || available.LastTransitionTime.Add(time.Second).Before(lastHeard) {
		return false
	}
	report, ok := agentReport(available)
	if !ok {
		return false
	}
	switch {
	case st.Ready == nil:
		return true
	case st.Ready.Status == metav1.ConditionUnknown:
		return available.LastTransitionTime.After(lastHeard)
	case st.Pending != nil:
		return report.Healthy != (st.Pending.Status == metav1.ConditionTrue)
	default:
		return report.Healthy != (st.Ready.Status == metav1.ConditionTrue)
	}
}

// write applies the taint diff and persists the tracker state in one
// optimistic write. It returns when the taints change next by themselves.
func (c *ClusterHealthController) write(ctx context.Context, name string, ready *metav1.Condition, now time.Time) (time.Time, error) {
	state, _ := c.Tracker.Export(name)
	raw, err := json.Marshal(state)
	if err != nil {
		return time.Time{}, err
	}
	var next time.Time
	var added []clusterv1.Taint
	err = update(ctx, c.Client, client.ObjectKey{Name: name}, &clusterv1.ManagedCluster{}, false, func(mc *clusterv1.ManagedCluster) bool {
		changed := false
		added = nil
		up, err := healthTaints(c.Taints, ready, mc.Spec.Taints, now)
		if err != nil {
			// The rest of the diff is still valid.
			c.Events.event(mc, corev1.EventTypeWarning, "TaintComputation", "%v", err)
		}
		next = up.Next
		if up.Changed {
			added = newTaints(mc.Spec.Taints, up.Taints)
			mc.Spec.Taints = up.Taints
			changed = true
		}
		if mc.Annotations[ClusterHealthStateAnnotation] != string(raw) {
			if mc.Annotations == nil {
				mc.Annotations = map[string]string{}
			}
			mc.Annotations[ClusterHealthStateAnnotation] = string(raw)
			changed = true
		}
		return changed
	})
	if err != nil {
		return time.Time{}, fmt.Errorf("managed cluster %q taints: %w", name, err)
	}
	for _, t := range added {
		mc := &clusterv1.ManagedCluster{ObjectMeta: metav1.ObjectMeta{Name: name}}
		c.Events.event(mc, corev1.EventTypeWarning, "TaintAdded", "%s:%s", t.Key, t.Effect)
	}
	return next, nil
}

func newTaints(old, cur []clusterv1.Taint) []clusterv1.Taint {
	var out []clusterv1.Taint
	for _, t := range cur {
		found := false
		for _, o := range old {
			if o.Key == t.Key && o.Effect == t.Effect {
				found = true
				break
			}
		}
		if !found {
			out = append(out, t)
		}
	}
	return out
}

func earliest(a, b time.Time) time.Time {
	switch {
	case a.IsZero():
		return b
	case b.IsZero() || a.Before(b):
		return a
	default:
		return b
	}
}
