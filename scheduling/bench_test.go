package scheduling

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetover/fleetover/eviction"
)

// benchFleet is n clusters, every 10th with a not-ready NoSchedule taint and
// every 100th also NoExecute, each with a zone label and a capacity.
func benchFleet(n int) []Cluster {
	fleet := make([]Cluster, n)
	for i := range fleet {
		c := &fleet[i]
		c.Name = fmt.Sprintf("member-%05d", i)
		c.Labels = map[string]string{"topology.kubernetes.io/zone": fmt.Sprintf("zone-%d", i%3)}
		c.Zones = []string{fmt.Sprintf("z-%02d", i%20)}
		c.Region = fmt.Sprintf("r-%d", i%5)
		avail := int32(5 + i%7)
		c.AvailableReplicas = &avail
		if i%10 == 0 {
			c.Taints = append(c.Taints, notReadyNoSchedule)
		}
		if i%100 == 0 {
			c.Taints = append(c.Taints, notReadyNoExecute)
		}
	}
	return fleet
}

// benchWorkload has Karmada's two default NoExecute tolerations, three
// clusters, one eviction task and two history records.
func benchWorkload(fleet []Cluster, now time.Time) *Workload {
	secs := int64(300)
	return &Workload{
		Name: "default/nginx",
		Tolerations: []corev1.Toleration{
			{Key: "cluster.karmada.io/not-ready", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &secs},
			{Key: "cluster.karmada.io/unreachable", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &secs},
		},
		Placement:     []string{fleet[1].Name, fleet[2].Name, fleet[3].Name},
		EvictionTasks: []eviction.GracefulEvictionTask{{FromCluster: fleet[4].Name}},
		History: eviction.EvictionHistory{
			{ClusterName: fleet[5].Name, CreationTimestamp: metav1.NewTime(now.Add(-10 * time.Second))},
			{ClusterName: fleet[6].Name, CreationTimestamp: metav1.NewTime(now.Add(-time.Hour))},
		},
		BlockPredecessorSeconds: ptr.To[int32](600),
		Now:                     now,
	}
}

func BenchmarkRunFilters5000(b *testing.B) {
	fleet := benchFleet(5000)
	w := benchWorkload(fleet, time.Unix(1_000_000, 0))
	filters := DefaultFilters()
	b.ReportAllocs()
	cpu := startCPU()
	for b.Loop() {
		res := RunFilters(w, fleet, filters...)
		if len(res.Feasible) == 0 {
			b.Fatal("nothing feasible")
		}
	}
	cpu.report(b)
}

func BenchmarkRunFiltersInto5000(b *testing.B) {
	fleet := benchFleet(5000)
	w := benchWorkload(fleet, time.Unix(1_000_000, 0))
	filters := DefaultFilters()
	var res Result
	b.ReportAllocs()
	cpu := startCPU()
	for b.Loop() {
		RunFiltersInto(&res, w, fleet, filters...)
		if len(res.Feasible) == 0 {
			b.Fatal("nothing feasible")
		}
	}
	cpu.report(b)
}

func BenchmarkReplaceDivided1000(b *testing.B) {
	fleet := benchFleet(1000)
	now := time.Unix(1_000_000, 0)
	w := benchWorkload(fleet, now)
	// 100 replicas on ten clusters; two of them fail.
	var targets []eviction.TargetCluster
	for i := 11; i < 21; i++ {
		targets = append(targets, eviction.TargetCluster{Name: fleet[i].Name, Replicas: 10})
	}
	for _, div := range []DivisionPreference{DivideByStaticWeight, DivideByAvailableReplicas, DivideAggregated} {
		b.Run(string(div), func(b *testing.B) {
			req := &Request{
				Workload: w,
				Type:     Divided,
				Targets:  keptAfter(targets, fleet[11].Name, fleet[12].Name),
				Evicted:  evictedFrom(targets, fleet[11].Name, fleet[12].Name),
				Clusters: fleet,
				Replicas: 100,
				Division: div,
			}
			b.ReportAllocs()
			cpu := startCPU()
			for b.Loop() {
				plan, err := Replace(req)
				if err != nil || !plan.Changed {
					b.Fatalf("%v %+v", err, plan.Reason)
				}
			}
			cpu.report(b)
		})
	}
}

// BenchmarkReplaceZoneSpread1000: a zone spread over a 1,000-cluster fleet
// in 20 zones and 5 regions. Duplicated: four clusters in four zones,
// exactly four zones; two fail. Divided: the Divided benchmark's workload
// held to at most its ten clusters' zones. Duplicated+RegionSpread: the
// Duplicated case also held to three or four regions.
func BenchmarkReplaceZoneSpread1000(b *testing.B) {
	fleet := benchFleet(1000)
	now := time.Unix(1_000_000, 0)
	w := benchWorkload(fleet, now)
	placed := []eviction.TargetCluster{{Name: fleet[11].Name}, {Name: fleet[12].Name}, {Name: fleet[13].Name}, {Name: fleet[14].Name}}
	divided := make([]eviction.TargetCluster, 0, 10)
	for i := 11; i < 21; i++ {
		divided = append(divided, eviction.TargetCluster{Name: fleet[i].Name, Replicas: 10})
	}
	for name, req := range map[string]*Request{
		"Duplicated": {
			Workload: w, Type: Duplicated, Clusters: fleet, Replicas: 1,
			Targets:    keptAfter(placed, fleet[11].Name, fleet[12].Name),
			Evicted:    evictedFrom(placed, fleet[11].Name, fleet[12].Name),
			Spread:     &SpreadConstraint{MinGroups: 4, MaxGroups: 4},
			ZoneSpread: &SpreadConstraint{MinGroups: 4, MaxGroups: 4},
		},
		"Divided": {
			Workload: w, Type: Divided, Clusters: fleet, Replicas: 100,
			Targets:    keptAfter(divided, fleet[11].Name, fleet[12].Name),
			Evicted:    evictedFrom(divided, fleet[11].Name, fleet[12].Name),
			ZoneSpread: &SpreadConstraint{MaxGroups: 10},
		},
		"Duplicated+RegionSpread": {
			Workload: w, Type: Duplicated, Clusters: fleet, Replicas: 1,
			Targets:      keptAfter(placed, fleet[11].Name, fleet[12].Name),
			Evicted:      evictedFrom(placed, fleet[11].Name, fleet[12].Name),
			Spread:       &SpreadConstraint{MinGroups: 4, MaxGroups: 4},
			RegionSpread: &SpreadConstraint{MinGroups: 3, MaxGroups: 4},
			ZoneSpread:   &SpreadConstraint{MinGroups: 4, MaxGroups: 4},
		},
	} {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			cpu := startCPU()
			for b.Loop() {
				plan, err := Replace(req)
				if err != nil || !plan.Changed || plan.Reason != "" {
					b.Fatalf("%v %+v", err, plan.Reason)
				}
			}
			cpu.report(b)
		})
	}
}
