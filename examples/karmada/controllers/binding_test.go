package controllers

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"
)

// A binding made by Karmada carries its permanent ID in a label, and its
// Works carry the same value: the Works must be found by it, not by the
// binding's UID (beside Karmada the UID finds none).
func TestPermanentIDIsKarmadasLabelThenTheUID(t *testing.T) {
	for _, tc := range []struct {
		name    string
		binding client.Object
		want    string
	}{
		{"ResourceBinding made by Karmada", &workv1alpha2.ResourceBinding{ObjectMeta: metav1.ObjectMeta{
			UID: "uid-1", Labels: map[string]string{workv1alpha2.ResourceBindingPermanentIDLabel: "permanent-1"},
		}}, "permanent-1"},
		{"ClusterResourceBinding made by Karmada", &workv1alpha2.ClusterResourceBinding{ObjectMeta: metav1.ObjectMeta{
			UID: "uid-2", Labels: map[string]string{workv1alpha2.ClusterResourceBindingPermanentIDLabel: "permanent-2"},
		}}, "permanent-2"},
		{"the other kind's label does not count", &workv1alpha2.ClusterResourceBinding{ObjectMeta: metav1.ObjectMeta{
			UID: "uid-3", Labels: map[string]string{workv1alpha2.ResourceBindingPermanentIDLabel: "permanent-3"},
		}}, "uid-3"},
		{"binding without the label", &workv1alpha2.ResourceBinding{ObjectMeta: metav1.ObjectMeta{UID: "uid-4"}}, "uid-4"},
	} {
		if got := permanentID(tc.binding); got != tc.want {
			t.Errorf("%s: permanentID = %q, want %q", tc.name, got, tc.want)
		}
		labels, _ := workMeta(tc.binding)
		if got := labels[kindOf(tc.binding).workLabel()]; got != tc.want {
			t.Errorf("%s: the Work's label = %q, want %q", tc.name, got, tc.want)
		}
	}
}
