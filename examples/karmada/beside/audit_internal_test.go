package beside

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"sigs.k8s.io/yaml"
)

func TestAuditPolicy(t *testing.T) {
	type rule struct {
		Level string   `json:"level"`
		Users []string `json:"users,omitempty"`
		Verbs []string `json:"verbs,omitempty"`
	}
	type policy struct {
		APIVersion string   `json:"apiVersion"`
		Kind       string   `json:"kind"`
		OmitStages []string `json:"omitStages"`
		Rules      []rule   `json:"rules"`
	}
	writes := []string{"create", "update", "patch", "delete", "deletecollection"}
	for _, c := range []struct {
		name   string
		users  []string
		writes bool
		want   []rule
	}{
		{"users", []string{"system:serviceaccount:karmada-system:a", "b"}, false,
			[]rule{{Level: "Metadata", Users: []string{"system:serviceaccount:karmada-system:a", "b"}}, {Level: "None"}}},
		{"writes", nil, true,
			[]rule{{Level: "Metadata", Verbs: writes}, {Level: "None"}}},
		// A named user's every request, then everyone's writes: the API
		// server takes the first rule that matches.
		{"users and writes", []string{"a"}, true,
			[]rule{{Level: "Metadata", Users: []string{"a"}}, {Level: "Metadata", Verbs: writes}, {Level: "None"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var got policy
			if err := yaml.UnmarshalStrict(auditPolicy(c.users, c.writes), &got); err != nil {
				t.Fatalf("%v:\n%s", err, auditPolicy(c.users, c.writes))
			}
			want := policy{APIVersion: "audit.k8s.io/v1", Kind: "Policy", OmitStages: []string{"RequestReceived"}, Rules: c.want}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("policy (-want +got):\n%s", diff)
			}
		})
	}
}
