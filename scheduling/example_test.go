package scheduling_test

import (
	"fmt"
	"time"

	"k8s.io/utils/ptr"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/scheduling"
)

// Run the default filters over a small fleet and requeue when the earliest
// block ends.
func ExampleRunFilters() {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	fleet := []scheduling.Cluster{
		{Name: "member1"},
		{Name: "member2", Taints: []corev1.Taint{{Key: "cluster.karmada.io/not-ready", Effect: corev1.TaintEffectNoSchedule}}},
		{Name: "member3"},
		{Name: "member4"},
	}
	w := &scheduling.Workload{
		Name:                    "default/nginx",
		EvictionTasks:           []eviction.GracefulEvictionTask{{FromCluster: "member3"}},
		History:                 eviction.EvictionHistory{{ClusterName: "member4", CreationTimestamp: metav1.NewTime(now.Add(-10 * time.Second))}},
		BlockPredecessorSeconds: ptr.To[int32](600),
		Now:                     now,
	}
	res := scheduling.RunFilters(w, fleet, scheduling.DefaultFilters()...)
	fmt.Println("feasible:", res.Feasible)
	for _, name := range []string{"member2", "member3", "member4"} {
		fmt.Printf("%s: %s: %s\n", name, res.Rejected[name].Filter, res.Rejected[name].Reason)
	}
	fmt.Println("look again at", res.RetryAt.Format(time.TimeOnly))
	// Output:
	// feasible: [member1]
	// member2: TaintToleration: the cluster has a NoSchedule taint the workload does not tolerate
	// member3: EvictionInProgress: the workload is being evicted from this cluster
	// member4: EvictionHistory: the workload was evicted from this cluster recently
	// look again at 12:09:50
}

// A filter from a function, for rules the built-in ones do not cover.
func ExampleNamedFilter() {
	euOnly := scheduling.NamedFilter("EUOnly", func(_ *scheduling.Workload, c *scheduling.Cluster) scheduling.Status {
		if c.Labels["region"] != "eu" {
			return scheduling.Reject("data must stay in the EU")
		}
		return scheduling.Fit()
	})
	fleet := []scheduling.Cluster{{Name: "fra", Labels: map[string]string{"region": "eu"}}, {Name: "iad", Labels: map[string]string{"region": "us"}}}
	res := scheduling.RunFilters(nil, fleet, euOnly)
	fmt.Println(res.Feasible, res.Rejected["iad"].Filter, res.Rejected["iad"].Reason)
	// Output:
	// [fra] EUOnly data must stay in the EU
}

// The failover overview's Duplicated example: member2 fails, member1 stays,
// member3 takes member2's place (member4 is outside the affinity). The
// eviction's result goes to Replace as it is.
func ExampleReplace_duplicated() {
	placed := []eviction.TargetCluster{{Name: "member1", Replicas: 2}, {Name: "member2", Replicas: 2}}
	res, err := eviction.Evict(placed, nil, eviction.Eviction{
		Cluster: "member2", Producer: eviction.ProducerTaintManager, Reason: eviction.ReasonTaintUntolerated,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fleet := []scheduling.Cluster{{Name: "member1"}, {Name: "member2"}, {Name: "member3"}, {Name: "member4"}, {Name: "member5"}}
	plan, err := scheduling.Replace(&scheduling.Request{
		Workload: &scheduling.Workload{EvictionTasks: res.Tasks},
		Type:     scheduling.Duplicated,
		Targets:  res.Targets,
		Evicted:  res.Evicted,
		Clusters: fleet,
		Filters:  append(scheduling.DefaultFilters(), scheduling.ClusterNames("member1", "member2", "member3", "member5")),
		Spread:   &scheduling.SpreadConstraint{MinGroups: 2, MaxGroups: 2},
		Replicas: 2,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(plan.Targets)
	fmt.Printf("%+v\n", plan.Moves)
	// Output:
	// [{member1 2} {member3 2}]
	// [{From:member2 To:member3 Replicas:2 Reason:ClusterFailed}]
}

// The failover overview's Divided example: static weights 1:2, three
// replicas; member1 fails and member2 ends with all three.
func ExampleReplace_divided() {
	placed := []eviction.TargetCluster{{Name: "member1", Replicas: 1}, {Name: "member2", Replicas: 2}}
	res, err := eviction.Evict(placed, nil, eviction.Eviction{
		Cluster: "member1", Producer: eviction.ProducerTaintManager, Reason: eviction.ReasonTaintUntolerated,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	plan, err := scheduling.Replace(&scheduling.Request{
		Workload:      &scheduling.Workload{EvictionTasks: res.Tasks},
		Type:          scheduling.Divided,
		Targets:       res.Targets,
		Evicted:       res.Evicted,
		Clusters:      []scheduling.Cluster{{Name: "member1"}, {Name: "member2"}},
		Replicas:      3,
		StaticWeights: map[string]int64{"member1": 1, "member2": 2},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(plan.Targets)
	fmt.Printf("%+v\n", plan.Moves)
	// Output:
	// [{member2 3}]
	// [{From:member1 To:member2 Replicas:1 Reason:ClusterFailed}]
}

// A workload held to exactly two zones loses c, the only cluster of z2.
// The replacement opens z3 (d), although b comes first by name: b is in
// z1, which a already covers.
func ExampleReplace_zoneSpread() {
	placed := []eviction.TargetCluster{{Name: "a", Replicas: 1}, {Name: "c", Replicas: 1}}
	res, err := eviction.Evict(placed, nil, eviction.Eviction{
		Cluster: "c", Producer: eviction.ProducerTaintManager, Reason: eviction.ReasonTaintUntolerated,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fleet := []scheduling.Cluster{
		{Name: "a", Zones: []string{"z1"}},
		{Name: "b", Zones: []string{"z1"}},
		{Name: "c", Zones: []string{"z2"}},
		{Name: "d", Zones: []string{"z3"}},
		{Name: "e", Zones: []string{"z3"}},
	}
	plan, err := scheduling.Replace(&scheduling.Request{
		Workload:   &scheduling.Workload{EvictionTasks: res.Tasks},
		Type:       scheduling.Duplicated,
		Targets:    res.Targets,
		Evicted:    res.Evicted,
		Clusters:   fleet,
		Spread:     &scheduling.SpreadConstraint{MinGroups: 2, MaxGroups: 2},
		ZoneSpread: &scheduling.SpreadConstraint{MinGroups: 2, MaxGroups: 2},
		Replicas:   1,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(plan.Targets)
	// Output:
	// [{a 1} {d 1}]
}

// A region spread keeps a Duplicated workload in two regions: when its
// copy in us fails, the replacement opens a new region (d in ap) before b,
// which scores best but is in eu, where a runs already; g, without a
// region, is no candidate.
func ExampleReplace_regionSpread() {
	placed := []eviction.TargetCluster{{Name: "a", Replicas: 1}, {Name: "c", Replicas: 1}}
	res, err := eviction.Evict(placed, nil, eviction.Eviction{
		Cluster: "c", Producer: eviction.ProducerTaintManager, Reason: eviction.ReasonTaintUntolerated,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	plan, err := scheduling.Replace(&scheduling.Request{
		Workload: &scheduling.Workload{EvictionTasks: res.Tasks},
		Type:     scheduling.Duplicated,
		Targets:  res.Targets,
		Evicted:  res.Evicted,
		Clusters: []scheduling.Cluster{
			{Name: "a", Region: "eu"},
			{Name: "b", Region: "eu"},
			{Name: "c", Region: "us"},
			{Name: "d", Region: "ap"},
			{Name: "g"},
		},
		Spread:       &scheduling.SpreadConstraint{MinGroups: 2, MaxGroups: 2},
		RegionSpread: &scheduling.SpreadConstraint{MinGroups: 2, MaxGroups: 2},
		Replicas:     1,
		Scores:       map[string]int64{"b": 10, "g": 10},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(plan.Targets, plan.RegionExcluded)
	// Output:
	// [{a 1} {d 1}] [g]
}
