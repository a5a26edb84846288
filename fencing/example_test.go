package fencing_test

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/fencing"
)

// An agent in a member cluster loses the control plane. It keeps its
// single-writer copies running while its lease is fresh, stops them once
// FenceAfter has passed since its last successful renewal, and resumes
// them when a renewal succeeds again.
func ExampleDecide() {
	cfg := fencing.Config{FenceAfter: 2 * time.Minute}
	renewed := time.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC)
	st := fencing.State{LastRenewal: renewed}

	for _, after := range []time.Duration{time.Minute, 2 * time.Minute} {
		d := fencing.Decide(st, renewed.Add(after), cfg)
		fmt.Printf("+%s: %s\n", after, d.Action)
	}
	st.FencedAt = renewed.Add(2 * time.Minute)
	fmt.Printf("+3m0s: %s\n", fencing.Decide(st, renewed.Add(3*time.Minute), cfg).Action)
	st.LastRenewal = renewed.Add(4 * time.Minute) // the control plane answers again
	fmt.Printf("+4m0s: %s\n", fencing.Decide(st, renewed.Add(4*time.Minute), cfg).Action)
	// Output:
	// +1m0s: Run
	// +2m0s: Fence
	// +3m0s: StayFenced
	// +4m0s: Resume
}

// How an agent stops a copy depends on its kind: a Deployment is scaled to
// zero, a FlinkDeployment's job suspended, a Job deleted.
func ExampleConfig_StopFor() {
	var cfg fencing.Config // the safe default
	for _, doc := range []map[string]any{
		{"apiVersion": "apps/v1", "kind": "Deployment", "spec": map[string]any{"replicas": int64(3)}},
		{"apiVersion": "flink.apache.org/v1beta1", "kind": "FlinkDeployment", "spec": map[string]any{"job": map[string]any{"upgradeMode": "last-state"}}},
		{"apiVersion": "batch/v1", "kind": "Job"},
	} {
		stop, err := cfg.StopFor(&unstructured.Unstructured{Object: doc})
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Print(doc["kind"], ": ", stop.Method)
		if stop.Object != nil {
			replicas, _, _ := unstructured.NestedInt64(stop.Object.Object, "spec", "replicas")
			state, _, _ := unstructured.NestedString(stop.Object.Object, "spec", "job", "state")
			fmt.Printf(" (replicas %d, job state %q)", replicas, state)
		}
		fmt.Println()
	}
	// Output:
	// Deployment: ScaleToZero (replicas 0, job state "")
	// FlinkDeployment: Suspend (replicas 0, job state "suspended")
	// Job: Delete
}

// The agent declares its fence on its cluster object; the control plane
// reads the declaration, checks its escape against it, and hands it to the
// dispatch gate with the time it last heard the member.
func ExampleDeclared() {
	key, value := fencing.Declare(fencing.Config{FenceAfter: 2 * time.Minute})
	annotations := map[string]string{key: value} // on the Cluster / ManagedCluster

	fenceAfter, err := fencing.Declared(annotations)
	if err != nil {
		fmt.Println(err)
		return
	}
	opts := eviction.AssessOptions{} // escape 10 min, skew 10 s, margin 30 s
	fmt.Println("escape valid:", len(eviction.ValidateFencedEscape(opts, fenceAfter, nil)) == 0)

	heard := time.Date(2026, time.March, 1, 12, 0, 0, 0, time.UTC)
	deleting := heard.Add(90 * time.Second)
	old := eviction.OldCopyLookupFunc(func(string) eviction.OldCopy {
		return eviction.OldCopy{Unreachable: true, DeletingSince: deleting, FenceAfter: fenceAfter, LastHeard: heard}
	})
	tasks := []eviction.GracefulEvictionTask{{FromCluster: "member1", PurgeMode: eviction.PurgeDirectly, ClustersBeforeFailover: []string{"member1"}}}
	gate := eviction.DispatchBlocked("member2", tasks, old, deleting, eviction.AssessOptions{DirectlyEscapeTimeout: 3 * time.Minute})
	fmt.Println("blocked until", gate.Until.Sub(heard), "after last heard")
	// Output:
	// escape valid: true
	// blocked until 3m0s after last heard
}
