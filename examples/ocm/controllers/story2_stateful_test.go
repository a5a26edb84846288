package controllers_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/preservation"

	"github.com/fleetover/fleetover/examples/ocm/controllers"
)

// workCleanupFinalizer stands for the finalizer OCM's work agent puts on a
// ManifestWork: the work is gone only once the agent removed the applied
// resources from the managed cluster.
const workCleanupFinalizer = "cluster.open-cluster-management.io/manifest-work-cleanup"

const jobIDLabel = "flink.fleetover.io/job-id"

// jobIDPreservation is the state preservation rule of the Flink stories:
// the job id, read from the work's status feedback, kept under jobIDLabel.
func jobIDPreservation() *preservation.StatePreservation {
	return &preservation.StatePreservation{Rules: []preservation.StatePreservationRule{
		{AliasLabelName: jobIDLabel, JSONPath: "{ .jobStatus.jobId }"},
	}}
}

// directlyKeepingJobID is the Flink job's cluster failover: purge mode
// Directly, with its job id preserved (jobIDPreservation).
func directlyKeepingJobID() *failover.FailoverBehavior {
	return &failover.FailoverBehavior{
		Cluster: &failover.ClusterFailoverBehavior{
			PurgeMode:         eviction.PurgeDirectly,
			StatePreservation: jobIDPreservation(),
		},
	}
}

func flinkDeployment(ns, name string) (*unstructured.Unstructured, []feedbackRule) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "flink.apache.org/v1beta1", "kind": "FlinkDeployment",
		"metadata": map[string]any{"namespace": ns, "name": name},
		"spec":     map[string]any{"job": map[string]any{"jarURI": "local:///opt/flink/job.jar", "upgradeMode": "last-state"}},
	}}
	return u, []feedbackRule{
		{"jobId", ".status.jobStatus.jobId"},
		{"jobState", ".status.jobStatus.state"},
		{"lifecycleState", ".status.lifecycleState"},
	}
}

// createFlinkJob creates the Placement placement, decided on cluster, and
// on it the Flink job "orders", which fails over Directly keeping its job
// id (directlyKeepingJobID).
func (f *fixture) createFlinkJob(placement, cluster string) *workv1alpha1.ManifestWorkReplicaSet {
	f.t.Helper()
	f.createPlacement(placement)
	f.decide(placement, cluster)
	manifest, rules := flinkDeployment(f.ns, "orders")
	return f.createSet("orders", placement, manifest, "flinkdeployments", rules, directlyKeepingJobID())
}

// Story 2: a Flink job on a cluster that goes unreachable resumes on the
// spare cluster with its job id, and never runs twice. Directly: the old
// ManifestWork is deleted at once, and the new one is created only after
// the old one is gone (its work agent's finalizer held it), with the job id
// read from the old work's status feedback injected as a label. The task
// that carries the job id stays until the new copy reports healthy.
func TestStory2StatefulFailoverCarriesJobID(t *testing.T) {
	f := newFixture(t, func(c *controllers.Config) {
		outageConfig(c)
		c.StatefulFailoverInjection = true
	})
	f.start()
	down, spare := f.clusterName("a"), f.clusterName("b")
	f.joinTrackedClusters(down, spare)

	set := f.createFlinkJob("flink", down)
	old := f.waitWorks(set, "work on the first cluster", down)[down]
	f.neverTogether(set, down, spare)
	// The work agent on down applied it and holds it with its finalizer.
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		mw := &workv1.ManifestWork{}
		if err := f.c.Get(f.ctx, keyOf(old), mw); err != nil {
			return err
		}
		controllerutil.AddFinalizer(mw, workCleanupFinalizer)
		return f.c.Update(f.ctx, mw)
	}); err != nil {
		t.Fatal(err)
	}
	f.feedback(set, down, map[string]any{"jobId": "4f6a2c9e0b1d", "jobState": "RUNNING", "lifecycleState": "STABLE"})

	// down goes silent: unreachable, then NoSelect, then evicted at once
	// (the Placement has no toleration).
	f.advance(f.clock.Now().Add(45*time.Second), 5*time.Second, spare)
	noNew := f.waitTaint(down, clusterv1.ManagedClusterTaintUnreachable, clusterv1.TaintEffectNoSelectIfNew)
	f.advance(noNew.TimeAdded.Add(time.Minute), 5*time.Second, spare)
	f.waitDecision("flink", "job placed on the spare cluster", spare)
	st := f.failoverState("flink")
	if len(st.Tasks) != 1 || st.Tasks[0].PreservedLabelState[jobIDLabel] != "4f6a2c9e0b1d" {
		t.Fatalf("eviction task does not carry the job id: %+v", st.Tasks)
	}

	// The old work is being deleted, held by its agent: the new copy waits.
	f.eventually("old work being deleted", func() (bool, string) {
		mw := &workv1.ManifestWork{}
		err := f.c.Get(f.ctx, keyOf(old), mw)
		return err == nil && !mw.DeletionTimestamp.IsZero(), "not deleting"
	})
	f.advance(f.clock.Now().Add(30*time.Second), 5*time.Second, spare)
	if got := workClusters(f.works(set)); !slices.Equal(got, []string{down}) {
		t.Fatalf("a second copy was dispatched while the first may still run: works on %v", got)
	}
	f.eventually("the blocked dispatch's escape deadline ahead", func() (bool, string) {
		at, ok := f.ctrls.Distributor.Recheck.Pending(keyOf(set))
		return ok && at.After(f.clock.Now()), fmt.Sprintf("pending %v %v", at, ok)
	})

	// The agent confirms the old copy is gone.
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		mw := &workv1.ManifestWork{}
		if err := f.c.Get(f.ctx, keyOf(old), mw); err != nil {
			return err
		}
		controllerutil.RemoveFinalizer(mw, workCleanupFinalizer)
		return f.c.Update(f.ctx, mw)
	}); err != nil {
		t.Fatal(err)
	}
	ws := f.waitWorks(set, "job resumed on the spare cluster", spare)
	if got := workManifest(ws[spare]).GetLabels()[jobIDLabel]; got != "4f6a2c9e0b1d" {
		t.Fatalf("new copy's job id label = %q, want the old job's 4f6a2c9e0b1d", got)
	}
	// The task, which carries the state, stays until the new copy is
	// healthy: a copy that fails to start can still be failed over with it.
	f.advance(f.clock.Now().Add(30*time.Second), 5*time.Second, spare)
	if st := f.failoverState("flink"); len(st.Tasks) != 1 || st.Tasks[0].PreservedLabelState[jobIDLabel] != "4f6a2c9e0b1d" {
		t.Fatalf("Directly task went before the new copy was healthy: %+v", st.Tasks)
	}
	f.feedback(set, spare, map[string]any{"jobId": "77aa", "jobState": "RUNNING", "lifecycleState": "STABLE"})
	f.eventually("Directly task done once the new copy is healthy", func() (bool, string) {
		st := f.failoverState("flink")
		return len(st.Tasks) == 0, "tasks still there"
	})
	// The state stays on the copy it was given to.
	mw := &workv1.ManifestWork{}
	if err := f.c.Get(f.ctx, client.ObjectKey{Namespace: spare, Name: controllers.WorkName(set)}, mw); err != nil {
		t.Fatal(err)
	}
	if got := workManifest(mw).GetLabels()[jobIDLabel]; got != "4f6a2c9e0b1d" {
		t.Fatalf("job id label changed after the task went: %q", got)
	}
}
