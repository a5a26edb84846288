package replay

import (
	"slices"

	"github.com/fleetover/fleetover/suspension"
)

// ChangeSuspension is what a suspend (suspend true) or resume fault does to
// a workload's dispatch suspension: it suspends (or resumes) dispatching to
// cluster, or to every cluster when cluster is empty, keeping the
// suspension valid: a suspension of every cluster replaces a list of
// clusters, and resuming every cluster clears it. s is not modified.
func ChangeSuspension(s *suspension.Suspension, cluster string, suspend bool) *suspension.Suspension {
	out := s.DeepCopy()
	if out == nil {
		out = &suspension.Suspension{}
	}
	all := out.Dispatching != nil && *out.Dispatching
	switch {
	case cluster == "" && suspend:
		t := true
		out.Dispatching, out.DispatchingOnClusters = &t, nil
	case cluster == "":
		out = nil
	case suspend && !all:
		if out.DispatchingOnClusters == nil {
			out.DispatchingOnClusters = &suspension.SuspendClusters{}
		}
		if !slices.Contains(out.DispatchingOnClusters.ClusterNames, cluster) {
			out.DispatchingOnClusters.ClusterNames = append(out.DispatchingOnClusters.ClusterNames, cluster)
		}
	case !suspend && out.DispatchingOnClusters != nil:
		out.DispatchingOnClusters.ClusterNames = slices.DeleteFunc(slices.Clone(out.DispatchingOnClusters.ClusterNames),
			func(n string) bool { return n == cluster })
	}
	return out
}
