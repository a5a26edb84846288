package main

import (
	"fmt"
	"io"
	"os"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
	healthcel "github.com/fleetover/fleetover/failover/health/cel"
	"github.com/fleetover/fleetover/scheduling"
)

func main() {
	if err := tell(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "scheduler:", err)
		os.Exit(1)
	}
}

// myCluster is the scheduler's own idea of a cluster.
type myCluster struct {
	name   string
	region string
	taints []corev1.Taint
}

// myApp is the scheduler's own idea of a workload.
type myApp struct {
	name     string
	replicas int32
	divided  bool
	weights  map[string]int64
	placed   []eviction.TargetCluster
}

func tell(out io.Writer) error {
	// The scheduler's clock: decisions take "now" as an argument, so the
	// story is reproducible.
	now := time.Date(2026, 5, 4, 9, 0, 0, 0, time.UTC)
	failedAt := metav1.NewTime(now.Add(-4 * time.Minute))
	fleet := []myCluster{
		{name: "ams", region: "eu"},
		{name: "fra", region: "eu", taints: []corev1.Taint{
			{Key: failover.TaintKeyClusterNotReady, Effect: corev1.TaintEffectNoSchedule},
			{Key: failover.TaintKeyClusterNotReady, Effect: corev1.TaintEffectNoExecute, TimeAdded: &failedAt},
		}},
		{name: "par", region: "eu"},
		{name: "dub", region: "eu"},
	}

	// 1. Health, per object, from the unstructured status alone.
	registry := health.NewRegistry(health.RegistryConfig{})
	queueHealth, err := healthcel.NewInterpreter(`object.status.lag < 1000 ? "Healthy" : "Unhealthy"`, healthcel.Config{Name: "queue-lag"})
	if err != nil {
		return err
	}
	if err := registry.RegisterGroupKind(schema.GroupKind{Group: "example.com", Kind: "Queue"}, queueHealth); err != nil {
		return err
	}
	fmt.Fprintln(out, "1. health (failover/health)")
	for _, obj := range []*unstructured.Unstructured{
		deployment("web on ams", 3, 3), deployment("web on fra", 3, 0), queue("orders on par", 12), queue("orders on dub", 5400),
	} {
		r := registry.Interpret(obj)
		reason := ""
		if r.Reason != "" {
			reason = " (" + r.Reason + ")"
		}
		fmt.Fprintf(out, "   %-14s %s%s\n", obj.GetName(), r.Status, reason)
	}

	// 2. Tolerations: how long may web stay on fra?
	tolerations := failover.AddDefaultClusterTolerations(nil, failover.DefaultTolerationsConfig{})
	fmt.Fprintln(out, "2. tolerations (failover)")
	d := failover.EvaluateTolerations(fleet[1].taints, tolerations, now)
	fmt.Fprintf(out, "   web on fra: %s, %s from now (the not-ready taint came %s ago)\n", d.Action, d.After, now.Sub(failedAt.Time))
	later := now.Add(d.After)
	d = failover.EvaluateTolerations(fleet[1].taints, tolerations, later)
	fmt.Fprintf(out, "   at %s: %s\n", later.Format(time.TimeOnly), d.Action)

	// 3. Filters: where could a new copy go?
	views := make([]scheduling.Cluster, len(fleet))
	for i, c := range fleet {
		views[i] = scheduling.Cluster{Name: c.name, Taints: c.taints, Labels: map[string]string{"region": c.region}}
	}
	fmt.Fprintln(out, "3. filters (scheduling)")
	res := scheduling.RunFilters(&scheduling.Workload{Name: "web", Tolerations: tolerations, Now: later}, views,
		append(scheduling.DefaultFilters(), scheduling.ClusterNames("ams", "fra", "par"))...)
	fmt.Fprintf(out, "   feasible: %v\n", res.Feasible)
	for _, name := range []string{"fra", "dub"} {
		fmt.Fprintf(out, "   %s rejected by %s: %s\n", name, res.Rejected[name].Filter, res.Rejected[name].Reason)
	}

	// 4. Re-placement once the toleration ran out.
	fmt.Fprintln(out, "4. re-placement (scheduling)")
	apps := []myApp{
		{name: "web", replicas: 3, placed: []eviction.TargetCluster{{Name: "ams"}, {Name: "fra"}}},
		{name: "api", replicas: 3, divided: true, weights: map[string]int64{"ams": 2, "fra": 1},
			placed: []eviction.TargetCluster{{Name: "ams", Replicas: 2}, {Name: "fra", Replicas: 1}}},
	}
	for _, app := range apps {
		// The eviction's result feeds the re-placement as it is.
		evicted, err := eviction.Evict(app.placed, nil, eviction.Eviction{
			Cluster: "fra", Producer: eviction.ProducerTaintManager, Reason: eviction.ReasonTaintUntolerated,
		})
		if err != nil {
			return err
		}
		req := &scheduling.Request{
			Workload:      &scheduling.Workload{Name: app.name, Tolerations: tolerations, EvictionTasks: evicted.Tasks, Now: later},
			Type:          scheduling.Duplicated,
			Targets:       evicted.Targets,
			Evicted:       evicted.Evicted,
			Clusters:      views,
			Filters:       append(scheduling.DefaultFilters(), scheduling.ClusterNames("ams", "fra", "par")),
			Replicas:      app.replicas,
			StaticWeights: app.weights,
		}
		if app.divided {
			req.Type = scheduling.Divided
		} else {
			req.Spread = &scheduling.SpreadConstraint{MinGroups: 2, MaxGroups: 2}
		}
		plan, err := scheduling.Replace(req)
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "   %s (%s): %s -> %s\n", app.name, req.Type, targets(app.placed, app.divided), targets(plan.Targets, app.divided))
		for _, m := range plan.Moves {
			to := m.To
			if to == "" {
				to = "(stays with the others)"
			}
			fmt.Fprintf(out, "     move %d replica(s) %s -> %s: %s\n", m.Replicas, m.From, to, m.Reason)
		}
	}
	return nil
}

func targets(ts []eviction.TargetCluster, divided bool) string {
	s := "["
	for i, t := range ts {
		if i > 0 {
			s += " "
		}
		s += t.Name
		if divided {
			s += fmt.Sprintf("=%d", t.Replicas)
		}
	}
	return s + "]"
}

func deployment(name string, replicas, available int64) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"name": name, "generation": int64(2)},
		"spec":     map[string]any{"replicas": replicas},
		"status": map[string]any{"observedGeneration": int64(2), "replicas": replicas, "updatedReplicas": replicas,
			"readyReplicas": available, "availableReplicas": available},
	}}
}

func queue(name string, lag int64) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Queue",
		"metadata": map[string]any{"name": name},
		"status":   map[string]any{"lag": lag},
	}}
}
