package karmadafleet

import (
	"sort"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// schemaNode lists the fields of an object the reader knows: those it
// models and those it reads past on purpose because they do not change
// failover (credentials, capacity, status). Any other field is reported as
// a Finding, so that nothing is dropped silently.
type schemaNode struct {
	ignored bool                   // known, does not change what is simulated
	fields  map[string]*schemaNode // an object with these fields
	item    *schemaNode            // a list of these
}

func leaf() *schemaNode                           { return &schemaNode{} }
func ignored() *schemaNode                        { return &schemaNode{ignored: true} }
func object(f map[string]*schemaNode) *schemaNode { return &schemaNode{fields: f} }
func listOf(n *schemaNode) *schemaNode            { return &schemaNode{item: n} }

// unknownFields calls report for every field of v that s does not know.
func (s *schemaNode) unknownFields(p *field.Path, v any, report func(p *field.Path)) {
	if s == nil || s.ignored {
		return
	}
	switch {
	case s.fields != nil:
		m, ok := v.(map[string]any)
		if !ok {
			return // a type error, reported by the decoder
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			sub, known := s.fields[k]
			if !known {
				report(p.Child(k))
				continue
			}
			sub.unknownFields(p.Child(k), m[k], report)
		}
	case s.item != nil:
		l, ok := v.([]any)
		if !ok {
			return
		}
		for i, e := range l {
			s.item.unknownFields(p.Index(i), e, report)
		}
	}
}

var (
	labelSelectorSchema = object(map[string]*schemaNode{
		"matchLabels":      leaf(),
		"matchExpressions": listOf(object(map[string]*schemaNode{"key": leaf(), "operator": leaf(), "values": leaf()})),
	})
	affinitySchema = map[string]*schemaNode{
		"labelSelector": labelSelectorSchema,
		"fieldSelector": object(map[string]*schemaNode{
			"matchExpressions": listOf(object(map[string]*schemaNode{"key": leaf(), "operator": leaf(), "values": leaf()})),
		}),
		"clusterNames": leaf(),
		"exclude":      leaf(),
	}
	tolerationSchema = object(map[string]*schemaNode{
		"key": leaf(), "operator": leaf(), "value": leaf(), "effect": leaf(), "tolerationSeconds": leaf(),
	})
	placementSchema = object(map[string]*schemaNode{
		"clusterAffinity":    object(affinitySchema),
		"clusterAffinities":  listOf(object(withField(affinitySchema, "affinityName"))),
		"clusterTolerations": listOf(tolerationSchema),
		"spreadConstraints": listOf(object(map[string]*schemaNode{
			"spreadByField": leaf(), "spreadByLabel": leaf(), "maxGroups": leaf(), "minGroups": leaf(),
		})),
		"replicaScheduling": object(map[string]*schemaNode{
			"replicaSchedulingType":     leaf(),
			"replicaDivisionPreference": leaf(),
			"weightPreference": object(map[string]*schemaNode{
				"staticWeightList": listOf(object(map[string]*schemaNode{
					"targetCluster": object(affinitySchema),
					"weight":        leaf(),
				})),
				"dynamicWeight": leaf(),
			}),
		}),
	})
	statePreservationSchema = object(map[string]*schemaNode{
		"rules": listOf(object(map[string]*schemaNode{"aliasLabelName": leaf(), "jsonPath": leaf()})),
	})
	failoverSchema = object(map[string]*schemaNode{
		"application": object(map[string]*schemaNode{
			"decisionConditions": object(map[string]*schemaNode{"tolerationSeconds": leaf()}),
			"purgeMode":          leaf(),
			"gracePeriodSeconds": leaf(),
			"statePreservation":  statePreservationSchema,
		}),
		"cluster": object(map[string]*schemaNode{
			"purgeMode":         leaf(),
			"statePreservation": statePreservationSchema,
		}),
	})
	suspensionSchema = object(map[string]*schemaNode{
		"dispatching":           leaf(),
		"dispatchingOnClusters": object(map[string]*schemaNode{"clusterNames": leaf()}),
		"scheduling":            leaf(),
	})
	// topSchema is what every object has: metadata is read for names,
	// labels and annotations; the rest of it does not change failover.
	topSchema = map[string]*schemaNode{"apiVersion": leaf(), "kind": leaf(), "metadata": ignored()}

	clusterSchema = object(withFields(topSchema, map[string]*schemaNode{
		"spec": object(map[string]*schemaNode{
			"syncMode": leaf(), "provider": leaf(), "region": leaf(), "zone": leaf(), "zones": leaf(),
			"taints": listOf(object(map[string]*schemaNode{"key": leaf(), "value": leaf(), "effect": leaf(), "timeAdded": leaf()})),
			// How the control plane reaches the cluster, and its capacity
			// (the simulator models no capacity).
			"id": ignored(), "apiEndpoint": ignored(), "secretRef": ignored(), "impersonatorSecretRef": ignored(),
			"insecureSkipTLSVerification": ignored(), "proxyURL": ignored(), "proxyHeader": ignored(),
			"resourceModels": ignored(),
		}),
		// The Ready condition is read; the rest is inventory.
		"status": ignored(),
	}))
	policySchema = object(withFields(topSchema, map[string]*schemaNode{
		"spec": object(map[string]*schemaNode{
			"placement":  placementSchema,
			"failover":   failoverSchema,
			"suspension": suspensionSchema,
			// Values that change behaviour are checked one by one.
			"propagateDeps": leaf(), "dependentOverrides": leaf(), "schedulerName": leaf(),
			// Which resources the policy claims, and how it competes with
			// other policies for them: the bindings already say.
			"resourceSelectors": ignored(), "association": ignored(), "priority": ignored(), "preemption": ignored(),
			"conflictResolution": ignored(), "activationPreference": ignored(), "preserveResourcesOnDeletion": ignored(),
			"schedulePriority": ignored(),
		}),
	}))
	matchConditionSchema = listOf(object(map[string]*schemaNode{"conditionType": leaf(), "operator": leaf(), "statusValues": leaf()}))
	taintPolicySchema    = object(withFields(topSchema, map[string]*schemaNode{
		"spec": object(map[string]*schemaNode{
			"targetClusters":     object(affinitySchema),
			"addOnConditions":    matchConditionSchema,
			"removeOnConditions": matchConditionSchema,
			"taints":             listOf(object(map[string]*schemaNode{"key": leaf(), "effect": leaf(), "value": leaf()})),
		}),
	}))
	bindingSchema = object(withFields(topSchema, map[string]*schemaNode{
		"spec": object(map[string]*schemaNode{
			"resource": object(map[string]*schemaNode{
				"apiVersion": leaf(), "kind": leaf(), "namespace": leaf(), "name": leaf(),
				"uid": ignored(), "resourceVersion": ignored(),
			}),
			"replicas":   leaf(),
			"clusters":   listOf(object(map[string]*schemaNode{"name": leaf(), "replicas": leaf()})),
			"placement":  placementSchema,
			"failover":   failoverSchema,
			"suspension": suspensionSchema,
			"gracefulEvictionTasks": listOf(object(map[string]*schemaNode{
				"fromCluster": leaf(), "purgeMode": leaf(), "replicas": leaf(), "reason": leaf(), "message": leaf(),
				"producer": leaf(), "gracePeriodSeconds": leaf(), "suppressDeletion": leaf(),
				"preservedLabelState": leaf(), "creationTimestamp": leaf(), "clustersBeforeFailover": leaf(),
			})),
			"propagateDeps": leaf(), "requiredBy": leaf(), "components": leaf(), "schedulerName": leaf(),
			"workloadAffinityGroups": leaf(),
			// Resource requests (no capacity is modelled), conflict
			// handling on the members, priorities among bindings waiting
			// to be scheduled, and a manual reschedule's timestamp.
			"replicaRequirements": ignored(), "conflictResolution": ignored(), "rescheduleTriggeredAt": ignored(),
			"preserveResourcesOnDeletion": ignored(), "schedulePriority": ignored(),
		}),
		// Each copy's health and collected status are read, and the
		// affinity term the scheduler placed by; the rest says how the
		// scheduler and the binding controller got there.
		"status": object(map[string]*schemaNode{
			"aggregatedStatus": listOf(object(map[string]*schemaNode{
				"clusterName": leaf(), "status": leaf(), "health": leaf(),
				"applied": ignored(), "appliedMessage": ignored(),
			})),
			"schedulerObservingAffinityName": leaf(), "schedulerObservedGeneration": ignored(),
			"lastScheduledTime": ignored(), "conditions": ignored(),
		}),
	}))
)

func withField(m map[string]*schemaNode, name string) map[string]*schemaNode {
	return withFields(m, map[string]*schemaNode{name: leaf()})
}

func withFields(a, b map[string]*schemaNode) map[string]*schemaNode {
	out := make(map[string]*schemaNode, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
