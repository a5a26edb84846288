package controllers_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/fleetover/fleetover/failover"

	"github.com/fleetover/fleetover/examples/ocm/controllers"
)

// The crash campaign's findings, each held by a test that crashes at the
// point where it showed (docs/reliability.md).

// The process dies 30 s into a cluster's silence. The new one imports the
// tracker state, in which the cluster was last heard at the second its
// klusterlet said Available. It must not take that old verdict for news:
// fed again, it counted as a sign of life at the restart, and the cluster
// went Unknown 40 s after the restart instead of 40 s after it fell
// silent (story 1 crashed after its first ManifestWork).
func TestCrashKeepsTheSilenceCountdown(t *testing.T) {
	t.Parallel()
	inj := newCrashInjector(testScheme, 0, false)
	planCrash(t, inj)
	f := newFixture(t, outageConfig)
	f.start()
	silent, alive := f.clusterName("a"), f.clusterName("b")
	f.joinTrackedClusters(silent, alive)
	silentSince := f.clock.Now()

	f.advance(silentSince.Add(30*time.Second), 5*time.Second, alive)
	inj.kill()
	f.recoverCrash()
	deadline := silentSince.Add(40 * time.Second)
	f.eventually("the new process looks again when the silence has lasted 40 s", func() (bool, string) {
		at, ok := f.ctrls.ClusterHealth.Recheck.Pending(client.ObjectKey{Name: silent})
		return ok && at.Equal(deadline), fmt.Sprintf("pending %v %v, want %v", at, ok, deadline)
	})
	f.advance(silentSince.Add(45*time.Second), 5*time.Second, alive)
	f.waitTaint(silent, clusterv1.ManagedClusterTaintUnreachable, clusterv1.TaintEffectNoSelectIfNew)
	if got, want := f.unknownSince(silent), silentSince.Add(40*time.Second); !got.Equal(want) {
		t.Fatalf("Unknown since %s, want %s: the restart moved the silence countdown", got, want)
	}
}

// The process dies and no new one runs for 45 s (a crash loop, a slow
// reschedule), while one cluster's klusterlet keeps renewing its lease and
// the other's is silent. The new process sees the latest renewal only: 45 s
// after the last one it heard. The renewing cluster stays Ready; the silent
// one goes Unknown as of 40 s after it fell silent. Before, any renewal
// seen more than the grace period after the last one heard made the
// cluster Unknown first, so a controller back from 40 s of downtime took
// every cluster of the fleet for silent (failover.ClusterHealthTracker's
// ObserveLease).
func TestCrashLongDowntimeKeepsRenewingClustersReady(t *testing.T) {
	t.Parallel()
	inj := newCrashInjector(testScheme, 0, false)
	planCrash(t, inj)
	f := newFixture(t, outageConfig)
	f.start()
	silent, alive := f.clusterName("a"), f.clusterName("b")
	f.joinTrackedClusters(silent, alive)
	silentSince := f.clock.Now()

	inj.kill()
	// Down: the clock moves and the klusterlet renews, nobody looks.
	for f.clock.Now().Before(silentSince.Add(45 * time.Second)) {
		f.stepTo(f.clock.Now().Add(5 * time.Second))
		f.renewLease(alive)
	}
	f.recoverCrash()
	f.waitTaint(silent, clusterv1.ManagedClusterTaintUnreachable, clusterv1.TaintEffectNoSelectIfNew)
	if got, want := f.unknownSince(silent), silentSince.Add(40*time.Second); !got.Equal(want) {
		t.Fatalf("Unknown since %s, want %s", got, want)
	}
	f.waitHealthTracked(alive)
	if taints := f.managedCluster(alive).Spec.Taints; len(taints) > 0 {
		t.Fatalf("the cluster that kept renewing is tainted after the controller's downtime: %v", taints)
	}
}

// unknownSince is when the health controller's tracker made the cluster
// Unknown; zero when it is not.
func (f *fixture) unknownSince(cluster string) time.Time {
	f.t.Helper()
	var st failover.ClusterHealthState
	raw := f.managedCluster(cluster).Annotations[controllers.ClusterHealthStateAnnotation]
	if err := json.Unmarshal([]byte(raw), &st); err != nil {
		f.t.Fatal(err)
	}
	if st.Ready == nil || st.Ready.Status != metav1.ConditionUnknown {
		return time.Time{}
	}
	return st.Ready.LastTransitionTime.Time
}
