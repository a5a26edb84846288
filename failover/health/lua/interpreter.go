package lua

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	glua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fleetover/fleetover/failover/health"
)

// Function is the global function a Lua health rule defines, with
// Karmada's name and signature: it receives the object as a table and
// returns a boolean (true is Healthy).
const Function = "InterpretHealth"

const (
	// maxObjectDepth bounds the nesting of the object converted to Lua
	// tables; Kubernetes objects stay far below it.
	maxObjectDepth = 128
	// registrySize and maxRegistrySize bound the value stack (unpack of a
	// huge table, deep varargs).
	registrySize     = 1024
	registryGrowStep = 1024
	maxRegistrySize  = 16 * 1024
	// maxUnpack bounds the values unpack returns, well within the stack.
	maxUnpack = 8000
)

// luaInterpreter runs one compiled script. An LState is not safe for
// concurrent use, so prepared states (libraries opened, script loaded) are
// pooled. A state whose evaluation failed, or that has used one
// evaluation's budget over its lifetime (a script can keep strings in
// globals from one call to the next), is dropped rather than reused.
type luaInterpreter struct {
	proto  *glua.FunctionProto
	limits Limits
	name   string
	states sync.Pool
}

type luaVM struct {
	state  *glua.LState
	fn     *glua.LFunction
	budget *budget
	// spentSteps and spentBytes add up the budgets of past evaluations.
	spentSteps, spentBytes int64
}

// NewInterpreter compiles script once and returns a health.Interpreter
// that calls its InterpretHealth(observedObj) function for each object, the
// form Karmada's ResourceInterpreterCustomization uses:
//
//	function InterpretHealth(observedObj)
//	  return observedObj.status.readyReplicas == observedObj.spec.replicas
//	end
//
// The function returns a boolean (true is Healthy, false Unhealthy) or one
// of the strings "Healthy", "Unhealthy" and "Unknown". The object arrives as
// nested tables (JSON arrays as 1-based sequences, numbers as Lua numbers,
// null as nil; a null array element is left out, as Karmada converts it).
//
// Scripts run in a sandbox: only the base (without dofile, loadfile, load,
// loadstring, module, print and collectgarbage), string, table and math
// libraries exist, and require knows only Karmada's "kube" helper module
// (KubeModule), so a script reads no file, starts no process and loads no
// code. Each evaluation, and the script's top-level code run
// here once, is bounded by Config.Limits: time, instructions, call depth,
// and the size of the strings it builds. States are pooled and reused, so a
// script must not rely on global variables it assigns (as with Karmada's
// pooled Lua VMs).
//
// A Config that ValidateConfig rejects is an error wrapping
// ErrInvalidConfig. A syntax error, a script longer than
// Config.MaxScriptBytes, an error in the top-level code (a crossed limit
// included) or a missing InterpretHealth function is a
// *health.CompileError. A failing evaluation is an error wrapping
// health.ErrEvaluate that names the rule (and wraps ErrTimeout,
// ErrInstructionLimit, ErrMemoryLimit or ErrStringTooLong when a limit
// stopped it), with an Unknown result.
func NewInterpreter(script string, cfg Config) (health.Interpreter, error) {
	if errs := ValidateConfig(cfg, nil); len(errs) > 0 {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, errs.ToAggregate())
	}
	cfg = cfg.withDefaults()
	compileErr := func(detail string) error {
		return &health.CompileError{Language: "Lua", Source: script, Detail: detail}
	}
	if len(script) > cfg.MaxScriptBytes {
		return nil, compileErr(fmt.Sprintf("script is %d bytes long, more than the limit of %d", len(script), cfg.MaxScriptBytes))
	}
	chunk, err := parse.Parse(strings.NewReader(script), "health rule")
	if err != nil {
		return nil, compileErr(err.Error())
	}
	rewriteConcat(chunk)
	proto, err := glua.Compile(chunk, "health rule")
	if err != nil {
		return nil, compileErr(err.Error())
	}
	name := strconv.Quote(cfg.Name)
	if cfg.Name == "" {
		name = quoteSource(script)
	}
	l := &luaInterpreter{proto: proto, limits: cfg.Limits, name: name}
	// Load once now so that a broken script fails here, not at the first
	// object; the prepared state seeds the pool.
	vm, err := l.newVM()
	if err != nil {
		return nil, compileErr(err.Error())
	}
	l.states.Put(vm)
	return l, nil
}

// quoteSource names a rule by the start of its text.
func quoteSource(src string) string {
	const max = 60
	src = strings.TrimSpace(src)
	if len(src) > max {
		src = src[:max] + "..."
	}
	return strconv.Quote(src)
}

// newVM prepares a sandboxed state with the script loaded.
func (l *luaInterpreter) newVM() (vm *luaVM, err error) {
	state := glua.NewState(glua.Options{
		SkipOpenLibs:        true,
		CallStackSize:       l.limits.CallDepth,
		RegistrySize:        registrySize,
		RegistryMaxSize:     maxRegistrySize,
		RegistryGrowStep:    registryGrowStep,
		MinimizeStackMemory: true,
	})
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
		if err != nil {
			state.Close()
		}
	}()
	for _, lib := range []struct {
		name string
		open glua.LGFunction
	}{
		{glua.BaseLibName, glua.OpenBase},
		{glua.TabLibName, glua.OpenTable},
		{glua.StringLibName, glua.OpenString},
		{glua.MathLibName, glua.OpenMath},
	} {
		if err := state.CallByParam(glua.P{Fn: state.NewFunction(lib.open), NRet: 0, Protect: true}, glua.LString(lib.name)); err != nil {
			return nil, err
		}
	}
	for _, name := range []string{"dofile", "loadfile", "load", "loadstring", "module", "print", "_printregs", "collectgarbage", "newproxy"} {
		state.SetGlobal(name, glua.LNil)
	}
	b := newBudget(l.limits)
	lib := &boundedLib{budget: b}
	lib.install(state)
	lib.installRequire(state)

	b.reset(time.Now())
	state.SetContext(b)
	state.Push(state.NewFunctionFromProto(l.proto))
	if err := state.PCall(0, 0, nil); err != nil {
		return nil, fmt.Errorf("running the script: %w", limitError(b, err))
	}
	fn, ok := state.GetGlobal(Function).(*glua.LFunction)
	if !ok {
		return nil, errors.New("the script defines no function " + Function)
	}
	return &luaVM{state: state, fn: fn, budget: b, spentSteps: b.steps, spentBytes: b.bytes}, nil
}

// limitError wraps the crossed limit, if any, into err.
func limitError(b *budget, err error) error {
	if b.exceeded != nil {
		return fmt.Errorf("%w: %w", b.exceeded, err)
	}
	return err
}

// Interpret calls InterpretHealth with obj.
func (l *luaInterpreter) Interpret(obj *unstructured.Unstructured) (health.Result, error) {
	if obj == nil || obj.Object == nil {
		return health.UnknownResult(health.ErrNoObject)
	}
	vm, _ := l.states.Get().(*luaVM)
	if vm == nil {
		var err error
		if vm, err = l.newVM(); err != nil {
			return health.UnknownResult(fmt.Errorf("%w: Lua health rule %s: %w", health.ErrEvaluate, l.name, err))
		}
	}
	ret, err := vm.call(obj.Object)
	if err != nil {
		vm.state.Close()
		return health.UnknownResult(fmt.Errorf("%w: Lua health rule %s: %w", health.ErrEvaluate, l.name, err))
	}
	vm.spentSteps += vm.budget.steps
	vm.spentBytes += vm.budget.bytes
	if vm.spentSteps <= l.limits.Instructions && vm.spentBytes <= l.limits.MemoryBytes {
		l.states.Put(vm)
	} else {
		vm.state.Close()
	}
	switch v := ret.(type) {
	case glua.LBool:
		return health.RuleResult(bool(v), "Lua")
	case glua.LString:
		return health.RuleResult(string(v), "Lua")
	default:
		return health.UnknownResult(fmt.Errorf("%w: Lua health rule %s returned %s, want boolean or a status string",
			health.ErrEvaluate, l.name, ret.Type().String()))
	}
}

func (vm *luaVM) call(obj map[string]any) (ret glua.LValue, err error) {
	state := vm.state
	defer func() {
		// PCall turns Lua errors and most Go panics into errors; this is the
		// last line for anything that escapes it.
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	vm.budget.reset(time.Now())
	arg, err := toLua(state, obj, 0)
	if err != nil {
		return nil, err
	}
	state.Push(vm.fn)
	state.Push(arg)
	if err := state.PCall(1, 1, nil); err != nil {
		return nil, limitError(vm.budget, err)
	}
	ret = state.Get(-1)
	state.Pop(1)
	return ret, nil
}

// toLua converts an unstructured value into Lua values.
func toLua(state *glua.LState, v any, depth int) (glua.LValue, error) {
	if depth > maxObjectDepth {
		return nil, fmt.Errorf("%w: nested deeper than %d levels", health.ErrMalformedObject, maxObjectDepth)
	}
	switch x := v.(type) {
	case nil:
		return glua.LNil, nil
	case string:
		return glua.LString(x), nil
	case bool:
		return glua.LBool(x), nil
	case float64:
		return glua.LNumber(x), nil
	case float32:
		return glua.LNumber(x), nil
	case map[string]any:
		t := state.CreateTable(0, len(x))
		for k, e := range x {
			lv, err := toLua(state, e, depth+1)
			if err != nil {
				return nil, err
			}
			t.RawSetString(k, lv)
		}
		return t, nil
	case []any:
		// A null element is left out and the elements after it move up,
		// as in Karmada's conversion (which appends each element, and
		// appending nil appends nothing): the sequence stays a sequence
		// for # and ipairs.
		t := state.CreateTable(len(x), 0)
		for _, e := range x {
			lv, err := toLua(state, e, depth+1)
			if err != nil {
				return nil, err
			}
			t.Append(lv)
		}
		return t, nil
	default:
		if n, ok := health.ToInt64(x); ok {
			return glua.LNumber(n), nil
		}
		return nil, fmt.Errorf("%w: value of Go type %T has no JSON form", health.ErrMalformedObject, v)
	}
}
