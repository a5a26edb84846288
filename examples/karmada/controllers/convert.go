package controllers

import (
	"context"
	"fmt"
	"maps"
	"strconv"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"

	policyv1alpha1 "github.com/karmada-io/api/policy/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/preservation"
	"github.com/fleetover/fleetover/suspension"
)

// Karmada's API types and the library's carry the same fields under the same
// JSON names where both have them; these functions copy between the two.

func toStatePreservation(sp *policyv1alpha1.StatePreservation) *preservation.StatePreservation {
	if sp == nil {
		return nil
	}
	out := &preservation.StatePreservation{Rules: make([]preservation.StatePreservationRule, len(sp.Rules))}
	for i, r := range sp.Rules {
		out.Rules[i] = preservation.StatePreservationRule{AliasLabelName: r.AliasLabelName, JSONPath: r.JSONPath}
	}
	return out
}

// mergeFailover builds the library's failover policy from Karmada's
// spec.failover and the fleetover extension (either may be nil).
func mergeFailover(k *policyv1alpha1.FailoverBehavior, ext *PolicyExtension) *failover.FailoverBehavior {
	out := ext.Behavior()
	if k == nil || (k.Application == nil && k.Cluster == nil) {
		return out
	}
	if out == nil {
		out = &failover.FailoverBehavior{}
	}
	if a := k.Application; a != nil {
		if out.Application == nil {
			out.Application = &failover.ApplicationFailoverBehavior{}
		}
		out.Application.DecisionConditions = failover.DecisionConditions{TolerationSeconds: a.DecisionConditions.TolerationSeconds}
		out.Application.PurgeMode = eviction.PurgeMode(a.PurgeMode)
		out.Application.GracePeriodSeconds = a.GracePeriodSeconds
		out.Application.StatePreservation = toStatePreservation(a.StatePreservation)
	}
	if c := k.Cluster; c != nil {
		if out.Cluster == nil {
			out.Cluster = &failover.ClusterFailoverBehavior{}
		}
		out.Cluster.PurgeMode = eviction.PurgeMode(c.PurgeMode)
		out.Cluster.StatePreservation = toStatePreservation(c.StatePreservation)
	}
	return out
}

// failoverPolicy returns the library's failover policy of a binding:
// Karmada's spec.failover plus PolicyExtensionAnnotation, taken from the
// binding or else from the propagation policy the binding names. The
// result is validated; an error names the offending field.
func failoverPolicy(ctx context.Context, c client.Reader, obj client.Object) (*failover.FailoverBehavior, error) {
	ext, err := DecodePolicyExtension(obj.GetAnnotations())
	if err != nil {
		return nil, err
	}
	if ext == nil {
		if ext, err = policyExtension(ctx, c, obj.GetAnnotations()); err != nil {
			return nil, err
		}
	}
	fb := mergeFailover(bindingSpec(obj).Failover, ext)
	if errs := failover.ValidateFailoverBehavior(fb, field.NewPath("spec", "failover")); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	return fb, nil
}

// policyExtension reads the extension from the PropagationPolicy or
// ClusterPropagationPolicy a binding's annotations name (Karmada's
// detector sets them). A policy that no longer exists extends nothing.
func policyExtension(ctx context.Context, c client.Reader, annotations map[string]string) (*PolicyExtension, error) {
	var policy client.Object
	var key types.NamespacedName
	switch {
	case annotations[policyv1alpha1.PropagationPolicyNameAnnotation] != "":
		policy = &policyv1alpha1.PropagationPolicy{}
		key = types.NamespacedName{Namespace: annotations[policyv1alpha1.PropagationPolicyNamespaceAnnotation], Name: annotations[policyv1alpha1.PropagationPolicyNameAnnotation]}
	case annotations[policyv1alpha1.ClusterPropagationPolicyAnnotation] != "":
		policy = &policyv1alpha1.ClusterPropagationPolicy{}
		key = types.NamespacedName{Name: annotations[policyv1alpha1.ClusterPropagationPolicyAnnotation]}
	default:
		return nil, nil
	}
	if err := c.Get(ctx, key, policy); err != nil {
		return nil, client.IgnoreNotFound(err)
	}
	ext, err := DecodePolicyExtension(policy.GetAnnotations())
	if err != nil {
		return nil, fmt.Errorf("%T %s: %w", policy, key, err)
	}
	return ext, nil
}

func toTask(t *workv1alpha2.GracefulEvictionTask) eviction.GracefulEvictionTask {
	return eviction.GracefulEvictionTask{
		FromCluster:            t.FromCluster,
		PurgeMode:              eviction.PurgeMode(t.PurgeMode),
		Replicas:               t.Replicas,
		Reason:                 t.Reason,
		Message:                t.Message,
		Producer:               t.Producer,
		GracePeriodSeconds:     t.GracePeriodSeconds,
		SuppressDeletion:       t.SuppressDeletion,
		PreservedLabelState:    t.PreservedLabelState,
		ClustersBeforeFailover: t.ClustersBeforeFailover,
		CreationTimestamp:      t.CreationTimestamp,
		FencingEpoch:           fencingEpochOf(t.PreservedLabelState),
	}
}

// fencingEpochOf reads the fencing epoch a Karmada task carries in its
// preservedLabelState (Karmada's task has no field for it); 0 for none.
func fencingEpochOf(state map[string]string) int64 {
	v, ok := state[eviction.FencingEpochLabel]
	if !ok {
		return 0
	}
	e, err := strconv.ParseInt(v, 10, 64)
	if err != nil || e < 0 {
		return 0
	}
	return e
}

// withFencingEpoch is the task's preservedLabelState with its fencing
// epoch written in, as Karmada's task carries it.
func withFencingEpoch(state map[string]string, epoch int64) map[string]string {
	if epoch <= 0 || state[eviction.FencingEpochLabel] == strconv.FormatInt(epoch, 10) {
		return state
	}
	out := maps.Clone(state)
	if out == nil {
		out = map[string]string{}
	}
	out[eviction.FencingEpochLabel] = strconv.FormatInt(epoch, 10)
	return out
}

func toTasks(in []workv1alpha2.GracefulEvictionTask) []eviction.GracefulEvictionTask {
	if in == nil {
		return nil
	}
	out := make([]eviction.GracefulEvictionTask, len(in))
	for i := range in {
		out[i] = toTask(&in[i])
	}
	return out
}

func fromTasks(in []eviction.GracefulEvictionTask) []workv1alpha2.GracefulEvictionTask {
	if len(in) == 0 {
		return nil
	}
	out := make([]workv1alpha2.GracefulEvictionTask, len(in))
	for i := range in {
		t := &in[i]
		out[i] = workv1alpha2.GracefulEvictionTask{
			FromCluster:            t.FromCluster,
			PurgeMode:              policyv1alpha1.PurgeMode(t.PurgeMode),
			Replicas:               t.Replicas,
			Reason:                 t.Reason,
			Message:                t.Message,
			Producer:               t.Producer,
			GracePeriodSeconds:     t.GracePeriodSeconds,
			SuppressDeletion:       t.SuppressDeletion,
			PreservedLabelState:    withFencingEpoch(t.PreservedLabelState, t.FencingEpoch),
			ClustersBeforeFailover: t.ClustersBeforeFailover,
			CreationTimestamp:      t.CreationTimestamp,
		}
	}
	return out
}

func toTargets(in []workv1alpha2.TargetCluster) []eviction.TargetCluster {
	out := make([]eviction.TargetCluster, len(in))
	for i, tc := range in {
		out[i] = eviction.TargetCluster{Name: tc.Name, Replicas: tc.Replicas}
	}
	return out
}

// toSuspension is the dispatch half of Karmada's binding suspension
// (spec.suspension.scheduling is the scheduler's, not ours).
func toSuspension(s *workv1alpha2.Suspension) *suspension.Suspension {
	if s == nil || (s.Dispatching == nil && s.DispatchingOnClusters == nil) {
		return nil
	}
	out := &suspension.Suspension{Dispatching: s.Dispatching}
	if s.DispatchingOnClusters != nil {
		out.DispatchingOnClusters = &suspension.SuspendClusters{ClusterNames: s.DispatchingOnClusters.ClusterNames}
	}
	return out
}
