package controllers_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetover/fleetover/failover"

	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// Clusters that stay healthy cost no writes: a push cluster answers every
// probe and a pull cluster renews its Lease every few seconds, and neither
// changes what the controllers decide, so neither is written. (Each write
// of a cluster would make every controller that watches clusters look
// again, for every cluster, at every probe.)
func TestSteadyClustersAreNotWritten(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *controllers.Config) { c.Prober = newProbes() })
	push, pull := f.clusterName("push"), f.clusterName("pull")
	counter := &writeCounter{counts: map[string]int{}, classes: func(path string) string {
		for _, name := range []string{push, pull} {
			if strings.HasSuffix(path, "/clusters/"+name) || strings.HasSuffix(path, "/clusters/"+name+"/status") {
				return name
			}
		}
		return ""
	}}
	f.wrapTransport = func(rt http.RoundTripper) http.RoundTripper { counter.next = rt; return counter }
	f.start()
	f.createCluster(push, clusterv1alpha1.Push)
	f.createCluster(pull, clusterv1alpha1.Pull)
	f.renewLease(pull)
	f.waitReady(push, metav1.ConditionTrue)
	f.waitReady(pull, metav1.ConditionTrue)
	f.stepTo(f.clock.Now().Add(controllers.DefaultProbeInterval))

	counter.armed.Store(true)
	for range 6 {
		f.stepTo(f.clock.Now().Add(controllers.DefaultProbeInterval))
		f.renewLease(pull)
	}
	f.settle()
	f.stopControllers()
	if counts, log := counter.snapshot(); len(counts) > 0 {
		t.Errorf("six probe intervals of healthy clusters wrote them: %v\n%s", counts, strings.Join(log, "\n"))
	}
	for _, name := range []string{push, pull} {
		if c := meta.FindStatusCondition(f.cluster(name).Status.Conditions, clusterv1alpha1.ClusterConditionReady); c == nil || c.Status != metav1.ConditionTrue {
			t.Errorf("cluster %s: Ready %v, want True", name, c)
		}
	}
}

// A pull cluster's renewals are not written to the cluster (see above): its
// Lease keeps them. A controller that restarts after the agent went silent
// must count the silence from the last renewal, not from the last time it
// wrote the cluster: Ready turns Unknown as of that renewal plus the
// monitor grace period, as it would have without the restart.
func TestPullSilenceAcrossRestartCountsFromLastRenewal(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *controllers.Config) { c.Prober = newProbes() })
	pull := f.clusterName("pull")
	f.start()
	f.createCluster(pull, clusterv1alpha1.Pull)
	f.renewLease(pull)
	f.waitReady(pull, metav1.ConditionTrue)
	for range 5 {
		f.stepTo(f.clock.Now().Add(controllers.DefaultProbeInterval))
		f.renewLease(pull)
	}
	lastRenewal := f.clock.Now()
	f.settle()

	// The agent and the controllers both stop; the controllers come back
	// after the grace period has run out.
	f.stopControllers()
	f.clock.Step(failover.DefaultClusterMonitorGracePeriod + time.Minute)
	f.start()
	f.waitReady(pull, metav1.ConditionUnknown)
	c := meta.FindStatusCondition(f.cluster(pull).Status.Conditions, clusterv1alpha1.ClusterConditionReady)
	want := lastRenewal.Add(failover.DefaultClusterMonitorGracePeriod)
	if !c.LastTransitionTime.Time.Equal(want) {
		t.Fatalf("Ready Unknown since %s, want %s (the last renewal %s + the monitor grace period): %s",
			c.LastTransitionTime.UTC().Format(time.RFC3339), want.UTC().Format(time.RFC3339), lastRenewal.UTC().Format(time.RFC3339), fmt.Sprint(c.Message))
	}
}
