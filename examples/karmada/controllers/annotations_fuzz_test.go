package controllers

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	"github.com/fleetover/fleetover/failover"

	clusterv1alpha1 "github.com/fleetover/fleetover/examples/karmada/apis/cluster/v1alpha1"
	workv1alpha2 "github.com/fleetover/fleetover/examples/karmada/apis/work/v1alpha2"
)

// FuzzPersistedStateAnnotations feeds arbitrary annotation values to the
// two decoders of persisted tracker state, then to the library decisions
// that consume them: a damaged or hostile annotation must never panic, and
// what the controller then persists must decode again.
func FuzzPersistedStateAnnotations(f *testing.F) {
	f.Add(`[{"clusterName":"m1","failingSince":"2026-03-01T12:00:00Z"}]`, `{"syncMode":"Pull","registeredAt":"2026-03-01T12:00:00Z","lastHeard":"2026-03-01T12:00:10Z"}`)
	f.Add(`[{"clusterName":"m1","settled":true},{"clusterName":"m1","failingSince":null}]`, `{"syncMode":"Push","ready":{"type":"Ready","status":"Maybe","reason":"x","message":"","lastTransitionTime":"2026-03-01T12:00:00Z"}}`)
	f.Add(`not json`, `{"syncMode":"Pull","pending":{"status":"True","reason":"ClusterReady","since":"9999-12-31T23:59:59Z"},"registeredAt":"0001-01-01T00:00:00Z"}`)
	f.Add(`[]`, `{}`)
	now := time.Date(2026, time.March, 1, 12, 0, 30, 0, time.UTC)
	f.Fuzz(func(t *testing.T, records, healthState string) {
		rb := &workv1alpha2.ResourceBinding{}
		rb.Annotations = map[string]string{ApplicationHealthRecordsAnnotation: records}
		rb.Spec.Clusters = []workv1alpha2.TargetCluster{{Name: "m1"}, {Name: "m2"}}
		det, err := failover.DetectApplicationFailure(failover.DetectorInput{
			Policy:   &failover.ApplicationFailoverBehavior{DecisionConditions: failover.DecisionConditions{TolerationSeconds: ptr.To[int32](30)}},
			Clusters: targetNames(rb),
			Health:   []failover.ObservedHealth{{ClusterName: "m1", Status: "Unhealthy", CollectedSince: metav1.NewTime(now)}},
			Records:  decodeRecords(rb),
		}, now, failover.DetectorConfig{})
		if err != nil {
			t.Fatalf("a valid policy was refused: %v", err)
		}
		encodeRecords(rb, det.Records)
		if len(det.Records) > 0 && len(decodeRecords(rb)) != len(det.Records) {
			t.Fatalf("persisted records do not decode: %q", rb.Annotations[ApplicationHealthRecordsAnnotation])
		}

		clk := clocktesting.NewFakeClock(now)
		c := &ClusterHealthController{Clock: clk, Tracker: mustTracker(failover.NewClusterHealthTracker(clk, failover.ClusterHealthConfig{}))}
		cluster := &clusterv1alpha1.Cluster{}
		cluster.Name = "m1"
		cluster.Spec.SyncMode = clusterv1alpha1.Pull
		cluster.Annotations = map[string]string{ClusterHealthStateAnnotation: healthState}
		if err := c.track(cluster); err != nil {
			t.Fatal(err)
		}
		if _, ok := c.Tracker.Export("m1"); !ok {
			t.Fatal("the cluster is not tracked after track")
		}
		c.Tracker.Ready("m1")
		c.Tracker.NextCheck("m1")
	})
}

// mustTracker unwraps NewClusterHealthTracker given the default
// configuration, which it cannot refuse.
func mustTracker(t failover.ClusterHealthTracker, err error) failover.ClusterHealthTracker {
	if err != nil {
		panic(err)
	}
	return t
}
