package controllers

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"

	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/examples/karmada/carrier"
	"github.com/fleetover/fleetover/failover"
)

// What the design has and Karmada's v1alpha2 API lacks is carried in
// annotations, read and written by package carrier (one module shared with
// the Karmada scheduler plugins). A controller reads only the version it
// knows (AnnotationSchemaVersion), rejects unknown fields, and validates the
// content; an annotation that fails any of this is reported by an error
// naming metadata.annotations[key] and treated as documented on each key.
// docs/karmada.md lists every carrier.
const AnnotationSchemaVersion = carrier.SchemaVersion

// The annotation keys; carrier documents each, with what the controllers do
// when it is invalid.
const (
	PolicyExtensionAnnotation          = carrier.PolicyExtensionKey
	EvictionHistoryAnnotation          = carrier.EvictionHistoryKey
	ApplicationHealthRecordsAnnotation = carrier.ApplicationHealthRecordsKey
	StatusObservationsAnnotation       = carrier.StatusObservationsKey
	ClusterHealthStateAnnotation       = carrier.ClusterHealthStateKey
)

// The content of PolicyExtensionAnnotation and its parts.
type (
	PolicyExtension      = carrier.PolicyExtension
	ApplicationExtension = carrier.ApplicationExtension
	ClusterExtension     = carrier.ClusterExtension
)

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
	raw, _ := carrier.Encode(v)
	if a[key] == raw {
		return false
	}
	if a == nil {
		a = map[string]string{}
	}
	a[key] = raw
	obj.SetAnnotations(a)
	return true
}

// DecodePolicyExtension reads PolicyExtensionAnnotation from annotations
// (carrier.DecodePolicyExtension). It returns nil when the annotation is
// absent.
func DecodePolicyExtension(annotations map[string]string) (*PolicyExtension, error) {
	return carrier.DecodePolicyExtension(annotations)
}

// setEvictionHistory stores h; an empty history removes the annotation.
func setEvictionHistory(obj client.Object, h eviction.EvictionHistory) bool {
	if len(h) == 0 {
		return setAnnotation(obj, EvictionHistoryAnnotation, nil)
	}
	return setAnnotation(obj, EvictionHistoryAnnotation, carrier.EvictionHistoryDocument{Version: AnnotationSchemaVersion, Entries: h})
}

// decodeRecords reads ApplicationHealthRecordsAnnotation.
func decodeRecords(annotations map[string]string) ([]failover.WorkloadHealthRecord, error) {
	doc := &healthRecordsDoc{}
	found, errs := carrier.Decode(annotations, ApplicationHealthRecordsAnnotation, doc, func() string { return doc.Version })
	if !found {
		return nil, nil
	}
	if len(errs) == 0 {
		path := carrier.Path(ApplicationHealthRecordsAnnotation).Child("records")
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
	found, errs := carrier.Decode(annotations, StatusObservationsAnnotation, doc, func() string { return doc.Version })
	if !found {
		return nil, nil
	}
	if len(errs) == 0 {
		path := carrier.Path(StatusObservationsAnnotation).Child("clusters")
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
	found, errs := carrier.Decode(annotations, ClusterHealthStateAnnotation, doc, func() string { return doc.Version })
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
	return carrier.DecodeEvictionHistory(binding.GetAnnotations())
}
