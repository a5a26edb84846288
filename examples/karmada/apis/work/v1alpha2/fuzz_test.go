package v1alpha2_test

import (
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"

	workv1alpha2 "github.com/fleetover/fleetover/examples/karmada/apis/work/v1alpha2"
)

// FuzzResourceBindingJSON decodes arbitrary JSON into a binding: no panic,
// and whatever decodes survives an encode/decode round trip unchanged
// (the wire format is stable, legacy spellings included).
func FuzzResourceBindingJSON(f *testing.F) {
	f.Add([]byte(`{"spec":{"resource":{"apiVersion":"apps/v1","kind":"Deployment","name":"a"},"clusters":[{"name":"m1","replicas":2}]}}`))
	f.Add([]byte(`{"spec":{"suspension":{"suspendDispatching":true}}}`))
	f.Add([]byte(`{"spec":{"suspension":{"dispatching":true,"suspendDispatching":false}}}`))
	f.Add([]byte(`{"spec":{"gracefulEvictionTasks":[{"fromCluster":"m1","purgeMode":"Immediately","reason":"ApplicationFailure","producer":"x","creationTimestamp":"2026-03-01T12:00:00Z"}]}}`))
	f.Add([]byte(`{"spec":{"failover":{"application":{"decisionConditions":{"tolerationSeconds":30},"blockPredecessorSeconds":0}}},"status":{"aggregatedStatus":[{"clusterName":"m1","status":{"a":[1,{"b":null}]},"health":"Unknown"}]}}`))
	f.Add([]byte(`{"spec":{"activeEvictionHistory":[{"clusterName":"m1","creationTimestamp":null}]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var first workv1alpha2.ResourceBinding
		if err := json.Unmarshal(data, &first); err != nil {
			return
		}
		encoded, err := json.Marshal(&first)
		if err != nil {
			t.Fatalf("encode a decoded binding: %v", err)
		}
		var second workv1alpha2.ResourceBinding
		if err := json.Unmarshal(encoded, &second); err != nil {
			t.Fatalf("decode %s: %v", encoded, err)
		}
		// Compare the encodings: RawExtension keeps the bytes it was given,
		// so the first decode may hold non-canonical JSON.
		again, err := json.Marshal(&second)
		if err != nil {
			t.Fatal(err)
		}
		if string(again) != string(encoded) {
			t.Fatalf("round trip changed the binding:\n%s\n%s", encoded, again)
		}
		if copied := second.DeepCopy(); !equality.Semantic.DeepEqual(copied, &second) {
			t.Fatal("DeepCopy differs from its source")
		}
	})
}
