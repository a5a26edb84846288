package controllers

import (
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
)

// The library speaks Kubernetes' taint vocabulary (corev1.Taint), OCM its
// own (clusterv1.Taint). The effects map one to one, by what they do to a
// placement:
//
//	OCM              library (corev1)   meaning
//	NoSelect         NoExecute          never selected; a selected cluster is left once no toleration holds
//	NoSelectIfNew    NoSchedule         not newly selected; a selected cluster stays
//	PreferNoSelect   PreferNoSchedule   avoided when there is a choice
//
// so the toleration math (tolerationSeconds counted from the taint's
// timeAdded) is the same on both sides.
func effectToCore(e clusterv1.TaintEffect) corev1.TaintEffect {
	switch e {
	case clusterv1.TaintEffectNoSelect:
		return corev1.TaintEffectNoExecute
	case clusterv1.TaintEffectNoSelectIfNew:
		return corev1.TaintEffectNoSchedule
	case clusterv1.TaintEffectPreferNoSelect:
		return corev1.TaintEffectPreferNoSchedule
	}
	// An effect a later OCM version may add keeps its name: it matches no
	// toleration but one without an effect, as in OCM.
	return corev1.TaintEffect(e)
}

func effectToOCM(e corev1.TaintEffect) clusterv1.TaintEffect {
	switch e {
	case corev1.TaintEffectNoExecute:
		return clusterv1.TaintEffectNoSelect
	case corev1.TaintEffectNoSchedule:
		return clusterv1.TaintEffectNoSelectIfNew
	case corev1.TaintEffectPreferNoSchedule:
		return clusterv1.TaintEffectPreferNoSelect
	}
	return clusterv1.TaintEffect(e)
}

// coreTaints converts a ManagedCluster's taints.
func coreTaints(in []clusterv1.Taint) []corev1.Taint {
	if len(in) == 0 {
		return nil
	}
	out := make([]corev1.Taint, len(in))
	for i, t := range in {
		out[i] = corev1.Taint{Key: t.Key, Value: t.Value, Effect: effectToCore(t.Effect)}
		if !t.TimeAdded.IsZero() {
			added := t.TimeAdded
			out[i].TimeAdded = &added
		}
	}
	return out
}

// ocmTaints converts back. A taint without TimeAdded gets now: OCM stamps
// every taint, and its placement controller counts tolerationSeconds from it.
func ocmTaints(in []corev1.Taint, now metav1.Time) []clusterv1.Taint {
	if len(in) == 0 {
		return nil
	}
	out := make([]clusterv1.Taint, len(in))
	for i, t := range in {
		out[i] = clusterv1.Taint{Key: t.Key, Value: t.Value, Effect: effectToOCM(t.Effect), TimeAdded: now}
		if t.TimeAdded != nil {
			out[i].TimeAdded = *t.TimeAdded
		}
	}
	return out
}

// coreTolerations converts a Placement's tolerations.
func coreTolerations(in []clusterv1beta1.Toleration) []corev1.Toleration {
	if len(in) == 0 {
		return nil
	}
	out := make([]corev1.Toleration, len(in))
	for i, t := range in {
		var effect corev1.TaintEffect
		if t.Effect != "" {
			effect = effectToCore(t.Effect)
		}
		out[i] = corev1.Toleration{
			Key: t.Key, Operator: corev1.TolerationOperator(t.Operator), Value: t.Value,
			Effect: effect, TolerationSeconds: t.TolerationSeconds,
		}
	}
	return out
}

// decidedClusters lists the clusters of a PlacementDecision, in its order.
func decidedClusters(pd *clusterv1beta1.PlacementDecision) []string {
	out := make([]string, 0, len(pd.Status.Decisions))
	for _, d := range pd.Status.Decisions {
		if d.ClusterName != "" {
			out = append(out, d.ClusterName)
		}
	}
	return out
}

// observedWorkload rebuilds, on the hub, the part of a workload that its
// ManifestWork reports back: the manifest as sent (apiVersion, kind,
// metadata, spec), overlaid with every status feedback value at the path of
// its JSONPaths feedback rule. A rule named "jobId" with path
// .status.jobStatus.jobId puts the value at .status.jobStatus.jobId, so the
// health interpreters and the state preservation rules read the workload
// as if they read it on the managed cluster. Only plain field chains
// (.a.b.c) are placed; other rules are ignored. ok is false when the work
// reports no feedback for the manifest yet.
func observedWorkload(mw *workv1.ManifestWork, ordinal int) (obj *unstructured.Unstructured, ok bool, err error) {
	if ordinal >= len(mw.Spec.Workload.Manifests) {
		return nil, false, fmt.Errorf("manifest work %s/%s has no manifest %d", mw.Namespace, mw.Name, ordinal)
	}
	obj = &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(mw.Spec.Workload.Manifests[ordinal].Raw); err != nil {
		return nil, false, fmt.Errorf("manifest %d of %s/%s: %w", ordinal, mw.Namespace, mw.Name, err)
	}
	delete(obj.Object, "status")
	paths := feedbackPaths(mw, obj)
	var values []workv1.FeedbackValue
	for _, m := range mw.Status.ResourceStatus.Manifests {
		if int(m.ResourceMeta.Ordinal) == ordinal {
			values = m.StatusFeedbacks.Values
			break
		}
	}
	if len(values) == 0 {
		return obj, false, nil
	}
	for _, v := range values {
		fields, found := paths[v.Name]
		if !found {
			continue
		}
		value, err := feedbackValue(v.Value)
		if err != nil {
			return nil, false, fmt.Errorf("status feedback %q of %s/%s: %w", v.Name, mw.Namespace, mw.Name, err)
		}
		if err := unstructured.SetNestedField(obj.Object, value, fields...); err != nil {
			return nil, false, fmt.Errorf("status feedback %q of %s/%s: %w", v.Name, mw.Namespace, mw.Name, err)
		}
	}
	return obj, true, nil
}

// feedbackPaths maps the names of the JSONPaths feedback rules that apply
// to obj to their field chains.
func feedbackPaths(mw *workv1.ManifestWork, obj *unstructured.Unstructured) map[string][]string {
	gvk := obj.GroupVersionKind()
	out := map[string][]string{}
	for _, cfg := range mw.Spec.ManifestConfigs {
		id := cfg.ResourceIdentifier
		if id.Group != gvk.Group || id.Name != obj.GetName() || id.Namespace != obj.GetNamespace() {
			continue
		}
		if id.Resource != "" && !strings.EqualFold(id.Resource, gvk.Kind) && !strings.EqualFold(id.Resource, strings.ToLower(gvk.Kind)+"s") {
			continue
		}
		for _, rule := range cfg.FeedbackRules {
			if rule.Type != workv1.JSONPathsType {
				continue
			}
			for _, p := range rule.JsonPaths {
				if fields, ok := fieldChain(p.Path); ok {
					out[p.Name] = fields
				}
			}
		}
	}
	return out
}

// fieldChain splits ".a.b.c" into [a b c]; anything else is not a plain
// chain.
func fieldChain(path string) ([]string, bool) {
	path = strings.TrimSpace(path)
	path = strings.TrimSuffix(strings.TrimPrefix(path, "{"), "}")
	path = strings.TrimSpace(path)
	if !strings.HasPrefix(path, ".") || len(path) < 2 {
		return nil, false
	}
	fields := strings.Split(path[1:], ".")
	for _, f := range fields {
		if f == "" || strings.ContainsAny(f, "[]()@*?=!<>'\" ") {
			return nil, false
		}
	}
	return fields, true
}

// feedbackValue returns a feedback value as an unstructured JSON value.
func feedbackValue(v workv1.FieldValue) (any, error) {
	switch v.Type {
	case workv1.Integer:
		if v.Integer != nil {
			return *v.Integer, nil
		}
	case workv1.String:
		if v.String != nil {
			return *v.String, nil
		}
	case workv1.Boolean:
		if v.Boolean != nil {
			return *v.Boolean, nil
		}
	case workv1.JsonRaw:
		if v.JsonRaw != nil {
			var out any
			if err := json.Unmarshal([]byte(*v.JsonRaw), &out); err != nil {
				return nil, err
			}
			return normalizeJSON(out), nil
		}
	}
	return nil, fmt.Errorf("feedback value of type %q carries no value", v.Type)
}

// normalizeJSON turns encoding/json's float64 whole numbers into int64, as
// Kubernetes decodes JSON, so that interpreters see the types they expect.
func normalizeJSON(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, e := range t {
			t[k] = normalizeJSON(e)
		}
	case []any:
		for i, e := range t {
			t[i] = normalizeJSON(e)
		}
	case float64:
		if t == float64(int64(t)) {
			return int64(t)
		}
	}
	return v
}
