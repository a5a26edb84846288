package beside_test

import (
	"testing"

	"github.com/fleetover/fleetover/examples/karmada/beside"
)

func TestAuditRecordWrite(t *testing.T) {
	for _, c := range []struct {
		verb string
		code int32
		want bool
	}{
		{"create", 201, true},
		{"update", 200, true},
		{"patch", 200, true},
		{"delete", 200, true},
		{"deletecollection", 200, true},
		// A conflict is a retry; a refused write changed nothing.
		{"update", 409, false},
		{"patch", 422, false},
		{"create", 403, false},
		{"get", 200, false},
		{"list", 200, false},
		{"watch", 200, false},
	} {
		r := beside.AuditRecord{AuditRequest: beside.AuditRequest{Verb: c.verb}, Code: c.code}
		if got := r.Write(); got != c.want {
			t.Errorf("%s -> %d: Write() = %v, want %v", c.verb, c.code, got, c.want)
		}
	}
}
