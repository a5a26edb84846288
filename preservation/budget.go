package preservation

import (
	"fmt"

	"k8s.io/client-go/util/jsonpath"
)

// Compile-time bounds on a rule set. A template within them has an
// evaluation cost that is at most cubic in the size of the status (see
// Budget); one beyond them is refused with a field error naming the rule's
// jsonPath, because its cost grows as a higher power of the status size:
// each recursive descent after the first multiplies the values jsonpath
// holds by the depth of the status, so "{..a..b..c..d}" on a chain-shaped
// status of a kilobyte allocates gigabytes.
const (
	// MaxRules is the most rules a StatePreservation may hold.
	MaxRules = 64
	// MaxJSONPathLength is the longest template accepted, in bytes.
	MaxJSONPathLength = 1024
	// MaxRecursiveDescents is the most ".." a template may use, filters
	// included.
	MaxRecursiveDescents = 1
	// MaxFilters is the most [?(...)] filters a template may use. A filter
	// may contain neither a filter nor a recursive descent: it is evaluated
	// once per element it filters.
	MaxFilters = 4
	// MaxUnionBranches is the most branches all the unions ([a,b]) of a
	// template may have together: each union adds up its branches' results.
	MaxUnionBranches = 16
)

// Defaults of Budget.
const (
	// DefaultMaxStatusBytes bounds the raw status ExtractFromJSON reads:
	// 1 MiB, about the largest object an API server stores.
	DefaultMaxStatusBytes = 1 << 20
	// DefaultMaxWork bounds the work of the templates jsonpath evaluates
	// in one extraction, in work units (see Budget): about 2 million, which
	// keeps an extraction's allocations to tens of megabytes at worst and
	// leaves common templates on statuses of tens of kilobytes far below.
	DefaultMaxWork = 1 << 21
	// maxStatusDepth bounds the nesting of a decoded status that jsonpath
	// evaluates, as JSON decoders bound theirs; it also stops the walk of
	// a map that contains itself.
	maxStatusDepth = 10000
)

// Budget bounds the time and memory one extraction may take on a status
// and rules written by someone else. Zero or negative fields take the
// Default… values; a caller tightens a bound by setting a smaller one.
//
// Plain field chains ("{.a.b}") cost one pass over the status. Other
// templates are evaluated by client-go jsonpath, which cannot be stopped
// midway; so before running one, extraction computes an upper bound of its
// work from the template and the status's size (U: values, plus the bytes
// of strings and keys) and depth (D), and refuses the rule when the bound
// exceeds what is left of MaxWork. One work unit is one value jsonpath
// produces, copies or prints, which costs a few dozen bytes of allocation
// at most. Within the compile-time limits the bound is at most a small
// multiple of U*D*D.
type Budget struct {
	// MaxStatusBytes bounds len(status) for ExtractFromJSON: a longer
	// status fails with ErrBudgetExceeded before it is read.
	MaxStatusBytes int
	// MaxWork bounds the work of all the rules jsonpath evaluates in one
	// extraction. The rule that would exceed it fails with a *RuleError
	// wrapping ErrBudgetExceeded.
	MaxWork int64
}

// WithBudget sets the budget of an extraction; without it the defaults
// hold. With several, the last non-zero value of each field wins.
func WithBudget(b Budget) ExtractOption { return ExtractOption{budget: b} }

func (b Budget) withDefaults() Budget {
	if b.MaxStatusBytes <= 0 {
		b.MaxStatusBytes = DefaultMaxStatusBytes
	}
	if b.MaxWork <= 0 {
		b.MaxWork = DefaultMaxWork
	}
	return b
}

// templateShape counts what the compile-time bounds limit.
type templateShape struct {
	recursive, filters, unionBranches int
}

// check refuses identifiers anywhere in a parsed action (range and end make
// a parsed template stateful; any other identifier can only fail at
// evaluation time) and counts recursive descents, filters and union
// branches against their bounds.
func (s *templateShape) check(nodes []jsonpath.Node, inFilter bool) error {
	for _, node := range nodes {
		switch n := node.(type) {
		case *jsonpath.IdentifierNode:
			if n.Name == "range" || n.Name == "end" {
				return errTemplateRange
			}
			return fmt.Errorf("unknown identifier %q: only fields, indexes, filters, wildcards and unions are supported", n.Name)
		case *jsonpath.RecursiveNode:
			if inFilter {
				return fmt.Errorf("a recursive descent (..) inside a filter is not supported: its cost grows with the square of the status size")
			}
			if s.recursive++; s.recursive > MaxRecursiveDescents {
				return fmt.Errorf("at most %d recursive descent (..) per template: each further one multiplies the cost by the depth of the status", MaxRecursiveDescents)
			}
		case *jsonpath.ListNode:
			if err := s.check(n.Nodes, inFilter); err != nil {
				return err
			}
		case *jsonpath.UnionNode:
			if s.unionBranches += len(n.Nodes); s.unionBranches > MaxUnionBranches {
				return fmt.Errorf("at most %d union branches per template", MaxUnionBranches)
			}
			for _, list := range n.Nodes {
				if err := s.check(list.Nodes, inFilter); err != nil {
					return err
				}
			}
		case *jsonpath.FilterNode:
			if inFilter {
				return fmt.Errorf("a filter inside a filter is not supported")
			}
			if s.filters++; s.filters > MaxFilters {
				return fmt.Errorf("at most %d filters per template", MaxFilters)
			}
			if err := s.check(n.Left.Nodes, true); err != nil {
				return err
			}
			if err := s.check(n.Right.Nodes, true); err != nil {
				return err
			}
		}
	}
	return nil
}

// statusSize is what the work bound of a template depends on.
type statusSize struct {
	units float64 // values, plus the bytes of strings and keys
	depth float64 // deepest nesting; a string counts one level (jsonpath descends into its bytes)
}

// measureStatus walks a decoded status, giving up (ok false) once it holds
// more than maxUnits units or nests deeper than maxStatusDepth: no
// template could then be evaluated within the budget.
func measureStatus(status map[string]any, maxUnits int64) (statusSize, bool) {
	m := statusMeter{max: maxUnits}
	m.walk(status, 1)
	return statusSize{units: float64(m.units), depth: float64(m.depth)}, !m.over
}

type statusMeter struct {
	units, max int64
	depth      int
	over       bool
}

func (m *statusMeter) walk(v any, depth int) {
	if m.over {
		return
	}
	m.units++
	if depth > m.depth {
		m.depth = depth
	}
	if m.units > m.max || depth > maxStatusDepth {
		m.over = true
		return
	}
	switch t := v.(type) {
	case map[string]any:
		for k, child := range t {
			m.units += int64(len(k))
			m.walk(child, depth+1)
		}
	case []any:
		for _, child := range t {
			m.walk(child, depth+1)
		}
	case string:
		m.units += int64(len(t))
		if len(t) > 0 && depth+1 > m.depth {
			m.depth = depth + 1
		}
	}
}

// resultSet bounds the values jsonpath holds between two steps: at most
// count values, each node of the status at most mult times. antichain
// reports that no value is an ancestor of another, so a recursive descent
// visits each node at most mult times.
type resultSet struct {
	count, mult float64
	antichain   bool
}

// templateWork is an upper bound of the work units client-go jsonpath
// spends evaluating and printing root on a status of size sz.
func templateWork(root *jsonpath.ListNode, sz statusSize) float64 {
	var work float64
	for _, node := range root.Nodes {
		list, ok := node.(*jsonpath.ListNode)
		if !ok {
			work++ // literal text
			continue
		}
		out, w := listWork(list.Nodes, resultSet{count: 1, mult: 1, antichain: true}, sz)
		// Printing a value prints its subtree: an antichain's subtrees
		// are disjoint; otherwise a node is printed once per ancestor.
		printed := out.mult * sz.units
		if !out.antichain {
			printed *= sz.depth + 1
		}
		work += w + out.count + min(out.count*sz.units, printed)
	}
	return work
}

func listWork(nodes []jsonpath.Node, in resultSet, sz statusSize) (resultSet, float64) {
	var work float64
	for _, node := range nodes {
		var w float64
		in, w = nodeWork(node, in, sz)
		work += w
	}
	return in, work
}

// nodeWork bounds one step. Children of an antichain form an antichain,
// each child has one parent, and a recursive descent from a node copies
// each node of its subtree once per level on the way up (client-go
// appends each level's results to its parent's).
func nodeWork(node jsonpath.Node, in resultSet, sz statusSize) (resultSet, float64) {
	children := resultSet{count: min(in.count*sz.units, in.mult*sz.units), mult: in.mult, antichain: in.antichain}
	switch n := node.(type) {
	case *jsonpath.ListNode:
		return listWork(n.Nodes, in, sz)
	case *jsonpath.FieldNode:
		return in, in.count
	case *jsonpath.ArrayNode, *jsonpath.WildcardNode:
		return children, in.count + children.count
	case *jsonpath.RecursiveNode:
		out := resultSet{mult: in.mult, antichain: false}
		if !in.antichain {
			out.mult *= sz.depth + 1
		}
		out.count = out.mult * sz.units
		return out, in.count + out.count*sz.depth
	case *jsonpath.UnionNode:
		out := resultSet{}
		var work float64
		for _, list := range n.Nodes {
			branch, w := listWork(list.Nodes, in, sz)
			out.count += branch.count
			out.mult += branch.mult
			work += w + branch.count
		}
		return out, in.count + work
	case *jsonpath.FilterNode:
		one := resultSet{count: 1, mult: 1, antichain: true}
		_, left := listWork(n.Left.Nodes, one, sz)
		_, right := listWork(n.Right.Nodes, one, sz)
		return children, in.count + children.count*(1+left+right)
	default: // literals, identifiers
		return resultSet{count: 1, mult: 1, antichain: true}, 1 + in.count
	}
}
