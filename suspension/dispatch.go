package suspension

// Operation is what a dispatcher is about to do on a member cluster.
type Operation string

const (
	// OperationApply creates or updates the workload on the cluster.
	OperationApply Operation = "Apply"
	// OperationDelete removes the workload from the cluster.
	OperationDelete Operation = "Delete"
)

// Action is the answer to "may I do this now".
type Action string

const (
	// ActionProceed: go ahead.
	ActionProceed Action = "Proceed"
	// ActionHold: do not touch the cluster; the change waits for the resume.
	ActionHold Action = "Hold"
)

// ShouldDispatch reports whether changes may be applied to cluster: false
// while dispatching is suspended for every cluster or for this one. A nil s
// dispatches everywhere.
func ShouldDispatch(s *Suspension, cluster string) bool {
	return !s.DispatchSuspended(cluster)
}

// DispatchSuspended reports whether dispatching to cluster is suspended. It
// accepts a nil receiver (nothing suspended), so a *Suspension can be handed
// to any consumer that asks "is this cluster suspended" through a
// one-method interface.
func (s *Suspension) DispatchSuspended(cluster string) bool {
	if s == nil {
		return false
	}
	if s.Dispatching != nil && *s.Dispatching {
		return true
	}
	if s.DispatchingOnClusters == nil {
		return false
	}
	for _, name := range s.DispatchingOnClusters.ClusterNames {
		if name == cluster {
			return true
		}
	}
	return false
}

// Decide says whether op may run on cluster now. Deletion always proceeds,
// suspended or not, so that deleting a workload never leaves copies behind on
// member clusters. Any operation other than OperationDelete is treated as an
// apply and held while dispatching to cluster is suspended.
func Decide(s *Suspension, cluster string, op Operation) Action {
	if op == OperationDelete || ShouldDispatch(s, cluster) {
		return ActionProceed
	}
	return ActionHold
}

// FailoverPaused reports whether failover decisions about cluster are paused:
// they are while dispatching to it is suspended. Moving a workload away
// means changing what runs on the cluster, which the user asked to freeze;
// the failover resumes with the dispatching.
func FailoverPaused(s *Suspension, cluster string) bool {
	return s.DispatchSuspended(cluster)
}

// SuspendsAll reports whether s suspends dispatching to every cluster.
func SuspendsAll(s *Suspension) bool {
	return s != nil && s.Dispatching != nil && *s.Dispatching
}
