package suspension

import (
	"slices"
	"strings"
)

// HeldReplicas records one suspended cluster whose replicas a re-division
// wanted to remove and GuardRedivision kept.
type HeldReplicas struct {
	// Cluster is the suspended cluster.
	Cluster string
	// Replicas is what it keeps (its count before the re-division).
	Replicas int32
	// Proposed is what the re-division wanted (0 when it dropped the
	// cluster).
	Proposed int32
}

// GuardRedivision protects workloads on suspended clusters from a
// re-division (Karmada #6763). old and proposed map cluster names to replica
// counts. Every cluster that had replicas in old, is suspended by s, and is
// missing from proposed or has zero replicas there gets its old count back:
// dropping it would delete the workload on that cluster, because deletion is
// never blocked by a suspension.
//
// The corrected assignment is a new map (the inputs are not modified). It may
// hold more replicas in total than proposed: keeping a running copy is
// preferred over hitting the total exactly; a scheduler that knows the total
// should treat suspended clusters as fixed before dividing (package
// scheduling does). Other changes on suspended clusters (a scale from 3 to 2)
// pass through: they are held by ShouldDispatch until the resume. held is
// sorted by cluster name.
func GuardRedivision(s *Suspension, old, proposed map[string]int32) (corrected map[string]int32, held []HeldReplicas) {
	corrected = make(map[string]int32, len(proposed)+1)
	for name, n := range proposed {
		corrected[name] = n
	}
	if s == nil {
		return corrected, nil
	}
	for name, was := range old {
		if was <= 0 || !s.DispatchSuspended(name) {
			continue
		}
		if now := proposed[name]; now <= 0 {
			corrected[name] = was
			held = append(held, HeldReplicas{Cluster: name, Replicas: was, Proposed: now})
		}
	}
	slices.SortFunc(held, func(a, b HeldReplicas) int { return strings.Compare(a.Cluster, b.Cluster) })
	return corrected, held
}
