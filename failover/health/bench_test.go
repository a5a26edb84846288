package health

import (
	"os"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// benchDeployment is a healthy Deployment as the apimachinery JSON decoder
// produces it (integers are int64), with the metadata and spec a real object
// carries so that the typed conversion below pays a realistic price.
func benchDeployment(b *testing.B) *unstructured.Unstructured {
	b.Helper()
	obj := &unstructured.Unstructured{}
	raw, err := os.ReadFile("testdata/deployment-healthy.json")
	if err != nil {
		b.Fatal(err)
	}
	if err := obj.UnmarshalJSON(raw); err != nil {
		b.Fatal(err)
	}
	return obj
}

// BenchmarkDeploymentHealth measures the built-in Deployment rule through a
// Registry, as a controller calls it. Target: <= 80 ns/op, 0 allocs.
func BenchmarkDeploymentHealth(b *testing.B) {
	obj := benchDeployment(b)
	r := NewRegistry(RegistryConfig{})
	if got := r.Interpret(obj); got.Status != Healthy {
		b.Fatalf("Interpret = %+v, want Healthy", got)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU()
	for b.Loop() {
		if r.Interpret(obj).Status != Healthy {
			b.Fatal("not healthy")
		}
	}
	cpu.report(b)
}

// BenchmarkDeploymentHealthRule calls the built-in Deployment rule
// directly, without the registry's kind dispatch, to show what the rule
// itself costs.
func BenchmarkDeploymentHealthRule(b *testing.B) {
	obj := benchDeployment(b)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU()
	for b.Loop() {
		if r, err := DeploymentHealth(obj); err != nil || r.Status != Healthy {
			b.Fatal("not healthy")
		}
	}
	cpu.report(b)
}

// BenchmarkDeploymentFieldReads is the floor under BenchmarkDeploymentHealth:
// the ten map reads the decision cannot do without (apiVersion and kind for
// the dispatch; metadata, spec and status; generation, replicas,
// observedGeneration, updatedReplicas and availableReplicas), with their
// type assertions and nothing else: no dispatch table, no comparison, no
// result.
func BenchmarkDeploymentFieldReads(b *testing.B) {
	obj := benchDeployment(b).Object
	b.ReportAllocs()
	b.ResetTimer()
	cpu := startCPU()
	for b.Loop() {
		apiVersion, _ := obj["apiVersion"].(string)
		kind, _ := obj["kind"].(string)
		metadata, _ := obj["metadata"].(map[string]any)
		spec, _ := obj["spec"].(map[string]any)
		status, _ := obj["status"].(map[string]any)
		generation, _ := metadata["generation"].(int64)
		replicas, _ := spec["replicas"].(int64)
		observed, _ := status["observedGeneration"].(int64)
		updated, _ := status["updatedReplicas"].(int64)
		available, _ := status["availableReplicas"].(int64)
		if apiVersion == "" || kind == "" || generation+replicas+observed+updated+available == 0 {
			b.Fatal("fields missing")
		}
	}
	cpu.report(b)
}

// BenchmarkDeploymentHealthTypedReference is the approach this package
// avoids: convert the unstructured Deployment to appsv1.Deployment first,
// then compare typed fields. It runs in the same process as
// BenchmarkDeploymentHealth so that the ratio is measured on one machine.
func BenchmarkDeploymentHealthTypedReference(b *testing.B) {
	obj := benchDeployment(b)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		d := &appsv1.Deployment{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, d); err != nil {
			b.Fatal(err)
		}
		ok := d.Status.ObservedGeneration == d.Generation &&
			(d.Spec.Replicas == nil || d.Status.UpdatedReplicas >= *d.Spec.Replicas) &&
			d.Status.AvailableReplicas >= d.Status.UpdatedReplicas
		if !ok {
			b.Fatal("not healthy")
		}
	}
}
