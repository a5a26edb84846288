package preservation

import (
	"sync"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/util/jsonpath"
)

// Rules are compiled state preservation rules. Compile them once, when the
// policy is admitted, and share them: a *Rules is immutable and safe for
// concurrent use by any number of goroutines. A nil *Rules has no rules.
type Rules struct {
	rules []compiledRule
	// root indexes the plain field chains of rules by path segment, so one
	// pass over a raw status serves all of them.
	root *chainNode
	// allChains is true when every rule is a plain field chain: raw JSON is
	// then scanned, never decoded.
	allChains bool
}

type compiledRule struct {
	alias string
	text  string
	// chain is set for plain field chains ("{.a.b}").
	chain []string
	// root is the parsed template, read to bound an evaluation's work.
	root *jsonpath.ListNode
	// parsed hands out one jsonpath.JSONPath per concurrent evaluation:
	// client-go does not promise that a JSONPath is safe for concurrent use.
	// Plain chains use it only on values of types JSON never decodes to.
	parsed *sync.Pool
}

// chainNode is one path segment shared by one or more plain chains.
type chainNode struct {
	key      string
	depth    int // segments from .status to this node
	children []*chainNode
	// ending lists the rules whose chain ends here; passing lists every rule
	// whose chain goes through or ends here.
	ending  []int
	passing []int
}

// Compile validates rules as ValidateStatePreservation does and prepares
// them for extraction. On invalid rules it returns an *InvalidRulesError
// (errors.Is(err, ErrInvalidRules) holds) whose field paths start at
// "rules". Compiling no rules gives Rules that extract nothing.
func Compile(rules []StatePreservationRule) (*Rules, error) {
	errs, templates := validateRules(rules, field.NewPath("rules"))
	if len(errs) > 0 {
		return nil, &InvalidRulesError{Errors: errs}
	}
	compiled := &Rules{
		rules:     make([]compiledRule, len(rules)),
		root:      &chainNode{},
		allChains: true,
	}
	for i, rule := range rules {
		cr := compiledRule{alias: rule.AliasLabelName, text: rule.JSONPath, chain: templates[i].chain, root: templates[i].root}
		text := rule.JSONPath
		cr.parsed = &sync.Pool{New: func() any {
			jp := jsonpath.New("rule")
			// Parsing succeeded above; a failure here leaves jp without a
			// parser, which Execute reports as an error, not a panic.
			_ = jp.Parse(text)
			return jp
		}}
		if cr.chain == nil {
			compiled.allChains = false
		} else {
			compiled.root.insert(cr.chain, i)
		}
		compiled.rules[i] = cr
	}
	return compiled, nil
}

// Len is the number of rules.
func (r *Rules) Len() int {
	if r == nil {
		return 0
	}
	return len(r.rules)
}

func (n *chainNode) insert(chain []string, rule int) {
	n.passing = append(n.passing, rule)
	cur := n
	for _, key := range chain {
		next := cur.child(key)
		if next == nil {
			next = &chainNode{key: key, depth: cur.depth + 1}
			cur.children = append(cur.children, next)
		}
		next.passing = append(next.passing, rule)
		cur = next
	}
	cur.ending = append(cur.ending, rule)
}

func (n *chainNode) child(key string) *chainNode {
	for _, c := range n.children {
		if c.key == key {
			return c
		}
	}
	return nil
}

// childBytes looks a raw object key up without allocating.
func (n *chainNode) childBytes(key []byte) *chainNode {
	for _, c := range n.children {
		if c.key == string(key) {
			return c
		}
	}
	return nil
}
