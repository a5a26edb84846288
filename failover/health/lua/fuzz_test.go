package lua

import (
	"encoding/json"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	glua "github.com/yuin/gopher-lua"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fleetover/fleetover/failover/health"
)

var fuzzLimits = Limits{Timeout: 50 * time.Millisecond, Instructions: 100_000, MemoryBytes: 1 << 20, MaxStringBytes: 64 << 10}

// fuzzAllocSlack is what an evaluation may allocate beyond the string
// budget: the object's tables, a fresh state when the last one failed, and
// a small constant per instruction for tables and closures.
const fuzzAllocSlack = 16<<20 + 256*100_000

// FuzzLuaRule compiles any script and runs it against any object: no
// panic, a valid status, and each evaluation within its time and memory
// bounds (the time oracle is generous: it only has to tell a bounded
// evaluation from one that runs away).
func FuzzLuaRule(f *testing.F) {
	f.Add(karmadaScript, []byte(`{"spec":{"replicas":3},"status":{"readyReplicas":3}}`))
	f.Add(`function InterpretHealth(o) return o.status.phase == "Running" end`, []byte(`{"status":{"phase":"Running"}}`))
	f.Add(`function InterpretHealth(o) for k, v in pairs(o) do end return "Unknown" end`, []byte(`{"status":[1,2,null]}`))
	f.Add(`function InterpretHealth(o) return string.find(string.rep('a', 128), '.-.-.-.-b') end`, []byte(`{}`))
	f.Add(`function InterpretHealth(o) local s = 'x' for i = 1, 64 do s = s .. s end end`, []byte(`{}`))
	f.Add(`function InterpretHealth(o) return string.gsub(string.rep('x', 1000), 'x', string.rep('y', 1000)) end`, []byte(`{}`))
	f.Add(`function InterpretHealth(o) return string.format(string.rep('%s', 50), unpack({})) end`, []byte(`{}`))
	f.Add(`local kube = require("kube") function InterpretHealth(o) return kube.getResourceQuantity(kube.resourceAdd(o.a, "1e-9")) > 1 end`, []byte(`{"a":"2Gi"}`))
	f.Fuzz(func(t *testing.T, script string, doc []byte) {
		rule, err := NewInterpreter(script, Config{Limits: fuzzLimits})
		if err != nil {
			if !errors.Is(err, health.ErrCompile) {
				t.Fatalf("compile error %v does not wrap ErrCompile", err)
			}
			return
		}
		m := map[string]any{}
		if json.Unmarshal(doc, &m) != nil {
			return
		}
		obj := &unstructured.Unstructured{Object: m}
		for n := 0; n < 2; n++ {
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			start := time.Now()
			got, err := rule.Interpret(obj)
			elapsed := time.Since(start)
			runtime.ReadMemStats(&after)
			if !got.Status.IsValid() || (err != nil && got.Status != health.Unknown) {
				t.Fatalf("%+v, %v", got, err)
			}
			if elapsed > fuzzLimits.Timeout+2*time.Second {
				t.Fatalf("evaluation took %s, limit %s", elapsed, fuzzLimits.Timeout)
			}
			if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(4*fuzzLimits.MemoryBytes+fuzzAllocSlack+8*int64(len(doc))) {
				t.Fatalf("evaluation allocated %d bytes", alloc)
			}
		}
	})
}

// TestPatterns checks the bounded pattern functions against results of the
// reference Lua 5.1 interpreter.
func TestPatterns(t *testing.T) {
	rule, err := NewInterpreter(`function InterpretHealth(o)
		local checks = {
			{string.find("THE END", "%f[%a]%a+", 2), 5},
			{select(2, string.gsub("THE END", "%f[%w]%w+", "%0-")), 2},
			{string.gsub("hello world", "(%w+)", "<%1>"), "<hello> <world>"},
			{string.match("key = value", "^(%w+)%s*=%s*(%w+)$"), "key"},
			{string.find("abc", "b", 1, true), 2},
			{string.match("[[x]]", "%b[]"), "[[x]]"},
			{string.match("abab", "(ab)%1"), "ab"},
			{select(2, string.find("abc", "()b()")), 2},
			{string.gsub("abc", "", "-"), "-a-b-c-"},
			{string.format("%5.2f|%-3d|%q|%s", 3.14159, 7, 'a"b', nil), " 3.14|7  |\"a\\\"b\"|nil"},
			{table.concat({1, "b", 3}, ","), "1,b,3"},
			{"a" .. 1 .. "b", "a1b"},
		}
		for i, c in ipairs(checks) do
			if c[1] ~= c[2] then return "Unhealthy" .. i end
		end
		return true
	end`, Config{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := rule.Interpret(decode(t, `{"kind":"Widget"}`))
	if err != nil || got.Status != health.Healthy {
		t.Fatalf("%+v, %v", got, err)
	}
}

// FuzzPatterns compares the bounded pattern functions with gopher-lua's own
// on short subjects, where the unbounded search stays fast: same results,
// same errors.
func FuzzPatterns(f *testing.F) {
	for _, c := range [][2]string{
		{"hello world", "o w"}, {"hello world", "(%w+) (%w+)"}, {"key = value", "^(%w+)%s*=%s*(%w+)$"},
		{"THE (quick) fox", "%((%a+)%)"}, {"abc", "()b()"}, {"[[x]]", "%b[]"}, {"THE END", "%f[%a]%a+"},
		{"aaa", "a-b"}, {"a.b", "[%.]"}, {"x]y", "[]]"}, {"abab", "(ab)%1"}, {"abc", "[^a-b]+"}, {"a$", "a$"},
	} {
		f.Add(c[0], c[1], "%1-")
	}
	f.Fuzz(func(t *testing.T, subject, pattern, repl string) {
		// gopher-lua lacks the frontier pattern (%f) and returns nothing,
		// rather than nil, from a failed match; nils are left out of the
		// comparison for that reason.
		if len(subject) > 16 || len(pattern) > 12 || len(repl) > 8 || strings.Contains(pattern, "%f") ||
			strings.Contains(pattern, "-%") { // a range ending in %: Lua 5.1 takes % as its end
			return
		}
		// In a replacement, Lua 5.1 reads "%x" (x not a digit) as x;
		// gopher-lua keeps the "%".
		for i := 0; i < len(repl); i++ {
			if repl[i] == '%' && (i+1 == len(repl) || !isDigit(repl[i+1])) {
				return
			}
			if repl[i] == '%' {
				i++
			}
		}
		const script = `
			local s, p, r = ...
			local out = {}
			local function put(ok, ...) out[#out + 1] = tostring(ok) for i = 1, select('#', ...) do local v = select(i, ...) if v ~= nil then out[#out + 1] = tostring(v) end end end
			put(pcall(string.find, s, p))
			put(pcall(string.match, s, p))
			put(pcall(string.gsub, s, p, r))
			-- gmatch reads a leading '^' literally in Lua 5.1, as an anchor in gopher-lua.
			if p:sub(1, 1) ~= "^" then put(pcall(function() local t = {} for a, b in string.gmatch(s, p) do t[#t + 1] = tostring(a) .. "|" .. tostring(b) if #t > 20 then break end end return table.concat(t, ",") end)) end
			return table.concat(out, " ")`
		run := func(bounded bool) (string, bool) {
			state := glua.NewState()
			defer state.Close()
			if bounded {
				b := newBudget(Limits{Timeout: time.Minute, Instructions: MaxInstructions, MemoryBytes: 1 << 20, MaxStringBytes: 1 << 20}.withDefaults())
				b.reset(time.Now())
				(&boundedLib{budget: b}).install(state)
			}
			fn, err := state.LoadString(script)
			if err != nil {
				t.Fatal(err)
			}
			state.Push(fn)
			state.Push(glua.LString(subject))
			state.Push(glua.LString(pattern))
			state.Push(glua.LString(repl))
			if err := state.PCall(3, 1, nil); err != nil {
				return err.Error(), false
			}
			return state.Get(-1).String(), true
		}
		want, ok1 := run(false)
		got, ok2 := run(true)
		if !ok1 || !ok2 {
			return // gopher-lua itself failed (its own pattern bugs); nothing to compare
		}
		// gopher-lua checks a pattern before matching and rejects some that
		// Lua 5.1 only rejects when a match reaches the fault ("(0" on an
		// empty subject is no match in Lua); its errors are not compared.
		if strings.Contains(want, "false <string>") {
			return
		}
		// Lua 5.1 rejects malformed patterns ("%" at the end, an unclosed
		// set or capture) that gopher-lua lets through.
		if strings.Contains(got, "malformed pattern") || strings.Contains(got, "missing") ||
			strings.Contains(got, "invalid") || strings.Contains(got, "unfinished capture") {
			return
		}
		if got != want {
			t.Fatalf("subject %q pattern %q repl %q:\nbounded  %s\ngopher   %s", subject, pattern, repl, got, want)
		}
	})
}
