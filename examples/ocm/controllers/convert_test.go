package controllers

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"

	"github.com/fleetover/fleetover/eviction"
)

func TestTaintEffectsRoundTrip(t *testing.T) {
	added := metav1.NewTime(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	ocm := []clusterv1.Taint{
		{Key: "k1", Effect: clusterv1.TaintEffectNoSelect, TimeAdded: added},
		{Key: "k2", Value: "v", Effect: clusterv1.TaintEffectNoSelectIfNew, TimeAdded: added},
		{Key: "k3", Effect: clusterv1.TaintEffectPreferNoSelect, TimeAdded: added},
	}
	core := coreTaints(ocm)
	want := []corev1.TaintEffect{corev1.TaintEffectNoExecute, corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule}
	for i, c := range core {
		if c.Effect != want[i] || c.TimeAdded == nil || !c.TimeAdded.Equal(&added) {
			t.Fatalf("taint %d = %+v, want effect %s added %v", i, c, want[i], added)
		}
	}
	if back := ocmTaints(core, metav1.Now()); !reflect.DeepEqual(back, ocm) {
		t.Fatalf("round trip changed the taints:\n got %+v\nwant %+v", back, ocm)
	}
	// A taint the library leaves unstamped gets now: OCM stamps every taint.
	now := metav1.NewTime(added.Add(time.Minute))
	got := ocmTaints([]corev1.Taint{{Key: "k", Effect: corev1.TaintEffectNoSchedule}}, now)
	if !got[0].TimeAdded.Equal(&now) {
		t.Fatalf("unstamped taint got %v, want %v", got[0].TimeAdded, now)
	}
}

func TestTolerationEffects(t *testing.T) {
	secs := int64(30)
	got := coreTolerations([]clusterv1beta1.Toleration{
		{Key: "k", Operator: clusterv1beta1.TolerationOpExists, Effect: clusterv1.TaintEffectNoSelect, TolerationSeconds: &secs},
		{Key: "all", Operator: clusterv1beta1.TolerationOpExists},
	})
	if got[0].Effect != corev1.TaintEffectNoExecute || *got[0].TolerationSeconds != 30 || got[0].Operator != corev1.TolerationOpExists {
		t.Fatalf("toleration 0 = %+v", got[0])
	}
	if got[1].Effect != "" {
		t.Fatalf("a toleration without effect must match every effect, got %q", got[1].Effect)
	}
}

func TestFieldChain(t *testing.T) {
	for path, want := range map[string][]string{
		".status.jobStatus.jobId":                {"status", "jobStatus", "jobId"},
		"{.metadata.generation}":                 {"metadata", "generation"},
		" .status.readyReplicas ":                {"status", "readyReplicas"},
		".status.conditions[0].type":             nil,
		".status..x":                             nil,
		"status.x":                               nil,
		".":                                      nil,
		`.status.conditions[?(@.type=="Ready")]`: nil,
	} {
		got, ok := fieldChain(path)
		if ok != (want != nil) || !reflect.DeepEqual(got, want) && want != nil {
			t.Errorf("fieldChain(%q) = %v, %v; want %v", path, got, ok, want)
		}
	}
}

func testWork(t testing.TB, values []workv1.FeedbackValue) *workv1.ManifestWork {
	manifest := map[string]any{
		"apiVersion": "flink.apache.org/v1beta1", "kind": "FlinkDeployment",
		"metadata": map[string]any{"namespace": "ns", "name": "job"},
		"spec":     map[string]any{"job": map[string]any{"upgradeMode": "last-state"}},
	}
	raw, err := json.Marshal(manifest)
	if err != nil {
		t.Fatal(err)
	}
	return &workv1.ManifestWork{
		Spec: workv1.ManifestWorkSpec{
			Workload: workv1.ManifestsTemplate{Manifests: []workv1.Manifest{{RawExtension: runtime.RawExtension{Raw: raw}}}},
			ManifestConfigs: []workv1.ManifestConfigOption{{
				ResourceIdentifier: workv1.ResourceIdentifier{Group: "flink.apache.org", Resource: "flinkdeployments", Namespace: "ns", Name: "job"},
				FeedbackRules: []workv1.FeedbackRule{{Type: workv1.JSONPathsType, JsonPaths: []workv1.JsonPath{
					{Name: "jobId", Path: ".status.jobStatus.jobId"},
					{Name: "jobStatus", Path: ".status.jobStatus"},
					{Name: "restarts", Path: ".status.restarts"},
				}}},
			}},
		},
		Status: workv1.ManifestWorkStatus{ResourceStatus: workv1.ManifestResourceStatus{Manifests: []workv1.ManifestCondition{{
			ResourceMeta:    workv1.ManifestResourceMeta{Ordinal: 0},
			StatusFeedbacks: workv1.StatusFeedbackResult{Values: values},
		}}}},
	}
}

func TestObservedWorkload(t *testing.T) {
	id, raw, n := "4f6a", `{"state":"RUNNING","jobId":"4f6a","checkpoints":3}`, int64(2)
	mw := testWork(t, []workv1.FeedbackValue{
		{Name: "jobStatus", Value: workv1.FieldValue{Type: workv1.JsonRaw, JsonRaw: &raw}},
		{Name: "restarts", Value: workv1.FieldValue{Type: workv1.Integer, Integer: &n}},
		{Name: "unknown", Value: workv1.FieldValue{Type: workv1.String, String: &id}},
	})
	obj, ok, err := observedWorkload(mw, 0)
	if err != nil || !ok {
		t.Fatalf("observedWorkload: ok=%v err=%v", ok, err)
	}
	want := map[string]any{"jobStatus": map[string]any{"state": "RUNNING", "jobId": "4f6a", "checkpoints": int64(3)}, "restarts": int64(2)}
	if got := obj.Object["status"]; !reflect.DeepEqual(got, want) {
		t.Fatalf("status = %#v, want %#v", got, want)
	}
	if obj.GetKind() != "FlinkDeployment" || obj.GetName() != "job" {
		t.Fatalf("manifest lost: %v", obj.Object)
	}

	// No feedback yet: not ok. A value of a type with nothing set: error.
	if _, ok, err := observedWorkload(testWork(t, nil), 0); ok || err != nil {
		t.Fatalf("no feedback: ok=%v err=%v", ok, err)
	}
	bad := testWork(t, []workv1.FeedbackValue{{Name: "jobId", Value: workv1.FieldValue{Type: workv1.String}}})
	if _, _, err := observedWorkload(bad, 0); err == nil {
		t.Fatal("a feedback value without a value was accepted")
	}
	if _, _, err := observedWorkload(mw, 3); err == nil {
		t.Fatal("a missing manifest ordinal was accepted")
	}
}

func TestDecodeStateNamesTheField(t *testing.T) {
	for name, raw := range map[string]string{
		"not json":     `{`,
		"bad version":  `{"version":"v0"}`,
		"invalid task": `{"version":"` + FailoverStateVersion + `","tasks":[{"fromCluster":"","reason":"TaintUntolerated","producer":"p"}]}`,
	} {
		_, err := decodeState(map[string]string{FailoverStateAnnotation: raw})
		var fe *field.Error
		if err == nil || (!errors.As(err, &fe) && !strings.Contains(err.Error(), FailoverStateAnnotation)) {
			t.Errorf("%s: error %v does not name the annotation", name, err)
		}
	}
	st := FailoverState{Tasks: []eviction.GracefulEvictionTask{{FromCluster: "a", Reason: eviction.ReasonTaintUntolerated, Producer: "p"}}}
	ann := map[string]string{}
	if changed, err := encodeState(&ann, st); err != nil || !changed {
		t.Fatalf("encode: %v %v", changed, err)
	}
	back, err := decodeState(ann)
	if err != nil || len(back.Tasks) != 1 || back.Tasks[0].FromCluster != "a" {
		t.Fatalf("round trip: %+v %v", back, err)
	}
	if changed, _ := encodeState(&ann, back); changed {
		t.Fatal("encoding the same state again reports a change")
	}
	if changed, _ := encodeState(&ann, FailoverState{}); !changed || len(ann) != 0 {
		t.Fatalf("an empty state must remove the annotation: %v", ann)
	}
}

func TestDecodePolicy(t *testing.T) {
	if p, err := decodePolicy(nil); p != nil || err != nil {
		t.Fatalf("no annotation: %v %v", p, err)
	}
	_, err := decodePolicy(map[string]string{FailoverPolicyAnnotation: `{"application":{"decisionConditions":{"tolerationSeconds":-1}}}`})
	if err == nil || !strings.Contains(err.Error(), "tolerationSeconds") {
		t.Fatalf("negative tolerationSeconds: %v", err)
	}
}

func TestInjectionStateFollowsTheSingleWriterRule(t *testing.T) {
	state := map[string]string{"job": "1"}
	direct := eviction.GracefulEvictionTask{FromCluster: "a", PurgeMode: eviction.PurgeDirectly, PreservedLabelState: state, ClustersBeforeFailover: []string{"a"}}
	if got, ok := injectionState("b", []string{"b"}, []eviction.GracefulEvictionTask{direct}); !ok || got["job"] != "1" {
		t.Fatalf("Directly, one new target: %v %v", got, ok)
	}
	if _, ok := injectionState("b", []string{"b", "c"}, []eviction.GracefulEvictionTask{direct}); ok {
		t.Fatal("state injected into one of two new targets")
	}
	graceful := direct
	graceful.PurgeMode = eviction.PurgeGracefully
	if _, ok := injectionState("b", []string{"b"}, []eviction.GracefulEvictionTask{graceful}); ok {
		t.Fatal("state injected while the old copy keeps running (Gracefully)")
	}
	if _, ok := injectionState("a", []string{"a"}, []eviction.GracefulEvictionTask{direct}); ok {
		t.Fatal("state injected back into the cluster it came from")
	}
}

func TestOldCopiesFromManifestWorks(t *testing.T) {
	deleting := metav1.NewTime(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	works := map[string]oldCopy{
		"running":  {Work: &metav1.ObjectMeta{Name: "w"}},
		"deleting": {Work: &metav1.ObjectMeta{Name: "w", DeletionTimestamp: &deleting}, Unreachable: true},
	}
	old := oldCopies(func(cluster string) oldCopy { return works[cluster] })
	if got := old.OldCopy("gone"); !got.Gone {
		t.Fatalf("no work: %+v, want gone", got)
	}
	if got := old.OldCopy("running"); got.Gone || !got.DeletingSince.IsZero() || got.Unreachable {
		t.Fatalf("running work: %+v", got)
	}
	if got := old.OldCopy("deleting"); got.Gone || !got.DeletingSince.Equal(deleting.Time) || !got.Unreachable {
		t.Fatalf("work being deleted on an unreachable cluster: %+v", got)
	}
}
