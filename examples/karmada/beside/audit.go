package beside

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
)

// The API server's audit log records the requests of the users
// Options.AuditUsers names, and with Options.AuditWrites every user's
// writes: which component asked for what, and what it was answered, seen by
// the server (the components' own clients cannot lie about it).

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
	// UserAgent is the client's User-Agent header: which program sent the
	// request when several share a user (Karmada's components all run as
	// the administrator).
	UserAgent string
	// Code is the response's HTTP status code.
	Code int32
	// Decision is the authorizer's: "allow" or "forbid".
	Decision string
}

// Write reports whether the request asked to change something (create,
// update, patch, delete, deletecollection) and the server did it (a 2xx
// answer: a conflict is a retry, not a write).
func (r AuditRecord) Write() bool {
	return writeVerbs[r.Verb] && r.Code >= 200 && r.Code < 300
}

var writeVerbs = map[string]bool{"create": true, "update": true, "patch": true, "delete": true, "deletecollection": true}

// Forbidden reports whether authorization refused the request. A 403 of
// admission (a namespace being deleted takes no new events) is not one.
func (r AuditRecord) Forbidden() bool { return r.Decision == "forbid" }

func (r AuditRecord) String() string {
	return fmt.Sprintf("%s %s -> %d %s", r.User, r.AuditRequest, r.Code, r.Decision)
}

// auditPolicy logs at Metadata level every request of users, and with
// writes every user's write requests; nothing else.
func auditPolicy(users []string, writes bool) []byte {
	var b strings.Builder
	b.WriteString("apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [\"RequestReceived\"]\nrules:\n")
	if len(users) > 0 {
		quoted := make([]string, len(users))
		for i, u := range users {
			quoted[i] = fmt.Sprintf("%q", u)
		}
		b.WriteString("- level: Metadata\n  users: [" + strings.Join(quoted, ", ") + "]\n")
	}
	if writes {
		b.WriteString("- level: Metadata\n  verbs: [create, update, patch, delete, deletecollection]\n")
	}
	b.WriteString("- level: None\n")
	return []byte(b.String())
}

// Audit reads the requests the audit log holds so far.
func (cp *ControlPlane) Audit() ([]AuditRecord, error) {
	if cp.auditLog == "" {
		return nil, fmt.Errorf("the control plane keeps no audit log (Options.AuditUsers is empty and Options.AuditWrites false)")
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
			UserAgent  string `json:"userAgent"`
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
		r := AuditRecord{AuditRequest: AuditRequest{User: e.User.Username, Verb: e.Verb}, UserAgent: e.UserAgent}
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
