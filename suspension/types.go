package suspension

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Suspension pauses the propagation of a workload to all or some of its
// clusters. A nil *Suspension suspends nothing.
//
// It decodes both spellings in use: "dispatching" / "dispatchingOnClusters"
// (current) and "suspendDispatching" / "suspendDispatchingOnClusters" (the
// original proposal). It always encodes with the current spelling.
//
// +k8s:deepcopy-gen=true
type Suspension struct {
	// Dispatching, when true, suspends dispatching to every cluster. nil and
	// false suspend nothing by themselves. It may not be true while
	// DispatchingOnClusters lists clusters (see ValidateSuspension).
	// +optional
	Dispatching *bool `json:"dispatching,omitempty"`

	// DispatchingOnClusters suspends dispatching to the named clusters only.
	// +optional
	DispatchingOnClusters *SuspendClusters `json:"dispatchingOnClusters,omitempty"`
}

// SuspendClusters names the clusters a suspension applies to. Clusters are
// named explicitly on purpose: a selector would make the suspended set change
// under the user's feet as cluster labels change.
//
// +k8s:deepcopy-gen=true
type SuspendClusters struct {
	// ClusterNames lists the clusters, each a DNS-1123 label of at most 48
	// characters, without duplicates.
	// +optional
	ClusterNames []string `json:"clusterNames,omitempty"`
}

// ErrConflictingSpellings is wrapped by the error UnmarshalJSON returns when a
// field is given under both its current and its legacy name.
var ErrConflictingSpellings = errors.New("field set under both its current and its legacy name")

// SpellingConflictError says which field was given twice. It wraps
// ErrConflictingSpellings.
type SpellingConflictError struct {
	// Field is the current name, Legacy the older one.
	Field, Legacy string
}

func (e *SpellingConflictError) Error() string {
	return fmt.Sprintf("suspension: %q and its legacy spelling %q are both set; keep only %q", e.Field, e.Legacy, e.Field)
}

// Unwrap lets errors.Is match ErrConflictingSpellings.
func (e *SpellingConflictError) Unwrap() error { return ErrConflictingSpellings }

// suspensionWire holds every spelling we accept. A JSON null counts as
// absent, as it does for any optional Kubernetes field.
type suspensionWire struct {
	Dispatching                  *bool            `json:"dispatching"`
	DispatchingOnClusters        *SuspendClusters `json:"dispatchingOnClusters"`
	SuspendDispatching           *bool            `json:"suspendDispatching"`
	SuspendDispatchingOnClusters *SuspendClusters `json:"suspendDispatchingOnClusters"`
}

// UnmarshalJSON accepts both spellings of each field and rejects a field
// given under both, even with equal values, since the intent is ambiguous.
// A decoded object replaces the whole value (fields it lacks are reset); a
// JSON null leaves the value alone. sigs.k8s.io/yaml converts YAML to JSON
// first, so YAML gets the same rules.
func (s *Suspension) UnmarshalJSON(data []byte) error {
	if string(bytes.TrimSpace(data)) == "null" {
		return nil // as for any Go value: null leaves it alone
	}
	var w suspensionWire
	if err := json.Unmarshal(data, &w); err != nil {
		return fmt.Errorf("suspension: %w", err)
	}
	if w.Dispatching != nil && w.SuspendDispatching != nil {
		return &SpellingConflictError{Field: "dispatching", Legacy: "suspendDispatching"}
	}
	if w.DispatchingOnClusters != nil && w.SuspendDispatchingOnClusters != nil {
		return &SpellingConflictError{Field: "dispatchingOnClusters", Legacy: "suspendDispatchingOnClusters"}
	}
	out := Suspension{Dispatching: w.Dispatching, DispatchingOnClusters: w.DispatchingOnClusters}
	if out.Dispatching == nil {
		out.Dispatching = w.SuspendDispatching
	}
	if out.DispatchingOnClusters == nil {
		out.DispatchingOnClusters = w.SuspendDispatchingOnClusters
	}
	*s = out
	return nil
}
