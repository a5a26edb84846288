package conformance

import (
	"bytes"
	"encoding/json"
	"os"
	"testing"
	"time"

	policyv1alpha1 "github.com/karmada-io/karmada/pkg/apis/policy/v1alpha1"
	"github.com/karmada-io/karmada/pkg/resourceinterpreter/default/native"
	"github.com/karmada-io/karmada/pkg/util/helper"
	segmentiojson "github.com/segmentio/encoding/json"
	"github.com/tidwall/gjson"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/preservation"
)

// The benchmarks below run Karmada v1.18.1's own function and fleetover's
// on the same input in one process, so that their ratio is measured on one
// machine under one load; compare ratios from one run, never times from
// two. The inputs are those of the library's own benchmarks.
//
//	cd hack/conformance && go test -run '^$' -bench SideBySide -benchmem -count=3 .

// BenchmarkSideBySideTolerations: two NoExecute taints, Karmada's two
// default tolerations.
func BenchmarkSideBySideTolerations(b *testing.B) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	tolerations := failover.DefaultClusterTolerations(failover.DefaultTolerationsConfig{})
	taints := []corev1.Taint{
		{Key: failover.TaintKeyClusterNotReady, Effect: corev1.TaintEffectNoExecute, TimeAdded: &metav1.Time{Time: now.Add(-time.Minute)}},
		{Key: failover.TaintKeyClusterUnreachable, Effect: corev1.TaintEffectNoExecute, TimeAdded: &metav1.Time{Time: now.Add(-2 * time.Minute)}},
	}
	want := karmadaVerdict(taints, tolerations, now)
	if got := fleetoverVerdict(taints, tolerations, now); got != want || want.action != failover.EvictAfter {
		b.Fatalf("fleetover %+v, Karmada %+v", got, want)
	}
	b.Run("karmada", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			karmadaVerdict(taints, tolerations, now)
		}
	})
	b.Run("fleetover", func(b *testing.B) {
		b.ReportAllocs()
		var d failover.TolerationDecision
		for b.Loop() {
			d = failover.EvaluateTolerations(taints, tolerations, now)
		}
		if d.Action != failover.EvictAfter {
			b.Fatal(d.Action)
		}
	})
}

// BenchmarkSideBySideStateExtraction: two rules over the ~1.2 KB Flink
// status, raw JSON. The floor rows validate the same bytes with the
// fastest pure-Go validators at hand and look both values up without
// validating: the extraction validates the whole document, as decoding it
// would.
func BenchmarkSideBySideStateExtraction(b *testing.B) {
	raw, err := os.ReadFile("../../preservation/testdata/flinkdeployment-status.json")
	if err != nil {
		b.Fatal(err)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		b.Fatal(err)
	}
	status := buf.Bytes()
	karmadaRules := &policyv1alpha1.StatePreservation{Rules: []policyv1alpha1.StatePreservationRule{
		{AliasLabelName: "flink.apache.org/job-id", JSONPath: "{ .jobStatus.jobId }"},
		{AliasLabelName: "flink.apache.org/job-state", JSONPath: "{ .jobStatus.state }"},
	}}
	rules, err := preservation.Compile([]preservation.StatePreservationRule{
		{AliasLabelName: "flink.apache.org/job-id", JSONPath: "{ .jobStatus.jobId }"},
		{AliasLabelName: "flink.apache.org/job-state", JSONPath: "{ .jobStatus.state }"},
	})
	if err != nil {
		b.Fatal(err)
	}
	want, err := helper.BuildPreservedLabelState(karmadaRules, status)
	if err != nil {
		b.Fatal(err)
	}
	got, err := rules.ExtractFromJSON(status)
	if err != nil || len(got) != 2 || got["flink.apache.org/job-id"] != want["flink.apache.org/job-id"] || got["flink.apache.org/job-state"] != want["flink.apache.org/job-state"] {
		b.Fatalf("fleetover %v (%v), Karmada %v", got, err, want)
	}
	run := func(name string, f func() bool) {
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(status)))
			b.ReportAllocs()
			for b.Loop() {
				if !f() {
					b.Fatal("failed")
				}
			}
		})
	}
	run("karmada", func() bool {
		_, err := helper.BuildPreservedLabelState(karmadaRules, status)
		return err == nil
	})
	out := map[string]string{}
	run("fleetover", func() bool { return rules.ExtractFromJSONInto(out, status) == nil })
	run("floor/encoding-json-Valid", func() bool { return json.Valid(status) })
	run("floor/segmentio-Valid", func() bool { return segmentiojson.Valid(status) })
	run("floor/gjson-Valid", func() bool { return gjson.ValidBytes(status) })
	run("floor/gjson-lookup-unvalidated", func() bool {
		r := gjson.GetManyBytes(status, "jobStatus.jobId", "jobStatus.state")
		return r[0].Str != "" && r[1].Str != ""
	})
}

// BenchmarkSideBySideDeploymentHealth: the healthy Deployment of the health
// package's benchmarks, as the apimachinery JSON decoder produces it, through Karmada's default
// interpreter and through a fleetover registry (kind dispatch included).
func BenchmarkSideBySideDeploymentHealth(b *testing.B) {
	raw, err := os.ReadFile("../../failover/health/testdata/deployment-healthy.json")
	if err != nil {
		b.Fatal(err)
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(raw); err != nil {
		b.Fatal(err)
	}
	karmada := native.NewDefaultInterpreter()
	registry := health.NewRegistry(health.RegistryConfig{})
	if ok, err := karmada.InterpretHealth(obj); err != nil || !ok || registry.Interpret(obj).Status != health.Healthy {
		b.Fatalf("Karmada %v %v, fleetover %+v", ok, err, registry.Interpret(obj))
	}
	b.Run("karmada", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if ok, err := karmada.InterpretHealth(obj); err != nil || !ok {
				b.Fatal("not healthy")
			}
		}
	})
	b.Run("fleetover", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if registry.Interpret(obj).Status != health.Healthy {
				b.Fatal("not healthy")
			}
		}
	})
}
