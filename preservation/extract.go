package preservation

import (
	"errors"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// ExtractOption changes how extraction treats a missing field or a value
// that cannot be a label value. Without options both are errors.
type ExtractOption struct {
	flags  extractFlags
	budget Budget
}

type extractFlags uint8

const (
	flagAllowMissing extractFlags = 1 << iota
	flagEncode
	flagFloat64Numbers
)

// AllowMissing skips a rule whose path is not in the status instead of
// failing: the rule's alias is absent from the result.
func AllowMissing() ExtractOption { return ExtractOption{flags: flagAllowMissing} }

// EncodeInvalidValues passes a value that is not a valid label value
// through EncodeLabelValue instead of failing with ErrInvalidLabelValue.
func EncodeInvalidValues() ExtractOption { return ExtractOption{flags: flagEncode} }

// Float64Numbers makes ExtractFromJSON read every JSON number as a float64,
// as encoding/json does, instead of the default Kubernetes decoding that
// keeps whole numbers as int64. It reproduces how Karmada v1.16 printed
// numbers: 1000000 becomes "1e+06" and 1763400000000 becomes "1.7634e+12",
// which is not a valid label value. It has no effect on
// ExtractFromUnstructured, whose map already holds typed numbers.
func Float64Numbers() ExtractOption { return ExtractOption{flags: flagFloat64Numbers} }

type extractOptions struct {
	allowMissing   bool
	encode         bool
	float64Numbers bool
	budget         Budget
}

func buildOptions(opts []ExtractOption) extractOptions {
	var flags extractFlags
	var budget Budget
	for _, opt := range opts {
		flags |= opt.flags
		if opt.budget.MaxStatusBytes > 0 {
			budget.MaxStatusBytes = opt.budget.MaxStatusBytes
		}
		if opt.budget.MaxWork > 0 {
			budget.MaxWork = opt.budget.MaxWork
		}
	}
	return extractOptions{
		allowMissing:   flags&flagAllowMissing != 0,
		encode:         flags&flagEncode != 0,
		float64Numbers: flags&flagFloat64Numbers != 0,
		budget:         budget.withDefaults(),
	}
}

// smallRuleCount is how many rules get their scan results on the stack.
const smallRuleCount = 8

// ExtractFromJSON extracts the state the rules select from a raw status
// document: the bytes of .status, such as the RawExtension of a binding's
// aggregated status item. Empty input counts as null: every rule's field is
// missing. A document that is not a JSON object (or null), or that
// json.Unmarshal would refuse, fails with ErrInvalidStatus.
//
// Values are printed as client-go jsonpath prints them once the status is
// decoded the way Kubernetes decodes JSON (k8s.io/apimachinery/pkg/util/json):
// a number written without '.' that fits an int64 is an int64 and prints
// in full ("1763400000000"); any other number is a float64 and prints with
// fmt's %v ("0.25", "1e+21"). Float64Numbers switches to encoding/json's
// all-float64 decoding. When every rule is a plain field chain the document
// is scanned once and never decoded; otherwise it is decoded once for all
// rules.
//
// The result maps each rule's aliasLabelName to its value. On failure the
// result is nil and the error joins one *RuleError per failing rule (or is
// a single ErrInvalidStatus or ErrBudgetExceeded error). The extraction
// stays within a Budget (WithBudget; the defaults otherwise): a longer
// status, or a rule whose work could exceed what is left of the budget,
// fails with ErrBudgetExceeded. Rules without any rule return nil, nil
// without looking at status.
func (r *Rules) ExtractFromJSON(status []byte, opts ...ExtractOption) (map[string]string, error) {
	if r.Len() == 0 {
		return nil, nil
	}
	o := buildOptions(opts)
	if !r.allChains {
		return r.extractDecodedJSON(status, o)
	}
	var stack [smallRuleCount]extracted
	values, err := r.extractChains(status, o, stack[:0])
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(values))
	for i := range values {
		if values[i].present {
			out[r.rules[i].alias] = values[i].value
		}
	}
	return out, nil
}

// ExtractFromJSONInto is ExtractFromJSON writing into out instead of a new
// map: on success every extracted rule's aliasLabelName is set in out and
// other keys are left as they are; on failure out is unchanged. A caller
// that extracts for many workloads can clear and reuse one map and save
// its allocations: with rules that are plain field chains selecting plain
// strings, an extraction then allocates once, for the values. out must not
// be nil unless there are no rules.
func (r *Rules) ExtractFromJSONInto(out map[string]string, status []byte, opts ...ExtractOption) error {
	if r.Len() == 0 {
		return nil
	}
	if out == nil {
		return errors.New("ExtractFromJSONInto: out is a nil map")
	}
	o := buildOptions(opts)
	if !r.allChains {
		m, err := r.extractDecodedJSON(status, o)
		for k, v := range m {
			out[k] = v
		}
		return err
	}
	var stack [smallRuleCount]extracted
	values, err := r.extractChains(status, o, stack[:0])
	if err != nil {
		return err
	}
	for i := range values {
		if values[i].present {
			out[r.rules[i].alias] = values[i].value
		}
	}
	return nil
}

// extracted is one rule's outcome before it goes into a result map.
type extracted struct {
	value   string
	present bool
}

// extractDecodedJSON decodes status once and runs every rule on the map.
func (r *Rules) extractDecodedJSON(status []byte, o extractOptions) (map[string]string, error) {
	if len(status) > o.budget.MaxStatusBytes {
		return nil, statusTooLong(len(status), o)
	}
	var decoded map[string]any
	if len(status) > 0 {
		if err := decodeJSON(status, &decoded, o.float64Numbers); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidStatus, err)
		}
	}
	return r.extractDecoded(decoded, o)
}

func statusTooLong(n int, o extractOptions) error {
	return fmt.Errorf("%w: status is %d bytes, more than the budget's MaxStatusBytes (%d)", ErrBudgetExceeded, n, o.budget.MaxStatusBytes)
}

// extractChains runs rules that are all plain chains with one scan of
// status and appends one outcome per rule to values.
func (r *Rules) extractChains(status []byte, o extractOptions, values []extracted) ([]extracted, error) {
	if len(status) > o.budget.MaxStatusBytes {
		return nil, statusTooLong(len(status), o)
	}
	var stack [smallRuleCount]chainResult
	var results []chainResult
	if len(r.rules) <= smallRuleCount {
		results = stack[:len(r.rules)]
	} else {
		results = make([]chainResult, len(r.rules))
	}
	sc := scanner{data: status, results: results}
	if err := sc.scanStatus(r.root); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidStatus, err)
	}
	// Values that are plain strings (the common case: ids, states, paths)
	// are copied into one string and sliced from it: one allocation for
	// all of them instead of one each. plain remembers which results are
	// such strings, so that each is checked once.
	var plainStack [smallRuleCount]bool
	plain := plainStack[:0]
	if len(results) > smallRuleCount {
		plain = make([]bool, 0, len(results))
	}
	total := 0
	for i := range results {
		raw := results[i].raw(status)
		plain = append(plain, raw != nil)
		total += len(raw)
	}
	var shared string
	if total > 0 {
		var b strings.Builder
		b.Grow(total)
		for i := range results {
			if plain[i] {
				b.Write(status[results[i].start+1 : results[i].end-1])
			}
		}
		shared = b.String()
	}
	var errs []error
	for i := range r.rules {
		cr := &r.rules[i]
		res := &results[i]
		values = append(values, extracted{})
		if !res.found {
			errs = cr.missing(res.matched, o, errs)
			continue
		}
		var (
			value string
			err   error
		)
		if plain[i] {
			n := res.end - res.start - 2
			value, shared = shared[:n], shared[n:]
		} else {
			value, err = printRaw(status[res.start:res.end], o.float64Numbers)
		}
		if err == nil {
			value, err = labelValue(value, o)
		}
		if err != nil {
			errs = append(errs, cr.fail(err))
			continue
		}
		values[len(values)-1] = extracted{value: value, present: true}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return values, nil
}

// ExtractFromUnstructured extracts the state the rules select from a
// decoded status: the value of .status in an unstructured object, not the
// whole object. A nil map counts as an empty status.
//
// Values print as client-go jsonpath prints the map's own types: int64 (as
// Kubernetes' JSON decoding produces for whole numbers) prints as a plain
// integer, float64 as fmt's %v. Results and errors are as ExtractFromJSON's.
func (r *Rules) ExtractFromUnstructured(status map[string]any, opts ...ExtractOption) (map[string]string, error) {
	if r.Len() == 0 {
		return nil, nil
	}
	return r.extractDecoded(status, buildOptions(opts))
}

// ExtractFromObject extracts from obj's .status. An object without a
// status (or a nil obj) has every rule's field missing; a .status that is
// not an object fails with ErrInvalidStatus.
func (r *Rules) ExtractFromObject(obj *unstructured.Unstructured, opts ...ExtractOption) (map[string]string, error) {
	if r.Len() == 0 {
		return nil, nil
	}
	var status map[string]any
	if obj != nil && obj.Object != nil {
		raw, ok := obj.Object["status"]
		if ok && raw != nil {
			if status, ok = raw.(map[string]any); !ok {
				return nil, fmt.Errorf("%w: .status is a %T", ErrInvalidStatus, raw)
			}
		}
	}
	return r.extractDecoded(status, buildOptions(opts))
}

func (r *Rules) extractDecoded(status map[string]any, o extractOptions) (map[string]string, error) {
	out := make(map[string]string, len(r.rules))
	var errs []error
	left := float64(o.budget.MaxWork)
	var (
		size     statusSize
		measured bool
		sizeOK   bool
	)
	// execute runs jsonpath on a rule once the bound of its work fits
	// what is left of the budget.
	execute := func(cr *compiledRule) (string, error) {
		if !measured {
			size, sizeOK = measureStatus(status, o.budget.MaxWork)
			measured = true
		}
		if !sizeOK {
			return "", fmt.Errorf("%w: the status is larger or deeper than a budget of %d work units allows", ErrBudgetExceeded, o.budget.MaxWork)
		}
		work := templateWork(cr.root, size)
		if work > left {
			return "", fmt.Errorf("%w: evaluating may take up to %.3g work units on a status of %.0f units nested %.0f deep; %.0f of the budget's %d are left",
				ErrBudgetExceeded, work, size.units, size.depth, left, o.budget.MaxWork)
		}
		left -= work
		return cr.executeTemplate(status)
	}
	for i := range r.rules {
		cr := &r.rules[i]
		var (
			value string
			err   error
		)
		if cr.chain != nil {
			v, matched, found, known := walkChain(status, cr.chain)
			if known && !found {
				errs = cr.missing(matched, o, errs)
				continue
			}
			printed := false
			if known {
				value, printed, err = printValue(v)
			}
			if !printed { // a type JSON decoding never produces: ask jsonpath
				value, err = execute(cr)
			}
		} else {
			value, err = execute(cr)
		}
		if err != nil {
			if o.allowMissing && errors.Is(err, ErrFieldNotFound) {
				continue
			}
			errs = append(errs, cr.fail(err))
			continue
		}
		errs = cr.store(out, value, o, errs)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// walkChain follows chain through decoded maps. found reports the value
// exists; known is false when the walk met a type that JSON decoding never
// produces, whose semantics only jsonpath knows.
func walkChain(status map[string]any, chain []string) (v any, matched int, found, known bool) {
	var cur any = status
	for i, key := range chain {
		switch m := cur.(type) {
		case map[string]any:
			next, ok := m[key]
			if !ok {
				return nil, i, false, true
			}
			cur = next
		case nil, string, bool, float64, int64, int, []any:
			return nil, i, false, true
		default:
			return nil, i, false, false
		}
	}
	return cur, len(chain), true, true
}

// missing records a rule whose chain matched only its first matched
// segments.
func (cr *compiledRule) missing(matched int, o extractOptions, errs []error) []error {
	if o.allowMissing {
		return errs
	}
	return append(errs, cr.fail(fmt.Errorf("%w: %s has no field %q",
		ErrFieldNotFound, statusPath(cr.chain[:matched]), cr.chain[matched])))
}

func statusPath(chain []string) string {
	return ".status" + strings.Join(append([]string{""}, chain...), ".")
}

func (cr *compiledRule) store(out map[string]string, value string, o extractOptions, errs []error) []error {
	value, err := labelValue(value, o)
	if err != nil {
		return append(errs, cr.fail(err))
	}
	out[cr.alias] = value
	return errs
}

// labelValue returns value when it is a valid label value, its encoding
// when the options ask for one, and an error otherwise.
func labelValue(value string, o extractOptions) (string, error) {
	if isLabelValue(value) {
		return value, nil
	}
	if !o.encode {
		return "", labelValueError(value)
	}
	return EncodeLabelValue(value), nil
}

func (cr *compiledRule) fail(err error) error {
	return &RuleError{AliasLabelName: cr.alias, JSONPath: cr.text, Err: err}
}

// raw returns the bytes of a found value that is a string without escapes,
// which print as they are; nil for any other result.
func (res *chainResult) raw(status []byte) []byte {
	if !res.found || status[res.start] != '"' {
		return nil
	}
	if inner := status[res.start+1 : res.end-1]; isPlainString(inner) {
		return inner
	}
	return nil
}
