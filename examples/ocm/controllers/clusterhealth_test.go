package controllers_test

import (
	"encoding/json"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetover/fleetover/examples/ocm/controllers"
	"github.com/fleetover/fleetover/failover"
)

// A klusterlet renews its lease and gives its verdict a moment later in the
// same second, and the controller hears the lease first. The verdict counts
// at once, though its transition time (cut down to the second) reads older
// than the renewal heard (rounded up to the next). It used to wait for the
// next renewal, a lease period later.
func TestVerdictInTheSecondOfALeaseRenewal(t *testing.T) {
	f := newFixture(t, outageConfig)
	f.start()
	name := f.clusterName("a")
	f.registerCluster(name)
	f.stepTo(f.clock.Now().Add(700 * time.Millisecond))
	f.renewLease(name)
	heard := f.clock.Now().Truncate(time.Second).Add(time.Second)
	f.eventually("lease of "+name+" heard without a verdict", func() (bool, string) {
		var st failover.ClusterHealthState
		raw := f.managedCluster(name).Annotations[controllers.ClusterHealthStateAnnotation]
		if json.Unmarshal([]byte(raw), &st) != nil {
			return false, raw
		}
		return st.LastHeard != nil && st.LastHeard.Equal(&metav1.Time{Time: heard}) && st.Ready == nil, raw
	})
	f.stepTo(f.clock.Now().Add(200 * time.Millisecond))
	f.setAvailable(name, metav1.ConditionTrue)
	f.waitHealthTracked(name)
}
