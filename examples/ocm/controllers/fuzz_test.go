package controllers

import (
	"testing"

	workv1 "open-cluster-management.io/api/work/v1"
)

// FuzzDecodeState: any annotation value decodes to a valid state or a
// clear error, never a panic, and a decoded state survives a round trip.
func FuzzDecodeState(f *testing.F) {
	f.Add(`{"version":"` + FailoverStateVersion + `","tasks":[{"fromCluster":"a","reason":"TaintUntolerated","producer":"p","purgeMode":"Directly","preservedLabelState":{"k":"v"}}],"history":[{"clusterName":"a","creationTimestamp":"2026-03-01T12:00:00Z"}]}`)
	f.Add(`{"version":"` + FailoverStateVersion + `","applicationHealth":[{"clusterName":"a","failingSince":"2026-03-01T12:00:00Z"}]}`)
	f.Add(`{}`)
	f.Add(`null`)
	f.Fuzz(func(t *testing.T, raw string) {
		st, err := decodeState(map[string]string{FailoverStateAnnotation: raw})
		if err != nil {
			return
		}
		ann := map[string]string{}
		if _, err := encodeState(&ann, st); err != nil {
			t.Fatalf("encode a decoded state: %v", err)
		}
		if _, err := decodeState(ann); err != nil {
			t.Fatalf("decode an encoded state: %v", err)
		}
	})
}

// FuzzDecodePolicy: any policy annotation is accepted valid or refused with
// an error, never a panic.
func FuzzDecodePolicy(f *testing.F) {
	f.Add(`{"cluster":{"purgeMode":"Directly","statePreservation":{"rules":[{"aliasLabelName":"a.io/b","jsonPath":"{.x}"}]}}}`)
	f.Add(`{"application":{"decisionConditions":{"tolerationSeconds":60}}}`)
	f.Fuzz(func(t *testing.T, raw string) {
		_, _ = decodePolicy(map[string]string{FailoverPolicyAnnotation: raw})
	})
}

// FuzzObservedWorkload: any feedback (names, paths, raw JSON) rebuilds a
// workload or fails with an error, never a panic.
func FuzzObservedWorkload(f *testing.F) {
	f.Add("jobStatus", ".status.jobStatus", `{"jobId":"x","n":1}`, "jobId", ".status.jobStatus.jobId")
	f.Add("a", ".a", `[1,2]`, "b", ".a.b")
	f.Add("x", "{.metadata.name}", `"s"`, "y", ".status.conditions[0]")
	f.Fuzz(func(t *testing.T, name1, path1, raw, name2, path2 string) {
		mw := testWork(t, nil)
		mw.Spec.ManifestConfigs[0].FeedbackRules[0].JsonPaths = []workv1.JsonPath{{Name: name1, Path: path1}, {Name: name2, Path: path2}}
		s := "v"
		mw.Status.ResourceStatus.Manifests[0].StatusFeedbacks.Values = []workv1.FeedbackValue{
			{Name: name1, Value: workv1.FieldValue{Type: workv1.JsonRaw, JsonRaw: &raw}},
			{Name: name2, Value: workv1.FieldValue{Type: workv1.String, String: &s}},
		}
		_, _, _ = observedWorkload(mw, 0)
	})
}
