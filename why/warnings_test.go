package why_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/preservation"
	"github.com/fleetover/fleetover/scheduling"
	"github.com/fleetover/fleetover/why"
)

func TestWarnings(t *testing.T) {
	widget := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	state := &preservation.StatePreservation{Rules: []preservation.StatePreservationRule{{AliasLabelName: "job-id", JSONPath: "{.jobStatus.jobId}"}}}
	fleet := []scheduling.Cluster{{Name: "a"}, {Name: "b"}}
	cases := []struct {
		name  string
		in    why.PolicyInput
		field string
		want  why.Reason
	}{
		{"no interpreter", why.PolicyInput{Policy: &failover.FailoverBehavior{Application: &failover.ApplicationFailoverBehavior{}},
			Kind: widget, Registry: health.NewRegistry(health.RegistryConfig{})}, "failover.application", why.ReasonNoHealthInterpreter},
		{"tolerates forever", why.PolicyInput{Tolerations: []corev1.Toleration{{Key: failover.TaintKeyClusterUnreachable, Operator: corev1.TolerationOpExists}}},
			"placement.clusterTolerations[0]", why.ReasonTaintToleratedForever},
		{"never with state", why.PolicyInput{Policy: &failover.FailoverBehavior{Cluster: &failover.ClusterFailoverBehavior{PurgeMode: eviction.PurgeNever, StatePreservation: state}}},
			"failover.cluster.purgeMode", why.ReasonNeverPurgedWithState},
		{"no cluster left", why.PolicyInput{Placement: &scheduling.Request{Clusters: fleet, Targets: []eviction.TargetCluster{{Name: "a"}, {Name: "b"}}}},
			"placement", why.ReasonNoClusterLeft},
		// No Filters: the default ones, as Replace runs them, keep the
		// workload off the only other cluster, whose taint it does not
		// tolerate.
		{"no cluster left by the default filters", why.PolicyInput{Placement: &scheduling.Request{
			Clusters: []scheduling.Cluster{{Name: "a"}, {Name: "b", Taints: []corev1.Taint{{Key: "maintenance", Effect: corev1.TaintEffectNoSchedule}}}},
			Targets:  []eviction.TargetCluster{{Name: "a"}}}},
			"placement", why.ReasonNoClusterLeft},
		{"cluster gate off", why.PolicyInput{Policy: &failover.FailoverBehavior{Cluster: &failover.ClusterFailoverBehavior{}}, Gates: why.Gates{ClusterFailoverOff: true}},
			"failover.cluster", why.ReasonClusterFailoverOff},
		{"application gate off", why.PolicyInput{Policy: &failover.FailoverBehavior{Application: &failover.ApplicationFailoverBehavior{}}, Gates: why.Gates{ApplicationFailoverOff: true}},
			"failover.application", why.ReasonApplicationFailoverOff},
	}
	for _, tc := range cases {
		got := why.Warnings(tc.in)
		if len(got) != 1 || got[0].Reason != tc.want || got[0].Field != tc.field {
			t.Errorf("%s: got %v, want one %s on %s", tc.name, got, tc.want, tc.field)
		}
	}
	// A sound policy warns about nothing.
	sound := why.PolicyInput{
		Policy: &failover.FailoverBehavior{
			Application: &failover.ApplicationFailoverBehavior{PurgeMode: eviction.PurgeDirectly, StatePreservation: state},
			Cluster:     &failover.ClusterFailoverBehavior{},
		},
		Kind:        schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"},
		Registry:    health.NewRegistry(health.RegistryConfig{}),
		Tolerations: defaultTolerations(),
		Placement:   &scheduling.Request{Clusters: fleet, Targets: []eviction.TargetCluster{{Name: "a"}}},
		// Every member fences: the Directly escape starts no second writer.
		MembersFence: true,
	}
	if got := why.Warnings(sound); len(got) != 0 {
		t.Errorf("a sound policy: got %v", got)
	}
	// The same policy on members that cannot fence: the escape is a risk.
	unfenced := sound
	unfenced.MembersFence = false
	if got := why.Warnings(unfenced); len(got) != 1 || got[0].Reason != why.ReasonEscapeWithoutFence || got[0].Field != "failover.application.purgeMode" ||
		!strings.Contains(got[0].Message, "two copies then write the same state") {
		t.Errorf("Directly with state on members that cannot fence: got %v", got)
	}
	if got := failover.WarningsForUnfencedMembers(unfenced.Policy, nil); len(got) != 1 || !strings.HasPrefix(got[0], "application.purgeMode: ") {
		t.Errorf("admission warning for members that cannot fence: %v", got)
	}
	// A later affinity group with room is a place to move to; one without
	// is not.
	primary := []scheduling.Filter{scheduling.ClusterNames("a", "b")}
	groups := why.PolicyInput{
		Placement: &scheduling.Request{Clusters: append(fleet, scheduling.Cluster{Name: "c"}), Filters: primary,
			Targets: []eviction.TargetCluster{{Name: "a"}, {Name: "b"}}},
		Alternatives: []*scheduling.Request{{Clusters: fleet, Filters: primary}},
	}
	if got := why.Warnings(groups); len(got) != 1 || got[0].Reason != why.ReasonNoClusterLeft {
		t.Errorf("no group with room: got %v, want NoClusterToMoveTo", got)
	}
	groups.Alternatives = append(groups.Alternatives, &scheduling.Request{Clusters: groups.Placement.Clusters, Filters: []scheduling.Filter{scheduling.ClusterNames("c")}})
	if got := why.Warnings(groups); len(got) != 0 {
		t.Errorf("a backup group with room: got %v", got)
	}
}

// TestReasonsListedAndDocumented: every Reason constant is in Reasons(),
// once, and in docs/reasons.md with a line on what to do.
func TestReasonsListedAndDocumented(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "reason.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			for _, n := range s.(*ast.ValueSpec).Names {
				declared[n.Name] = true
			}
		}
	}
	listed := why.Reasons()
	if len(listed) != len(declared) {
		t.Errorf("reason.go declares %d reasons, Reasons() lists %d", len(declared), len(listed))
	}
	doc, err := os.ReadFile("../docs/reasons.md")
	if err != nil {
		t.Fatal(err)
	}
	seen := map[why.Reason]bool{}
	for _, r := range listed {
		if seen[r] {
			t.Errorf("reason %s listed twice", r)
		}
		seen[r] = true
		if !strings.Contains(string(doc), "| `"+string(r)+"` |") {
			t.Errorf("docs/reasons.md has no row for %s", r)
		}
	}
}
