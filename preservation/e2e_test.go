package preservation

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetover/fleetover/eviction"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/yaml"
)

// The three end-to-end cases of the stateful failover design: a workload
// runs on member1 alone, member1 fails, state is extracted from member1's
// last reported status, carried by the eviction task and injected into the
// manifest dispatched to the new cluster only.

const replicasPolicy = `
rules:
  - aliasLabelName: failover.karmada.io/replicas
    jsonPath: "{ .replicas }"
  - aliasLabelName: failover.karmada.io/readyReplicas
    jsonPath: "{ .readyReplicas }"
`

func decodePolicy(t *testing.T, doc string) *Rules {
	t.Helper()
	var sp StatePreservation
	if err := yaml.UnmarshalStrict([]byte(doc), &sp); err != nil {
		t.Fatal(err)
	}
	if errs := ValidateStatePreservation(&sp, field.NewPath("spec", "failover", "cluster", "statePreservation")); len(errs) > 0 {
		t.Fatal(errs.ToAggregate())
	}
	rules, err := Compile(sp.Rules)
	if err != nil {
		t.Fatal(err)
	}
	return rules
}

func marshal(t *testing.T, v any) []byte {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func workload(apiVersion, kind, name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": apiVersion,
		"kind":       kind,
		"metadata":   map[string]any{"name": name, "namespace": "default", "labels": map[string]any{"app": name}},
	}}
}

// failover runs one failover of template from member1 to member2 and
// returns the manifests each cluster would receive afterwards.
func failover(t *testing.T, rules *Rules, failedStatus []byte, template *unstructured.Unstructured, extraBefore ...string) map[string]*unstructured.Unstructured {
	t.Helper()
	state, err := rules.ExtractFromJSON(failedStatus)
	if err != nil {
		t.Fatal(err)
	}
	task := eviction.GracefulEvictionTask{
		FromCluster:            "member1",
		PurgeMode:              eviction.PurgeDirectly,
		ClustersBeforeFailover: append([]string{"member1"}, extraBefore...),
		PreservedLabelState:    state,
		CreationTimestamp:      &metav1.Time{Time: time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)},
	}
	injector := Injector{Enabled: true}
	out := map[string]*unstructured.Unstructured{}
	for _, cluster := range []string{"member1", "member2", "member3"} {
		manifest := template.DeepCopy()
		if _, err := injector.InjectFor(manifest, cluster, []eviction.TargetCluster{{Name: cluster}}, []eviction.GracefulEvictionTask{task}); err != nil {
			t.Fatal(err)
		}
		out[cluster] = manifest
	}
	return out
}

func assertLabels(t *testing.T, obj *unstructured.Unstructured, want map[string]string) {
	t.Helper()
	got := obj.GetLabels()
	if len(got) != len(want) {
		t.Fatalf("labels %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("labels %v, want %v", got, want)
		}
	}
}

func TestStatefulFailoverDeployment(t *testing.T) {
	rules := decodePolicy(t, replicasPolicy)
	status := marshal(t, appsv1.DeploymentStatus{ObservedGeneration: 2, Replicas: 3, ReadyReplicas: 2, AvailableReplicas: 2, UpdatedReplicas: 3})
	got := failover(t, rules, status, workload("apps/v1", "Deployment", "deploy"))

	assertLabels(t, got["member2"], map[string]string{"app": "deploy", "failover.karmada.io/replicas": "3", "failover.karmada.io/readyReplicas": "2"})
	assertLabels(t, got["member1"], map[string]string{"app": "deploy"}) // the failed cluster
}

func TestStatefulFailoverStatefulSet(t *testing.T) {
	rules := decodePolicy(t, replicasPolicy)
	status := marshal(t, appsv1.StatefulSetStatus{ObservedGeneration: 1, Replicas: 2, ReadyReplicas: 2, CurrentReplicas: 2, CurrentRevision: "sts-7d9f"})
	// member3 also ran the workload before the failover (application
	// failover of a workload spread over two clusters): it gets nothing.
	got := failover(t, rules, status, workload("apps/v1", "StatefulSet", "sts"), "member3")

	assertLabels(t, got["member2"], map[string]string{"app": "sts", "failover.karmada.io/replicas": "2", "failover.karmada.io/readyReplicas": "2"})
	assertLabels(t, got["member1"], map[string]string{"app": "sts"})
	assertLabels(t, got["member3"], map[string]string{"app": "sts"})
}

func TestStatefulFailoverFlinkDeployment(t *testing.T) {
	status := compactFlinkStatus(t)
	rules := decodePolicy(t, `
rules:
  - aliasLabelName: failover.karmada.io/failover-jobid
    jsonPath: "{ .jobStatus.jobId }"
`)
	got := failover(t, rules, status, workload("flink.apache.org/v1beta1", "FlinkDeployment", "foo"))
	assertLabels(t, got["member2"], map[string]string{"app": "foo", "failover.karmada.io/failover-jobid": "c7a3b1f0e4d24a5b9f8e6d7c5b4a3921"})
	assertLabels(t, got["member1"], map[string]string{"app": "foo"})
}

// The design's own example spells the field jobID; the Flink operator
// writes jobId. The typo must stop the extraction with an error that names
// the rule and the path, never carry an empty label.
func TestStatefulFailoverFlinkJobIDTypo(t *testing.T) {
	rules := decodePolicy(t, `
rules:
  - aliasLabelName: failover.karmada.io/failover-jobid
    jsonPath: "{ .jobStatus.jobID }"
`)
	state, err := rules.ExtractFromJSON(compactFlinkStatus(t))
	if state != nil || !errors.Is(err, ErrFieldNotFound) {
		t.Fatalf("got state %v, error %v; want ErrFieldNotFound", state, err)
	}
	for _, part := range []string{`"failover.karmada.io/failover-jobid"`, `"{ .jobStatus.jobID }"`, `.status.jobStatus has no field "jobID"`} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q does not mention %s", err, part)
		}
	}
	// With AllowMissing the rule is skipped, so nothing is carried or
	// injected: still no empty label.
	state, err = rules.ExtractFromJSON(compactFlinkStatus(t), AllowMissing())
	if err != nil || len(state) != 0 {
		t.Fatalf("AllowMissing: got %v, %v", state, err)
	}
	manifest := workload("flink.apache.org/v1beta1", "FlinkDeployment", "foo")
	injected, err := Injector{Enabled: true}.InjectFor(manifest, "member2", nil, []eviction.GracefulEvictionTask{{FromCluster: "member1", PurgeMode: eviction.PurgeDirectly, ClustersBeforeFailover: []string{"member1"}, PreservedLabelState: state}})
	if injected || err != nil {
		t.Fatalf("injected %v, %v", injected, err)
	}
	assertLabels(t, manifest, map[string]string{"app": "foo"})
}
