package preservation

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/util/jsonpath"
)

// template is one parsed rule template. chain is set when the template is a
// single action made of field names only ("{.a.b.c}"): such templates are
// evaluated by the package's own walkers instead of client-go jsonpath.
type template struct {
	chain []string
}

// Reasons a template is refused; they are the detail of a field.Invalid.
var (
	errTemplateEmpty    = errors.New("a JSONPath template such as \"{ .jobStatus.jobId }\" is required")
	errTemplateNoAction = errors.New("template has no {...} action: without braces JSONPath prints the text literally; write it as \"{ .field }\"")
	errTemplateRange    = errors.New("{range} and {end} are not supported: a parsed range template cannot be executed twice nor shared between goroutines")
)

// parseTemplate parses text with client-go jsonpath and refuses what cannot
// be evaluated repeatedly and concurrently.
func parseTemplate(text string) (tmpl template, err error) {
	if strings.TrimSpace(text) == "" {
		return template{}, errTemplateEmpty
	}
	// jsonpath is a third-party parser fed with user input: a panic in it
	// must become a refused template, never a crashed webhook.
	defer func() {
		if r := recover(); r != nil {
			tmpl, err = template{}, fmt.Errorf("template cannot be parsed: %v", r)
		}
	}()
	parser, err := jsonpath.Parse("rule", text)
	if err != nil {
		return template{}, fmt.Errorf("template cannot be parsed: %w", err)
	}
	actions := 0
	for _, node := range parser.Root.Nodes {
		list, ok := node.(*jsonpath.ListNode)
		if !ok {
			continue // literal text between actions
		}
		actions++
		if err := checkNodes(list.Nodes); err != nil {
			return template{}, err
		}
	}
	if actions == 0 {
		return template{}, errTemplateNoAction
	}
	return template{chain: fieldChain(parser.Root)}, nil
}

// checkNodes refuses identifiers anywhere in a parsed action: range and end
// make a parsed template stateful, and any other identifier can only fail at
// evaluation time.
func checkNodes(nodes []jsonpath.Node) error {
	for _, node := range nodes {
		switch n := node.(type) {
		case *jsonpath.IdentifierNode:
			if n.Name == "range" || n.Name == "end" {
				return errTemplateRange
			}
			return fmt.Errorf("unknown identifier %q: only fields, indexes, filters, wildcards and unions are supported", n.Name)
		case *jsonpath.ListNode:
			if err := checkNodes(n.Nodes); err != nil {
				return err
			}
		case *jsonpath.UnionNode:
			for _, list := range n.Nodes {
				if err := checkNodes(list.Nodes); err != nil {
					return err
				}
			}
		case *jsonpath.FilterNode:
			if err := checkNodes(n.Left.Nodes); err != nil {
				return err
			}
			if err := checkNodes(n.Right.Nodes); err != nil {
				return err
			}
		}
	}
	return nil
}

// fieldChain returns the field names of a template made of exactly one
// action holding one or more field nodes, else nil.
func fieldChain(root *jsonpath.ListNode) []string {
	if len(root.Nodes) != 1 {
		return nil
	}
	list, ok := root.Nodes[0].(*jsonpath.ListNode)
	if !ok || len(list.Nodes) == 0 {
		return nil
	}
	chain := make([]string, 0, len(list.Nodes))
	for _, node := range list.Nodes {
		f, ok := node.(*jsonpath.FieldNode)
		if !ok {
			return nil
		}
		chain = append(chain, f.Value)
	}
	return chain
}

// templateError turns a parseTemplate error into the field error a webhook
// returns.
func templateError(path *field.Path, text string, err error) *field.Error {
	if errors.Is(err, errTemplateEmpty) {
		return field.Required(path, err.Error())
	}
	return field.Invalid(path, text, err.Error())
}
