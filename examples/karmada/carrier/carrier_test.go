package carrier

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/fleetover/fleetover/eviction"
)

func TestDecodePolicyExtension(t *testing.T) {
	tests := []struct {
		name    string
		value   *string
		block   *int32
		wantErr string // a substring naming the field; "" for success
	}{
		{name: "absent"},
		{name: "block window", value: ptr.To(`{"version":"v1alpha1","application":{"blockPredecessorSeconds":120}}`), block: ptr.To[int32](120)},
		{name: "cluster only", value: ptr.To(`{"version":"v1alpha1","cluster":{"gracePeriodSeconds":60}}`)},
		{name: "not JSON", value: ptr.To(`not json`), wantErr: "metadata.annotations[failover.fleetover.io/policy]"},
		{name: "unknown field", value: ptr.To(`{"version":"v1alpha1","extra":1}`), wantErr: `unknown field "extra"`},
		{name: "trailing data", value: ptr.To(`{"version":"v1alpha1"} {}`), wantErr: "trailing data"},
		{name: "other version", value: ptr.To(`{"version":"v2"}`), wantErr: "metadata.annotations[failover.fleetover.io/policy].version"},
		{name: "negative window", value: ptr.To(`{"version":"v1alpha1","application":{"blockPredecessorSeconds":-1}}`), wantErr: "blockPredecessorSeconds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := map[string]string{"unrelated": "x"}
			if tt.value != nil {
				a[PolicyExtensionKey] = *tt.value
			}
			ext, err := DecodePolicyExtension(a)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if (ext == nil) != (tt.value == nil) {
				t.Fatalf("extension %+v for annotation %v", ext, tt.value)
			}
			if got := ext.BlockPredecessorSeconds(); (got == nil) != (tt.block == nil) || (got != nil && *got != *tt.block) {
				t.Errorf("BlockPredecessorSeconds = %v, want %v", got, tt.block)
			}
		})
	}
}

func TestEvictionHistoryRoundTrip(t *testing.T) {
	left := metav1.NewTime(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	h := eviction.EvictionHistory{{ClusterName: "member1", CreationTimestamp: left}}
	raw, err := Encode(EvictionHistoryDocument{Version: SchemaVersion, Entries: h})
	if err != nil {
		t.Fatal(err)
	}
	got, err := DecodeEvictionHistory(map[string]string{EvictionHistoryKey: raw})
	if err != nil || len(got) != 1 || got[0].ClusterName != "member1" || !got[0].CreationTimestamp.Equal(&left) {
		t.Fatalf("decoded %+v, %v; want the entry back", got, err)
	}
	if got, err := DecodeEvictionHistory(nil); got != nil || err != nil {
		t.Errorf("absent annotation: %v, %v; want an empty history", got, err)
	}
	_, err = DecodeEvictionHistory(map[string]string{EvictionHistoryKey: `{"version":"v1alpha1","entries":[{"creationTimestamp":"2026-03-01T12:00:00Z"}]}`})
	if err == nil || !strings.Contains(err.Error(), "entries[0].clusterName") {
		t.Errorf("entry without a cluster: %v, want an error naming entries[0].clusterName", err)
	}
}

// FuzzDecode: no value panics a reader; whatever decodes validates and
// survives a round trip through Encode.
func FuzzDecode(f *testing.F) {
	f.Add(`{"version":"v1alpha1","entries":[{"clusterName":"m1","creationTimestamp":"2026-03-01T12:00:00Z"}]}`,
		`{"version":"v1alpha1","application":{"blockPredecessorSeconds":120,"preConditions":{"delaySeconds":5,"healthyState":"Healthy"}},"cluster":{"gracePeriodSeconds":60}}`)
	f.Add(`{"version":"v2","entries":[]}`, `{"version":"v1alpha1","cluster":{"gracePeriodSeconds":0},"extra":1}`)
	f.Add(`{} {}`, `[]`)
	f.Fuzz(func(t *testing.T, history, policy string) {
		a := map[string]string{EvictionHistoryKey: history, PolicyExtensionKey: policy}
		if h, err := DecodeEvictionHistory(a); err == nil && h != nil {
			raw, err := Encode(EvictionHistoryDocument{Version: SchemaVersion, Entries: h})
			if err != nil {
				t.Fatal(err)
			}
			again, err := DecodeEvictionHistory(map[string]string{EvictionHistoryKey: raw})
			if err != nil || len(again) != len(h) {
				t.Fatalf("history does not round-trip: %v, %v", again, err)
			}
		}
		if ext, err := DecodePolicyExtension(a); err == nil && ext != nil {
			raw, err := Encode(ext)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := DecodePolicyExtension(map[string]string{PolicyExtensionKey: raw}); err != nil {
				t.Fatalf("extension does not round-trip: %v", err)
			}
		}
	})
}
