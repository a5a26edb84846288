package controllers_test

import (
	"slices"
	"testing"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/api/policy/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

const jobIDLabel = "fleetover.io/flink-job-id"

// flinkJobBinding is the ResourceBinding, not yet created, of the
// FlinkDeployment name in namespace ns, placed on clusters, whose cluster
// failover evicts it in purge mode and preserves its job id (read from its
// status) under jobIDLabel: the stateful job of stories 2, 7 and 13.
func flinkJobBinding(ns, name string, purge policyv1alpha1.PurgeMode, clusters ...workv1alpha2.TargetCluster) *workv1alpha2.ResourceBinding {
	return &workv1alpha2.ResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: workv1alpha2.ResourceBindingSpec{
			Resource: workv1alpha2.ObjectReference{APIVersion: "flink.apache.org/v1beta1", Kind: "FlinkDeployment", Namespace: ns, Name: name},
			Clusters: clusters,
			Failover: &policyv1alpha1.FailoverBehavior{Cluster: &policyv1alpha1.ClusterFailoverBehavior{
				PurgeMode: purge,
				StatePreservation: &policyv1alpha1.StatePreservation{Rules: []policyv1alpha1.StatePreservationRule{
					{AliasLabelName: jobIDLabel, JSONPath: "{ .jobStatus.jobId }"},
				}},
			}},
		},
	}
}

// Story 2: a Flink job is evicted, purge mode Gracefully, from a cluster
// carrying a NoExecute taint it does not tolerate. The job id preserved
// from its status (the policy's statePreservation rule) travels on the
// eviction task, but it is injected nowhere: the old copy keeps running
// until the new one is healthy, so two copies resuming one checkpoint
// would be two writers. Story 7 is the same job under Directly, where the
// state is injected.
func TestStory2GracefulStatefulFailoverInjectsNoState(t *testing.T) {
	t.Parallel()
	f := newFixture(t, func(c *controllers.Config) {
		c.Prober = newProbes()
		c.StatefulFailoverInjection = true
	})
	f.start()
	oldCluster, newCluster := f.clusterName("a"), f.clusterName("b")
	f.readyClusters(clusterv1alpha1.Push, oldCluster, newCluster)

	f.createTemplate(&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "flink.apache.org/v1beta1",
		"kind":       "FlinkDeployment",
		"metadata":   map[string]any{"name": "wordcount"},
		"spec": map[string]any{
			"image":        "flink:1.20",
			"flinkVersion": "v1_20",
			"job":          map[string]any{"jarURI": "local:///opt/flink/examples/streaming/WordCount.jar", "parallelism": int64(2)},
		},
	}})
	f.createBinding(flinkJobBinding(f.ns, "wordcount", policyv1alpha1.PurgeModeGracefully, workv1alpha2.TargetCluster{Name: oldCluster}))
	rb := f.binding("wordcount")
	f.waitWork(rb, oldCluster, true)
	f.setHealth("wordcount", healthItem(oldCluster, "Healthy", map[string]any{
		"jobStatus":                  map[string]any{"jobId": "3c5a1f0e9b7d", "state": "RUNNING"},
		"lifecycleState":             "STABLE",
		"jobManagerDeploymentStatus": "READY",
	}))

	// An operator drains the old cluster with a NoExecute taint.
	f.taint(oldCluster, "maintenance", corev1.TaintEffectNoExecute)

	rb = f.waitBinding("wordcount", "the job moves with its state", func(rb *workv1alpha2.ResourceBinding) bool {
		return slices.Equal(clusterNames(rb), []string{newCluster}) && len(rb.Spec.GracefulEvictionTasks) == 1
	})
	if got := rb.Spec.GracefulEvictionTasks[0].PreservedLabelState[jobIDLabel]; got != "3c5a1f0e9b7d" {
		t.Fatalf("task preserved %v, want the job id under %s", rb.Spec.GracefulEvictionTasks[0].PreservedLabelState, jobIDLabel)
	}

	// The rules were compiled once, not once per look or per retry.
	if n := f.ctrls.TaintManager.Rules.Len(); n != 1 {
		t.Fatalf("%d rule sets compiled, want the policy's one", n)
	}

	newWork := f.waitWork(rb, newCluster, true)
	if got, found := manifest(newWork).GetLabels()[jobIDLabel]; found {
		t.Fatalf("new cluster's manifest got %s=%s while the old copy runs", jobIDLabel, got)
	}
	oldWork := f.work(rb, oldCluster)
	if oldWork == nil {
		t.Fatal("the old copy was removed before the new one is healthy")
	}
	if _, found := manifest(oldWork).GetLabels()[jobIDLabel]; found {
		t.Fatalf("the old cluster's manifest got the job id label: %v", manifest(oldWork).GetLabels())
	}
}
