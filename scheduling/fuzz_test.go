package scheduling

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetover/fleetover/eviction"
)

// byteSource turns fuzz input into small choices; exhausted input reads 0.
type byteSource struct{ b []byte }

func (s *byteSource) next() byte {
	if len(s.b) == 0 {
		return 0
	}
	v := s.b[0]
	s.b = s.b[1:]
	return v
}

func (s *byteSource) intn(n int) int { return int(s.next()) % n }

// randomRequest builds a fleet of up to 12 clusters with random taints,
// capacities, tasks, history and suspension, and a random placement.
func randomRequest(data []byte) *Request {
	src := &byteSource{b: data}
	now := time.Unix(1_000_000, 0)
	n := 1 + src.intn(12)
	req := &Request{
		Replicas: int32(src.intn(40)),
		Workload: &Workload{Name: "w", Now: now},
		Scores:   map[string]int64{},
	}
	if src.intn(2) == 0 {
		req.Type = Duplicated
	} else {
		req.Type = Divided
	}
	req.Division = []DivisionPreference{"", DivideByStaticWeight, DivideByAvailableReplicas, DivideAggregated}[src.intn(4)]
	if src.intn(3) == 0 {
		req.Workload.Tolerations = []corev1.Toleration{{Key: "k", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
	}
	var history eviction.EvictionHistory
	suspended := map[string]bool{}
	for i := 0; i < n; i++ {
		c := Cluster{Name: fmt.Sprintf("m%d", i)}
		switch src.intn(5) {
		case 1:
			c.Taints = []corev1.Taint{{Key: "k", Effect: corev1.TaintEffectNoSchedule}}
		case 2:
			c.Taints = []corev1.Taint{{Key: "k", Effect: corev1.TaintEffectNoExecute}}
		}
		if src.intn(2) == 0 {
			c.AvailableReplicas = new(int32)
			*c.AvailableReplicas = int32(src.intn(20)) - 2
		}
		req.Clusters = append(req.Clusters, c)
		flags := src.next()
		if flags&1 != 0 {
			t := eviction.TargetCluster{Name: c.Name, Replicas: int32(src.intn(10))}
			if flags&2 != 0 {
				req.Evicted = append(req.Evicted, t)
			} else {
				req.Targets = append(req.Targets, t)
			}
		}
		if flags&4 != 0 {
			req.Workload.EvictionTasks = append(req.Workload.EvictionTasks, eviction.GracefulEvictionTask{FromCluster: c.Name})
		}
		if flags&8 != 0 {
			history = append(history, eviction.EvictionHistoryEntry{ClusterName: c.Name, CreationTimestamp: metav1.NewTime(now.Add(-time.Duration(src.intn(900)) * time.Second))})
		}
		if flags&16 != 0 {
			suspended[c.Name] = true
		}
		if flags&32 != 0 {
			if req.StaticWeights == nil {
				req.StaticWeights = map[string]int64{}
			}
			req.StaticWeights[c.Name] = int64(src.intn(5))
		}
		req.Scores[c.Name] = int64(src.intn(3))
		if region := src.intn(4); region > 0 {
			req.Clusters[len(req.Clusters)-1].Region = fmt.Sprintf("r%d", region-1)
		}
		if zones := src.intn(4); zones > 0 {
			// zone count 1..3: zones 0..2 of z0..z3, so that clusters share them
			for z := range zones {
				req.Clusters[len(req.Clusters)-1].Zones = append(req.Clusters[len(req.Clusters)-1].Zones, fmt.Sprintf("z%d", (z+src.intn(4))%4))
			}
		}
	}
	req.Workload.History = history
	req.Workload.BlockPredecessorSeconds = ptr.To[int32](int32(src.intn(700)))
	req.Workload.Suspension = SuspensionFunc(func(c string) bool { return suspended[c] })
	if src.intn(2) == 0 {
		req.Spread = &SpreadConstraint{MinGroups: int32(src.intn(4)), MaxGroups: int32(src.intn(6))}
	}
	if src.intn(2) == 0 {
		req.ZoneSpread = &SpreadConstraint{MinGroups: int32(src.intn(3)), MaxGroups: int32(src.intn(4))}
	}
	if src.intn(3) == 0 {
		req.RegionSpread = &SpreadConstraint{MinGroups: int32(src.intn(3)), MaxGroups: int32(src.intn(3))}
	}
	return req
}

// FuzzReplace checks the re-placement's invariants on random fleets: no
// panic, never more replicas than asked, never a rejected, failed or
// suspended cluster chosen, the clusters that did not fail kept untouched.
func FuzzReplace(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{3, 10, 1, 0, 0, 1, 3, 2, 0, 1, 1, 1, 0, 0, 0, 0, 0})
	f.Add([]byte{5, 7, 1, 3, 1, 0, 0, 35, 4, 2, 0, 1, 5, 1, 0, 0, 0, 1, 18, 9, 3, 1})
	f.Add([]byte("a fleet of clusters, some failing, some suspended, some blocked"))
	f.Fuzz(func(t *testing.T, data []byte) {
		req := randomRequest(data)
		plan, err := Replace(req)
		if err != nil {
			return // invalid random spread bounds, say
		}
		suspended := req.Workload.Suspension
		failed := map[string]bool{}
		for _, f := range req.Evicted {
			failed[f.Name] = true
		}
		before := map[string]int32{}
		var keptTotal int64
		for _, tc := range append(slices.Clone(req.Targets), req.Evicted...) {
			before[tc.Name] = tc.Replicas
			if !failed[tc.Name] || suspended.DispatchSuspended(tc.Name) {
				keptTotal += int64(tc.Replicas)
			}
		}
		after := map[string]int32{}
		var total int64
		for _, tc := range plan.Targets {
			if _, dup := after[tc.Name]; dup {
				t.Fatalf("cluster %s twice in %v", tc.Name, plan.Targets)
			}
			after[tc.Name] = tc.Replicas
			total += int64(tc.Replicas)
			if tc.Replicas < 0 {
				t.Fatalf("negative replicas: %v", plan.Targets)
			}
		}
		// Held: exactly the evicted clusters whose dispatching is
		// suspended, each back in Targets, and their tasks are the ones
		// WithoutHeldTasks drops.
		for _, e := range req.Evicted {
			held := slices.Contains(plan.Held, e.Name)
			if held != suspended.DispatchSuspended(e.Name) {
				t.Fatalf("evicted cluster %s: held %t, suspended %t", e.Name, held, !held)
			}
			if _, back := after[e.Name]; held && !back {
				t.Fatalf("held cluster %s is not back in %v", e.Name, plan.Targets)
			}
		}
		var tasks []eviction.GracefulEvictionTask
		for _, tc := range append(slices.Clone(req.Targets), req.Evicted...) {
			tasks = append(tasks, eviction.GracefulEvictionTask{FromCluster: tc.Name})
		}
		for _, task := range plan.WithoutHeldTasks(tasks) {
			if slices.Contains(plan.Held, task.FromCluster) {
				t.Fatalf("the task of held cluster %s kept", task.FromCluster)
			}
		}
		if got, want := len(plan.WithoutHeldTasks(tasks)), len(tasks)-len(plan.Held); got != want {
			t.Fatalf("%d tasks left of %d with %v held, want %d", got, len(tasks), plan.Held, want)
		}
		if !plan.Changed {
			if !equalTargets(before, after) {
				t.Fatalf("unchanged plan with different targets: %v + %v -> %v", req.Targets, req.Evicted, plan.Targets)
			}
			return
		}
		for name, was := range before {
			keep := !failed[name] || suspended.DispatchSuspended(name)
			if keep && after[name] < was {
				t.Fatalf("kept cluster %s went from %d to %d", name, was, after[name])
			}
			if _, present := after[name]; keep && !present {
				t.Fatalf("kept cluster %s dropped", name)
			}
		}
		for name, n := range after {
			if n <= before[name] {
				if _, was := before[name]; was {
					continue
				}
			}
			if _, rejected := plan.Filtered.Rejected[name]; rejected {
				t.Fatalf("rejected cluster %s chosen (%v)", name, plan.Filtered.Rejected[name])
			}
			if failed[name] || suspended.DispatchSuspended(name) {
				t.Fatalf("failed or suspended cluster %s given replicas", name)
			}
		}
		// Each topology spread: new clusters have groups; past what the
		// kept clusters cover, they add groups only up to the maximum;
		// and a plan that added clusters reaches the minimum.
		for _, sp := range []struct {
			name   string
			bounds *SpreadConstraint
			groups func(c *Cluster) []string
		}{
			{"zone", req.ZoneSpread, func(c *Cluster) []string { return c.Zones }},
			{"region", req.RegionSpread, func(c *Cluster) []string {
				if c.Region == "" {
					return nil
				}
				return []string{c.Region}
			}},
		} {
			if sp.bounds == nil {
				continue
			}
			groupsOf := map[string][]string{}
			for i := range req.Clusters {
				groupsOf[req.Clusters[i].Name] = sp.groups(&req.Clusters[i])
			}
			keptGroups, allGroups := map[string]bool{}, map[string]bool{}
			added := false
			for name := range after {
				_, was := before[name]
				kept := was && (!failed[name] || suspended.DispatchSuspended(name))
				if !was {
					added = true
					if len(groupsOf[name]) == 0 {
						t.Fatalf("cluster %s without a %s chosen under a %s spread", name, sp.name, sp.name)
					}
				}
				for _, group := range groupsOf[name] {
					allGroups[group] = true
					if kept {
						keptGroups[group] = true
					}
				}
			}
			if b := sp.bounds; b.MaxGroups > 0 && len(allGroups) > max(int(b.MaxGroups), len(keptGroups)) {
				t.Fatalf("%d %ss %v, maxGroups %d, kept clusters cover %d", len(allGroups), sp.name, allGroups, b.MaxGroups, len(keptGroups))
			}
			if added && len(allGroups) < int(sp.bounds.MinGroups) {
				t.Fatalf("clusters added but %d %ss, minGroups %d", len(allGroups), sp.name, sp.bounds.MinGroups)
			}
		}
		if req.Type == Divided && total > max(int64(req.Replicas), keptTotal) {
			t.Fatalf("%d replicas placed, %d asked (kept %d)", total, req.Replicas, keptTotal)
		}
		if req.Type == Duplicated && req.Spread != nil && req.Spread.MaxGroups > 0 {
			var keptCount int
			for name := range before {
				if !failed[name] || suspended.DispatchSuspended(name) {
					keptCount++
				}
			}
			if len(after) > max(int(req.Spread.MaxGroups), keptCount) {
				t.Fatalf("%d clusters, maxGroups %d", len(after), req.Spread.MaxGroups)
			}
		}
	})
}

func equalTargets(a, b map[string]int32) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}
