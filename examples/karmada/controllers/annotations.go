package controllers

import (
	"bytes"
	"encoding/json"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"

	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
)

// What the design has and Karmada's v1alpha2 API lacks is carried in
// annotations, each a JSON document with a "version" field. A controller
// reads only the version it knows (AnnotationSchemaVersion), rejects
// unknown fields, and validates the content; an annotation that fails any
// of this is reported by an error naming metadata.annotations[key] and
// treated as documented on each key. docs/karmada.md lists every carrier.
const AnnotationSchemaVersion = "v1alpha1"

const (
	// PolicyExtensionAnnotation carries the failover policy fields Karmada's
	// FailoverBehavior lacks (PolicyExtension). It is read from the binding,
	// else from the PropagationPolicy or ClusterPropagationPolicy the
	// binding names. Invalid: the binding gets no failover decision and an
	// InvalidFailoverPolicy event.
	PolicyExtensionAnnotation = "failover.fleetover.io/policy"
	// EvictionHistoryAnnotation holds a binding's eviction history
	// (eviction.EvictionHistory): which cluster it left and when, for
	// blockPredecessorSeconds. Invalid: read as empty, with an event.
	EvictionHistoryAnnotation = "failover.fleetover.io/eviction-history"
	// ApplicationHealthRecordsAnnotation holds the application failover
	// detector's records (failover.WorkloadHealthRecord: unhealthy-since
	// and settled, per cluster), so a restart neither restarts nor skips a
	// toleration countdown (Karmada #7171). Invalid: read as empty (the
	// countdown restarts), with an event.
	ApplicationHealthRecordsAnnotation = "failover.fleetover.io/application-health"
	// StatusObservationsAnnotation holds, per cluster, when the binding's
	// aggregated status first carried an item for it and whether the
	// workload was ever Healthy there: Karmada's AggregatedStatusItem has
	// neither a creation time nor a settled flag. Invalid: read as empty.
	StatusObservationsAnnotation = "failover.fleetover.io/status-observations"
	// ClusterHealthStateAnnotation holds the cluster health tracker's state
	// of a cluster (failover.ClusterHealthState), so a restarted controller
	// continues a debounce or a silence countdown (Karmada #7408). Invalid:
	// the cluster is registered afresh.
	ClusterHealthStateAnnotation = "failover.fleetover.io/cluster-health"
)

// PolicyExtension is the content of PolicyExtensionAnnotation.
type PolicyExtension struct {
	Version     string                `json:"version"`
	Application *ApplicationExtension `json:"application,omitempty"`
	Cluster     *ClusterExtension     `json:"cluster,omitempty"`
}

// ApplicationExtension adds to Karmada's application failover behaviour.
type ApplicationExtension struct {
	// PreConditions: delaySeconds after the first status collection, and
	// healthyState Healthy to fail over only a workload that was once
	// healthy.
	PreConditions *failover.PreConditions `json:"preConditions,omitempty"`
	// BlockPredecessorSeconds keeps the workload away from a cluster it left
	// for this long (0: for good); unset is eviction.DefaultBlockPredecessorSeconds.
	BlockPredecessorSeconds *int32 `json:"blockPredecessorSeconds,omitempty"`
}

// ClusterExtension adds to Karmada's cluster failover behaviour.
type ClusterExtension struct {
	// GracePeriodSeconds bounds a graceful eviction by a taint.
	GracePeriodSeconds *int32 `json:"gracePeriodSeconds,omitempty"`
}

// evictionHistoryDoc is the content of EvictionHistoryAnnotation.
type evictionHistoryDoc struct {
	Version string                   `json:"version"`
	Entries eviction.EvictionHistory `json:"entries"`
}

// healthRecordsDoc is the content of ApplicationHealthRecordsAnnotation.
type healthRecordsDoc struct {
	Version string                          `json:"version"`
	Records []failover.WorkloadHealthRecord `json:"records"`
}

// StatusObservation is what the controllers observed of one cluster's
// aggregated status item.
type StatusObservation struct {
	ClusterName string `json:"clusterName"`
	// FirstCollected is when an item for the cluster was first seen.
	FirstCollected metav1.Time `json:"firstCollected"`
	// Settled reports that the workload was seen Healthy there.
	Settled bool `json:"settled,omitempty"`
}

type statusObservationsDoc struct {
	Version  string              `json:"version"`
	Clusters []StatusObservation `json:"clusters"`
}

type clusterHealthDoc struct {
	Version string                      `json:"version"`
	State   failover.ClusterHealthState `json:"state"`
}

// decodeAnnotation decodes obj's annotation key into out strictly and
// checks its version. found is false when the annotation is absent.
func decodeAnnotation(annotations map[string]string, key string, out any, version func() string) (found bool, errs field.ErrorList) {
	raw, ok := annotations[key]
	if !ok {
		return false, nil
	}
	path := field.NewPath("metadata", "annotations").Key(key)
	dec := json.NewDecoder(bytes.NewReader([]byte(raw)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		return true, field.ErrorList{field.Invalid(path, raw, err.Error())}
	}
	if dec.More() {
		return true, field.ErrorList{field.Invalid(path, raw, "trailing data after the JSON document")}
	}
	if v := version(); v != AnnotationSchemaVersion {
		return true, field.ErrorList{field.NotSupported(path.Child("version"), v, []string{AnnotationSchemaVersion})}
	}
	return true, nil
}

// setAnnotation stores v as JSON under key; a nil v removes the key. It
// reports whether the annotations changed.
func setAnnotation(obj client.Object, key string, v any) bool {
	a := obj.GetAnnotations()
	if v == nil {
		if _, ok := a[key]; !ok {
			return false
		}
		delete(a, key)
		obj.SetAnnotations(a)
		return true
	}
	// The documents are plain structs of strings, numbers and times: they
	// always marshal.
	raw, _ := json.Marshal(v)
	if a[key] == string(raw) {
		return false
	}
	if a == nil {
		a = map[string]string{}
	}
	a[key] = string(raw)
	obj.SetAnnotations(a)
	return true
}

func annotationPath(key string) *field.Path {
	return field.NewPath("metadata", "annotations").Key(key)
}

// DecodePolicyExtension reads PolicyExtensionAnnotation from annotations.
// It returns nil when the annotation is absent.
func DecodePolicyExtension(annotations map[string]string) (*PolicyExtension, error) {
	ext := &PolicyExtension{}
	found, errs := decodeAnnotation(annotations, PolicyExtensionAnnotation, ext, func() string { return ext.Version })
	if !found {
		return nil, nil
	}
	if len(errs) == 0 {
		// The fields are validated with the whole policy (failover's
		// validation), under the annotation's path.
		path := annotationPath(PolicyExtensionAnnotation)
		fb := mergeFailover(nil, ext)
		errs = failover.ValidateFailoverBehavior(fb, path)
	}
	if len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	return ext, nil
}

// decodeEvictionHistory reads EvictionHistoryAnnotation.
func decodeEvictionHistory(annotations map[string]string) (eviction.EvictionHistory, error) {
	doc := &evictionHistoryDoc{}
	found, errs := decodeAnnotation(annotations, EvictionHistoryAnnotation, doc, func() string { return doc.Version })
	if !found {
		return nil, nil
	}
	if len(errs) == 0 {
		errs = eviction.ValidateEvictionHistory(doc.Entries, annotationPath(EvictionHistoryAnnotation).Child("entries"))
	}
	if len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	return doc.Entries, nil
}

// setEvictionHistory stores h; an empty history removes the annotation.
func setEvictionHistory(obj client.Object, h eviction.EvictionHistory) bool {
	if len(h) == 0 {
		return setAnnotation(obj, EvictionHistoryAnnotation, nil)
	}
	return setAnnotation(obj, EvictionHistoryAnnotation, evictionHistoryDoc{Version: AnnotationSchemaVersion, Entries: h})
}

// decodeRecords reads ApplicationHealthRecordsAnnotation.
func decodeRecords(annotations map[string]string) ([]failover.WorkloadHealthRecord, error) {
	doc := &healthRecordsDoc{}
	found, errs := decodeAnnotation(annotations, ApplicationHealthRecordsAnnotation, doc, func() string { return doc.Version })
	if !found {
		return nil, nil
	}
	if len(errs) == 0 {
		path := annotationPath(ApplicationHealthRecordsAnnotation).Child("records")
		seen := map[string]bool{}
		for i, r := range doc.Records {
			if r.ClusterName == "" {
				errs = append(errs, field.Required(path.Index(i).Child("clusterName"), ""))
			} else if seen[r.ClusterName] {
				errs = append(errs, field.Duplicate(path.Index(i).Child("clusterName"), r.ClusterName))
			}
			seen[r.ClusterName] = true
		}
	}
	if len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	return doc.Records, nil
}

func setRecords(obj client.Object, recs []failover.WorkloadHealthRecord) bool {
	if len(recs) == 0 {
		return setAnnotation(obj, ApplicationHealthRecordsAnnotation, nil)
	}
	return setAnnotation(obj, ApplicationHealthRecordsAnnotation, healthRecordsDoc{Version: AnnotationSchemaVersion, Records: recs})
}

// decodeStatusObservations reads StatusObservationsAnnotation.
func decodeStatusObservations(annotations map[string]string) ([]StatusObservation, error) {
	doc := &statusObservationsDoc{}
	found, errs := decodeAnnotation(annotations, StatusObservationsAnnotation, doc, func() string { return doc.Version })
	if !found {
		return nil, nil
	}
	if len(errs) == 0 {
		path := annotationPath(StatusObservationsAnnotation).Child("clusters")
		seen := map[string]bool{}
		for i, o := range doc.Clusters {
			switch {
			case o.ClusterName == "":
				errs = append(errs, field.Required(path.Index(i).Child("clusterName"), ""))
			case seen[o.ClusterName]:
				errs = append(errs, field.Duplicate(path.Index(i).Child("clusterName"), o.ClusterName))
			case o.FirstCollected.IsZero():
				errs = append(errs, field.Required(path.Index(i).Child("firstCollected"), ""))
			}
			seen[o.ClusterName] = true
		}
	}
	if len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	return doc.Clusters, nil
}

func setStatusObservations(obj client.Object, obs []StatusObservation) bool {
	if len(obs) == 0 {
		return setAnnotation(obj, StatusObservationsAnnotation, nil)
	}
	return setAnnotation(obj, StatusObservationsAnnotation, statusObservationsDoc{Version: AnnotationSchemaVersion, Clusters: obs})
}

// decodeClusterHealthState reads ClusterHealthStateAnnotation; the tracker's
// Import validates the state itself.
func decodeClusterHealthState(annotations map[string]string) (*failover.ClusterHealthState, error) {
	doc := &clusterHealthDoc{}
	found, errs := decodeAnnotation(annotations, ClusterHealthStateAnnotation, doc, func() string { return doc.Version })
	if !found {
		return nil, nil
	}
	if len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	return &doc.State, nil
}

func setClusterHealthState(obj client.Object, st failover.ClusterHealthState) bool {
	return setAnnotation(obj, ClusterHealthStateAnnotation, clusterHealthDoc{Version: AnnotationSchemaVersion, State: st})
}

// observeStatus updates the observations from the aggregated status seen
// at now: a cluster's first item starts its record, a Healthy item settles
// it, and a cluster with no item any more is forgotten.
func observeStatus(obs []StatusObservation, items []statusItem, now time.Time) []StatusObservation {
	out := make([]StatusObservation, 0, len(items))
	for _, it := range items {
		o := StatusObservation{ClusterName: it.cluster, FirstCollected: metav1.NewTime(now)}
		for _, old := range obs {
			if old.ClusterName == it.cluster {
				o = old
				break
			}
		}
		o.Settled = o.Settled || it.healthy
		out = append(out, o)
	}
	return out
}

// statusItem is the part of an aggregated status item observeStatus needs.
type statusItem struct {
	cluster string
	healthy bool
}

// statusItems is the part of a binding's aggregated status observeStatus
// needs.
func statusItems(status *workv1alpha2.ResourceBindingStatus) []statusItem {
	items := make([]statusItem, len(status.AggregatedStatus))
	for i, it := range status.AggregatedStatus {
		items[i] = statusItem{cluster: it.ClusterName, healthy: it.Health == workv1alpha2.ResourceHealthy}
	}
	return items
}

// EvictionHistoryOf returns the eviction history a binding carries in
// EvictionHistoryAnnotation.
func EvictionHistoryOf(binding client.Object) (eviction.EvictionHistory, error) {
	return decodeEvictionHistory(binding.GetAnnotations())
}
