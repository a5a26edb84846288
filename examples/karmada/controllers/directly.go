package controllers

import (
	"context"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"

	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/eviction"
)

// PendingPurgesAnnotation carries, on a binding, the old copies that a
// Directly eviction is deleting: per old cluster, when the deletion
// started, the clusters that ran the workload before the failover, and the
// preserved state. The graceful eviction task goes as soon as it is
// assessed, so this record is what holds the new copy back until the old
// Work is gone (never two copies) and what carries the state to it. The
// dispatcher writes it when it first sees a Directly task and drops an
// entry once the old Work is gone and every target has its Work. Invalid:
// read as empty, with an event (dispatch is then not held).
const PendingPurgesAnnotation = "failover.fleetover.io/pending-purges"

// PendingPurgeRecord is one entry of PendingPurgesAnnotation.
type PendingPurgeRecord struct {
	Cluster                string            `json:"cluster"`
	Since                  metav1.Time       `json:"since"`
	ClustersBeforeFailover []string          `json:"clustersBeforeFailover,omitempty"`
	PreservedLabelState    map[string]string `json:"preservedLabelState,omitempty"`
}

type pendingPurgesDoc struct {
	Version string               `json:"version"`
	Purges  []PendingPurgeRecord `json:"purges"`
}

func decodePendingPurges(annotations map[string]string) ([]PendingPurgeRecord, error) {
	doc := &pendingPurgesDoc{}
	found, errs := decodeAnnotation(annotations, PendingPurgesAnnotation, doc, func() string { return doc.Version })
	if !found {
		return nil, nil
	}
	if len(errs) == 0 {
		path := annotationPath(PendingPurgesAnnotation).Child("purges")
		seen := map[string]bool{}
		for i, p := range doc.Purges {
			switch {
			case p.Cluster == "":
				errs = append(errs, field.Required(path.Index(i).Child("cluster"), ""))
			case seen[p.Cluster]:
				errs = append(errs, field.Duplicate(path.Index(i).Child("cluster"), p.Cluster))
			case p.Since.IsZero():
				errs = append(errs, field.Required(path.Index(i).Child("since"), ""))
			}
			seen[p.Cluster] = true
		}
	}
	if len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	return doc.Purges, nil
}

func setPendingPurges(obj client.Object, purges []PendingPurgeRecord) bool {
	if len(purges) == 0 {
		return setAnnotation(obj, PendingPurgesAnnotation, nil)
	}
	return setAnnotation(obj, PendingPurgesAnnotation, pendingPurgesDoc{Version: AnnotationSchemaVersion, Purges: purges})
}

// isDirectly reports whether a task purges its old copy at once.
func isDirectly(t *workv1alpha2.GracefulEvictionTask) bool {
	return eviction.PurgeMode(t.PurgeMode).Normalize() == eviction.PurgeDirectly
}

// recordDirectlyPurges adds a PendingPurgeRecord for each Directly task
// that has none yet and returns the binding's records.
func (d *WorkDispatcher) recordDirectlyPurges(ctx context.Context, rb client.Object, now time.Time) ([]PendingPurgeRecord, error) {
	var purges []PendingPurgeRecord
	var invalid error
	err := patchObject(ctx, d.Client, rb, func(client.Object) bool {
		var err error
		purges, err = decodePendingPurges(rb.GetAnnotations())
		invalid = err
		added := false
		for i := range bindingSpec(rb).GracefulEvictionTasks {
			t := &bindingSpec(rb).GracefulEvictionTasks[i]
			if !isDirectly(t) || slices.ContainsFunc(purges, func(p PendingPurgeRecord) bool { return p.Cluster == t.FromCluster }) {
				continue
			}
			purges = append(purges, PendingPurgeRecord{
				Cluster:                t.FromCluster,
				Since:                  metav1.NewTime(now),
				ClustersBeforeFailover: t.ClustersBeforeFailover,
				PreservedLabelState:    t.PreservedLabelState,
			})
			added = true
		}
		return added && setPendingPurges(rb, purges)
	})
	if invalid != nil {
		d.Events.event(rb, corev1.EventTypeWarning, "InvalidPendingPurges", "%v", invalid)
	}
	return purges, err
}

// directlyGate is the one place the dispatcher asks the library whether a
// new Work for target must wait for old copies under Directly
// (eviction.DispatchBlocked): each recorded purge whose old Work still
// exists, terminating or not, holds it back, and an unreachable old
// cluster stops holding it after the escape timeout.
func directlyGate(target string, purges []PendingPurgeRecord, oldWorkExists, unreachable func(cluster string) bool, now time.Time, opts eviction.AssessOptions) eviction.DispatchGate {
	pending := make([]eviction.PendingPurge, 0, len(purges))
	for _, p := range purges {
		if !oldWorkExists(p.Cluster) {
			continue
		}
		pending = append(pending, eviction.PendingPurge{
			Cluster:                p.Cluster,
			Since:                  p.Since.Time,
			Unreachable:            unreachable(p.Cluster),
			ClustersBeforeFailover: p.ClustersBeforeFailover,
		})
	}
	return eviction.DispatchBlocked(target, pending, now, opts)
}

// purgeCarriers turns the records into tasks for state injection: the
// record carries the state once the task is gone.
func purgeCarriers(purges []PendingPurgeRecord) []eviction.GracefulEvictionTask {
	out := make([]eviction.GracefulEvictionTask, 0, len(purges))
	for _, p := range purges {
		since := p.Since
		out = append(out, eviction.GracefulEvictionTask{
			FromCluster:            p.Cluster,
			PurgeMode:              eviction.PurgeDirectly,
			PreservedLabelState:    p.PreservedLabelState,
			ClustersBeforeFailover: p.ClustersBeforeFailover,
			CreationTimestamp:      &since,
		})
	}
	return out
}

// finishedPurges drops the records whose old Work is gone once every
// target has its Work: the new copies have the state.
func (d *WorkDispatcher) finishedPurges(ctx context.Context, rb client.Object, oldWorkExists, hasWork func(string) bool) error {
	return patchObject(ctx, d.Client, rb, func(client.Object) bool {
		purges, err := decodePendingPurges(rb.GetAnnotations())
		if err != nil || len(purges) == 0 {
			return false
		}
		targets := bindingSpec(rb).Clusters
		placed := len(targets) > 0 && !slices.ContainsFunc(targets, func(tc workv1alpha2.TargetCluster) bool { return !hasWork(tc.Name) })
		kept := purges[:0:0]
		for _, p := range purges {
			if oldWorkExists(p.Cluster) || !placed {
				kept = append(kept, p)
			}
		}
		if len(kept) == len(purges) {
			return false
		}
		return setPendingPurges(rb, kept)
	})
}
