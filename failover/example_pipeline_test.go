package failover_test

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/preservation"
	"github.com/fleetover/fleetover/scheduling"
)

// The whole failover path of one Flink job, as a controller strings the
// calls together: member1 stops reporting, its taints turn NoExecute, the
// planner decides, the old copy's state is read, the pacer admits, Evict
// takes member1 out of the placement, Replace picks the new cluster, and
// the state goes into the manifest for it. Each step's output is the next
// step's input as it is.
func Example_pipeline() {
	lost := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clk := clocktesting.NewFakeClock(lost)

	// The job's policy: leave a failed cluster at once (Directly, so two
	// copies never run) and carry the job id to the new cluster.
	policy := &failover.ClusterFailoverBehavior{
		PurgeMode: eviction.PurgeDirectly,
		StatePreservation: &preservation.StatePreservation{Rules: []preservation.StatePreservationRule{
			{AliasLabelName: "flink.example.io/job-id", JSONPath: "{ .jobStatus.jobId }"},
		}},
	}
	rules, err := preservation.Compile(policy.StatePreservation.Rules)
	if err != nil {
		fmt.Println(err)
		return
	}

	// 1. member1's Ready condition went Unknown when it stopped reporting.
	// Once the eviction timeout has passed, its unreachable taint is
	// NoExecute too.
	ready := []metav1.Condition{{Type: failover.ConditionTypeReady, Status: metav1.ConditionUnknown,
		Reason: "ClusterStatusUnknown", LastTransitionTime: metav1.NewTime(lost)}}
	clk.Step(failover.DefaultEvictionTimeout)
	taints, err := failover.ComputeClusterTaints(failover.ClusterTaintConfig{NoExecuteAfterTimeout: true}, ready, nil, clk.Now())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("member1 taints:", len(taints.Result), "NoExecute since", taints.ToAdd[len(taints.ToAdd)-1].TimeAdded.Sub(lost))

	// 2. The planner decides once the job's toleration (the default 300 s)
	// has run out.
	tolerations := failover.DefaultClusterTolerations(failover.DefaultTolerationsConfig{})
	bindings := []failover.ClusterBinding{{Key: "analytics/flink", Tolerations: tolerations, Failover: policy}}
	planner := failover.ClusterFailoverPlanner{}
	plan := planner.Plan(taints.Result, bindings, clk.Now())
	fmt.Println("look again in:", plan.NextCheck.Sub(clk.Now()))
	clk.SetTime(plan.NextCheck)
	plan = planner.Plan(taints.Result, bindings, clk.Now())

	pacer, err := eviction.NewPacer(eviction.PacerConfig{Clock: clk})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, decision := range plan.Evict {
		// 3. The state the old copy reported. An eviction that cannot read
		// it waits (the decision stays; look again later) and asks the
		// pacer for nothing: a token it took would be spent for nothing.
		state, err := rules.ExtractFromJSON([]byte(`{"jobStatus":{"jobId":"c7a3b1f0e4d24a5b","state":"RUNNING"}}`))
		if err != nil {
			fmt.Println(err)
			continue
		}

		// 4. The fleet-wide pacer admits the eviction, then Evict.
		if !pacer.TryAccept("") {
			continue // the decision stays; look again at pacer.When
		}
		ev := decision.Eviction("member1")
		ev.PreservedLabelState = state
		res, err := eviction.Evict([]eviction.TargetCluster{{Name: "member1", Replicas: 1}}, nil, ev)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(decision.Key+":", res.Outcome, "purge", res.Tasks[0].PurgeMode)

		// 5. Re-placement from the eviction's result; the filters keep the
		// job off member1 and off member2, which is not ready either.
		fleet := []scheduling.Cluster{
			{Name: "member1", Taints: taints.Result},
			{Name: "member2", Taints: []corev1.Taint{{Key: failover.TaintKeyClusterNotReady, Effect: corev1.TaintEffectNoSchedule}}},
			{Name: "member3"},
		}
		moved, err := scheduling.Replace(&scheduling.Request{
			Workload: &scheduling.Workload{Name: decision.Key, Tolerations: tolerations, EvictionTasks: res.Tasks, Now: clk.Now()},
			Type:     scheduling.Duplicated,
			Targets:  res.Targets,
			Evicted:  res.Evicted,
			Clusters: fleet,
			Replicas: 1,
		})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println("placement:", moved.Targets)

		// 6. Directly: the new copy waits until the old one is gone (or,
		// member1 being unreachable, until the escape after its deletion
		// started). Then the manifest for the new cluster carries the job
		// id; one new target and a Directly purge make it a single writer.
		for _, m := range moved.Moves {
			oldCopy := eviction.OldCopy{Unreachable: true, DeletingSince: clk.Now()}
			old := eviction.OldCopyLookupFunc(func(string) eviction.OldCopy { return oldCopy })
			gate := eviction.DispatchBlocked(m.To, res.Tasks, old, clk.Now(), eviction.AssessOptions{})
			fmt.Println("dispatch to", m.To, "held:", gate.Blocked, "for", gate.Until.Sub(clk.Now()))
			clk.SetTime(gate.Until)
			if eviction.DispatchBlocked(m.To, res.Tasks, old, clk.Now(), eviction.AssessOptions{}).Blocked {
				continue
			}
			manifest := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "flink.apache.org/v1beta1", "kind": "FlinkDeployment",
				"metadata": map[string]any{"name": "flink", "namespace": "analytics"},
			}}
			if state, ok := preservation.StateFor(m.To, moved.Targets, res.Tasks); ok {
				if err := preservation.Inject(manifest, state); err != nil {
					fmt.Println(err)
					return
				}
			}
			fmt.Println("manifest for", m.To+":", manifest.GetLabels())
		}
	}
	// Output:
	// member1 taints: 2 NoExecute since 5m0s
	// look again in: 5m0s
	// analytics/flink: TaskAdded purge Directly
	// placement: [{member3 1}]
	// dispatch to member3 held: true for 10m0s
	// manifest for member3: map[flink.example.io/job-id:c7a3b1f0e4d24a5b]
}
