package beside_test

import (
	"testing"

	"github.com/fleetover/fleetover/examples/karmada/beside"
)

func TestWriteKind(t *testing.T) {
	for _, c := range []struct{ method, path, want string }{
		{"PATCH", "/apis/work.karmada.io/v1alpha2/namespaces/ns1/resourcebindings/web-deployment/status", "PATCH resourcebindings/status"},
		{"PUT", "/apis/work.karmada.io/v1alpha2/namespaces/ns1/resourcebindings/web-deployment", "PUT resourcebindings"},
		{"POST", "/api/v1/namespaces/ns1/events", "POST events"},
		{"PATCH", "/api/v1/namespaces/ns1/events/web.1872", "PATCH events"},
		{"PUT", "/apis/coordination.k8s.io/v1/namespaces/karmada-system/leases/fleetover", "PUT leases"},
		{"PATCH", "/apis/cluster.karmada.io/v1alpha1/clusters/m1/status", "PATCH clusters/status"},
		{"DELETE", "/apis/cluster.karmada.io/v1alpha1/clusters/m1", "DELETE clusters"},
		{"POST", "/api/v1/namespaces", "POST namespaces"},
		{"DELETE", "/api/v1/namespaces/ns1", "DELETE namespaces"},
		{"PUT", "/api/v1/namespaces/ns1/finalize", "PUT namespaces/finalize"},
		{"POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", "POST subjectaccessreviews"},
		{"POST", "/healthz", "POST /healthz"},
		{"POST", "/apis/x", "POST /apis/x"},
	} {
		if got := beside.WriteKind(c.method, c.path); got != c.want {
			t.Errorf("WriteKind(%s, %s) = %q, want %q", c.method, c.path, got, c.want)
		}
	}
}
