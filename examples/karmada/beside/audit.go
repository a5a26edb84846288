package beside

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// The API server's audit log records the requests of the users
// Options.AuditUsers names: which component asked for what, and what it was
// answered, seen by the server (the components' own clients cannot lie
// about it).

// AuditRequest is what the authorizer decides on: who asked for what.
type AuditRequest struct {
	User string
	// Verb is the authorization verb (get, list, watch, create, update,
	// patch, delete, deletecollection), or the HTTP one lowercased for a
	// non-resource URL.
	Verb string
	// APIGroup, Resource, Subresource, Namespace and Name locate a resource
	// request; Path a non-resource one.
	APIGroup, Resource, Subresource, Namespace, Name string
	Path                                             string
}

// String names what was asked for, without who asked: "get
// leases.coordination.k8s.io karmada-cluster/m1", or "get /healthz".
func (r AuditRequest) String() string {
	if r.Resource == "" {
		return r.Verb + " " + r.Path
	}
	res := r.Resource
	if r.Subresource != "" {
		res += "/" + r.Subresource
	}
	if r.APIGroup != "" {
		res += "." + r.APIGroup
	}
	return r.Verb + " " + res + " " + r.Namespace + "/" + r.Name
}

// AuditRecord is one request in the audit log, with its answer.
type AuditRecord struct {
	AuditRequest
	// Code is the response's HTTP status code.
	Code int32
	// Decision is the authorizer's: "allow" or "forbid".
	Decision string
}

// Forbidden reports whether authorization refused the request. A 403 of
// admission (a namespace being deleted takes no new events) is not one.
func (r AuditRecord) Forbidden() bool { return r.Decision == "forbid" }

func (r AuditRecord) String() string {
	return fmt.Sprintf("%s %s -> %d %s", r.User, r.AuditRequest, r.Code, r.Decision)
}

func auditPolicy(users []string) []byte {
	quoted := make([]string, len(users))
	for i, u := range users {
		quoted[i] = fmt.Sprintf("%q", u)
	}
	return []byte(`apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: ["RequestReceived"]
rules:
- level: Metadata
  users: [` + strings.Join(quoted, ", ") + `]
- level: None
`)
}

// Audit reads the requests the audit log holds so far.
func (cp *ControlPlane) Audit() ([]AuditRecord, error) {
	if cp.auditLog == "" {
		return nil, fmt.Errorf("the control plane keeps no audit log (Options.AuditUsers is empty)")
	}
	f, err := os.Open(cp.auditLog)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []AuditRecord
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for sc.Scan() {
		var e struct {
			Verb       string `json:"verb"`
			RequestURI string `json:"requestURI"`
			User       struct {
				Username string `json:"username"`
			} `json:"user"`
			ObjectRef *struct {
				Resource, Namespace, Name, APIGroup, Subresource string
			} `json:"objectRef"`
			ResponseStatus *struct {
				Code int32 `json:"code"`
			} `json:"responseStatus"`
			Annotations map[string]string `json:"annotations"`
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("%s: %w", cp.auditLog, err)
		}
		r := AuditRecord{AuditRequest: AuditRequest{User: e.User.Username, Verb: e.Verb}}
		if e.ObjectRef != nil {
			o := e.ObjectRef
			r.APIGroup, r.Resource, r.Subresource, r.Namespace, r.Name = o.APIGroup, o.Resource, o.Subresource, o.Namespace, o.Name
		} else {
			r.Path, _, _ = strings.Cut(e.RequestURI, "?")
		}
		if e.ResponseStatus != nil {
			r.Code = e.ResponseStatus.Code
		}
		r.Decision = e.Annotations["authorization.k8s.io/decision"]
		out = append(out, r)
	}
	return out, sc.Err()
}
