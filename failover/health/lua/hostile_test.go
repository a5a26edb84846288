package lua

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fleetover/fleetover/failover/health"
)

// The hostile cases run under a generous timeout: each must be stopped by
// the bound it targets (instructions or memory), which is fast, and the
// error says which.
var hostileLimits = Limits{Timeout: time.Minute, Instructions: 200_000, MemoryBytes: 4 << 20, MaxStringBytes: 1 << 20}

func hostileRule(t *testing.T, body string) health.Interpreter {
	t.Helper()
	rule, err := NewInterpreter("function InterpretHealth(o)\n"+body+"\nend", Config{Name: "hostile", Limits: hostileLimits})
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	return rule
}

func expectStopped(t *testing.T, rule health.Interpreter, want ...error) {
	t.Helper()
	got, err := rule.Interpret(decode(t, `{"kind":"Widget","status":{"s":"x"}}`))
	if got.Status != health.Unknown || !errors.Is(err, health.ErrEvaluate) {
		t.Fatalf("%+v, %v; want Unknown and ErrEvaluate", got, err)
	}
	if !strings.Contains(err.Error(), `"hostile"`) {
		t.Errorf("error %q does not name the rule", err)
	}
	if len(want) == 0 {
		return
	}
	for _, w := range want {
		if errors.Is(err, w) {
			return
		}
	}
	t.Errorf("error %v wraps none of %v", err, want)
}

func TestHostilePatternBacktracking(t *testing.T) {
	for name, body := range map[string]string{
		"find":   `return string.find(string.rep('a', 128), '.-.-.-.-b') ~= nil`,
		"match":  `return string.match(string.rep('a', 4096), '(.-)(.-)(.-)b') ~= nil`,
		"gmatch": `for x in string.gmatch(string.rep('a', 4096), '.-.-.-b') do end return true`,
		"gsub":   `return string.gsub(string.rep('a', 4096), '.-.-.-b', 'x') ~= nil`,
		"method": `local s = string.rep('a', 128) return s:find('.-.-.-.-b') ~= nil`,
	} {
		t.Run(name, func(t *testing.T) {
			expectStopped(t, hostileRule(t, body), ErrInstructionLimit)
		})
	}
}

func TestHostileStringGrowth(t *testing.T) {
	for name, body := range map[string]string{
		"rep": `return #string.rep('x', 1e9) > 0`,
		"gsub long replacement": `local r = string.rep('y', 1000000)
			return #string.gsub(string.rep('x', 1000), 'x', r) > 0`,
		"format many %s": `local s = string.rep('y', 100000)
			return #string.format(string.rep('%s', 100), ` + strings.Repeat("s, ", 99) + `s) > 0`,
		"doubling":       `local s = 'x' for i = 1, 64 do s = s .. s end return #s > 0`,
		"many strings":   `local t = {} for i = 1, 1000 do t[i] = string.rep('x', 100000) end return true`,
		"table.concat":   `local t = {} for i = 1, 100 do t[i] = string.rep('x', 100000) end return #table.concat(t) > 0`,
		"upper in loop":  `local s = string.rep('x', 500000) local t = {} for i = 1, 100 do t[i] = s:upper() end return true`,
		"pcall swallows": `local s = 'x' while true do pcall(function() s = s .. s end) end`,
	} {
		t.Run(name, func(t *testing.T) {
			expectStopped(t, hostileRule(t, body), ErrMemoryLimit, ErrStringTooLong, ErrInstructionLimit)
		})
	}
}

// TestHostileFormatWidth: a width or precision of more than two digits is
// refused, as in Lua, before anything is built.
func TestHostileFormatWidth(t *testing.T) {
	rule := hostileRule(t, `return #string.format('%999999999s', 'x') > 0`)
	_, err := rule.Interpret(decode(t, `{"kind":"Widget"}`))
	if !errors.Is(err, health.ErrEvaluate) || !strings.Contains(err.Error(), "too long") {
		t.Fatalf("error %v, want a refused width", err)
	}
}

func TestHostileLoopsAndRecursion(t *testing.T) {
	for name, body := range map[string]string{
		"endless loop":   `while true do end`,
		"table growth":   `local t = {} local i = 0 while true do i = i + 1 t[i] = {} end`,
		"deep recursion": `local function f(n) return f(n + 1) + 1 end return f(1)`,
		"unpack":         `return select('#', unpack({}, 1, 1e8)) > 0`,
	} {
		t.Run(name, func(t *testing.T) {
			rule := hostileRule(t, body)
			got, err := rule.Interpret(decode(t, `{"kind":"Widget"}`))
			if got.Status != health.Unknown || !errors.Is(err, health.ErrEvaluate) || !strings.Contains(err.Error(), `"hostile"`) {
				t.Fatalf("%+v, %v; want Unknown and an error naming the rule", got, err)
			}
		})
	}
}

// TestHostileTopLevelCode: the script's top-level code runs under the same
// bounds when NewInterpreter loads it.
func TestHostileTopLevelCode(t *testing.T) {
	for name, script := range map[string]string{
		"pattern":  `local x = string.find(string.rep('a', 128), '.-.-.-.-b')`,
		"doubling": `local s = 'x' for i = 1, 64 do s = s .. s end`,
		"loop":     `while true do end`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := NewInterpreter(script+"\nfunction InterpretHealth(o) return true end", Config{Limits: hostileLimits})
			if !errors.Is(err, health.ErrCompile) {
				t.Fatalf("error %v, want ErrCompile", err)
			}
			if !strings.Contains(err.Error(), "limit") && !strings.Contains(err.Error(), "longer") {
				t.Errorf("error %v does not say which limit", err)
			}
		})
	}
}

// TestHostileTimeout: a time limit stops a script whose instruction budget
// would let it run far longer.
func TestHostileTimeout(t *testing.T) {
	rule, err := NewInterpreter(`function InterpretHealth(o) while true do end end`,
		Config{Name: "hostile", Limits: Limits{Timeout: time.Millisecond, Instructions: MaxInstructions}})
	if err != nil {
		t.Fatal(err)
	}
	expectStopped(t, rule, ErrTimeout)
}

// TestHostileStateRetired: strings a script keeps in globals from one call
// to the next do not pile up: a state that used one evaluation's budget is
// dropped.
func TestHostileStateRetired(t *testing.T) {
	// Each call keeps 500 kB in a global; the memory budget is 4 MiB, so a
	// state is retired after about eight calls and the next call starts
	// from a fresh state, where keep holds one string again.
	rule := hostileRule(t, `keep = keep or {} keep[#keep + 1] = string.rep('x', 500000) return #keep == 1`)
	fresh := 0
	for n := 0; n < 40; n++ {
		got, err := rule.Interpret(decode(t, `{"kind":"Widget"}`))
		if err != nil {
			t.Fatal(err)
		}
		if got.Status == health.Healthy {
			fresh++
		}
	}
	if fresh < 4 {
		t.Errorf("%d of 40 calls started from a fresh state, want at least 4: kept strings pile up", fresh)
	}
}

func TestValidateConfig(t *testing.T) {
	cases := map[string]struct {
		cfg   Config
		field string
	}{
		"negative timeout":      {Config{Limits: Limits{Timeout: -1}}, "limits.timeout"},
		"huge timeout":          {Config{Limits: Limits{Timeout: time.Hour}}, "limits.timeout"},
		"negative instructions": {Config{Limits: Limits{Instructions: -5}}, "limits.instructions"},
		"huge instructions":     {Config{Limits: Limits{Instructions: 1 << 62}}, "limits.instructions"},
		"negative memory":       {Config{Limits: Limits{MemoryBytes: -1}}, "limits.memoryBytes"},
		"string over memory":    {Config{Limits: Limits{MemoryBytes: 1000, MaxStringBytes: 2000}}, "limits.maxStringBytes"},
		"negative depth":        {Config{Limits: Limits{CallDepth: -1}}, "limits.callDepth"},
		"huge script":           {Config{MaxScriptBytes: 1 << 30}, "maxScriptBytes"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			errs := ValidateConfig(c.cfg, nil)
			if len(errs) != 1 || errs[0].Field != c.field {
				t.Fatalf("errors %v, want one for %s", errs, c.field)
			}
			_, err := NewInterpreter(karmadaScript, c.cfg)
			if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), c.field) {
				t.Errorf("NewInterpreter: %v, want ErrInvalidConfig naming %s", err, c.field)
			}
		})
	}
	if errs := ValidateConfig(Config{}, nil); len(errs) != 0 {
		t.Errorf("zero Config: %v", errs)
	}
	if errs := ValidateConfig(Config{Limits: Limits{MemoryBytes: 1000}}, nil); len(errs) != 0 {
		t.Errorf("small memory with default string bound: %v", errs)
	}
}
