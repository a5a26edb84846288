package suspension

import (
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BenchmarkShouldDispatch: a dispatcher asks once per work object; a
// suspension listing 20 clusters, asked about an unlisted one.
func BenchmarkShouldDispatch(b *testing.B) {
	names := make([]string, 20)
	for i := range names {
		names[i] = fmt.Sprintf("member%d", i)
	}
	s := &Suspension{DispatchingOnClusters: &SuspendClusters{ClusterNames: names}}
	b.ReportAllocs()
	for b.Loop() {
		if !ShouldDispatch(s, "member99") {
			b.Fatal("held")
		}
	}
}

// BenchmarkSetDispatchingConditionUnchanged: the steady state, where the
// condition is already right and nothing is written.
func BenchmarkSetDispatchingConditionUnchanged(b *testing.B) {
	s := &Suspension{DispatchingOnClusters: &SuspendClusters{ClusterNames: []string{"member1"}}}
	now := time.Unix(1000, 0)
	conds := []metav1.Condition{{Type: "Applied", Status: metav1.ConditionTrue}}
	SetDispatchingCondition(&conds, s, "member1", 1, now)
	b.ReportAllocs()
	for b.Loop() {
		if SetDispatchingCondition(&conds, s, "member1", 1, now).Changed {
			b.Fatal("changed")
		}
	}
}
