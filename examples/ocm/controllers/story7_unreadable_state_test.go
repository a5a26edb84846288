package controllers_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/preservation"

	"github.com/fleetover/fleetover/examples/ocm/controllers"
)

// acceptCounter counts the evictions the pacer accepted.
type acceptCounter struct{ n atomic.Int32 }

func (a *acceptCounter) Accepted(string)                            { a.n.Add(1) }
func (a *acceptCounter) DisruptionChanged(eviction.DisruptionState) {}

// Story 7: an eviction that waits for its state spends none of the pacer's
// tokens. The pacer allows one eviction (a burst of one, then one a day).
// A Flink job whose status feedback lacks the job id its rule reads is on
// a cluster that goes silent: its eviction waits, and says so. A second
// workload then lands on that cluster's decision: the one token is still
// there, and it moves.
func TestStory7UnreadableStateSpendsNoPacerToken(t *testing.T) {
	accepted := &acceptCounter{}
	f := newFixture(t, func(c *controllers.Config) {
		outageConfig(c)
		c.Pacer = eviction.PacerConfig{Rate: eviction.MinEvictionRate, Burst: 1, Observer: accepted}
	})
	f.start()
	down, spare := f.clusterName("a"), f.clusterName("b")
	f.joinCluster(down)
	f.joinCluster(spare)
	f.waitHealthTracked(down)
	f.waitHealthTracked(spare)

	f.createPlacement("job")
	f.decide("job", down)
	manifest, rules := flinkDeployment(f.ns, "orders")
	job := f.createSet("orders", "job", manifest, "flinkdeployments", rules, &failover.FailoverBehavior{
		Cluster: &failover.ClusterFailoverBehavior{
			PurgeMode: eviction.PurgeDirectly,
			StatePreservation: &preservation.StatePreservation{Rules: []preservation.StatePreservationRule{
				{AliasLabelName: jobIDLabel, JSONPath: "{ .jobStatus.jobId }"},
			}},
		},
	})
	f.waitWorks(job, "job on the first cluster", down)
	// The job has not reported a job id yet.
	f.feedback(job, down, map[string]any{"jobState": "RECONCILING", "lifecycleState": "DEPLOYED"})

	// down goes silent: NoSelect, which the Placement does not tolerate.
	f.advance(f.clock.Now().Add(45*time.Second), 5*time.Second, spare)
	noNew := f.waitTaint(down, clusterv1.ManagedClusterTaintUnreachable, clusterv1.TaintEffectNoSelectIfNew)
	f.advance(noNew.TimeAdded.Add(time.Minute), 5*time.Second, spare)
	f.waitTaint(down, clusterv1.ManagedClusterTaintUnreachable, clusterv1.TaintEffectNoSelect)
	f.eventually("the job's eviction says it waits for its state", func() (bool, string) {
		list := &eventsv1.EventList{}
		if err := f.c.List(f.ctx, list, client.InNamespace(f.ns)); err != nil {
			return false, err.Error()
		}
		var reasons []string
		for _, e := range list.Items {
			if e.Regarding.Name == "orders" {
				reasons = append(reasons, e.Reason)
			}
		}
		return slices.Contains(reasons, "StatePreservationFailed"), fmt.Sprintf("events of orders: %v", reasons)
	})

	f.createPlacement("web")
	f.decide("web", down)
	webManifest, webRules := deployment(f.ns, "web", 1)
	f.createSet("web", "web", webManifest, "deployments", webRules, nil)
	f.waitDecision("web", "the web workload takes the one token and moves", spare)
	if got := decided(f.decision("job")); !slices.Equal(got, []string{down}) {
		t.Fatalf("the job moved to %v without its state", got)
	}
	if n := accepted.n.Load(); n != 1 {
		t.Fatalf("the pacer accepted %d evictions, want web's one", n)
	}
}

// A write of the decision that meets a conflict is retried from a fresh
// read; the retried eviction must not take a second token. The
// controllers stop before the toleration ends, and the test then runs one
// placement-failover reconcile by hand, through a client whose first
// update of the PlacementDecision conflicts.
func TestStory7ConflictRetryTakesOneToken(t *testing.T) {
	const toleration = 300
	f := newFixture(t, outageConfig)
	f.start()
	down, spare := f.clusterName("a"), f.clusterName("b")
	f.joinCluster(down)
	f.joinCluster(spare)
	f.waitHealthTracked(down)
	f.waitHealthTracked(spare)
	f.createPlacement("web", clusterv1beta1.Toleration{
		Key: clusterv1.ManagedClusterTaintUnreachable, Operator: clusterv1beta1.TolerationOpExists,
		Effect: clusterv1.TaintEffectNoSelect, TolerationSeconds: ptrInt64(toleration),
	})
	f.decide("web", down)
	manifest, rules := deployment(f.ns, "web", 1)
	set := f.createSet("web", "web", manifest, "deployments", rules, nil)
	f.waitWorks(set, "work on the first cluster", down)
	f.advance(f.clock.Now().Add(45*time.Second), 5*time.Second, spare)
	noNew := f.waitTaint(down, clusterv1.ManagedClusterTaintUnreachable, clusterv1.TaintEffectNoSelectIfNew)
	f.advance(noNew.TimeAdded.Add(time.Minute), 5*time.Second, spare)
	noSelect := f.waitTaint(down, clusterv1.ManagedClusterTaintUnreachable, clusterv1.TaintEffectNoSelect)
	f.stopControllers()
	f.stepTo(noSelect.TimeAdded.Add(toleration * time.Second))

	base, err := client.NewWithWatch(restConfig, client.Options{Scheme: testScheme})
	if err != nil {
		t.Fatal(err)
	}
	conflicts := 0
	c := interceptor.NewClient(base, interceptor.Funcs{
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			if _, ok := obj.(*clusterv1beta1.PlacementDecision); ok && conflicts == 0 {
				conflicts++
				return apierrors.NewConflict(clusterv1beta1.Resource("placementdecisions"), obj.GetName(), errors.New("written meanwhile"))
			}
			return c.Update(ctx, obj, opts...)
		},
	})
	accepted := &acceptCounter{}
	pacer, err := eviction.NewPacer(eviction.PacerConfig{Clock: f.clock, Rate: eviction.MinEvictionRate, Burst: 2, Observer: accepted})
	if err != nil {
		t.Fatal(err)
	}
	pf := *f.ctrls.PlacementFailover
	pf.Client, pf.Pacer, pf.Events = c, pacer, nil
	if _, err := pf.Reconcile(f.ctx, reconcile.Request{NamespacedName: keyOf(set)}); err != nil {
		t.Fatal(err)
	}
	if conflicts != 1 {
		t.Fatalf("%d conflicts, want the one the client made up", conflicts)
	}
	if got := decided(f.decision("web")); !slices.Equal(got, []string{spare}) {
		t.Fatalf("decisions %v, want the spare cluster", got)
	}
	if n := accepted.n.Load(); n != 1 {
		t.Fatalf("the pacer accepted %d evictions for one move", n)
	}
}
