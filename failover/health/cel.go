package health

import (
	"fmt"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/interpreter"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// DefaultCELCostLimit bounds the work of one CEL rule evaluation, in CEL's
// cost units; it is the per-expression limit Kubernetes applies to CEL in
// CustomResourceDefinition validation.
const DefaultCELCostLimit = 1_000_000

// CELVariable is the name under which a CEL rule sees the object, as a map
// of its JSON fields.
const CELVariable = "object"

// CELConfig configures NewCELInterpreter. Its zero value uses
// DefaultCELCostLimit.
type CELConfig struct {
	// CostLimit bounds one evaluation; 0 means DefaultCELCostLimit. An
	// evaluation that exceeds it fails, and the object is Unknown.
	CostLimit uint64
}

// celInterpreter evaluates one compiled CEL program. cel.Program is safe
// for concurrent use, so one value serves every goroutine.
type celInterpreter struct {
	program cel.Program
}

// NewCELInterpreter compiles expression once and returns an Interpreter
// that evaluates it for each object. The expression sees the object as the
// variable `object` (a map of its JSON fields) and returns either a bool
// (true is Healthy, false Unhealthy) or one of the strings "Healthy",
// "Unhealthy" and "Unknown":
//
//	object.status.availableReplicas >= object.spec.replicas
//	has(object.status.phase) && object.status.phase == "Bound" ? "Healthy" : "Unknown"
//
// A syntax or type error, or a result type other than bool, string or dyn,
// is a *CompileError quoting the expression. An evaluation that fails (a
// missing field without has(), a cost over the limit, another result) is an
// error wrapping ErrEvaluate with an Unknown result.
func NewCELInterpreter(expression string, cfg CELConfig) (Interpreter, error) {
	env, err := cel.NewEnv(cel.Variable(CELVariable, cel.MapType(cel.StringType, cel.DynType)))
	if err != nil {
		return nil, &CompileError{Language: "CEL", Source: expression, Detail: err.Error()}
	}
	ast, issues := env.Compile(expression)
	if issues != nil && issues.Err() != nil {
		return nil, &CompileError{Language: "CEL", Source: expression, Detail: issues.Err().Error()}
	}
	out := ast.OutputType()
	if !out.IsExactType(cel.BoolType) && !out.IsExactType(cel.StringType) && !out.IsDyn() {
		return nil, &CompileError{Language: "CEL", Source: expression,
			Detail: "result type is " + out.String() + ", want bool or string"}
	}
	limit := cfg.CostLimit
	if limit == 0 {
		limit = DefaultCELCostLimit
	}
	program, err := env.Program(ast, cel.CostLimit(limit))
	if err != nil {
		return nil, &CompileError{Language: "CEL", Source: expression, Detail: err.Error()}
	}
	return &celInterpreter{program: program}, nil
}

// Interpret evaluates the expression for obj.
func (c *celInterpreter) Interpret(obj *unstructured.Unstructured) (Result, error) {
	if obj == nil || obj.Object == nil {
		return unknown(ErrNoObject)
	}
	val, _, err := c.program.Eval(objectActivation{object: obj.Object})
	if err != nil {
		return unknown(fmt.Errorf("%w: CEL: %w", ErrEvaluate, err))
	}
	switch v := val.(type) {
	case types.Bool:
		if v {
			return healthy, nil
		}
		return unhealthy("CEL rule returned false"), nil
	case types.String:
		return statusResult(string(v), "CEL")
	default:
		return unknown(fmt.Errorf("%w: CEL rule returned %s, want bool or a status string", ErrEvaluate, val.Type().TypeName()))
	}
}

// statusResult turns a status string returned by a rule into a Result.
func statusResult(s, language string) (Result, error) {
	switch st := Status(s); st {
	case Healthy:
		return healthy, nil
	case Unhealthy, Unknown:
		return Result{Status: st, Reason: language + " rule returned " + s}, nil
	default:
		return unknown(fmt.Errorf("%w: %s rule returned %q, want Healthy, Unhealthy or Unknown", ErrEvaluate, language, s))
	}
}

// objectActivation binds the object to the rule's variable without building
// a map per evaluation.
type objectActivation struct {
	object map[string]any
}

func (a objectActivation) ResolveName(name string) (any, bool) {
	if name == CELVariable {
		return a.object, true
	}
	return nil, false
}

func (a objectActivation) Parent() interpreter.Activation { return nil }
