package carrier

import (
	"github.com/fleetover/fleetover/failover"
)

// PolicyExtension is the document under PolicyExtensionKey.
type PolicyExtension struct {
	Version     string                `json:"version"`
	Application *ApplicationExtension `json:"application,omitempty"`
	Cluster     *ClusterExtension     `json:"cluster,omitempty"`
}

// ApplicationExtension adds to Karmada's application failover behaviour.
type ApplicationExtension struct {
	// PreConditions: delaySeconds after the first status collection, and
	// healthyState Healthy to fail over only a workload that was once
	// healthy.
	PreConditions *failover.PreConditions `json:"preConditions,omitempty"`
	// BlockPredecessorSeconds keeps the workload away from a cluster it left
	// for this long (0: for good); unset is eviction.DefaultBlockPredecessorSeconds.
	BlockPredecessorSeconds *int32 `json:"blockPredecessorSeconds,omitempty"`
}

// ClusterExtension adds to Karmada's cluster failover behaviour.
type ClusterExtension struct {
	// GracePeriodSeconds bounds a graceful eviction by a taint.
	GracePeriodSeconds *int32 `json:"gracePeriodSeconds,omitempty"`
}

// Behavior returns the library's failover behaviour holding the
// extension's fields alone (nil for a nil extension or one that sets
// nothing); a caller adds Karmada's spec.failover fields to it.
func (e *PolicyExtension) Behavior() *failover.FailoverBehavior {
	if e == nil || (e.Application == nil && e.Cluster == nil) {
		return nil
	}
	out := &failover.FailoverBehavior{}
	if a := e.Application; a != nil {
		out.Application = &failover.ApplicationFailoverBehavior{
			PreConditions:           a.PreConditions,
			BlockPredecessorSeconds: a.BlockPredecessorSeconds,
		}
	}
	if c := e.Cluster; c != nil {
		out.Cluster = &failover.ClusterFailoverBehavior{GracePeriodSeconds: c.GracePeriodSeconds}
	}
	return out
}

// BlockPredecessorSeconds is the extension's block window for the eviction
// history: nil when unset (eviction.DefaultBlockPredecessorSeconds applies).
func (e *PolicyExtension) BlockPredecessorSeconds() *int32 {
	if e == nil || e.Application == nil {
		return nil
	}
	return e.Application.BlockPredecessorSeconds
}

// DecodePolicyExtension reads PolicyExtensionKey from annotations and
// validates its fields with failover's validation of the whole policy. It
// returns nil, nil when the annotation is absent.
func DecodePolicyExtension(annotations map[string]string) (*PolicyExtension, error) {
	ext := &PolicyExtension{}
	found, errs := Decode(annotations, PolicyExtensionKey, ext, func() string { return ext.Version })
	if !found {
		return nil, nil
	}
	if len(errs) == 0 {
		errs = failover.ValidateFailoverBehavior(ext.Behavior(), Path(PolicyExtensionKey))
	}
	if len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	return ext, nil
}
