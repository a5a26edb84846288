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
	// root is the parsed template, read (never executed) to bound the
	// work of an evaluation.
	root *jsonpath.ListNode
}

// Reasons a template is refused; they are the detail of a field.Invalid.
var (
	errTemplateEmpty    = errors.New("a JSONPath template such as \"{ .jobStatus.jobId }\" is required")
	errTemplateNoAction = errors.New("template has no {...} action: without braces JSONPath prints the text literally; write it as \"{ .field }\"")
	errTemplateTooLong  = fmt.Errorf("template is longer than %d bytes", MaxJSONPathLength)
	errTemplateRange    = errors.New("{range} and {end} are not supported: a parsed range template cannot be executed twice nor shared between goroutines")
)

// parseTemplate parses text with client-go jsonpath and refuses what cannot
// be evaluated repeatedly and concurrently.
func parseTemplate(text string) (tmpl template, err error) {
	if strings.TrimSpace(text) == "" {
		return template{}, errTemplateEmpty
	}
	if len(text) > MaxJSONPathLength {
		return template{}, errTemplateTooLong
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
	var shape templateShape
	for _, node := range parser.Root.Nodes {
		list, ok := node.(*jsonpath.ListNode)
		if !ok {
			continue // literal text between actions
		}
		actions++
		if err := shape.check(list.Nodes, false); err != nil {
			return template{}, err
		}
	}
	if actions == 0 {
		return template{}, errTemplateNoAction
	}
	return template{chain: fieldChain(parser.Root), root: parser.Root}, nil
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
	if errors.Is(err, errTemplateTooLong) {
		return field.TooLong(path, "", MaxJSONPathLength)
	}
	return field.Invalid(path, text, err.Error())
}
