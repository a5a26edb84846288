package fencing

import (
	"fmt"
	"time"

	"github.com/fleetover/fleetover/eviction"
)

// FenceAfterAnnotation is the annotation an agent that fences writes on its
// cluster object on the control plane (Karmada's Cluster, OCM's
// ManagedCluster), with its FenceAfter as a Go duration ("2m0s"). The
// control plane reads it with Declared and passes it on as
// eviction.OldCopy.FenceAfter.
const FenceAfterAnnotation = "fencing.fleetover.io/fence-after"

// SingleWriterLabel marks, with the value "true", a workload manifest the
// control plane sends to a member as a single writer (a stateful workload
// failed over Directly): the workloads an agent stops when it fences.
const SingleWriterLabel = "fencing.fleetover.io/single-writer"

// maxDeclarationLength bounds the annotation value Declared parses: the
// member writes it, so it is untrusted on the control plane.
const maxDeclarationLength = 32

// Declare returns the annotation (key and value) an agent with cfg writes
// on its cluster object.
func Declare(cfg Config) (key, value string) {
	return FenceAfterAnnotation, cfg.fenceAfter().String()
}

// Declared reads a member's declaration from its cluster object's
// annotations: its FenceAfter, or 0 when it declares none (it cannot be
// trusted to fence). A value that is not a Go duration, longer than 32
// bytes, not positive or above eviction.MaxDuration is an error naming the
// annotation, and the member counts as one that cannot fence.
func Declared(annotations map[string]string) (time.Duration, error) {
	v, ok := annotations[FenceAfterAnnotation]
	if !ok {
		return 0, nil
	}
	if len(v) > maxDeclarationLength {
		return 0, fmt.Errorf("annotation %s: value of %d bytes, at most %d", FenceAfterAnnotation, len(v), maxDeclarationLength)
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("annotation %s: %q is not a duration: %w", FenceAfterAnnotation, v, err)
	}
	if d <= 0 || d > eviction.MaxDuration {
		return 0, fmt.Errorf("annotation %s: %s must be greater than 0 and at most %s", FenceAfterAnnotation, d, eviction.MaxDuration)
	}
	return d, nil
}
