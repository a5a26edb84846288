package scheduling

import (
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Status is a filter's verdict on one cluster. The zero value is a fit.
type Status struct {
	// Rejected is true when the cluster is no target for the workload.
	Rejected bool
	// Reason says why, for people (events, logs); empty for a fit. Built-in
	// filters use constant reasons so that rejecting costs no allocation;
	// the details are in Until and Taint.
	Reason string
	// Taint, for a taint rejection, points at the untolerated taint in the
	// cluster's Taints (shared, not copied: do not modify).
	Taint *corev1.Taint
	// Until, on a rejection, is when the rejection lapses by itself (an
	// eviction-history block); zero when time alone will not lift it.
	Until time.Time
}

// Fit is the verdict of a filter that lets the cluster through.
func Fit() Status { return Status{} }

// Reject returns a rejection that time alone will not lift.
func Reject(reason string) Status { return Status{Rejected: true, Reason: reason} }

// RejectUntil returns a rejection that lapses at until.
func RejectUntil(reason string, until time.Time) Status {
	return Status{Rejected: true, Reason: reason, Until: until}
}

// Filter rules clusters out for a workload. Implementations must be pure
// (decide from their arguments, w.Now included) and safe for concurrent use.
type Filter interface {
	// Name identifies the filter in rejections.
	Name() string
	// Filter returns the verdict on cluster c for workload w. Neither may be
	// modified.
	Filter(w *Workload, c *Cluster) Status
}

// FilterFunc adapts a function to Filter.
type FilterFunc func(w *Workload, c *Cluster) Status

// NamedFilter returns a Filter called name that runs fn.
func NamedFilter(name string, fn FilterFunc) Filter { return namedFilter{name: name, fn: fn} }

// Name of an unnamed FilterFunc.
func (f FilterFunc) Name() string { return "FilterFunc" }

// Filter calls f.
func (f FilterFunc) Filter(w *Workload, c *Cluster) Status { return f(w, c) }

type namedFilter struct {
	name string
	fn   FilterFunc
}

func (f namedFilter) Name() string                          { return f.name }
func (f namedFilter) Filter(w *Workload, c *Cluster) Status { return f.fn(w, c) }
