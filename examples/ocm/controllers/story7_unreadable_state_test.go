package controllers_test

import (
	"context"
	"encoding/json"
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
	f.joinTrackedClusters(down, spare)

	job := f.createFlinkJob("job", down)
	f.waitWorks(job, "job on the first cluster", down)
	// The job has not reported a job id yet.
	f.feedback(job, down, map[string]any{"jobState": "RECONCILING", "lifecycleState": "DEPLOYED"})

	// down goes silent: NoSelect, which the Placement does not tolerate.
	f.silenceUntilNoSelect(down, spare)
	f.waitEvent("orders", "StatePreservationFailed", "the job's eviction says it waits for its state")

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
	f.joinTrackedClusters(down, spare)
	f.createPlacement("web", clusterv1beta1.Toleration{
		Key: clusterv1.ManagedClusterTaintUnreachable, Operator: clusterv1beta1.TolerationOpExists,
		Effect: clusterv1.TaintEffectNoSelect, TolerationSeconds: ptrInt64(toleration),
	})
	f.decide("web", down)
	manifest, rules := deployment(f.ns, "web", 1)
	set := f.createSet("web", "web", manifest, "deployments", rules, nil)
	f.waitWorks(set, "work on the first cluster", down)
	noSelect := f.silenceUntilNoSelect(down, spare)
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

// Story 7, continued: an eviction that waits for its state goes ahead as
// soon as the state can be read. A Flink job's feedback lacks its job id
// when its cluster goes silent, and the eviction waits; the work agent's
// report with the job id then reaches the hub (it was sent before the
// cluster fell silent). Nothing else happens: the clock stands still and
// no cluster changes. The work's status alone must bring the eviction
// back, and the job resumes on the spare cluster with its id.
func TestStory7StateReadLaterResumesEviction(t *testing.T) {
	f := newFixture(t, func(c *controllers.Config) {
		outageConfig(c)
		c.StatefulFailoverInjection = true
	})
	f.start()
	down, spare := f.clusterName("a"), f.clusterName("b")
	f.joinTrackedClusters(down, spare)

	job := f.createFlinkJob("job", down)
	f.waitWorks(job, "job on the first cluster", down)
	f.feedback(job, down, map[string]any{"jobState": "RECONCILING", "lifecycleState": "DEPLOYED"})

	// down goes silent. The spare cluster's last renewal is heard before
	// down turns NoSelect, so that the NoSelect taint is the last cluster
	// change: no cluster event that follows it can wake the eviction.
	f.advance(f.clock.Now().Add(45*time.Second), 5*time.Second, spare)
	noNew := f.waitTaint(down, clusterv1.ManagedClusterTaintUnreachable, clusterv1.TaintEffectNoSelectIfNew)
	noSelectAt := noNew.TimeAdded.Add(time.Minute)
	f.advance(noSelectAt.Add(-5*time.Second), 5*time.Second, spare)
	f.waitHeard(spare, f.clock.Now())
	f.stepTo(noSelectAt)
	f.waitTaint(down, clusterv1.ManagedClusterTaintUnreachable, clusterv1.TaintEffectNoSelect)
	f.waitEvent("orders", "StatePreservationFailed", "the job's eviction says it waits for its state")
	if got := decided(f.decision("job")); !slices.Equal(got, []string{down}) {
		t.Fatalf("the job moved to %v without its state", got)
	}

	f.feedback(job, down, map[string]any{"jobId": "4f6a2c9e0b1d", "jobState": "RUNNING", "lifecycleState": "STABLE"})
	f.waitDecision("job", "the eviction goes ahead once the job id can be read", spare)
	if st := f.failoverState("job"); len(st.Tasks) != 1 || st.Tasks[0].PreservedLabelState[jobIDLabel] != "4f6a2c9e0b1d" {
		t.Fatalf("eviction task does not carry the job id: %+v", st.Tasks)
	}
	ws := f.waitWorks(job, "job resumed on the spare cluster", spare)
	if got := workManifest(ws[spare]).GetLabels()[jobIDLabel]; got != "4f6a2c9e0b1d" {
		t.Fatalf("new copy's job id label = %q, want the old job's 4f6a2c9e0b1d", got)
	}
}

// waitHeard waits until the health controller has heard a lease renewal of
// the cluster at or after at.
func (f *fixture) waitHeard(name string, at time.Time) {
	f.t.Helper()
	f.eventually("renewal of "+name+" heard", func() (bool, string) {
		var st failover.ClusterHealthState
		raw := f.managedCluster(name).Annotations[controllers.ClusterHealthStateAnnotation]
		if json.Unmarshal([]byte(raw), &st) != nil || st.LastHeard == nil {
			return false, raw
		}
		return !st.LastHeard.Time.Before(at), raw
	})
}

// waitEvent waits for an event of the given reason regarding the object
// named regarding in the test's namespace.
func (f *fixture) waitEvent(regarding, reason, what string) {
	f.t.Helper()
	f.eventually(what, func() (bool, string) {
		list := &eventsv1.EventList{}
		if err := f.c.List(f.ctx, list, client.InNamespace(f.ns)); err != nil {
			return false, err.Error()
		}
		var reasons []string
		for _, e := range list.Items {
			if e.Regarding.Name == regarding {
				reasons = append(reasons, e.Reason)
			}
		}
		return slices.Contains(reasons, reason), fmt.Sprintf("events of %s: %v", regarding, reasons)
	})
}
