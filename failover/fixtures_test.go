package failover_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/yaml"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/preservation"
)

// seedFailoverBlock reads a fixture and returns the JSON of its spec.failover
// block and the maxGroups of its spread constraint by cluster (0 if none).
func seedFailoverBlock(t *testing.T, name string) ([]byte, int32) {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Spec struct {
			Failover  json.RawMessage `json:"failover"`
			Placement struct {
				SpreadConstraints []struct {
					SpreadByField string `json:"spreadByField"`
					MaxGroups     int32  `json:"maxGroups"`
				} `json:"spreadConstraints"`
			} `json:"placement"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if len(doc.Spec.Failover) == 0 {
		t.Fatalf("%s: no spec.failover block", name)
	}
	var maxGroups int32
	for _, sc := range doc.Spec.Placement.SpreadConstraints {
		if sc.SpreadByField == "cluster" {
			maxGroups = sc.MaxGroups
		}
	}
	return doc.Spec.Failover, maxGroups
}

// decodeFailoverBlockStrictly decodes a failover block with unknown fields
// refused, then checks that it re-encodes to the same document: encoding/json
// matches field names case-insensitively, and the round trip catches a
// "purgemode" that strict decoding alone lets through.
func decodeFailoverBlockStrictly(block []byte) (failover.FailoverBehavior, error) {
	var fb failover.FailoverBehavior
	if err := yaml.UnmarshalStrict(block, &fb); err != nil {
		return fb, err
	}
	var in, out any
	if err := yaml.Unmarshal(block, &in); err != nil {
		return fb, err
	}
	again, err := json.Marshal(&fb)
	if err != nil {
		return fb, err
	}
	if err := json.Unmarshal(again, &out); err != nil {
		return fb, err
	}
	if diff := cmp.Diff(in, out); diff != "" {
		return fb, fmt.Errorf("failover block does not survive a round trip (-document +decoded):\n%s", diff)
	}
	return fb, nil
}

func TestSeedFixturesDecodeDefaultAndValidate(t *testing.T) {
	twoReplicaRules := &preservation.StatePreservation{Rules: []preservation.StatePreservationRule{
		{AliasLabelName: "failover.karmada.io/replicas", JSONPath: "{ .replicas }"},
		{AliasLabelName: "failover.karmada.io/readyReplicas", JSONPath: "{ .readyReplicas }"},
	}}
	directlyWith := func(sp *preservation.StatePreservation) failover.FailoverBehavior {
		return failover.FailoverBehavior{Cluster: &failover.ClusterFailoverBehavior{PurgeMode: eviction.PurgeDirectly, StatePreservation: sp}}
	}
	seed001 := failover.FailoverBehavior{Application: &failover.ApplicationFailoverBehavior{
		PreConditions:      &failover.PreConditions{DelaySeconds: ptr.To[int32](5000)},
		DecisionConditions: failover.DecisionConditions{TolerationSeconds: ptr.To[int32](200), HealthyState: []health.Status{health.Unhealthy}},
	}}
	seed001Defaulted := *seed001.DeepCopy()
	seed001Defaulted.Application.PurgeMode = eviction.PurgeGracefully
	seed001Defaulted.Application.GracePeriodSeconds = ptr.To(eviction.DefaultGracePeriodSeconds)
	seed001Defaulted.Application.BlockPredecessorSeconds = ptr.To(eviction.DefaultBlockPredecessorSeconds)
	seed003 := failover.FailoverBehavior{Cluster: &failover.ClusterFailoverBehavior{PurgeMode: eviction.LegacyPurgeGraciously, GracePeriodSeconds: ptr.To[int32](100)}}
	seed003Defaulted := failover.FailoverBehavior{Cluster: &failover.ClusterFailoverBehavior{PurgeMode: eviction.PurgeGracefully, GracePeriodSeconds: ptr.To[int32](100)}}

	// Seed 001's "Alternatives" section (failover as a list of per-kind
	// behaviours with activeGates) is a rejected design: it is not a fixture
	// and FailoverBehavior does not decode it.
	cases := []struct {
		file      string
		decoded   failover.FailoverBehavior
		defaulted failover.FailoverBehavior
	}{
		{"seed000-flink-policy.yaml",
			directlyWith(&preservation.StatePreservation{Rules: []preservation.StatePreservationRule{{AliasLabelName: "cluster.karmada.io/failover-jobid", JSONPath: "{ .jobStatus.jobID }"}}}),
			directlyWith(&preservation.StatePreservation{Rules: []preservation.StatePreservationRule{{AliasLabelName: "cluster.karmada.io/failover-jobid", JSONPath: "{ .jobStatus.jobID }"}}})},
		{"seed000-e2e-case1-deployment.yaml", directlyWith(twoReplicaRules), directlyWith(twoReplicaRules)},
		{"seed000-e2e-case2-statefulset.yaml", directlyWith(twoReplicaRules), directlyWith(twoReplicaRules)},
		{"seed000-e2e-case3-flinkdeployment.yaml",
			directlyWith(&preservation.StatePreservation{Rules: []preservation.StatePreservationRule{{AliasLabelName: "failover.karmada.io/failover-jobid", JSONPath: "{ .jobStatus.jobID }"}}}),
			directlyWith(&preservation.StatePreservation{Rules: []preservation.StatePreservationRule{{AliasLabelName: "failover.karmada.io/failover-jobid", JSONPath: "{ .jobStatus.jobID }"}}})},
		{"seed001-application-policy.yaml", seed001, seed001Defaulted},
		{"seed001-resourcebinding.yaml", seed001, seed001Defaulted},
		{"seed003-cluster-policy.yaml", seed003, seed003Defaulted},
		{"seed003-resourcebinding-spec.yaml", seed003, seed003Defaulted},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			block, maxGroups := seedFailoverBlock(t, tc.file)
			fb, err := decodeFailoverBlockStrictly(block)
			if err != nil {
				t.Fatalf("strict decoding of the failover block: %v", err)
			}
			if diff := cmp.Diff(tc.decoded, fb); diff != "" {
				t.Fatalf("decoded block (-want +got):\n%s", diff)
			}
			path := field.NewPath("spec", "failover")
			if errs := failover.ValidateFailoverBehavior(&fb, path); len(errs) != 0 {
				t.Fatalf("as written: %v", errs.ToAggregate())
			}
			failover.SetDefaultsFailoverBehavior(&fb)
			if diff := cmp.Diff(tc.defaulted, fb); diff != "" {
				t.Fatalf("defaulted block (-want +got):\n%s", diff)
			}
			if errs := failover.ValidateFailoverBehavior(&fb, path); len(errs) != 0 {
				t.Fatalf("after defaulting: %v", errs.ToAggregate())
			}
			if w := failover.WarningsForStatePreservation(&fb, maxGroups, preservation.InjectionPolicy{}, path); len(w) != 0 {
				t.Fatalf("seed placements keep state-preserving workloads on one cluster, got warnings %q", w)
			}
		})
	}
}

func TestSeed003EvictionTaskDecodesStrictly(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("testdata", "seed003-resourcebinding-spec.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Spec struct {
			GracefulEvictionTasks []json.RawMessage `json:"gracefulEvictionTasks"`
		} `json:"spec"`
	}
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Spec.GracefulEvictionTasks) != 1 {
		t.Fatalf("want 1 task, got %d", len(doc.Spec.GracefulEvictionTasks))
	}
	var task eviction.GracefulEvictionTask
	if err := yaml.UnmarshalStrict(doc.Spec.GracefulEvictionTasks[0], &task); err != nil {
		t.Fatal(err)
	}
	if task.FromCluster != "member1" || task.Reason != eviction.ReasonTaintUntolerated || task.Producer != eviction.ProducerTaintManager ||
		ptr.Deref(task.GracePeriodSeconds, 0) != 100 || ptr.Deref(task.Replicas, 0) != 1 || task.CreationTimestamp == nil {
		t.Fatalf("unexpected task %+v", task)
	}
}

func TestSeedRejectedAlternativeDoesNotDecode(t *testing.T) {
	// The list form of seed 001's rejected alternative must not be mistaken
	// for a failover block.
	alt := []byte("- apiVersion: apps/v1\n  kind: Deployment\n  behavior:\n    application:\n      activeGates:\n      - healthyState: Unhealthy\n")
	var fb failover.FailoverBehavior
	if err := yaml.UnmarshalStrict(alt, &fb); err == nil {
		t.Fatal("the rejected list form decoded into FailoverBehavior")
	}
}
