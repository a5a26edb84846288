package suspension_test

import (
	"encoding/json"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fleetover/fleetover/suspension"
)

// A policy written with the original spelling decodes and is checked per
// cluster; deletion proceeds either way.
func Example() {
	var s suspension.Suspension
	policy := []byte(`{"suspendDispatchingOnClusters":{"clusterNames":["member2","member3"]}}`)
	if err := json.Unmarshal(policy, &s); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("valid:", len(suspension.ValidateSuspension(&s, field.NewPath("spec", "suspension"))) == 0)
	for _, c := range []string{"member1", "member2", "member3"} {
		fmt.Println(c, "apply:", suspension.Decide(&s, c, suspension.OperationApply),
			"delete:", suspension.Decide(&s, c, suspension.OperationDelete))
	}
	out, _ := json.Marshal(&s)
	fmt.Println(string(out))
	// Output:
	// valid: true
	// member1 apply: Proceed delete: Proceed
	// member2 apply: Hold delete: Proceed
	// member3 apply: Hold delete: Proceed
	// {"dispatchingOnClusters":{"clusterNames":["member2","member3"]}}
}

func ExampleValidateSuspension() {
	on := true
	s := &suspension.Suspension{
		Dispatching:           &on,
		DispatchingOnClusters: &suspension.SuspendClusters{ClusterNames: []string{"member2", "Member3"}},
	}
	for _, err := range suspension.ValidateSuspension(s, field.NewPath("spec", "suspension")) {
		fmt.Println(err.Type, err.Field)
	}
	// Output:
	// Forbidden spec.suspension.dispatchingOnClusters.clusterNames
	// Invalid value spec.suspension.dispatchingOnClusters.clusterNames[1]
}

// Write the status and record an event only when something changed.
func ExampleSetDispatchingCondition() {
	var conditions []metav1.Condition
	now := time.Date(2026, 1, 1, 8, 0, 0, 0, time.UTC)
	s := &suspension.Suspension{DispatchingOnClusters: &suspension.SuspendClusters{ClusterNames: []string{"member1"}}}

	for _, step := range []struct {
		s   *suspension.Suspension
		now time.Time
	}{{nil, now}, {nil, now.Add(time.Minute)}, {s, now.Add(2 * time.Minute)}, {nil, now.Add(3 * time.Minute)}} {
		u := suspension.SetDispatchingCondition(&conditions, step.s, "member1", 1, step.now)
		c := conditions[0]
		fmt.Printf("write=%v event=%v %s=%s/%s since %s\n", u.Changed, u.Transitioned, c.Type, c.Status, c.Reason, c.LastTransitionTime.Format("15:04"))
	}
	// Output:
	// write=true event=true Dispatching=True/Dispatching since 08:00
	// write=false event=false Dispatching=True/Dispatching since 08:00
	// write=true event=true Dispatching=False/SuspendDispatching since 08:02
	// write=true event=true Dispatching=True/Dispatching since 08:03
}

// A re-division that would drop the suspended member2 keeps its replicas.
func ExampleGuardRedivision() {
	s := &suspension.Suspension{DispatchingOnClusters: &suspension.SuspendClusters{ClusterNames: []string{"member2"}}}
	old := map[string]int32{"member1": 1, "member2": 2}
	proposed := map[string]int32{"member1": 3}
	corrected, held := suspension.GuardRedivision(s, old, proposed)
	fmt.Println(corrected["member1"], corrected["member2"])
	fmt.Printf("%+v\n", held)
	// Output:
	// 3 2
	// [{Cluster:member2 Replicas:2 Proposed:0}]
}
