package controllers

import (
	"context"
	"reflect"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/examples/karmada/carrier"
	"github.com/fleetover/fleetover/failover"
)

// FuzzAnnotationCarriers feeds arbitrary values to every annotation
// decoder, then to the library decisions that consume them: a damaged or
// hostile annotation must never panic, whatever decodes must pass
// validation and survive a round trip through its encoder, and what the
// controller then persists must decode again.
func FuzzAnnotationCarriers(f *testing.F) {
	f.Add(`{"version":"v1alpha1","records":[{"clusterName":"m1","failingSince":"2026-03-01T12:00:00Z"}]}`,
		`{"version":"v1alpha1","state":{"syncMode":"Pull","registeredAt":"2026-03-01T12:00:00Z","lastHeard":"2026-03-01T12:00:10Z"}}`,
		`{"version":"v1alpha1","application":{"blockPredecessorSeconds":120,"preConditions":{"delaySeconds":5,"healthyState":"Healthy"}},"cluster":{"gracePeriodSeconds":60}}`,
		`{"version":"v1alpha1","entries":[{"clusterName":"m1","creationTimestamp":"2026-03-01T12:00:00Z"}]}`,
		`{"version":"v1alpha1","clusters":[{"clusterName":"m1","firstCollected":"2026-03-01T12:00:00Z","settled":true}]}`)
	f.Add(`{"version":"v1alpha1","records":[{"clusterName":"m1","settled":true},{"clusterName":"m1","failingSince":null}]}`,
		`{"version":"v1alpha1","state":{"syncMode":"Push","ready":{"type":"Ready","status":"Maybe","reason":"x","message":"","lastTransitionTime":"2026-03-01T12:00:00Z"}}}`,
		`{"version":"v1alpha1","application":{"blockPredecessorSeconds":-1}}`,
		`{"version":"v2","entries":[]}`,
		`{"version":"v1alpha1","clusters":[{"clusterName":""}]}`)
	f.Add(`not json`, `{"version":"v1alpha1","state":{"syncMode":"Pull","pending":{"status":"True","reason":"ClusterReady","since":"9999-12-31T23:59:59Z"},"registeredAt":"0001-01-01T00:00:00Z"}}`,
		`{"version":"v1alpha1","cluster":{"gracePeriodSeconds":0},"extra":1}`, `{} {}`, `[]`)
	now := time.Date(2026, time.March, 1, 12, 0, 30, 0, time.UTC)
	scheme, err := NewScheme()
	if err != nil {
		f.Fatal(err)
	}
	// The restored pull cluster's Lease is read from it (none here).
	leases := fake.NewClientBuilder().WithScheme(scheme).Build()
	f.Fuzz(func(t *testing.T, records, healthState, policy, history, observations string) {
		annotations := map[string]string{
			ApplicationHealthRecordsAnnotation: records,
			ClusterHealthStateAnnotation:       healthState,
			PolicyExtensionAnnotation:          policy,
			EvictionHistoryAnnotation:          history,
			StatusObservationsAnnotation:       observations,
		}
		rb := &workv1alpha2.ResourceBinding{}
		rb.Annotations = annotations

		if ext, err := DecodePolicyExtension(annotations); err == nil && ext != nil {
			fb := mergeFailover(nil, ext)
			if fb == nil && (ext.Application != nil || ext.Cluster != nil) {
				t.Fatalf("a decoded extension was dropped: %+v", ext)
			}
		}
		if h, err := carrier.DecodeEvictionHistory(annotations); err == nil {
			c := rb.DeepCopy()
			setEvictionHistory(c, h)
			again, err := carrier.DecodeEvictionHistory(c.Annotations)
			if err != nil || len(again) != len(h) {
				t.Fatalf("history does not round-trip: %v, %v", again, err)
			}
		}
		if obs, err := decodeStatusObservations(annotations); err == nil {
			c := rb.DeepCopy()
			setStatusObservations(c, obs)
			again, err := decodeStatusObservations(c.Annotations)
			if err != nil || !reflect.DeepEqual(normalizeObs(again), normalizeObs(obs)) {
				t.Fatalf("observations do not round-trip: %v, %v", again, err)
			}
		}

		recs, _ := decodeRecords(annotations)
		spec := &workv1alpha2.ResourceBindingSpec{Clusters: []workv1alpha2.TargetCluster{{Name: "m1"}, {Name: "m2"}}}
		det, err := failover.DetectApplicationFailure(failover.DetectorInput{
			Policy:   &failover.ApplicationFailoverBehavior{DecisionConditions: failover.DecisionConditions{TolerationSeconds: ptr.To[int32](30)}},
			Clusters: targetNames(spec),
			Health:   []failover.ObservedHealth{{ClusterName: "m1", Status: "Unhealthy", CollectedSince: metav1.NewTime(now)}},
			Records:  recs,
		}, now, failover.DetectorConfig{})
		if err != nil {
			t.Fatalf("a valid policy was refused: %v", err)
		}
		setRecords(rb, det.Records)
		if got, err := decodeRecords(rb.Annotations); len(det.Records) > 0 && (err != nil || len(got) != len(det.Records)) {
			t.Fatalf("persisted records do not decode: %q: %v", rb.Annotations[ApplicationHealthRecordsAnnotation], err)
		}

		clk := clocktesting.NewFakeClock(now)
		tracker, err := failover.NewClusterHealthTracker(clk, failover.ClusterHealthConfig{})
		if err != nil {
			t.Fatal(err)
		}
		c := &ClusterHealthController{Client: leases, Clock: clk, Tracker: tracker}
		cluster := &clusterv1alpha1.Cluster{}
		cluster.Name = "m1"
		cluster.Spec.SyncMode = clusterv1alpha1.Pull
		cluster.Annotations = map[string]string{ClusterHealthStateAnnotation: healthState}
		if err := c.track(context.Background(), cluster); err != nil {
			t.Fatal(err)
		}
		st, ok := c.Tracker.Export("m1")
		if !ok {
			t.Fatal("the cluster is not tracked after track")
		}
		c.Tracker.Ready("m1")
		c.Tracker.NextCheck("m1")
		setClusterHealthState(cluster, st)
		if _, err := decodeClusterHealthState(cluster.Annotations); err != nil {
			t.Fatalf("persisted health state does not decode: %v", err)
		}
	})
}

// normalizeObs drops the monotonic clock and location so that observations
// compare by their persisted form (RFC 3339 seconds).
func normalizeObs(obs []StatusObservation) []StatusObservation {
	out := make([]StatusObservation, len(obs))
	for i, o := range obs {
		o.FirstCollected = metav1.NewTime(o.FirstCollected.UTC().Truncate(time.Second))
		out[i] = o
	}
	return out
}
