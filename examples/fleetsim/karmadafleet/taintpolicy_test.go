package karmadafleet

import (
	"errors"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fleetover/fleetover/failover"
)

// The export's ClusterTaintPolicies are read into the library's policies,
// named so that name order is creation order, as Karmada applies them.
func TestLoadExportTaintPolicies(t *testing.T) {
	f, err := Load(exportDir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range f.TaintPolicies {
		names = append(names, p.ConditionTaintPolicy().Name)
	}
	want := []string{"2026-03-09T09:00:00Z/not-ready-no-execute", "2026-03-09T09:00:05Z/unreachable-no-execute"}
	if !slices.Equal(names, want) {
		t.Fatalf("policies %v, want %v", names, want)
	}
	for _, fd := range f.Findings {
		if fd.Object.Kind == KindClusterTaintPolicy {
			t.Errorf("finding on a ClusterTaintPolicy: %v", fd)
		}
	}
	lib := f.TaintPolicies[0].ConditionTaintPolicy()
	notReady := []metav1.Condition{{Type: "Ready", Status: metav1.ConditionFalse}}
	diff := failover.ComputePolicyTaints([]failover.ConditionTaintPolicy{lib}, notReady, nil, metav1.Now().Time)
	if len(diff.Result) != 1 || diff.Result[0].Key != failover.TaintKeyClusterNotReady || diff.Result[0].Effect != corev1.TaintEffectNoExecute {
		t.Errorf("Ready False under %s gives %v, want the not-ready NoExecute taint", lib.Name, diff.Result)
	}
}

// Policies sort oldest first whatever the order of the input, and a
// policy the library refuses is reported with its field and left out.
func TestTaintPolicyOrderAndValidation(t *testing.T) {
	doc := func(name, created, effect string) string {
		return `{"apiVersion":"policy.karmada.io/v1alpha1","kind":"ClusterTaintPolicy","metadata":{"name":"` + name + `","creationTimestamp":"` + created + `"},` +
			`"spec":{"targetClusters":{"clusterNames":["m1"]},"addOnConditions":[{"conditionType":"Ready","operator":"In","statusValues":["False"]}],` +
			`"taints":[{"key":"k","effect":"` + effect + `"}]}}`
	}
	data := doc("zeta", "2026-01-01T00:00:00Z", "NoExecute") + "\n---\n" + doc("alpha", "2026-02-01T00:00:00Z", "NoExecute") +
		"\n---\n" + doc("bad", "2026-01-01T00:00:00Z", "Sometimes")
	f, err := Parse("ctp.yaml", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range f.TaintPolicies {
		names = append(names, p.Name)
	}
	if !slices.Equal(names, []string{"zeta", "alpha"}) {
		t.Errorf("order %v, want [zeta alpha] (oldest first)", names)
	}
	if f.TaintPolicies[0].TargetClusters == nil || !slices.Equal(f.TaintPolicies[0].TargetClusters.ClusterNames, []string{"m1"}) {
		t.Errorf("targetClusters = %+v", f.TaintPolicies[0].TargetClusters)
	}
	found := false
	for _, fd := range f.Findings {
		if fd.Object.Name == "bad" && fd.Field == "spec.taints[0].effect" && strings.Contains(fd.Message, "left out") {
			found = true
		}
	}
	if !found {
		t.Errorf("no finding for the invalid policy's spec.taints[0].effect: %v", f.Findings)
	}
}

// failover.cluster.purgeMode: Never is outside the enum of Karmada's CRD
// for cluster failover: an export holding it is refused with the field,
// on a policy and on a binding.
func TestClusterPurgeModeNeverRefused(t *testing.T) {
	for name, doc := range map[string]string{
		"policy": `{"apiVersion":"policy.karmada.io/v1alpha1","kind":"PropagationPolicy","metadata":{"name":"p","namespace":"ns"},"spec":{"failover":{"cluster":{"purgeMode":"Never"}}}}`,
		"binding": `{"apiVersion":"work.karmada.io/v1alpha2","kind":"ResourceBinding","metadata":{"name":"b","namespace":"ns"},` +
			`"spec":{"resource":{"apiVersion":"apps/v1","kind":"Deployment","namespace":"ns","name":"d"},"replicas":1,"failover":{"cluster":{"purgeMode":"Never"}}}}`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Parse("export.yaml", []byte(doc))
			var fe *field.Error
			if !errors.As(err, &fe) || fe.Field != "spec.failover.cluster.purgeMode" || fe.Type != field.ErrorTypeNotSupported {
				t.Fatalf("err = %v, want NotSupported on spec.failover.cluster.purgeMode", err)
			}
			if !errors.Is(err, ErrInvalidInput) || !strings.Contains(err.Error(), `"Never"`) {
				t.Errorf("err = %v", err)
			}
		})
	}
}
