package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math/rand"
	"slices"
	"strconv"
	"strings"
	"testing"

	policyv1alpha1 "github.com/karmada-io/karmada/pkg/apis/policy/v1alpha1"
	workv1alpha2 "github.com/karmada-io/karmada/pkg/apis/work/v1alpha2"
	"github.com/karmada-io/karmada/pkg/resourceinterpreter/default/native"
	"github.com/karmada-io/karmada/pkg/util/helper"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/utils/ptr"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/preservation"
	"github.com/fleetover/fleetover/suspension"
)

// genWorkload returns a Deployment, StatefulSet, ReplicaSet or DaemonSet as
// a member cluster reports it: spec.replicas is always set (the API server
// defaults it), the status fields vary around it.
func genWorkload(r *rand.Rand) *unstructured.Unstructured {
	kind := pick(r, "Deployment", "StatefulSet", "ReplicaSet", "DaemonSet")
	gen := int64(1 + r.Intn(2))
	obj := map[string]any{
		"apiVersion": "apps/v1", "kind": kind,
		"metadata": map[string]any{"name": "w", "namespace": "default", "generation": gen},
	}
	spec := map[string]any{}
	if kind != "DaemonSet" {
		spec["replicas"] = int64(r.Intn(4))
	}
	if kind == "StatefulSet" && r.Intn(3) == 0 {
		spec["updateStrategy"] = map[string]any{"type": "RollingUpdate", "rollingUpdate": map[string]any{"partition": int64(r.Intn(3))}}
	}
	obj["spec"] = spec
	if r.Intn(10) != 0 {
		status := map[string]any{}
		switch r.Intn(8) {
		case 0: // no observedGeneration
		case 1:
			status["observedGeneration"] = gen - 1
		default:
			status["observedGeneration"] = gen
		}
		fields := []string{"updatedReplicas", "availableReplicas", "readyReplicas", "replicas"}
		if kind == "DaemonSet" {
			fields = []string{"desiredNumberScheduled", "updatedNumberScheduled", "numberAvailable", "currentNumberScheduled"}
		}
		for _, f := range fields {
			if r.Intn(6) != 0 {
				status[f] = int64(r.Intn(4))
			}
		}
		obj["status"] = status
	}
	return &unstructured.Unstructured{Object: obj}
}

// classifyHealth explains a disagreement of the built-in rules.
func classifyHealth(u *unstructured.Unstructured, got health.Result) string {
	status, hasStatus, _ := unstructured.NestedMap(u.Object, "status")
	if !hasStatus {
		if got.Status == health.Unknown {
			return "health-no-status"
		}
		return "health"
	}
	observed, found, _ := unstructured.NestedInt64(status, "observedGeneration")
	if (!found || observed != u.GetGeneration()) && got.Status == health.Unknown {
		return "health-stale-generation"
	}
	if partition, _, _ := unstructured.NestedInt64(u.Object, "spec", "updateStrategy", "rollingUpdate", "partition"); u.GetKind() == "StatefulSet" && partition > 0 {
		return "health-statefulset-partition"
	}
	return "health"
}

// TestNativeHealth: Karmada's native.NewDefaultInterpreter().InterpretHealth
// against the failover/health built-in rule for the kind, on generated
// workload objects.
func TestNativeHealth(t *testing.T) {
	r := rng(t.Name())
	ty := newTally(t)
	karmada := native.NewDefaultInterpreter()
	builtins := health.BuiltinInterpreters()
	for range *cases {
		u := genWorkload(r)
		want, err := karmada.InterpretHealth(u)
		if err != nil {
			t.Fatalf("Karmada on %v: %v", u.Object, err)
		}
		got, err := builtins[schema.GroupKind{Group: "apps", Kind: u.GetKind()}].Interpret(u)
		if err != nil {
			t.Fatalf("fleetover on %v: %v", u.Object, err)
		}
		if (got.Status == health.Healthy && want) || (got.Status == health.Unhealthy && !want) {
			ty.agree(u.GetKind() + "/" + string(got.Status))
			continue
		}
		ty.differ(classifyHealth(u, got), "%v: Karmada healthy=%v, fleetover %v (%s)", u.Object, want, got.Status, got.Reason)
	}
	ty.report("Deployment/Healthy", "Deployment/Unhealthy", "StatefulSet/Healthy", "StatefulSet/Unhealthy",
		"ReplicaSet/Healthy", "ReplicaSet/Unhealthy", "DaemonSet/Healthy", "DaemonSet/Unhealthy")
}

var statusPaths = []string{"{.jobId}", "{ .jobId }", "{.job.id}", "{.n}", "{.list[0]}", "{.missing}", "{.flag}", "{.job}"}

func genStatus(r *rand.Rand) []byte {
	status := map[string]any{}
	value := func() any {
		return pick[any](r, "abc", "", "x y", strings.Repeat("a", 70), "job-1.2_3",
			1, 1763400000000, 2.5, -3, true, nil)
	}
	for _, k := range []string{"jobId", "n", "flag"} {
		if r.Intn(5) != 0 {
			status[k] = value()
		}
	}
	if r.Intn(4) != 0 {
		status["job"] = map[string]any{"id": value()}
	}
	if r.Intn(3) == 0 {
		status["list"] = []any{value(), value()}
	}
	raw, err := json.Marshal(status)
	if err != nil {
		panic(err)
	}
	return raw
}

// TestStateExtraction: Karmada's helper.BuildPreservedLabelState against
// preservation.Compile + Rules.ExtractFromJSON on generated rules and
// statuses. Both fail, or both give the same labels.
func TestStateExtraction(t *testing.T) {
	r := rng(t.Name())
	ty := newTally(t)
	for range *cases {
		n := 1 + r.Intn(2)
		var kRules []policyv1alpha1.StatePreservationRule
		var fRules []preservation.StatePreservationRule
		for i := range n {
			p := pick(r, statusPaths...)
			kRules = append(kRules, policyv1alpha1.StatePreservationRule{AliasLabelName: fmt.Sprintf("example.io/v%d", i), JSONPath: p})
			fRules = append(fRules, preservation.StatePreservationRule{AliasLabelName: fmt.Sprintf("example.io/v%d", i), JSONPath: p})
		}
		raw := genStatus(r)
		want, wantErr := helper.BuildPreservedLabelState(&policyv1alpha1.StatePreservation{Rules: kRules}, raw)
		rules, err := preservation.Compile(fRules)
		if err != nil {
			t.Fatalf("rules %v: %v", fRules, err)
		}
		got, gotErr := rules.ExtractFromJSON(raw)
		switch {
		case wantErr != nil && gotErr != nil:
			ty.agree("error")
			continue
		case wantErr == nil && gotErr == nil && maps.Equal(want, got):
			ty.agree("labels")
			continue
		}
		if wantErr == nil && gotErr == nil && sameNumbers(want, got) {
			ty.differ("preserved-number-printing", "")
			continue
		}
		if wantErr == nil && errors.Is(gotErr, preservation.ErrInvalidLabelValue) && hasInvalidLabelValue(want) {
			ty.differ("preserved-invalid-label", "")
			continue
		}
		ty.differ("state-extraction", "rules %v status %s: Karmada %v (%v), fleetover %v (%v)", kRules, raw, want, wantErr, got, gotErr)
	}
	ty.report("error", "labels")
}

// sameNumbers: the two label sets differ only in how numbers are printed.
func sameNumbers(want, got map[string]string) bool {
	if len(want) != len(got) {
		return false
	}
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			return false
		}
		if w == g {
			continue
		}
		wf, err1 := strconv.ParseFloat(w, 64)
		gf, err2 := strconv.ParseFloat(g, 64)
		if err1 != nil || err2 != nil || wf != gf {
			return false
		}
	}
	return true
}

func hasInvalidLabelValue(m map[string]string) bool {
	for _, v := range m {
		if len(validation.IsValidLabelValue(v)) > 0 {
			return true
		}
	}
	return false
}

var clusterNames = []string{"m1", "m2", "m3", "m4"}

// TestEvictionTaskDedup: Karmada's ResourceBindingSpec.GracefulEvictCluster
// against eviction.Evict on generated placements, existing tasks and
// evictions. Tasks are compared in Karmada's wire format.
func TestEvictionTaskDedup(t *testing.T) {
	r := rng(t.Name())
	ty := newTally(t)
	for range *cases {
		var kTargets []workv1alpha2.TargetCluster
		var fTargets []eviction.TargetCluster
		for _, i := range r.Perm(len(clusterNames))[:r.Intn(4)] {
			rep := int32(r.Intn(3))
			kTargets = append(kTargets, workv1alpha2.TargetCluster{Name: clusterNames[i], Replicas: rep})
			fTargets = append(fTargets, eviction.TargetCluster{Name: clusterNames[i], Replicas: rep})
		}
		var fTasks []eviction.GracefulEvictionTask
		for _, i := range r.Perm(len(clusterNames))[:r.Intn(3)] {
			task := eviction.GracefulEvictionTask{FromCluster: clusterNames[i], PurgeMode: eviction.PurgeGracefully, Reason: "old"}
			if r.Intn(2) == 0 {
				task.PreservedLabelState = map[string]string{"example.io/a": "old"}
			}
			if r.Intn(2) == 0 {
				task.ClustersBeforeFailover = slices.Clone(clusterNames[:1+r.Intn(3)])
			}
			fTasks = append(fTasks, task)
		}
		var kTasks []workv1alpha2.GracefulEvictionTask
		convert(t, fTasks, &kTasks)

		ev := eviction.Eviction{
			Cluster:   pick(r, clusterNames...),
			Producer:  "taint-manager",
			Reason:    pick(r, "TaintUntolerated", "ApplicationFailure"),
			PurgeMode: pick(r, eviction.PurgeGracefully, eviction.PurgeDirectly, eviction.PurgeNever),
			Settled:   r.Intn(2) == 0,
		}
		if ev.PurgeMode == eviction.PurgeGracefully {
			ev.GracePeriodSeconds = ptr.To(int32(1 + r.Intn(600)))
		}
		if r.Intn(2) == 0 {
			ev.PreservedLabelState = map[string]string{"example.io/a": "new", "example.io/b": "new"}
		}
		if r.Intn(4) != 0 {
			for _, tc := range fTargets {
				ev.ClustersBeforeFailover = append(ev.ClustersBeforeFailover, tc.Name)
			}
		}

		spec := workv1alpha2.ResourceBindingSpec{Clusters: kTargets, GracefulEvictionTasks: kTasks}
		spec.GracefulEvictCluster(ev.Cluster, workv1alpha2.NewTaskOptions(
			workv1alpha2.WithProducer(ev.Producer), workv1alpha2.WithReason(ev.Reason),
			workv1alpha2.WithPurgeMode(policyv1alpha1.PurgeMode(ev.PurgeMode)), workv1alpha2.WithGracePeriodSeconds(ev.GracePeriodSeconds),
			workv1alpha2.WithPreservedLabelState(ev.PreservedLabelState), workv1alpha2.WithClustersBeforeFailover(ev.ClustersBeforeFailover)))
		res, err := eviction.Evict(fTargets, fTasks, ev)
		if err != nil {
			t.Fatalf("Evict(%v, %v, %+v): %v", fTargets, fTasks, ev, err)
		}

		var wantTargets []eviction.TargetCluster
		convert(t, spec.Clusters, &wantTargets)
		var wantTasks []eviction.GracefulEvictionTask
		convert(t, spec.GracefulEvictionTasks, &wantTasks)
		sameTargets := slices.Equal(wantTargets, res.Targets) || (len(wantTargets) == 0 && len(res.Targets) == 0)
		if sameTargets && tasksEqual(t, wantTasks, res.Tasks) {
			ty.agree(string(res.Outcome))
			continue
		}
		ty.differ(classifyEvict(t, sameTargets, wantTasks, fTargets, fTasks, ev, res), "targets %v tasks %v eviction %+v: Karmada %v %v, fleetover %v %v",
			fTargets, fTasks, ev, wantTargets, wantTasks, res.Targets, res.Tasks)
	}
	ty.report(string(eviction.EvictTaskAdded), string(eviction.EvictAlreadyInProgress), string(eviction.EvictNotPlaced))
}

// classifyEvict re-runs Evict with the documented behaviour turned off
// where the input allows: a settled copy (no chain), an explicit
// ClustersBeforeFailover, no new state for an existing task.
func classifyEvict(t *testing.T, sameTargets bool, want []eviction.GracefulEvictionTask, targets []eviction.TargetCluster,
	tasks []eviction.GracefulEvictionTask, ev eviction.Eviction, res eviction.EvictResult) string {
	if !sameTargets {
		return "evict-targets"
	}
	if res.StateMerged {
		return "evict-state-merge"
	}
	if !ev.Settled {
		settled := ev
		settled.Settled = true
		if again, err := eviction.Evict(targets, tasks, settled); err == nil && tasksEqual(t, want, again.Tasks) {
			return "evict-chain-state"
		}
	}
	if ev.ClustersBeforeFailover == nil && res.Outcome == eviction.EvictTaskAdded {
		last := res.Tasks[len(res.Tasks)-1]
		w := want[len(want)-1]
		if w.ClustersBeforeFailover == nil && len(last.ClustersBeforeFailover) == len(targets) {
			return "evict-default-clusters-before"
		}
	}
	return "evict-tasks"
}

func tasksEqual(t *testing.T, a, b []eviction.GracefulEvictionTask) bool {
	return string(mustJSON(t, a)) == string(mustJSON(t, b)) || (len(a) == 0 && len(b) == 0)
}

func mustJSON(t *testing.T, v any) []byte {
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// convert moves a value between the two projects' types through their
// shared wire format.
func convert(t *testing.T, from, to any) {
	if err := json.Unmarshal(mustJSON(t, from), to); err != nil {
		t.Fatal(err)
	}
}

// TestPurgeModeDirectly: Karmada's helper.ObtainClustersWithPurgeModeDirectly
// against PurgeMode.Normalize() == PurgeDirectly, legacy and unknown modes
// included.
func TestPurgeModeDirectly(t *testing.T) {
	r := rng(t.Name())
	ty := newTally(t)
	for range *cases {
		var spec workv1alpha2.ResourceBindingSpec
		var tasks []eviction.GracefulEvictionTask
		for _, i := range r.Perm(len(clusterNames))[:r.Intn(4)] {
			mode := pick(r, "", "Gracefully", "Graciously", "Directly", "Immediately", "Never", "directly", "Later")
			spec.GracefulEvictionTasks = append(spec.GracefulEvictionTasks, workv1alpha2.GracefulEvictionTask{FromCluster: clusterNames[i], PurgeMode: policyv1alpha1.PurgeMode(mode)})
			tasks = append(tasks, eviction.GracefulEvictionTask{FromCluster: clusterNames[i], PurgeMode: eviction.PurgeMode(mode)})
		}
		want := helper.ObtainClustersWithPurgeModeDirectly(spec)
		got := sets.New[string]()
		for _, task := range tasks {
			if task.PurgeMode.Normalize() == eviction.PurgeDirectly {
				got.Insert(task.FromCluster)
			}
		}
		if want.Equal(got) {
			ty.agree(fmt.Sprintf("%d directly", min(got.Len(), 1)))
			continue
		}
		ty.differ("purge-mode", "tasks %v: Karmada %v, fleetover %v", tasks, sets.List(want), sets.List(got))
	}
	ty.report("0 directly", "1 directly")
}

// karmadaSuspendsDispatching repeats Karmada's binding controller helper
// shouldSuspendDispatching (unexported, pkg/controllers/binding/common.go),
// which decides each Work's spec.suspendDispatching.
func karmadaSuspendsDispatching(s *workv1alpha2.Suspension, cluster string) bool {
	if s == nil {
		return false
	}
	suspended := ptr.Deref(s.Dispatching, false)
	if !suspended && s.DispatchingOnClusters != nil && slices.Contains(s.DispatchingOnClusters.ClusterNames, cluster) {
		suspended = true
	}
	return suspended
}

// TestDispatchSuspension: a binding's suspension, written by Karmada and
// decoded by suspension.Suspension, suspends dispatching to the same
// clusters.
func TestDispatchSuspension(t *testing.T) {
	r := rng(t.Name())
	ty := newTally(t)
	for range *cases {
		var ks *workv1alpha2.Suspension
		if r.Intn(5) != 0 {
			ks = &workv1alpha2.Suspension{}
			if r.Intn(2) == 0 {
				ks.Dispatching = ptr.To(r.Intn(2) == 0)
			}
			if r.Intn(2) == 0 {
				names := slices.Clone(clusterNames[:r.Intn(3)])
				ks.DispatchingOnClusters = &policyv1alpha1.SuspendClusters{ClusterNames: names}
			}
		}
		var fs *suspension.Suspension
		if ks != nil {
			fs = &suspension.Suspension{}
			if err := json.Unmarshal(mustJSON(t, ks), fs); err != nil {
				t.Fatalf("decoding Karmada's %s: %v", mustJSON(t, ks), err)
			}
		}
		for _, c := range clusterNames {
			want := karmadaSuspendsDispatching(ks, c)
			if got := fs.DispatchSuspended(c); got != want {
				ty.differ("dispatch-suspension", "%s on %s: Karmada %v, fleetover %v", mustJSON(t, ks), c, want, got)
				continue
			}
			ty.agree(fmt.Sprintf("suspended=%v", want))
		}
	}
	ty.report("suspended=true", "suspended=false")
}
