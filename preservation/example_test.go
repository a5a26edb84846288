package preservation_test

import (
	"errors"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetover/fleetover/eviction"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fleetover/fleetover/preservation"
)

func ExampleCompile() {
	_, err := preservation.Compile([]preservation.StatePreservationRule{
		{AliasLabelName: "failover.example.io/job-id", JSONPath: ".jobStatus.jobId"},
	})
	fmt.Println(errors.Is(err, preservation.ErrInvalidRules))
	fmt.Println(err)
	// Output:
	// true
	// invalid state preservation rules: rules[0].jsonPath: Invalid value: ".jobStatus.jobId": template has no {...} action: without braces JSONPath prints the text literally; write it as "{ .field }"
}

// A controller that extracts for many workloads reuses one map.
func ExampleRules_ExtractFromJSONInto() {
	rules, err := preservation.Compile([]preservation.StatePreservationRule{
		{AliasLabelName: "failover.example.io/job-id", JSONPath: "{ .jobStatus.jobId }"},
	})
	if err != nil {
		panic(err)
	}
	state := map[string]string{}
	for _, status := range []string{
		`{"jobStatus":{"jobId":"e6fdb5c0997c11b0c62d796b3df25e86"}}`,
		`{"jobStatus":{"jobId":"0a1b2c3d4e5f60718293a4b5c6d7e8f9"}}`,
		`{"jobStatus":`,
	} {
		clear(state)
		err := rules.ExtractFromJSONInto(state, []byte(status))
		fmt.Println(state, err != nil)
	}
	// Output:
	// map[failover.example.io/job-id:e6fdb5c0997c11b0c62d796b3df25e86] false
	// map[failover.example.io/job-id:0a1b2c3d4e5f60718293a4b5c6d7e8f9] false
	// map[] true
}

func ExampleRules_ExtractFromJSON() {
	rules, err := preservation.Compile([]preservation.StatePreservationRule{
		{AliasLabelName: "failover.example.io/job-id", JSONPath: "{ .jobStatus.jobId }"},
		{AliasLabelName: "failover.example.io/replicas", JSONPath: "{ .taskManager.replicas }"},
	})
	if err != nil {
		panic(err)
	}
	status := []byte(`{"jobStatus":{"jobId":"e6fdb5c0997c11b0c62d796b3df25e86","state":"RUNNING"},"taskManager":{"replicas":2}}`)
	state, err := rules.ExtractFromJSON(status)
	fmt.Println(state, err)

	// A path the status does not have is an error naming the rule.
	typo, _ := preservation.Compile([]preservation.StatePreservationRule{
		{AliasLabelName: "failover.example.io/job-id", JSONPath: "{ .jobStatus.jobID }"},
	})
	_, err = typo.ExtractFromJSON(status)
	fmt.Println(errors.Is(err, preservation.ErrFieldNotFound))
	fmt.Println(err)
	// Output:
	// map[failover.example.io/job-id:e6fdb5c0997c11b0c62d796b3df25e86 failover.example.io/replicas:2] <nil>
	// true
	// state preservation rule "failover.example.io/job-id" (jsonPath "{ .jobStatus.jobID }"): field not found in status: .status.jobStatus has no field "jobID"
}

func ExampleEncodeInvalidValues() {
	rules, _ := preservation.Compile([]preservation.StatePreservationRule{
		{AliasLabelName: "failover.example.io/savepoint", JSONPath: "{ .jobStatus.savepointInfo.lastSavepoint.location }"},
	})
	status := []byte(`{"jobStatus":{"savepointInfo":{"lastSavepoint":{"location":"s3://state/savepoint-c7a3b1"}}}}`)
	_, err := rules.ExtractFromJSON(status)
	fmt.Println(errors.Is(err, preservation.ErrInvalidLabelValue))
	state, _ := rules.ExtractFromJSON(status, preservation.EncodeInvalidValues())
	fmt.Println(state["failover.example.io/savepoint"])
	// Output:
	// true
	// s3---state-savepoint-c7a3b1-8d7a1a17d703186f
}

func ExampleInject() {
	manifest := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "flink.apache.org/v1beta1",
		"kind":       "FlinkDeployment",
		"metadata":   map[string]any{"name": "foo", "labels": map[string]any{"app": "foo"}},
	}}
	err := preservation.Inject(manifest, map[string]string{"failover.example.io/job-id": "e6fdb5c0997c11b0c62d796b3df25e86"})
	fmt.Println(manifest.GetLabels(), err)
	// Output:
	// map[app:foo failover.example.io/job-id:e6fdb5c0997c11b0c62d796b3df25e86] <nil>
}

// The state goes to the new cluster only, and only where one copy can
// run: the task purges Directly and the failover left one new target.
func ExampleInjector_InjectFor() {
	task := eviction.GracefulEvictionTask{
		FromCluster:            "member1",
		PurgeMode:              eviction.PurgeDirectly,
		ClustersBeforeFailover: []string{"member1"},
		PreservedLabelState:    map[string]string{"failover.example.io/job-id": "e6fdb5c0997c11b0c62d796b3df25e86"},
		CreationTimestamp:      &metav1.Time{Time: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)},
	}
	injector := preservation.Injector{Enabled: true}
	for _, cluster := range []string{"member1", "member2"} {
		manifest := &unstructured.Unstructured{Object: map[string]any{"kind": "FlinkDeployment"}}
		injected, err := injector.InjectFor(manifest, cluster, []eviction.TargetCluster{{Name: "member2"}}, []eviction.GracefulEvictionTask{task})
		fmt.Println(cluster, injected, manifest.GetLabels(), err)
	}
	// Output:
	// member1 false map[] <nil>
	// member2 true map[failover.example.io/job-id:e6fdb5c0997c11b0c62d796b3df25e86] <nil>
}
