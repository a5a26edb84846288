package health

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/parse"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// LuaFunction is the global function a Lua health rule defines, with
// Karmada's name and signature: it receives the object as a table and
// returns a boolean (true is Healthy).
const LuaFunction = "InterpretHealth"

// DefaultLuaTimeout bounds one Lua rule evaluation.
const DefaultLuaTimeout = time.Second

// LuaConfig configures NewLuaInterpreter. Its zero value uses
// DefaultLuaTimeout.
type LuaConfig struct {
	// Timeout bounds one evaluation (and the script's top-level code when it
	// is loaded); 0 means DefaultLuaTimeout. An evaluation that exceeds it
	// fails, and the object is Unknown.
	Timeout time.Duration
}

const (
	// luaMaxDepth bounds the nesting of the object converted to Lua tables;
	// Kubernetes objects stay far below it.
	luaMaxDepth = 128
	// luaMaxRepeat caps string.rep, the one library call that can allocate
	// gigabytes in a single instruction.
	luaMaxRepeat = 1 << 20
	// luaCallStackSize bounds recursion inside a script.
	luaCallStackSize = 200
)

// luaInterpreter runs one compiled script. An LState is not safe for
// concurrent use, so prepared states (libraries opened, script loaded) are
// pooled; a state whose evaluation failed is dropped rather than reused.
type luaInterpreter struct {
	proto   *lua.FunctionProto
	timeout time.Duration
	states  sync.Pool
}

type luaVM struct {
	state *lua.LState
	fn    *lua.LFunction
}

// NewLuaInterpreter compiles script once and returns an Interpreter that
// calls its InterpretHealth(observedObj) function for each object, the form
// Karmada's ResourceInterpreterCustomization uses:
//
//	function InterpretHealth(observedObj)
//	  return observedObj.status.readyReplicas == observedObj.spec.replicas
//	end
//
// The function returns a boolean (true is Healthy, false Unhealthy) or one
// of the strings "Healthy", "Unhealthy" and "Unknown". The object arrives as
// nested tables (JSON arrays as 1-based sequences, numbers as Lua numbers,
// null as nil).
//
// Scripts run in a sandbox: only the base (without dofile, loadfile, load,
// loadstring, require, module, print and collectgarbage), string, table
// and math libraries exist, so a script reads no file, starts no process
// and loads no code. Each evaluation is bounded by the timeout and a call
// depth. States are pooled and reused, so a script must not rely on global
// variables it assigns (as with Karmada's pooled Lua VMs).
//
// A syntax error, an error in the script's top-level code or a missing
// InterpretHealth function is a *CompileError. A failing evaluation is an
// error wrapping ErrEvaluate with an Unknown result.
func NewLuaInterpreter(script string, cfg LuaConfig) (Interpreter, error) {
	chunk, err := parse.Parse(strings.NewReader(script), "health rule")
	if err != nil {
		return nil, &CompileError{Language: "Lua", Source: script, Detail: err.Error()}
	}
	proto, err := lua.Compile(chunk, "health rule")
	if err != nil {
		return nil, &CompileError{Language: "Lua", Source: script, Detail: err.Error()}
	}
	l := &luaInterpreter{proto: proto, timeout: cfg.Timeout}
	if l.timeout <= 0 {
		l.timeout = DefaultLuaTimeout
	}
	// Load once now so that a broken script fails here, not at the first
	// object; the prepared state seeds the pool.
	vm, err := l.newVM()
	if err != nil {
		return nil, &CompileError{Language: "Lua", Source: script, Detail: err.Error()}
	}
	l.states.Put(vm)
	return l, nil
}

// newVM prepares a sandboxed state with the script loaded.
func (l *luaInterpreter) newVM() (vm *luaVM, err error) {
	state := lua.NewState(lua.Options{
		SkipOpenLibs:        true,
		CallStackSize:       luaCallStackSize,
		MinimizeStackMemory: true,
	})
	defer func() {
		if err != nil {
			state.Close()
		}
	}()
	for _, lib := range []struct {
		name string
		open lua.LGFunction
	}{
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
	} {
		if err := state.CallByParam(lua.P{Fn: state.NewFunction(lib.open), NRet: 0, Protect: true}, lua.LString(lib.name)); err != nil {
			return nil, err
		}
	}
	for _, name := range []string{"dofile", "loadfile", "load", "loadstring", "require", "module", "print", "_printregs", "collectgarbage"} {
		state.SetGlobal(name, lua.LNil)
	}
	if str, ok := state.GetGlobal(lua.StringLibName).(*lua.LTable); ok {
		str.RawSetString("rep", state.NewFunction(cappedRepeat))
	}

	ctx, cancel := context.WithTimeout(context.Background(), l.timeout)
	defer cancel()
	state.SetContext(ctx)
	state.Push(state.NewFunctionFromProto(l.proto))
	err = state.PCall(0, 0, nil)
	state.RemoveContext()
	if err != nil {
		return nil, fmt.Errorf("running the script: %w", err)
	}
	fn, ok := state.GetGlobal(LuaFunction).(*lua.LFunction)
	if !ok {
		return nil, errors.New("the script defines no function " + LuaFunction)
	}
	return &luaVM{state: state, fn: fn}, nil
}

// cappedRepeat is string.rep with a bound on the result's length.
func cappedRepeat(state *lua.LState) int {
	s := state.CheckString(1)
	n := state.CheckInt(2)
	if n <= 0 || s == "" {
		state.Push(lua.LString(""))
		return 1
	}
	if n > luaMaxRepeat/len(s) {
		state.RaiseError("string.rep: result longer than %d bytes", luaMaxRepeat)
		return 0
	}
	state.Push(lua.LString(strings.Repeat(s, n)))
	return 1
}

// Interpret calls InterpretHealth with obj.
func (l *luaInterpreter) Interpret(obj *unstructured.Unstructured) (Result, error) {
	if obj == nil || obj.Object == nil {
		return unknown(ErrNoObject)
	}
	vm, _ := l.states.Get().(*luaVM)
	if vm == nil {
		var err error
		if vm, err = l.newVM(); err != nil {
			return unknown(fmt.Errorf("%w: Lua: %w", ErrEvaluate, err))
		}
	}
	ret, err := vm.call(obj.Object, l.timeout)
	if err != nil {
		vm.state.Close()
		return unknown(fmt.Errorf("%w: Lua: %w", ErrEvaluate, err))
	}
	l.states.Put(vm)
	switch v := ret.(type) {
	case lua.LBool:
		if v {
			return healthy, nil
		}
		return unhealthy("Lua rule returned false"), nil
	case lua.LString:
		return statusResult(string(v), "Lua")
	default:
		return unknown(fmt.Errorf("%w: Lua rule returned %s, want boolean or a status string", ErrEvaluate, ret.Type().String()))
	}
}

func (vm *luaVM) call(obj map[string]any, timeout time.Duration) (ret lua.LValue, err error) {
	state := vm.state
	arg, err := toLua(state, obj, 0)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	state.SetContext(ctx)
	defer state.RemoveContext()
	defer func() {
		// PCall turns Lua errors and most Go panics into errors; this is the
		// last line for anything that escapes it.
		if p := recover(); p != nil {
			err = fmt.Errorf("panic: %v", p)
		}
	}()
	state.Push(vm.fn)
	state.Push(arg)
	if err := state.PCall(1, 1, nil); err != nil {
		return nil, err
	}
	ret = state.Get(-1)
	state.Pop(1)
	return ret, nil
}

// toLua converts an unstructured value into Lua values.
func toLua(state *lua.LState, v any, depth int) (lua.LValue, error) {
	if depth > luaMaxDepth {
		return nil, fmt.Errorf("%w: nested deeper than %d levels", ErrMalformedObject, luaMaxDepth)
	}
	switch x := v.(type) {
	case nil:
		return lua.LNil, nil
	case string:
		return lua.LString(x), nil
	case bool:
		return lua.LBool(x), nil
	case float64:
		return lua.LNumber(x), nil
	case float32:
		return lua.LNumber(x), nil
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
		t := state.CreateTable(len(x), 0)
		for i, e := range x {
			lv, err := toLua(state, e, depth+1)
			if err != nil {
				return nil, err
			}
			t.RawSetInt(i+1, lv)
		}
		return t, nil
	default:
		if n, ok := toInt64(x); ok {
			return lua.LNumber(n), nil
		}
		return nil, fmt.Errorf("%w: value of Go type %T has no JSON form", ErrMalformedObject, v)
	}
}
