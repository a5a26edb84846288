package v1alpha2_test

import (
	"fmt"

	"sigs.k8s.io/yaml"

	workv1alpha2 "github.com/fleetover/fleetover/examples/karmada/apis/work/v1alpha2"
)

// A binding written by Karmada decodes into these types unchanged,
// including the failover fields the library owns and the older spelling of
// the suspension block.
func ExampleResourceBinding() {
	const karmadaYAML = `
apiVersion: work.karmada.io/v1alpha2
kind: ResourceBinding
metadata:
  name: flink-wordcount
  namespace: analytics
spec:
  resource:
    apiVersion: flink.apache.org/v1beta1
    kind: FlinkDeployment
    namespace: analytics
    name: wordcount
  clusters:
  - name: member2
  gracefulEvictionTasks:
  - fromCluster: member1
    purgeMode: Graciously
    reason: TaintUntolerated
    producer: TaintManager
    preservedLabelState:
      flink.apache.org/job-id: 3c5a1f0e9b7d
    clustersBeforeFailover: [member1]
  failover:
    cluster:
      purgeMode: Gracefully
      statePreservation:
        rules:
        - aliasLabelName: flink.apache.org/job-id
          jsonPath: "{ .jobStatus.jobId }"
  suspension:
    suspendDispatchingOnClusters:
      clusterNames: [member3]
status:
  schedulerObservedGeneration: 3
  aggregatedStatus:
  - clusterName: member2
    applied: true
    health: Healthy
    status:
      jobStatus: {jobId: 3c5a1f0e9b7d, state: RUNNING}
`
	var rb workv1alpha2.ResourceBinding
	if err := yaml.Unmarshal([]byte(karmadaYAML), &rb); err != nil {
		fmt.Println(err)
		return
	}
	task := rb.Spec.GracefulEvictionTasks[0]
	fmt.Println(rb.Spec.Clusters[0].Name, task.FromCluster, task.PurgeMode.Normalize(), task.PreservedLabelState["flink.apache.org/job-id"])
	fmt.Println(rb.Spec.Failover.Cluster.StatePreservation.Rules[0].JSONPath)
	fmt.Println(rb.Spec.Suspension.DispatchSuspended("member3"), rb.Spec.Suspension.DispatchSuspended("member2"))
	fmt.Println(rb.Status.AggregatedStatus[0].Health, string(rb.Status.AggregatedStatus[0].Status.Raw))
	// Output:
	// member2 member1 Gracefully 3c5a1f0e9b7d
	// { .jobStatus.jobId }
	// true false
	// Healthy {"jobStatus":{"jobId":"3c5a1f0e9b7d","state":"RUNNING"}}
}
