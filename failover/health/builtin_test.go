package health

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// decode builds an object the way a client receives it (integers as int64,
// with apimachinery's JSON decoder).
func decode(t testing.TB, doc string) *unstructured.Unstructured {
	t.Helper()
	m := map[string]any{}
	if err := utiljson.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatalf("decoding test object: %v\n%s", err, doc)
	}
	return &unstructured.Unstructured{Object: m}
}

// decodeFloats builds the same object with encoding/json, whose numbers are
// float64, as hand-built or test objects often are.
func decodeFloats(t testing.TB, doc string) *unstructured.Unstructured {
	t.Helper()
	m := map[string]any{}
	if err := json.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatalf("decoding test object: %v", err)
	}
	return &unstructured.Unstructured{Object: m}
}

type builtinCase struct {
	name       string
	doc        string
	want       Status
	wantReason string // substring of the reason; empty skips the check
}

func runBuiltinCases(t *testing.T, rule InterpreterFunc, cases []builtinCase) {
	t.Helper()
	registry := NewRegistry(RegistryConfig{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, obj := range []*unstructured.Unstructured{decode(t, tc.doc), decodeFloats(t, tc.doc)} {
				got := registry.Interpret(obj)
				if got.Status != tc.want {
					t.Fatalf("Registry.Interpret = %+v, want status %s", got, tc.want)
				}
				if !strings.Contains(got.Reason, tc.wantReason) {
					t.Errorf("reason %q does not contain %q", got.Reason, tc.wantReason)
				}
				direct, err := rule(obj)
				if err != nil {
					t.Fatalf("rule returned error %v", err)
				}
				if direct != got {
					t.Errorf("rule = %+v, registry = %+v", direct, got)
				}
			}
		})
	}
}

func TestDeploymentHealth(t *testing.T) {
	runBuiltinCases(t, DeploymentHealth, []builtinCase{
		{"healthy", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"generation":2},
			"spec":{"replicas":3},"status":{"observedGeneration":2,"updatedReplicas":3,"availableReplicas":3}}`,
			Healthy, ReasonHealthy},
		{"generation mismatch", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"generation":3},
			"spec":{"replicas":3},"status":{"observedGeneration":2,"updatedReplicas":3,"availableReplicas":3}}`,
			Unknown, "observedGeneration 2 differs from metadata.generation 3"},
		{"rollout not finished", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"generation":2},
			"spec":{"replicas":3},"status":{"observedGeneration":2,"updatedReplicas":2,"availableReplicas":2}}`,
			Unhealthy, "status.updatedReplicas 2 < spec.replicas 3"},
		{"updated replica unavailable", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"generation":2},
			"spec":{"replicas":3},"status":{"observedGeneration":2,"updatedReplicas":3,"availableReplicas":1}}`,
			Unhealthy, "status.availableReplicas 1 < status.updatedReplicas 3"},
		{"replicas default to one", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"generation":1},
			"spec":{},"status":{"observedGeneration":1}}`,
			Unhealthy, "spec.replicas 1"},
		{"scaled to zero", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"generation":5},
			"spec":{"replicas":0},"status":{"observedGeneration":5}}`,
			Healthy, ""},
		{"no status", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"generation":1},"spec":{"replicas":1}}`,
			Unknown, ReasonNoStatus},
		{"older API version", `{"apiVersion":"apps/v1beta2","kind":"Deployment","metadata":{"generation":1},
			"spec":{"replicas":1},"status":{"observedGeneration":1,"updatedReplicas":1,"availableReplicas":1}}`,
			Healthy, ""},
	})
}

func TestStatefulSetHealth(t *testing.T) {
	runBuiltinCases(t, StatefulSetHealth, []builtinCase{
		{"healthy", `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"generation":1},
			"spec":{"replicas":3},"status":{"observedGeneration":1,"updatedReplicas":3,"availableReplicas":3}}`,
			Healthy, ""},
		{"generation mismatch", `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"generation":2},
			"spec":{"replicas":3},"status":{"observedGeneration":1,"updatedReplicas":3,"availableReplicas":3}}`,
			Unknown, "observedGeneration"},
		{"update not finished", `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"generation":1},
			"spec":{"replicas":3},"status":{"observedGeneration":1,"updatedReplicas":1,"availableReplicas":3}}`,
			Unhealthy, "status.updatedReplicas 1 < spec.replicas - partition 3"},
		{"partitioned update finished", `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"generation":1},
			"spec":{"replicas":3,"updateStrategy":{"type":"RollingUpdate","rollingUpdate":{"partition":2}}},
			"status":{"observedGeneration":1,"updatedReplicas":1,"availableReplicas":3}}`,
			Healthy, ""},
		{"replica unavailable", `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"generation":1},
			"spec":{"replicas":3},"status":{"observedGeneration":1,"updatedReplicas":3,"availableReplicas":2}}`,
			Unhealthy, "status.availableReplicas 2 < spec.replicas 3"},
		{"updated replica unavailable", `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"generation":1},
			"spec":{"replicas":2},"status":{"observedGeneration":1,"updatedReplicas":3,"availableReplicas":2}}`,
			Unhealthy, "status.availableReplicas 2 < status.updatedReplicas 3"},
		{"no status", `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"generation":1},"spec":{"replicas":1}}`,
			Unknown, ReasonNoStatus},
	})
}

func TestReplicaSetHealth(t *testing.T) {
	runBuiltinCases(t, ReplicaSetHealth, []builtinCase{
		{"healthy", `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"generation":1},
			"spec":{"replicas":2},"status":{"observedGeneration":1,"availableReplicas":2}}`, Healthy, ""},
		{"generation mismatch", `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"generation":2},
			"spec":{"replicas":2},"status":{"observedGeneration":1,"availableReplicas":2}}`, Unknown, "observedGeneration"},
		{"replica unavailable", `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"generation":1},
			"spec":{"replicas":2},"status":{"observedGeneration":1,"availableReplicas":1}}`,
			Unhealthy, "status.availableReplicas 1 < spec.replicas 2"},
	})
}

func TestDaemonSetHealth(t *testing.T) {
	runBuiltinCases(t, DaemonSetHealth, []builtinCase{
		{"healthy", `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"generation":1},
			"status":{"observedGeneration":1,"desiredNumberScheduled":4,"updatedNumberScheduled":4,"numberAvailable":4}}`,
			Healthy, ""},
		{"generation mismatch", `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"generation":2},
			"status":{"observedGeneration":1,"desiredNumberScheduled":4,"updatedNumberScheduled":4,"numberAvailable":4}}`,
			Unknown, "observedGeneration"},
		{"update not finished", `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"generation":1},
			"status":{"observedGeneration":1,"desiredNumberScheduled":4,"updatedNumberScheduled":3,"numberAvailable":3}}`,
			Unhealthy, "status.updatedNumberScheduled 3 < status.desiredNumberScheduled 4"},
		{"updated pod unavailable", `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"generation":1},
			"status":{"observedGeneration":1,"desiredNumberScheduled":4,"updatedNumberScheduled":4,"numberAvailable":2}}`,
			Unhealthy, "status.numberAvailable 2 < status.updatedNumberScheduled 4"},
	})
}

func TestJobHealth(t *testing.T) {
	runBuiltinCases(t, JobHealth, []builtinCase{
		{"running", `{"apiVersion":"batch/v1","kind":"Job","status":{"active":1}}`, Healthy, ""},
		{"complete", `{"apiVersion":"batch/v1","kind":"Job","status":{"succeeded":1,
			"conditions":[{"type":"SuccessCriteriaMet","status":"True"},{"type":"Complete","status":"True"}]}}`, Healthy, ""},
		{"failed", `{"apiVersion":"batch/v1","kind":"Job","status":{"failed":6,
			"conditions":[{"type":"Failed","status":"True","reason":"BackoffLimitExceeded"}]}}`,
			Unhealthy, "Failed is True: BackoffLimitExceeded"},
		{"failing", `{"apiVersion":"batch/v1","kind":"Job","status":{"failed":6,
			"conditions":[{"type":"FailureTarget","status":"True","reason":"BackoffLimitExceeded"}]}}`,
			Unhealthy, "FailureTarget is True"},
		{"failed condition false", `{"apiVersion":"batch/v1","kind":"Job","status":{
			"conditions":[{"type":"Failed","status":"False"}]}}`, Healthy, ""},
		{"no status", `{"apiVersion":"batch/v1","kind":"Job"}`, Unknown, ReasonNoStatus},
	})
}

func TestPodHealth(t *testing.T) {
	runBuiltinCases(t, PodHealth, []builtinCase{
		{"running and ready", `{"apiVersion":"v1","kind":"Pod","status":{"phase":"Running",
			"conditions":[{"type":"PodScheduled","status":"True"},{"type":"Ready","status":"True"}]}}`, Healthy, ""},
		{"succeeded", `{"apiVersion":"v1","kind":"Pod","status":{"phase":"Succeeded"}}`, Healthy, ""},
		{"running not ready", `{"apiVersion":"v1","kind":"Pod","status":{"phase":"Running",
			"conditions":[{"type":"Ready","status":"False"}]}}`, Unhealthy, "not Ready"},
		{"running without conditions", `{"apiVersion":"v1","kind":"Pod","status":{"phase":"Running"}}`, Unhealthy, "not Ready"},
		{"pending", `{"apiVersion":"v1","kind":"Pod","status":{"phase":"Pending"}}`, Unhealthy, "Pending"},
		{"failed", `{"apiVersion":"v1","kind":"Pod","status":{"phase":"Failed"}}`, Unhealthy, "Failed"},
		{"phase unknown", `{"apiVersion":"v1","kind":"Pod","status":{"phase":"Unknown"}}`, Unknown, "Unknown"},
		{"generation mismatch", `{"apiVersion":"v1","kind":"Pod","metadata":{"generation":2},"status":{"observedGeneration":1,
			"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}`, Unknown, "observedGeneration"},
		{"observedGeneration absent", `{"apiVersion":"v1","kind":"Pod","metadata":{"generation":2},"status":{
			"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}}`, Healthy, ""},
		{"no status", `{"apiVersion":"v1","kind":"Pod"}`, Unknown, ReasonNoStatus},
	})
}

func TestServiceHealth(t *testing.T) {
	runBuiltinCases(t, ServiceHealth, []builtinCase{
		{"cluster IP", `{"apiVersion":"v1","kind":"Service","spec":{"type":"ClusterIP"}}`, Healthy, ""},
		{"type absent", `{"apiVersion":"v1","kind":"Service","spec":{}}`, Healthy, ""},
		{"load balancer with IP", `{"apiVersion":"v1","kind":"Service","spec":{"type":"LoadBalancer"},
			"status":{"loadBalancer":{"ingress":[{"ip":"203.0.113.7"}]}}}`, Healthy, ""},
		{"load balancer with hostname", `{"apiVersion":"v1","kind":"Service","spec":{"type":"LoadBalancer"},
			"status":{"loadBalancer":{"ingress":[{},{"hostname":"lb.example.com"}]}}}`, Healthy, ""},
		{"load balancer pending", `{"apiVersion":"v1","kind":"Service","spec":{"type":"LoadBalancer"},
			"status":{"loadBalancer":{}}}`, Unhealthy, "no ingress"},
		{"load balancer empty entry", `{"apiVersion":"v1","kind":"Service","spec":{"type":"LoadBalancer"},
			"status":{"loadBalancer":{"ingress":[{"ip":""}]}}}`, Unhealthy, "no ingress"},
		{"load balancer no status", `{"apiVersion":"v1","kind":"Service","spec":{"type":"LoadBalancer"}}`, Unknown, ReasonNoStatus},
	})
}

func TestIngressHealth(t *testing.T) {
	runBuiltinCases(t, IngressHealth, []builtinCase{
		{"address", `{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","status":{"loadBalancer":{"ingress":[{"ip":"198.51.100.1"}]}}}`, Healthy, ""},
		{"hostname, extensions group", `{"apiVersion":"extensions/v1beta1","kind":"Ingress","status":{"loadBalancer":{"ingress":[{"hostname":"a.example"}]}}}`, Healthy, ""},
		{"no address", `{"apiVersion":"networking.k8s.io/v1","kind":"Ingress","status":{"loadBalancer":{}}}`, Unhealthy, "no ingress"},
	})
}

func TestPersistentVolumeClaimHealth(t *testing.T) {
	runBuiltinCases(t, PersistentVolumeClaimHealth, []builtinCase{
		{"bound", `{"apiVersion":"v1","kind":"PersistentVolumeClaim","status":{"phase":"Bound"}}`, Healthy, ""},
		{"pending", `{"apiVersion":"v1","kind":"PersistentVolumeClaim","status":{"phase":"Pending"}}`, Unhealthy, "Pending"},
		{"lost", `{"apiVersion":"v1","kind":"PersistentVolumeClaim","status":{"phase":"Lost"}}`, Unhealthy, "Lost"},
	})
}

func TestPodDisruptionBudgetHealth(t *testing.T) {
	runBuiltinCases(t, PodDisruptionBudgetHealth, []builtinCase{
		{"healthy", `{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"generation":1},
			"status":{"observedGeneration":1,"currentHealthy":3,"desiredHealthy":2}}`, Healthy, ""},
		{"generation mismatch", `{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"generation":2},
			"status":{"observedGeneration":1,"currentHealthy":3,"desiredHealthy":2}}`, Unknown, "observedGeneration"},
		{"too few healthy", `{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"generation":1},
			"status":{"observedGeneration":1,"currentHealthy":1,"desiredHealthy":2}}`,
			Unhealthy, "status.currentHealthy 1 < status.desiredHealthy 2"},
	})
}

func TestFlinkDeploymentHealth(t *testing.T) {
	const head = `"apiVersion":"flink.apache.org/v1beta1","kind":"FlinkDeployment","metadata":{"generation":3}`
	runBuiltinCases(t, FlinkDeploymentHealth, []builtinCase{
		{"running and stable", `{` + head + `,"status":{"observedGeneration":3,"lifecycleState":"STABLE",
			"jobManagerDeploymentStatus":"READY","jobStatus":{"state":"RUNNING","jobId":"44cc"}}}`, Healthy, ""},
		{"running, deployed, operator without observedGeneration", `{` + head + `,"status":{"lifecycleState":"DEPLOYED",
			"jobManagerDeploymentStatus":"READY","jobStatus":{"state":"RUNNING"}}}`, Healthy, ""},
		{"generation mismatch", `{` + head + `,"status":{"observedGeneration":2,"lifecycleState":"STABLE",
			"jobStatus":{"state":"RUNNING"}}}`, Unknown, "observedGeneration"},
		{"error", `{` + head + `,"status":{"observedGeneration":3,"lifecycleState":"DEPLOYED",
			"error":"image pull failed","jobStatus":{"state":"RECONCILING"}}}`, Unhealthy, "flink error: image pull failed"},
		{"lifecycle failed", `{` + head + `,"status":{"observedGeneration":3,"lifecycleState":"FAILED",
			"jobStatus":{"state":"RUNNING"}}}`, Unhealthy, "lifecycle state is FAILED"},
		{"job manager error", `{` + head + `,"status":{"observedGeneration":3,"lifecycleState":"DEPLOYED",
			"jobManagerDeploymentStatus":"ERROR"}}`, Unhealthy, "ERROR"},
		{"job failed in its own code stays", `{` + head + `,"status":{"observedGeneration":3,"lifecycleState":"STABLE",
			"jobStatus":{"state":"FAILED"}}}`, Healthy, ReasonFlinkJobFailedInPlace},
		{"job failed, lifecycle failed, error set: stays", `{` + head + `,"status":{"observedGeneration":3,"lifecycleState":"FAILED",
			"error":"java.lang.NullPointerException","jobStatus":{"state":"FAILED"}}}`, Healthy, ReasonFlinkJobFailedInPlace},
		{"error on a running job stays", `{` + head + `,"status":{"observedGeneration":3,"lifecycleState":"STABLE",
			"error":"checkpoint failed","jobStatus":{"state":"RUNNING"}}}`, Healthy, ReasonFlinkJobFailedInPlace},
		{"job restarting", `{` + head + `,"status":{"observedGeneration":3,"lifecycleState":"DEPLOYED",
			"jobStatus":{"state":"RESTARTING"}}}`, Unhealthy, "job state is RESTARTING"},
		{"job finished", `{` + head + `,"status":{"observedGeneration":3,"lifecycleState":"STABLE",
			"jobStatus":{"state":"FINISHED"}}}`, Healthy, ""},
		{"suspended", `{` + head + `,"status":{"observedGeneration":3,"lifecycleState":"SUSPENDED",
			"jobStatus":{"state":"SUSPENDED"}}}`, Healthy, ""},
		{"session cluster stable", `{` + head + `,"status":{"observedGeneration":3,"lifecycleState":"STABLE",
			"jobManagerDeploymentStatus":"READY"}}`, Healthy, ""},
		{"session cluster upgrading", `{` + head + `,"status":{"observedGeneration":3,"lifecycleState":"UPGRADING"}}`,
			Unhealthy, "lifecycle state is UPGRADING"},
		{"nothing reported", `{` + head + `,"status":{"observedGeneration":3}}`, Unknown, ReasonNoStatus},
		{"no status", `{` + head + `}`, Unknown, ReasonNoStatus},
	})
}

func TestFlinkDeploymentHealthTruncatesLongError(t *testing.T) {
	long := strings.Repeat("x", 5000)
	obj := decode(t, `{"apiVersion":"flink.apache.org/v1beta1","kind":"FlinkDeployment","status":{"error":"`+long+`"}}`)
	got, err := FlinkDeploymentHealth(obj)
	if err != nil || got.Status != Unhealthy {
		t.Fatalf("got %+v, %v; want Unhealthy", got, err)
	}
	if len(got.Reason) > maxErrorReason+40 {
		t.Errorf("reason is %d bytes long, want it truncated near %d", len(got.Reason), maxErrorReason)
	}
}

// TestBuiltinsRejectMalformedFields checks that a field of the wrong type is
// an error naming the field, wrapping ErrMalformedObject, and Unknown.
func TestBuiltinsRejectMalformedFields(t *testing.T) {
	cases := []struct {
		name     string
		rule     InterpreterFunc
		doc      string
		wantPath string
	}{
		{"deployment replicas", DeploymentHealth, `{"metadata":{"generation":1},"spec":{"replicas":"3"},"status":{"observedGeneration":1}}`, "spec.replicas"},
		{"deployment status", DeploymentHealth, `{"status":"ok"}`, "status"},
		{"deployment fractional", DeploymentHealth, `{"metadata":{"generation":1},"spec":{"replicas":1.5},"status":{"observedGeneration":1}}`, "spec.replicas"},
		{"statefulset partition", StatefulSetHealth, `{"spec":{"updateStrategy":{"rollingUpdate":{"partition":true}}},"status":{}}`, "spec.updateStrategy.rollingUpdate.partition"},
		{"daemonset available", DaemonSetHealth, `{"status":{"numberAvailable":[1]}}`, "status.numberAvailable"},
		{"job conditions", JobHealth, `{"status":{"conditions":{"type":"Failed"}}}`, "status.conditions"},
		{"job condition", JobHealth, `{"status":{"conditions":["Failed"]}}`, "status.conditions[]"},
		{"pod phase", PodHealth, `{"status":{"phase":1}}`, "status.phase"},
		{"pod generation", PodHealth, `{"metadata":{"generation":"1"},"status":{"observedGeneration":1}}`, "metadata.generation"},
		{"service type", ServiceHealth, `{"spec":{"type":7}}`, "spec.type"},
		{"ingress entry", IngressHealth, `{"status":{"loadBalancer":{"ingress":["1.2.3.4"]}}}`, "status.loadBalancer.ingress[]"},
		{"pvc phase", PersistentVolumeClaimHealth, `{"status":{"phase":{}}}`, "status.phase"},
		{"pdb current", PodDisruptionBudgetHealth, `{"status":{"currentHealthy":"x"}}`, "status.currentHealthy"},
		{"flink job status", FlinkDeploymentHealth, `{"status":{"jobStatus":"RUNNING"}}`, "status.jobStatus"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.rule(decode(t, tc.doc))
			if !errors.Is(err, ErrMalformedObject) {
				t.Fatalf("error %v does not wrap ErrMalformedObject", err)
			}
			var fe *FieldError
			if !errors.As(err, &fe) || fe.Path != tc.wantPath {
				t.Fatalf("error %v: want a *FieldError for %s", err, tc.wantPath)
			}
			if got.Status != Unknown || got.Reason != err.Error() {
				t.Errorf("result %+v, want Unknown with the error as reason", got)
			}
		})
	}
}

func TestBuiltinsRejectNilObject(t *testing.T) {
	for gk, i := range BuiltinInterpreters() {
		for _, obj := range []*unstructured.Unstructured{nil, {}} {
			got, err := i.Interpret(obj)
			if !errors.Is(err, ErrNoObject) || got.Status != Unknown {
				t.Errorf("%s: Interpret(%v) = %+v, %v; want Unknown and ErrNoObject", gk, obj, got, err)
			}
		}
	}
}

// TestDeploymentHealthAllocatesNothing pins the zero-allocation guarantee of
// the healthy path, which the benchmark only reports.
func TestDeploymentHealthAllocatesNothing(t *testing.T) {
	obj := decode(t, `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"generation":2},
		"spec":{"replicas":3},"status":{"observedGeneration":2,"updatedReplicas":3,"availableReplicas":3}}`)
	r := NewRegistry(RegistryConfig{})
	allocs := testing.AllocsPerRun(100, func() {
		if r.Interpret(obj).Status != Healthy {
			t.Fatal("not healthy")
		}
	})
	if allocs != 0 {
		t.Errorf("Registry.Interpret of a healthy Deployment allocates %v times per run, want 0", allocs)
	}
}

// builtinGVK returns a GroupVersionKind after checking that a built-in
// serves its GroupKind.
func builtinGVK(t *testing.T, group, version, kind string) schema.GroupVersionKind {
	t.Helper()
	gk := schema.GroupKind{Group: group, Kind: kind}
	if _, ok := BuiltinInterpreters()[gk]; !ok {
		t.Fatalf("no built-in for %s", gk)
	}
	return gk.WithVersion(version)
}
