package preservation_test

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/preservation"
)

// The examples of this file back docs/migrating.md: each shows the call that
// replaces one of 583b264's.

// StateFor and InjectFor read the state from the eviction tasks and the
// placement as eviction.Evict returned them; there is no Carrier to build.
func ExampleStateFor_tasks() {
	res, err := eviction.Evict([]eviction.TargetCluster{{Name: "member1"}}, nil, eviction.Eviction{
		Cluster: "member1", PurgeMode: eviction.PurgeDirectly,
		Producer: eviction.ProducerTaintManager, Reason: eviction.ReasonTaintUntolerated,
		PreservedLabelState: map[string]string{"failover.example.io/job-id": "j-1"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	targets := append(res.Targets, eviction.TargetCluster{Name: "member2"}) // the re-placement's
	// Before: preservation.StateFor("member2", []preservation.Carrier{{FromCluster: "member1", State: ...}})
	state, ok := preservation.StateFor("member2", targets, res.Tasks)
	fmt.Println(state, ok)
	// Output:
	// map[failover.example.io/job-id:j-1] true
}

// Injector{Enabled: true} injects only where a single writer is
// guaranteed. The state of a Gracefully task, which it used to inject,
// now needs Policy.WhileOldCopyRuns.
func ExampleInjector_policy() {
	task := eviction.GracefulEvictionTask{
		FromCluster: "member1", PurgeMode: eviction.PurgeGracefully,
		ClustersBeforeFailover: []string{"member1"},
		PreservedLabelState:    map[string]string{"failover.example.io/job-id": "j-1"},
	}
	targets := []eviction.TargetCluster{{Name: "member2"}}
	for _, injector := range []preservation.Injector{
		{Enabled: true}, // Before: the whole configuration
		{Enabled: true, Policy: preservation.InjectionPolicy{WhileOldCopyRuns: true}},
	} {
		manifest := &unstructured.Unstructured{Object: map[string]any{"kind": "FlinkDeployment"}}
		// Before: injector.InjectFor(manifest, "member2", carriers)
		injected, err := injector.InjectFor(manifest, "member2", targets, []eviction.GracefulEvictionTask{task})
		fmt.Println(injected, manifest.GetLabels(), err)
	}
	// Output:
	// false map[] <nil>
	// true map[failover.example.io/job-id:j-1] <nil>
}
