package karmadafleet

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fleetover/fleetover/failover"
)

// API groups and kinds the reader models.
const (
	clusterAPIVersion = "cluster.karmada.io/v1alpha1"
	policyAPIVersion  = "policy.karmada.io/v1alpha1"
	bindingAPIVersion = "work.karmada.io/v1alpha2"

	KindCluster                  = "Cluster"
	KindPropagationPolicy        = "PropagationPolicy"
	KindClusterPropagationPolicy = "ClusterPropagationPolicy"
	KindResourceBinding          = "ResourceBinding"
	KindClusterResourceBinding   = "ClusterResourceBinding"
	KindClusterTaintPolicy       = "ClusterTaintPolicy"
)

// Labels and annotations Karmada puts on a binding to name the policy it
// came from.
const (
	PropagationPolicyPermanentIDLabel        = "propagationpolicy.karmada.io/permanent-id"
	ClusterPropagationPolicyPermanentIDLabel = "clusterpropagationpolicy.karmada.io/permanent-id"
	PropagationPolicyNameAnnotation          = "propagationpolicy.karmada.io/name"
	PropagationPolicyNamespaceAnnotation     = "propagationpolicy.karmada.io/namespace"
	ClusterPropagationPolicyNameAnnotation   = "clusterpropagationpolicy.karmada.io/name"
)

// defaultSchedulerName is the scheduler a binding names when none is set.
const defaultSchedulerName = "default-scheduler"

type objectMeta struct {
	Name              string            `json:"name"`
	CreationTimestamp metav1.Time       `json:"creationTimestamp,omitempty"`
	Namespace         string            `json:"namespace,omitempty"`
	Labels            map[string]string `json:"labels,omitempty"`
	Annotations       map[string]string `json:"annotations,omitempty"`
}

type clusterObject struct {
	Metadata objectMeta `json:"metadata"`
	Spec     struct {
		SyncMode string         `json:"syncMode"`
		Provider string         `json:"provider,omitempty"`
		Region   string         `json:"region,omitempty"`
		Zone     string         `json:"zone,omitempty"`
		Zones    []string       `json:"zones,omitempty"`
		Taints   []corev1.Taint `json:"taints,omitempty"`
	} `json:"spec"`
	Status struct {
		Conditions []metav1.Condition `json:"conditions,omitempty"`
	} `json:"status"`
}

type policyObject struct {
	Metadata objectMeta `json:"metadata"`
	Spec     struct {
		Placement          *Placement        `json:"placement,omitempty"`
		Failover           *FailoverBehavior `json:"failover,omitempty"`
		Suspension         *Suspension       `json:"suspension,omitempty"`
		PropagateDeps      bool              `json:"propagateDeps,omitempty"`
		DependentOverrides []string          `json:"dependentOverrides,omitempty"`
		SchedulerName      string            `json:"schedulerName,omitempty"`
	} `json:"spec"`
}

type bindingObject struct {
	Metadata objectMeta `json:"metadata"`
	Spec     struct {
		Resource               ObjectReference        `json:"resource"`
		Replicas               int32                  `json:"replicas,omitempty"`
		Clusters               []TargetCluster        `json:"clusters,omitempty"`
		Placement              *Placement             `json:"placement,omitempty"`
		Failover               *FailoverBehavior      `json:"failover,omitempty"`
		Suspension             *Suspension            `json:"suspension,omitempty"`
		GracefulEvictionTasks  []GracefulEvictionTask `json:"gracefulEvictionTasks,omitempty"`
		PropagateDeps          bool                   `json:"propagateDeps,omitempty"`
		RequiredBy             []json.RawMessage      `json:"requiredBy,omitempty"`
		Components             []json.RawMessage      `json:"components,omitempty"`
		SchedulerName          string                 `json:"schedulerName,omitempty"`
		WorkloadAffinityGroups json.RawMessage        `json:"workloadAffinityGroups,omitempty"`
	} `json:"spec"`
	Status struct {
		AggregatedStatus               []AggregatedStatusItem `json:"aggregatedStatus,omitempty"`
		SchedulerObservingAffinityName string                 `json:"schedulerObservingAffinityName,omitempty"`
	} `json:"status"`
}

type taintPolicyObject struct {
	Metadata objectMeta `json:"metadata"`
	Spec     struct {
		TargetClusters     *ClusterAffinity `json:"targetClusters,omitempty"`
		AddOnConditions    []MatchCondition `json:"addOnConditions,omitempty"`
		RemoveOnConditions []MatchCondition `json:"removeOnConditions,omitempty"`
		Taints             []PolicyTaint    `json:"taints"`
	} `json:"spec"`
}

type readPolicy struct {
	Policy
	src source
}

type readBinding struct {
	obj bindingObject
	ref Ref
	src source
}

// fleet decodes the objects collected and puts the fleet together.
func (r *reader) fleet() (*Fleet, error) {
	f := &Fleet{}
	clusterAt := map[string]source{}
	var policies []readPolicy
	var bindings []readBinding
	seen := map[Ref]source{}
	for _, o := range r.objects {
		ref := refOf(o.obj)
		var schema *schemaNode
		want := ""
		switch ref.Kind {
		case KindCluster:
			schema, want = clusterSchema, clusterAPIVersion
		case KindPropagationPolicy, KindClusterPropagationPolicy:
			schema, want = policySchema, policyAPIVersion
		case KindResourceBinding, KindClusterResourceBinding:
			schema, want = bindingSchema, bindingAPIVersion
		case KindClusterTaintPolicy:
			schema, want = taintPolicySchema, policyAPIVersion
		}
		if schema == nil {
			r.note(o.src, ref, nil, "kind %s (%s) is not modelled; the object is left out", ref.Kind, o.obj.GetAPIVersion())
			continue
		}
		if v := o.obj.GetAPIVersion(); v != want {
			r.note(o.src, ref, field.NewPath("apiVersion"), "%s is not read (the reader knows %s); the object is left out", v, want)
			continue
		}
		namespaced := ref.Kind == KindPropagationPolicy || ref.Kind == KindResourceBinding
		if namespaced && ref.Namespace == "" {
			r.fail(o.src, ref, field.Required(field.NewPath("metadata", "namespace"), "a "+ref.Kind+" is namespaced"))
			continue
		}
		if !namespaced && ref.Namespace != "" {
			r.fail(o.src, ref, field.Invalid(field.NewPath("metadata", "namespace"), ref.Namespace, "a "+ref.Kind+" is cluster-scoped"))
			continue
		}
		if prev, dup := seen[ref]; dup {
			r.fail(o.src, ref, field.Duplicate(field.NewPath("metadata", "name"), fmt.Sprintf("%s, also in %s", ref.Name, prev.file)))
			continue
		}
		seen[ref] = o.src
		schema.unknownFields(nil, o.obj.Object, func(p *field.Path) {
			r.note(o.src, ref, p, "field not modelled; ignored")
		})
		switch ref.Kind {
		case KindCluster:
			var co clusterObject
			if !r.decode(o, ref, &co) {
				continue
			}
			if c, ok := r.cluster(o.src, ref, &co); ok {
				f.Clusters = append(f.Clusters, c)
				clusterAt[c.Name] = o.src
			}
		case KindPropagationPolicy, KindClusterPropagationPolicy:
			var po policyObject
			if !r.decode(o, ref, &po) {
				continue
			}
			p := readPolicy{src: o.src, Policy: Policy{File: o.src.file, Ref: ref, Placement: po.Spec.Placement, Failover: po.Spec.Failover, Suspension: po.Spec.Suspension}}
			if ref.Kind == KindPropagationPolicy {
				p.PermanentID = po.Metadata.Labels[PropagationPolicyPermanentIDLabel]
			} else {
				p.PermanentID = po.Metadata.Labels[ClusterPropagationPolicyPermanentIDLabel]
			}
			spec := field.NewPath("spec")
			r.checkPlacement(o.src, ref, spec.Child("placement"), po.Spec.Placement)
			r.checkPolicySuspension(o.src, ref, spec.Child("suspension"), po.Spec.Suspension)
			if po.Spec.PropagateDeps {
				r.note(o.src, ref, spec.Child("propagateDeps"), "dependencies are not modelled: the resources a workload depends on are not simulated")
			}
			if len(po.Spec.DependentOverrides) > 0 {
				r.note(o.src, ref, spec.Child("dependentOverrides"), "overrides are not modelled")
			}
			r.checkScheduler(o.src, ref, spec.Child("schedulerName"), po.Spec.SchedulerName)
			if !r.checkClusterPurgeMode(o.src, ref, spec.Child("failover"), po.Spec.Failover) {
				continue
			}
			policies = append(policies, p)
		case KindClusterTaintPolicy:
			var tp taintPolicyObject
			if !r.decode(o, ref, &tp) {
				continue
			}
			if p, ok := r.taintPolicy(o.src, ref, &tp); ok {
				f.TaintPolicies = append(f.TaintPolicies, p)
			}
		default:
			var bo bindingObject
			if !r.decode(o, ref, &bo) {
				continue
			}
			bindings = append(bindings, readBinding{obj: bo, ref: ref, src: o.src})
		}
	}
	sort.Slice(f.Clusters, func(i, j int) bool { return f.Clusters[i].Name < f.Clusters[j].Name })
	sort.Slice(policies, func(i, j int) bool { return policies[i].Ref.String() < policies[j].Ref.String() })
	for _, p := range policies {
		f.Policies = append(f.Policies, p.Policy)
	}
	for _, b := range bindings {
		if w, ok := r.workload(b, policies); ok {
			f.Workloads = append(f.Workloads, w)
		}
	}
	sort.Slice(f.Workloads, func(i, j int) bool { return f.Workloads[i].Binding.String() < f.Workloads[j].Binding.String() })
	sort.SliceStable(f.TaintPolicies, func(i, j int) bool {
		a, b := f.TaintPolicies[i], f.TaintPolicies[j]
		if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
			return a.CreationTimestamp.Before(&b.CreationTimestamp)
		}
		return a.Name < b.Name
	})
	f.Findings = r.findings
	if len(r.errs) > 0 {
		return nil, r.errs
	}
	return f, nil
}

// decode decodes o's JSON into out; a value of the wrong type is an error
// naming its field.
func (r *reader) decode(o rawObject, ref Ref, out any) bool {
	err := json.NewDecoder(bytes.NewReader(o.raw)).Decode(out)
	if err == nil {
		return true
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		r.fail(o.src, ref, field.TypeInvalid(field.NewPath(te.Field), te.Value, "must be "+goType(te.Type.String())))
	} else {
		r.fail(o.src, ref, field.Invalid(field.NewPath(""), "", strings.TrimPrefix(err.Error(), "json: ")))
	}
	return false
}

func goType(t string) string {
	switch {
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return "an integer"
	case t == "bool", t == "*bool":
		return "a boolean (true or false)"
	case t == "string":
		return "a string"
	case strings.HasPrefix(t, "[]"):
		return "a list"
	}
	return "a mapping"
}

func (r *reader) cluster(src source, ref Ref, co *clusterObject) (Cluster, bool) {
	spec := field.NewPath("spec")
	if errs := validation.IsDNS1123Subdomain(ref.Name); len(errs) > 0 {
		r.fail(src, ref, field.Invalid(field.NewPath("metadata", "name"), ref.Name, strings.Join(errs, "; ")))
		return Cluster{}, false
	}
	if m := co.Spec.SyncMode; m != "Push" && m != "Pull" {
		r.fail(src, ref, field.NotSupported(spec.Child("syncMode"), m, []string{"Push", "Pull"}))
		return Cluster{}, false
	}
	c := Cluster{
		File:     src.file,
		Name:     ref.Name,
		Labels:   co.Metadata.Labels,
		SyncMode: co.Spec.SyncMode,
		Provider: co.Spec.Provider,
		Region:   co.Spec.Region,
		Zone:     co.Spec.Zone,
		Zones:    co.Spec.Zones,
		Taints:   co.Spec.Taints,
	}
	for i, t := range c.Taints {
		switch t.Effect {
		case corev1.TaintEffectNoSchedule, corev1.TaintEffectNoExecute, corev1.TaintEffectPreferNoSchedule:
		default:
			r.fail(src, ref, field.NotSupported(spec.Child("taints").Index(i).Child("effect"), t.Effect,
				[]string{string(corev1.TaintEffectNoSchedule), string(corev1.TaintEffectPreferNoSchedule), string(corev1.TaintEffectNoExecute)}))
			return Cluster{}, false
		}
		if t.Key == "" {
			r.fail(src, ref, field.Required(spec.Child("taints").Index(i).Child("key"), ""))
			return Cluster{}, false
		}
	}
	for _, cond := range co.Status.Conditions {
		if cond.Type == "Ready" {
			c.Ready, c.ReadyReason = cond.Status, cond.Reason
		}
	}
	return c, true
}

// clusterPurgeModes are the values Karmada's CRD admits for
// failover.cluster.purgeMode (its enum): Never, and the older names, are
// refused by Karmada's API server for cluster failover.
var clusterPurgeModes = []string{"Directly", "Gracefully"}

// checkClusterPurgeMode refuses a cluster failover purge mode Karmada's API
// server would refuse, naming the field.
func (r *reader) checkClusterPurgeMode(src source, ref Ref, p *field.Path, fb *FailoverBehavior) bool {
	if fb == nil || fb.Cluster == nil || fb.Cluster.PurgeMode == "" || slices.Contains(clusterPurgeModes, fb.Cluster.PurgeMode) {
		return true
	}
	r.fail(src, ref, field.NotSupported(p.Child("cluster", "purgeMode"), fb.Cluster.PurgeMode, clusterPurgeModes))
	return false
}

// taintPolicy reads a ClusterTaintPolicy. One the library refuses (which
// Karmada's webhook refuses at admission) is reported and left out, as
// fleetover's controller leaves it out.
func (r *reader) taintPolicy(src source, ref Ref, o *taintPolicyObject) (TaintPolicy, bool) {
	p := TaintPolicy{
		File:               src.file,
		Name:               ref.Name,
		CreationTimestamp:  o.Metadata.CreationTimestamp,
		TargetClusters:     o.Spec.TargetClusters,
		AddOnConditions:    o.Spec.AddOnConditions,
		RemoveOnConditions: o.Spec.RemoveOnConditions,
		Taints:             o.Spec.Taints,
	}
	spec := field.NewPath("spec")
	errs := failover.ValidateClusterTaintConfig(failover.ClusterTaintConfig{Policies: []failover.ConditionTaintPolicy{p.ConditionTaintPolicy()}}, field.NewPath("cfg"))
	for _, e := range errs {
		// The library's path cfg.policies[0].x is the object's spec.x.
		fp := strings.TrimPrefix(strings.TrimPrefix(e.Field, "cfg.policies[0]"), ".")
		r.note(src, ref, spec.Child(fp), "%s; the policy is left out", e.ErrorBody())
	}
	if len(errs) > 0 {
		return TaintPolicy{}, false
	}
	if o.Metadata.CreationTimestamp.IsZero() {
		r.note(src, ref, field.NewPath("metadata", "creationTimestamp"), "no creation time: the policy applies before those that have one (Karmada orders policies by creation time)")
	}
	if o.Spec.TargetClusters != nil {
		r.checkAffinity(src, ref, spec.Child("targetClusters"), *o.Spec.TargetClusters)
	}
	return p, true
}

// checkAffinity reports an affinity that cannot be evaluated.
func (r *reader) checkAffinity(src source, ref Ref, p *field.Path, a ClusterAffinity) {
	if _, err := (Cluster{}).Matches(a); err != nil {
		r.note(src, ref, p, "cannot be evaluated (%v)", err)
	}
}

func (r *reader) checkScheduler(src source, ref Ref, p *field.Path, name string) {
	if name != "" && name != defaultSchedulerName {
		r.note(src, ref, p, "scheduler %q is not modelled: the simulator places as Karmada's default scheduler does", name)
	}
}

// checkPolicySuspension reports a policy's suspension.scheduling: Karmada
// suspends scheduling on a binding only.
func (r *reader) checkPolicySuspension(src source, ref Ref, p *field.Path, s *Suspension) {
	if s != nil && s.Scheduling != nil {
		r.note(src, ref, p.Child("scheduling"), "scheduling is suspended on a binding, not on a policy; ignored")
	}
}

// checkPlacement reports the placement's values the simulator cannot follow.
func (r *reader) checkPlacement(src source, ref Ref, p *field.Path, pl *Placement) {
	if pl == nil {
		return
	}
	for i, sc := range pl.SpreadConstraints {
		sp := p.Child("spreadConstraints").Index(i)
		switch {
		case sc.SpreadByLabel != "":
			r.note(src, ref, sp.Child("spreadByLabel"), "a spread by label is not modelled; the constraint is ignored")
		case sc.SpreadByField == "provider":
			r.note(src, ref, sp.Child("spreadByField"), "a spread by provider is not modelled; the constraint is ignored")
		case sc.SpreadByField != "" && sc.SpreadByField != "cluster" && sc.SpreadByField != "zone" && sc.SpreadByField != "region":
			r.note(src, ref, sp.Child("spreadByField"), "unknown spread field %q; the constraint is ignored", sc.SpreadByField)
		}
	}
	if rs := pl.ReplicaScheduling; rs != nil {
		rp := p.Child("replicaScheduling")
		if rs.ReplicaSchedulingType == "Divided" && rs.ReplicaDivisionPreference == "Aggregated" {
			r.note(src, ref, rp.Child("replicaDivisionPreference"), "Aggregated division packs replicas by free capacity, which is not modelled: replicas are divided by static weight (equally without one)")
		}
		if wp := rs.WeightPreference; wp != nil && wp.DynamicWeight != "" {
			r.note(src, ref, rp.Child("weightPreference", "dynamicWeight"), "dynamic weights follow free capacity, which is not modelled: clusters weigh equally")
		}
	}
}

// workload makes b's workload, filling what the binding lacks from the
// policy it came from.
func (r *reader) workload(b readBinding, policies []readPolicy) (Workload, bool) {
	spec := field.NewPath("spec")
	s := &b.obj.Spec
	if s.Resource.Kind == "" {
		r.fail(b.src, b.ref, field.Required(spec.Child("resource", "kind"), ""))
		return Workload{}, false
	}
	if s.Resource.Name == "" {
		r.fail(b.src, b.ref, field.Required(spec.Child("resource", "name"), ""))
		return Workload{}, false
	}
	if s.Replicas < 0 {
		r.fail(b.src, b.ref, field.Invalid(spec.Child("replicas"), s.Replicas, "must not be negative"))
		return Workload{}, false
	}
	for i, t := range s.Clusters {
		if t.Name == "" {
			r.fail(b.src, b.ref, field.Required(spec.Child("clusters").Index(i).Child("name"), ""))
			return Workload{}, false
		}
		if t.Replicas < 0 {
			r.fail(b.src, b.ref, field.Invalid(spec.Child("clusters").Index(i).Child("replicas"), t.Replicas, "must not be negative"))
			return Workload{}, false
		}
	}
	for i, t := range s.GracefulEvictionTasks {
		if t.FromCluster == "" {
			r.fail(b.src, b.ref, field.Required(spec.Child("gracefulEvictionTasks").Index(i).Child("fromCluster"), ""))
			return Workload{}, false
		}
	}
	r.checkPlacement(b.src, b.ref, spec.Child("placement"), s.Placement)
	r.checkScheduler(b.src, b.ref, spec.Child("schedulerName"), s.SchedulerName)
	if !r.checkClusterPurgeMode(b.src, b.ref, spec.Child("failover"), s.Failover) {
		return Workload{}, false
	}
	if s.PropagateDeps || len(s.RequiredBy) > 0 {
		p := spec.Child("propagateDeps")
		if !s.PropagateDeps {
			p = spec.Child("requiredBy")
		}
		r.note(b.src, b.ref, p, "dependencies are not modelled: the resources a workload depends on, and those depending on it, are not simulated")
	}
	if len(s.Components) > 0 {
		r.note(b.src, b.ref, spec.Child("components"), "components of a multi-component workload are not modelled: it is simulated by its total replicas")
	}
	if len(s.WorkloadAffinityGroups) > 0 && string(s.WorkloadAffinityGroups) != "null" && string(s.WorkloadAffinityGroups) != "{}" {
		r.note(b.src, b.ref, spec.Child("workloadAffinityGroups"), "workload affinity groups are not modelled")
	}
	w := Workload{
		File:          b.src.file,
		Binding:       b.ref,
		Resource:      s.Resource,
		Replicas:      s.Replicas,
		Clusters:      s.Clusters,
		Placement:     s.Placement,
		Failover:      s.Failover,
		Suspension:    s.Suspension,
		EvictionTasks: s.GracefulEvictionTasks,
		Status:        b.obj.Status.AggregatedStatus,
	}
	if p := r.policyOf(b, policies); p != nil {
		ref := p.Ref
		w.Policy = &ref
		if w.Placement == nil && p.Placement != nil {
			w.Placement, w.PlacementFromPolicy = p.Placement, true
		}
		if w.Failover == nil && p.Failover != nil {
			w.Failover, w.FailoverFromPolicy = p.Failover, true
		}
		if w.Suspension == nil && p.Suspension != nil {
			w.Suspension, w.SuspensionFromPolicy = p.Suspension, true
		}
	}
	if name := b.obj.Status.SchedulerObservingAffinityName; name != "" {
		// Karmada's scheduler starts from the first term when the name is
		// none of the placement's: so does the simulation.
		if w.Placement != nil && slices.ContainsFunc(w.Placement.ClusterAffinities, func(t ClusterAffinityTerm) bool { return t.AffinityName == name }) {
			w.ObservedAffinityName = name
		} else {
			r.note(b.src, b.ref, field.NewPath("status", "schedulerObservingAffinityName"), "%q names no affinity term of the placement: the first term is in use, as in Karmada", name)
		}
	}
	return w, true
}

// policyOf finds the policy b came from: by the name annotations Karmada
// sets, else by the permanent-id labels. A binding that names a policy
// missing from the input is reported.
func (r *reader) policyOf(b readBinding, policies []readPolicy) *readPolicy {
	md := b.obj.Metadata
	find := func(match func(p *readPolicy) bool) *readPolicy {
		for i := range policies {
			if match(&policies[i]) {
				return &policies[i]
			}
		}
		return nil
	}
	annotations := field.NewPath("metadata", "annotations")
	labelsPath := field.NewPath("metadata", "labels")
	if name := md.Annotations[PropagationPolicyNameAnnotation]; name != "" {
		ns := md.Annotations[PropagationPolicyNamespaceAnnotation]
		if ns == "" {
			ns = b.ref.Namespace
		}
		want := Ref{Kind: KindPropagationPolicy, Namespace: ns, Name: name}
		if p := find(func(p *readPolicy) bool { return p.Ref == want }); p != nil {
			return p
		}
		r.note(b.src, b.ref, annotations.Key(PropagationPolicyNameAnnotation), "%s is not in the input: the binding's own placement and failover are used", want)
		return nil
	}
	if name := md.Annotations[ClusterPropagationPolicyNameAnnotation]; name != "" {
		want := Ref{Kind: KindClusterPropagationPolicy, Name: name}
		if p := find(func(p *readPolicy) bool { return p.Ref == want }); p != nil {
			return p
		}
		r.note(b.src, b.ref, annotations.Key(ClusterPropagationPolicyNameAnnotation), "%s is not in the input: the binding's own placement and failover are used", want)
		return nil
	}
	for _, l := range []struct{ label, kind string }{
		{PropagationPolicyPermanentIDLabel, KindPropagationPolicy},
		{ClusterPropagationPolicyPermanentIDLabel, KindClusterPropagationPolicy},
	} {
		id := md.Labels[l.label]
		if id == "" {
			continue
		}
		if p := find(func(p *readPolicy) bool { return p.Ref.Kind == l.kind && p.PermanentID == id }); p != nil {
			return p
		}
		r.note(b.src, b.ref, labelsPath.Key(l.label), "no %s with permanent id %s in the input: the binding's own placement and failover are used", l.kind, id)
		return nil
	}
	return nil
}

// Matches reports whether c is among the clusters a selects, by the rule of
// Karmada's scheduler (ClusterMatches): c must not be excluded, and every
// selector given must hold. An empty affinity selects every cluster.
//
// provider and region are fields a cluster may leave empty: In needs the
// field set to one of the values, NotIn holds when it is not. zone is read
// from the cluster's zones: In needs at least one zone and every zone among
// the values, NotIn needs none of them there.
//
// Karmada's validation admits only the keys provider, region and zone and
// the operators In and NotIn, so an export holds nothing else; the error
// names a selector that cannot be evaluated.
func (c Cluster) Matches(a ClusterAffinity) (bool, error) {
	if slices.Contains(a.ExcludeClusters, c.Name) {
		return false, nil
	}
	if len(a.ClusterNames) > 0 && !slices.Contains(a.ClusterNames, c.Name) {
		return false, nil
	}
	if a.LabelSelector != nil {
		sel, err := metav1.LabelSelectorAsSelector(a.LabelSelector)
		if err != nil {
			return false, fmt.Errorf("labelSelector: %w", err)
		}
		if !sel.Matches(labels.Set(c.Labels)) {
			return false, nil
		}
	}
	if a.FieldSelector == nil {
		return true, nil
	}
	for i, req := range a.FieldSelector.MatchExpressions {
		if req.Operator != corev1.NodeSelectorOpIn && req.Operator != corev1.NodeSelectorOpNotIn {
			return false, fmt.Errorf("fieldSelector.matchExpressions[%d].operator: %q is not In or NotIn", i, req.Operator)
		}
		var ok bool
		switch req.Key {
		case "provider", "region":
			v := c.Provider
			if req.Key == "region" {
				v = c.Region
			}
			ok = (v != "" && slices.Contains(req.Values, v)) == (req.Operator == corev1.NodeSelectorOpIn)
		case "zone":
			zones := c.zones()
			listed := func(z string) bool { return slices.Contains(req.Values, z) }
			if req.Operator == corev1.NodeSelectorOpIn {
				// Karmada v1.18 takes a cluster one of whose zones is
				// listed (v1.17 wanted every one of them listed).
				ok = slices.ContainsFunc(zones, listed)
			} else {
				ok = !slices.ContainsFunc(zones, listed)
			}
		default:
			return false, fmt.Errorf("fieldSelector.matchExpressions[%d].key: %q is not provider, region or zone", i, req.Key)
		}
		if !ok {
			return false, nil
		}
	}
	return true, nil
}

// zones lists the cluster's zones: spec.zones, else spec.zone. Karmada's
// API server moves a lone spec.zone into spec.zones whenever it stores a
// Cluster, so this is what Karmada itself holds for such an object.
func (c Cluster) zones() []string {
	if len(c.Zones) > 0 {
		return c.Zones
	}
	if c.Zone != "" {
		return []string{c.Zone}
	}
	return nil
}
