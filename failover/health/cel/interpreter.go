package cel

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/interpreter"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fleetover/fleetover/failover/health"
)

// Variable is the name under which a rule sees the object, as a map of its
// JSON fields.
const Variable = "object"

// celInterpreter evaluates one compiled CEL program. cel.Program is safe
// for concurrent use, so one value serves every goroutine.
type celInterpreter struct {
	program cel.Program
	name    string
	timeout time.Duration
}

// NewInterpreter compiles expression once and returns a health.Interpreter
// that evaluates it for each object. The expression sees the object as the
// variable `object` (a map of its JSON fields) and returns either a bool
// (true is Healthy, false Unhealthy) or one of the strings "Healthy",
// "Unhealthy" and "Unknown":
//
//	object.status.availableReplicas >= object.spec.replicas
//	has(object.status.phase) && object.status.phase == "Bound" ? "Healthy" : "Unknown"
//
// A configuration that ValidateConfig rejects is an error wrapping
// ErrInvalidConfig. A syntax or type error, a result type other than bool,
// string or dyn, or an expression longer than Config.MaxExpressionBytes is
// a *health.CompileError quoting the expression. An evaluation that fails (a
// missing field without has(), a cost over the limit, another result) is an
// error wrapping health.ErrEvaluate, naming the rule, with an Unknown result.
func NewInterpreter(expression string, cfg Config) (health.Interpreter, error) {
	if errs := ValidateConfig(cfg, nil); len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, errs.ToAggregate())
	}
	cfg = cfg.withDefaults()
	compileErr := func(detail string) error {
		return &health.CompileError{Language: "CEL", Source: expression, Detail: detail}
	}
	if len(expression) > cfg.MaxExpressionBytes {
		return nil, compileErr(fmt.Sprintf("expression is %d bytes long, more than the limit of %d", len(expression), cfg.MaxExpressionBytes))
	}
	env, err := cel.NewEnv(
		cel.Variable(Variable, cel.MapType(cel.StringType, cel.DynType)),
		cel.ParserExpressionSizeLimit(cfg.MaxExpressionBytes),
	)
	if err != nil {
		return nil, compileErr(err.Error())
	}
	ast, issues := env.Compile(expression)
	if issues != nil && issues.Err() != nil {
		return nil, compileErr(issues.Err().Error())
	}
	out := ast.OutputType()
	if !out.IsExactType(cel.BoolType) && !out.IsExactType(cel.StringType) && !out.IsDyn() {
		return nil, compileErr("result type is " + out.String() + ", want bool or string")
	}
	program, err := env.Program(ast, cel.CostLimit(cfg.CostLimit), cel.MemoryLimit(cfg.MemoryLimit),
		cel.InterruptCheckFrequency(interruptCheckFrequency))
	if err != nil {
		return nil, compileErr(err.Error())
	}
	name := strconv.Quote(cfg.Name)
	if cfg.Name == "" {
		name = quoteSource(expression)
	}
	return &celInterpreter{program: program, name: name, timeout: cfg.Timeout}, nil
}

// quoteSource names a rule by the start of its text.
func quoteSource(src string) string {
	const max = 60
	if len(src) > max {
		src = src[:max] + "..."
	}
	return strconv.Quote(src)
}

// Interpret evaluates the expression for obj.
func (c *celInterpreter) Interpret(obj *unstructured.Unstructured) (health.Result, error) {
	if obj == nil || obj.Object == nil {
		return health.UnknownResult(health.ErrNoObject)
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.timeout)
	defer cancel()
	val, _, err := c.program.ContextEval(ctx, objectActivation{object: obj.Object})
	if err != nil {
		switch {
		case isCostError(err):
			err = fmt.Errorf("%w: %w", ErrCostLimit, err)
		case ctx.Err() != nil:
			err = fmt.Errorf("%w (%s): %w", ErrTimeout, c.timeout, err)
		case strings.Contains(err.Error(), "memory limit exceeded"):
			err = fmt.Errorf("%w: %w", ErrMemoryLimit, err)
		}
		return health.UnknownResult(fmt.Errorf("%w: CEL health rule %s: %w", health.ErrEvaluate, c.name, err))
	}
	switch v := val.(type) {
	case types.Bool:
		return health.RuleResult(bool(v), "CEL")
	case types.String:
		return health.RuleResult(string(v), "CEL")
	default:
		return health.UnknownResult(fmt.Errorf("%w: CEL health rule %s returned %s, want bool or a status string",
			health.ErrEvaluate, c.name, val.Type().TypeName()))
	}
}

// ErrCostLimit is wrapped by the error of an evaluation stopped by
// Config.CostLimit.
var ErrCostLimit = errors.New("CEL cost limit exceeded")

// ErrTimeout is wrapped by the error of an evaluation stopped by
// Config.Timeout.
var ErrTimeout = errors.New("CEL time limit exceeded")

// ErrMemoryLimit is wrapped by the error of an evaluation stopped by
// Config.MemoryLimit.
var ErrMemoryLimit = errors.New("CEL memory limit exceeded")

func isCostError(err error) bool {
	var cancelled interpreter.EvalCancelledError
	if errors.As(err, &cancelled) {
		return cancelled.Cause == interpreter.CostLimitExceeded
	}
	return strings.Contains(err.Error(), "cost limit exceeded")
}

// objectActivation binds the object to the rule's variable without building
// a map per evaluation.
type objectActivation struct {
	object map[string]any
}

func (a objectActivation) ResolveName(name string) (any, bool) {
	if name == Variable {
		return a.object, true
	}
	return nil, false
}

func (a objectActivation) Parent() interpreter.Activation { return nil }
