package scheduling

import (
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Rejection says which filter ruled a cluster out and why.
type Rejection struct {
	// Filter is the Name of the first filter that rejected the cluster.
	Filter string
	// Reason is its explanation.
	Reason string
	// Until is when the rejection lapses; zero when time alone will not lift
	// it.
	Until time.Time
	// Taint is the untolerated taint of a taint rejection (shared with the
	// cluster, do not modify).
	Taint *corev1.Taint
}

// Result is the outcome of RunFilters.
type Result struct {
	// Feasible lists the clusters every filter let through, in input order.
	Feasible []string
	// Rejected maps every other cluster to its first rejection; nil when no
	// cluster was rejected.
	Rejected map[string]Rejection
	// RetryAt is the earliest time a rejection lapses (requeue the workload
	// then); zero when none does.
	RetryAt time.Time
}

// RunFilters runs filters, in order, on every cluster and stops at the first
// rejection of each. A nil filter is skipped; a nil w is the zero Workload.
// Cluster names are expected to be unique (a fleet has one cluster per name;
// Replace checks it); a cluster with an empty name is rejected by the runner
// itself. The runner allocates only the Feasible slice and, when something is
// rejected, the Rejected map.
func RunFilters(w *Workload, clusters []Cluster, filters ...Filter) Result {
	var res Result
	RunFiltersInto(&res, w, clusters, filters...)
	return res
}

// RunFiltersInto is RunFilters writing into res, reusing its Feasible slice
// and Rejected map (cleared first) to spare allocations when one caller
// places many workloads in a row. Rejected stays nil until a first rejection.
func RunFiltersInto(res *Result, w *Workload, clusters []Cluster, filters ...Filter) {
	if w == nil {
		w = &Workload{}
	}
	if cap(res.Feasible) < len(clusters) {
		res.Feasible = make([]string, 0, len(clusters))
	}
	res.Feasible = res.Feasible[:0]
	clear(res.Rejected)
	res.RetryAt = time.Time{}
	for i := range clusters {
		c := &clusters[i]
		if c.Name == "" {
			res.reject(c.Name, Rejection{Filter: "Runner", Reason: "cluster has no name"})
			continue
		}
		rejected := false
		for _, f := range filters {
			if f == nil {
				continue
			}
			st := f.Filter(w, c)
			if !st.Rejected {
				continue
			}
			res.reject(c.Name, Rejection{Filter: f.Name(), Reason: st.Reason, Until: st.Until, Taint: st.Taint})
			rejected = true
			break
		}
		if !rejected {
			res.Feasible = append(res.Feasible, c.Name)
		}
	}
}

func (res *Result) reject(name string, r Rejection) {
	if res.Rejected == nil {
		res.Rejected = make(map[string]Rejection)
	}
	res.Rejected[name] = r
	if !r.Until.IsZero() && (res.RetryAt.IsZero() || r.Until.Before(res.RetryAt)) {
		res.RetryAt = r.Until
	}
}
