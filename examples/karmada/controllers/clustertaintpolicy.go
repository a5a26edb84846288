package controllers

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/clock"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/api/policy/v1alpha1"

	"github.com/fleetover/fleetover/failover"
)

// Karmada's event reasons for a change of a cluster's taints.
const (
	EventReasonTaintClusterSucceed = "TaintClusterSucceed"
	EventReasonTaintClusterFailed  = "TaintClusterFailed"
	// EventReasonInvalidClusterTaintPolicy is fleetover's: a policy the
	// library refuses (Karmada's webhook would have refused it) is left
	// out, with this Warning on the policy.
	EventReasonInvalidClusterTaintPolicy = "InvalidClusterTaintPolicy"
)

// ClusterTaintPolicyController applies Karmada's ClusterTaintPolicy objects
// (policy.karmada.io/v1alpha1) to the clusters they target, as Karmada's
// clustertaintpolicy controller does: for each cluster, the policies whose
// targetClusters select it, oldest first, add their taints when every
// addOnConditions match holds and remove them when every
// removeOnConditions match holds. A taint is identified by key and effect.
// Deleting a policy leaves its taints where they are.
//
// The decision is failover.ComputePolicyTaints; where it differs from
// Karmada (a taint removed and added back in one look keeps its TimeAdded,
// so toleration countdowns do not restart) docs/karmada-compat.md says so.
// The health taints are not this controller's: the cluster controller
// (ClusterHealthController, or Karmada's own) keeps them.
type ClusterTaintPolicyController struct {
	Client client.Client
	Clock  clock.PassiveClock
	// Queue tunes this controller's work queue and workers.
	Queue  QueueOptions
	Events *EventSink
}

// SetupWithManager registers the controller: a cluster is looked at when
// it is created or its conditions change, and every cluster a policy
// targets when the policy is created or its spec changes.
func (c *ClusterTaintPolicyController) SetupWithManager(mgr manager.Manager, name string) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named(name).
		For(&clusterv1alpha1.Cluster{}, builder.WithPredicates(conditionsChanged())).
		Watches(&policyv1alpha1.ClusterTaintPolicy{}, handler.EnqueueRequestsFromMapFunc(c.targetsOf),
			builder.WithPredicates(policySpecChanged())).
		WithOptions(controllerOptions(c.Clock, c.Queue)).
		Complete(c)
}

func conditionsChanged() predicate.Funcs {
	return predicate.Funcs{
		CreateFunc: func(event.CreateEvent) bool { return true },
		UpdateFunc: func(e event.UpdateEvent) bool {
			before, okOld := e.ObjectOld.(*clusterv1alpha1.Cluster)
			after, okNew := e.ObjectNew.(*clusterv1alpha1.Cluster)
			return okOld && okNew && !reflect.DeepEqual(before.Status.Conditions, after.Status.Conditions)
		},
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}

func policySpecChanged() predicate.Funcs {
	return predicate.Funcs{
		CreateFunc: func(event.CreateEvent) bool { return true },
		UpdateFunc: func(e event.UpdateEvent) bool {
			before, okOld := e.ObjectOld.(*policyv1alpha1.ClusterTaintPolicy)
			after, okNew := e.ObjectNew.(*policyv1alpha1.ClusterTaintPolicy)
			return okOld && okNew && !reflect.DeepEqual(before.Spec, after.Spec)
		},
		// Karmada leaves a deleted policy's taints in place.
		DeleteFunc:  func(event.DeleteEvent) bool { return false },
		GenericFunc: func(event.GenericEvent) bool { return false },
	}
}

// targetsOf maps a policy to the clusters it selects.
func (c *ClusterTaintPolicyController) targetsOf(ctx context.Context, o client.Object) []reconcile.Request {
	p, ok := o.(*policyv1alpha1.ClusterTaintPolicy)
	if !ok {
		return nil
	}
	clusters := &clusterv1alpha1.ClusterList{}
	if err := c.Client.List(ctx, clusters); err != nil {
		return nil
	}
	sel := compileAffinity(p.Spec.TargetClusters)
	var out []reconcile.Request
	for i := range clusters.Items {
		if sel.matches(&clusters.Items[i]) {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&clusters.Items[i])})
		}
	}
	return out
}

// Reconcile applies the policies to one cluster.
func (c *ClusterTaintPolicyController) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	list := &policyv1alpha1.ClusterTaintPolicyList{}
	if err := c.Client.List(ctx, list); err != nil {
		return reconcile.Result{}, err
	}
	var diff failover.ClusterTaintDiff
	cl := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: req.Name}}
	err := patchObject(ctx, c.Client, cl, func(client.Object) bool {
		policies := c.policiesFor(cl, list.Items)
		diff = failover.ComputePolicyTaints(policies, cl.Status.Conditions, cl.Spec.Taints, c.Clock.Now())
		if diff.Changed {
			cl.Spec.Taints = diff.Result
		}
		return diff.Changed
	})
	switch {
	case client.IgnoreNotFound(err) != nil:
		c.Events.event(cl, corev1.EventTypeWarning, EventReasonTaintClusterFailed, "%v", err)
		return reconcile.Result{}, err
	case err == nil && diff.Changed:
		c.Events.event(cl, corev1.EventTypeNormal, EventReasonTaintClusterSucceed,
			"Update Cluster(%s) with taints(%s) succeed", cl.Name, taintsMessage(diff.Result))
	}
	return reconcile.Result{}, nil
}

// policiesFor converts the policies that target cl into the library's,
// named so that they sort oldest first, as Karmada applies them. A policy
// the library refuses is left out, with a Warning on it.
func (c *ClusterTaintPolicyController) policiesFor(cl *clusterv1alpha1.Cluster, items []policyv1alpha1.ClusterTaintPolicy) []failover.ConditionTaintPolicy {
	var out []failover.ConditionTaintPolicy
	for i := range items {
		p := &items[i]
		if p.DeletionTimestamp != nil || !compileAffinity(p.Spec.TargetClusters).matches(cl) {
			continue
		}
		lp := ToConditionTaintPolicy(p)
		if errs := failover.ValidateClusterTaintConfig(failover.ClusterTaintConfig{Policies: []failover.ConditionTaintPolicy{lp}}, field.NewPath("spec")); len(errs) > 0 {
			c.Events.event(p, corev1.EventTypeWarning, EventReasonInvalidClusterTaintPolicy, "left out: %v", errs.ToAggregate())
			continue
		}
		out = append(out, lp)
	}
	return out
}

// ToConditionTaintPolicy converts a Karmada ClusterTaintPolicy into the
// library's ConditionTaintPolicy, named "<creation time>/<name>" so that
// policies sort oldest first, as Karmada orders them.
func ToConditionTaintPolicy(p *policyv1alpha1.ClusterTaintPolicy) failover.ConditionTaintPolicy {
	out := failover.ConditionTaintPolicy{
		Name:               p.CreationTimestamp.UTC().Format("2006-01-02T15:04:05Z") + "/" + p.Name,
		AddOnConditions:    toConditionMatches(p.Spec.AddOnConditions),
		RemoveOnConditions: toConditionMatches(p.Spec.RemoveOnConditions),
	}
	for _, t := range p.Spec.Taints {
		out.Taints = append(out.Taints, corev1.Taint{Key: t.Key, Value: t.Value, Effect: t.Effect})
	}
	return out
}

func toConditionMatches(in []policyv1alpha1.MatchCondition) []failover.ConditionMatch {
	var out []failover.ConditionMatch
	for _, m := range in {
		out = append(out, failover.ConditionMatch{
			ConditionType: m.ConditionType,
			Operator:      failover.MatchOperator(m.Operator),
			StatusValues:  m.StatusValues,
		})
	}
	return out
}

// taintsMessage describes a cluster's taints in the words of Karmada's
// taint events, so that alerts written for them match ours.
func taintsMessage(taints []corev1.Taint) string {
	if len(taints) == 0 {
		return "cluster now does not have taints"
	}
	parts := make([]string, len(taints))
	for i, t := range taints {
		if t.Value != "" {
			parts[i] = fmt.Sprintf("{Key:%s,Value:%s,Effect:%s}", t.Key, t.Value, t.Effect)
		} else {
			parts[i] = fmt.Sprintf("{Key:%s,Effect:%s}", t.Key, t.Effect)
		}
	}
	return "cluster now has taints([" + strings.Join(parts, ",") + "])"
}
