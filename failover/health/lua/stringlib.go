package lua

import (
	"fmt"
	"strconv"
	"strings"

	glua "github.com/yuin/gopher-lua"
)

// boundedLib holds the library functions that replace gopher-lua's where a
// single call could run for long or build a large string: every step is
// charged to the state's budget and every string built is measured before
// it is built.
type boundedLib struct {
	budget *budget
}

// fail raises the crossed bound as a Lua error. The budget stays crossed,
// so the next instruction stops the script even if it caught the error.
func (lib *boundedLib) fail(L *glua.LState) {
	L.RaiseError("%s", lib.budget.exceeded.Error())
}

func (lib *boundedLib) step(L *glua.LState, n int) {
	if !lib.budget.step(int64(n)) {
		lib.fail(L)
	}
}

// appendString appends s to buf if the result stays within the string and
// memory bounds.
func (lib *boundedLib) appendString(L *glua.LState, buf []byte, s string) []byte {
	if int64(len(buf))+int64(len(s)) > lib.budget.limits.MaxStringBytes {
		lib.budget.alloc(int64(len(buf)) + int64(len(s)))
		lib.fail(L)
	}
	if !lib.budget.alloc(int64(len(s))) {
		lib.fail(L)
	}
	return append(buf, s...)
}

// install replaces the unbounded functions of the string and table
// libraries and defines the function that `..` is compiled into.
func (lib *boundedLib) install(L *glua.LState) {
	str, _ := L.GetGlobal(glua.StringLibName).(*glua.LTable)
	tab, _ := L.GetGlobal(glua.TabLibName).(*glua.LTable)
	if str == nil || tab == nil {
		panic("lua: string or table library missing")
	}
	str.RawSetString("find", L.NewFunction(func(L *glua.LState) int { return lib.find(L, true) }))
	str.RawSetString("match", L.NewFunction(func(L *glua.LState) int { return lib.find(L, false) }))
	gmatch := L.NewFunction(lib.gmatch)
	str.RawSetString("gmatch", gmatch)
	str.RawSetString("gfind", gmatch)
	str.RawSetString("gsub", L.NewFunction(lib.gsub))
	str.RawSetString("rep", L.NewFunction(lib.rep))
	str.RawSetString("format", L.NewFunction(lib.format))
	for _, name := range []string{"upper", "lower", "reverse"} {
		orig, _ := str.RawGetString(name).(*glua.LFunction)
		if orig == nil || orig.GFunction == nil {
			panic("lua: string." + name + " missing")
		}
		g := orig.GFunction
		str.RawSetString(name, L.NewFunction(func(L *glua.LState) int {
			s := L.CheckString(1)
			if !lib.budget.alloc(int64(len(s))) {
				lib.fail(L)
			}
			return g(L)
		}))
	}
	if orig, _ := str.RawGetString("char").(*glua.LFunction); orig != nil && orig.GFunction != nil {
		g := orig.GFunction
		str.RawSetString("char", L.NewFunction(func(L *glua.LState) int {
			if !lib.budget.alloc(int64(L.GetTop())) {
				lib.fail(L)
			}
			return g(L)
		}))
	}
	tab.RawSetString("concat", L.NewFunction(lib.tableConcat))
	L.SetGlobal("unpack", L.NewFunction(lib.unpack))
	L.SetGlobal(concatFunction, L.NewFunction(lib.concat))
}

// posrelat turns a Lua string position (negative counts from the end) into
// a 0-based offset clamped to [0, n].
func posrelat(pos, n int) int {
	if pos < 0 {
		pos += n + 1
	}
	pos--
	if pos < 0 {
		return 0
	}
	if pos > n {
		return n
	}
	return pos
}

const patternSpecials = "^$*+?.([%-"

// find implements string.find (isFind) and string.match.
func (lib *boundedLib) find(L *glua.LState, isFind bool) int {
	s := L.CheckString(1)
	pat := L.CheckString(2)
	init := posrelat(L.OptInt(3, 1), len(s))
	if isFind && (L.ToBool(4) || !strings.ContainsAny(pat, patternSpecials)) {
		lib.step(L, 1+len(s)-init)
		if i := strings.Index(s[init:], pat); i >= 0 {
			L.Push(glua.LNumber(init + i + 1))
			L.Push(glua.LNumber(init + i + len(pat)))
			return 2
		}
		L.Push(glua.LNil)
		return 1
	}
	m := &matcher{src: s, pat: pat, budget: lib.budget}
	n := 0
	lib.run(L, m, func() {
		start, end := m.find(init)
		if start < 0 {
			L.Push(glua.LNil)
			n = 1
			return
		}
		if isFind {
			L.Push(glua.LNumber(start + 1))
			L.Push(glua.LNumber(end))
			n = 2 + lib.pushCaptures(L, m, start, end, false)
			return
		}
		n = lib.pushCaptures(L, m, start, end, true)
	})
	return n
}

// run runs f on m and raises a malformed pattern or a crossed budget as a
// Lua error.
func (lib *boundedLib) run(L *glua.LState, m *matcher, f func()) {
	msg, over := m.run(f)
	if over {
		lib.fail(L)
	}
	if msg != "" {
		L.RaiseError("%s", msg)
	}
}

// pushCaptures pushes the captures of the match src[s:e] (the whole match
// when there are none and whole is set) and returns how many.
func (lib *boundedLib) pushCaptures(L *glua.LState, m *matcher, s, e int, whole bool) int {
	n := m.level
	if n == 0 && whole {
		n = 1
	}
	for i := 0; i < n; i++ {
		str, pos, isPos := m.capture(i, s, e)
		if isPos {
			L.Push(glua.LNumber(pos))
		} else {
			L.Push(glua.LString(str))
		}
	}
	return n
}

func (lib *boundedLib) gmatch(L *glua.LState) int {
	s := L.CheckString(1)
	pat := L.CheckString(2)
	pos := 0
	L.Push(L.NewFunction(func(L *glua.LState) int {
		m := &matcher{src: s, pat: pat, budget: lib.budget}
		n := 0
		lib.run(L, m, func() {
			for ; pos <= len(s); pos++ {
				m.level = 0
				if e := m.match(pos, 0); e != -1 {
					start := pos
					pos = e
					if e == start {
						pos++
					}
					n = lib.pushCaptures(L, m, start, e, true)
					return
				}
			}
		})
		return n
	}))
	return 1
}

func (lib *boundedLib) gsub(L *glua.LState) int {
	s := L.CheckString(1)
	pat := L.CheckString(2)
	L.CheckTypes(3, glua.LTString, glua.LTNumber, glua.LTTable, glua.LTFunction)
	repl := L.Get(3)
	maxN := L.OptInt(4, len(s)+1)
	anchor := len(pat) > 0 && pat[0] == '^'
	p := 0
	if anchor {
		p = 1
	}
	m := &matcher{src: s, pat: pat, budget: lib.budget}
	var out []byte
	count := 0
	src := 0
	for count < maxN {
		var e int
		lib.run(L, m, func() {
			m.level = 0
			e = m.match(src, p)
		})
		if e != -1 {
			count++
			out = lib.appendReplacement(L, out, m, repl, src, e)
		}
		switch {
		case e != -1 && e > src:
			src = e
		case src < len(s):
			out = lib.appendString(L, out, s[src:src+1])
			src++
		default:
			src = len(s) + 1
		}
		if src > len(s) || anchor {
			break
		}
	}
	if src < len(s) {
		out = lib.appendString(L, out, s[src:])
	}
	L.Push(glua.LString(out))
	L.Push(glua.LNumber(count))
	return 2
}

// appendReplacement appends the replacement of the match src[s:e].
func (lib *boundedLib) appendReplacement(L *glua.LState, out []byte, m *matcher, repl glua.LValue, s, e int) []byte {
	var value glua.LValue
	switch r := repl.(type) {
	case glua.LString, glua.LNumber:
		text := r.String()
		for i := 0; i < len(text); i++ {
			lib.step(L, 1)
			c := text[i]
			if c != patternEscape || i+1 == len(text) {
				out = lib.appendString(L, out, text[i:i+1])
				continue
			}
			i++
			d := text[i]
			switch {
			case !isDigit(d):
				out = lib.appendString(L, out, text[i:i+1])
			case d == '0':
				out = lib.appendString(L, out, m.src[s:e])
			default:
				var piece string
				lib.run(L, m, func() {
					str, pos, isPos := m.capture(int(d-'1'), s, e)
					if isPos {
						piece = strconv.Itoa(pos)
					} else {
						piece = str
					}
				})
				out = lib.appendString(L, out, piece)
			}
		}
		return out
	case *glua.LTable:
		var key glua.LValue
		lib.run(L, m, func() { key = firstCapture(m, s, e) })
		value = L.GetTable(r, key)
	case *glua.LFunction:
		top := L.GetTop()
		L.Push(r)
		n := 0
		lib.run(L, m, func() { n = lib.pushCaptures(L, m, s, e, true) })
		L.Call(n, 1)
		value = L.Get(-1)
		L.SetTop(top)
	}
	switch v := value.(type) {
	case glua.LString, glua.LNumber:
		return lib.appendString(L, out, v.String())
	case *glua.LNilType, glua.LBool:
		if v == glua.LNil || v == glua.LFalse {
			return lib.appendString(L, out, m.src[s:e])
		}
	}
	L.RaiseError("invalid replacement value (a %s)", value.Type().String())
	return out
}

func firstCapture(m *matcher, s, e int) glua.LValue {
	str, pos, isPos := m.capture(0, s, e)
	if isPos {
		return glua.LNumber(pos)
	}
	return glua.LString(str)
}

func (lib *boundedLib) rep(L *glua.LState) int {
	s := L.CheckString(1)
	n := L.CheckInt(2)
	if n <= 0 || s == "" {
		L.Push(glua.LString(""))
		return 1
	}
	if int64(n) > lib.budget.limits.MaxStringBytes/int64(len(s)) {
		lib.budget.alloc(lib.budget.limits.MaxStringBytes + 1)
		lib.fail(L)
	}
	if !lib.budget.alloc(int64(len(s) * n)) {
		lib.fail(L)
	}
	L.Push(glua.LString(strings.Repeat(s, n)))
	return 1
}

func (lib *boundedLib) tableConcat(L *glua.LState) int {
	t := L.CheckTable(1)
	sep := L.OptString(2, "")
	i := L.OptInt(3, 1)
	j := L.OptInt(4, t.Len())
	var out []byte
	for k := i; k <= j; k++ {
		lib.step(L, 1)
		v := t.RawGetInt(k)
		switch v.(type) {
		case glua.LString, glua.LNumber:
		default:
			L.RaiseError("invalid value (at index %d) in table for concat", k)
		}
		out = lib.appendString(L, out, v.String())
		if k < j {
			out = lib.appendString(L, out, sep)
		}
		if k == j { // j may be the largest int
			break
		}
	}
	L.Push(glua.LString(out))
	return 1
}

// concatFunction is the global the `..` operator is compiled into. It is not
// a Lua identifier, so a script cannot name it by accident.
const concatFunction = ".."

// concat is `a .. b` with the result measured before it is built.
func (lib *boundedLib) concat(L *glua.LState) int {
	a, b := L.Get(1), L.Get(2)
	if isStringOrNumber(a) && isStringOrNumber(b) {
		as, bs := a.String(), b.String()
		if int64(len(as))+int64(len(bs)) > lib.budget.limits.MaxStringBytes {
			lib.budget.alloc(int64(len(as)) + int64(len(bs)))
			lib.fail(L)
		}
		if !lib.budget.alloc(int64(len(as) + len(bs))) {
			lib.fail(L)
		}
		L.Push(glua.LString(as + bs))
		return 1
	}
	mm := L.GetMetaField(a, "__concat")
	if mm == glua.LNil {
		mm = L.GetMetaField(b, "__concat")
	}
	if mm == glua.LNil {
		bad := a
		if isStringOrNumber(a) {
			bad = b
		}
		L.RaiseError("attempt to concatenate a %s value", bad.Type().String())
	}
	L.Push(mm)
	L.Push(a)
	L.Push(b)
	L.Call(2, 1)
	return 1
}

func isStringOrNumber(v glua.LValue) bool {
	switch v.(type) {
	case glua.LString, glua.LNumber:
		return true
	}
	return false
}

// format is string.format with Lua's rules (flags, a width and a precision
// of at most two digits each) and the result measured as it grows.
func (lib *boundedLib) format(L *glua.LState) int {
	f := L.CheckString(1)
	arg := 1
	var out []byte
	for i := 0; i < len(f); i++ {
		lib.step(L, 1)
		next := strings.IndexByte(f[i:], '%')
		if next < 0 {
			out = lib.appendString(L, out, f[i:])
			break
		}
		out = lib.appendString(L, out, f[i:i+next])
		i += next + 1
		if i < len(f) && f[i] == '%' {
			out = lib.appendString(L, out, "%")
			continue
		}
		start := i
		for i < len(f) && strings.IndexByte("-+ #0", f[i]) >= 0 && i-start < 5 {
			i++
		}
		digits := func() {
			for n := 0; i < len(f) && isDigit(f[i]); n++ {
				if n == 2 {
					L.RaiseError("invalid format (width or precision too long)")
				}
				i++
			}
		}
		digits()
		if i < len(f) && f[i] == '.' {
			i++
			digits()
		}
		if i >= len(f) {
			L.RaiseError("invalid option '%%' to 'format'")
		}
		spec := "%" + f[start:i]
		arg++
		var piece string
		switch conv := f[i]; conv {
		case 'c':
			piece = fmt.Sprintf(spec+"s", string([]byte{byte(L.CheckInt(arg))}))
		case 'd', 'i':
			piece = fmt.Sprintf(spec+"d", int64(L.CheckNumber(arg)))
		case 'u':
			piece = fmt.Sprintf(spec+"d", uint64(int64(L.CheckNumber(arg))))
		case 'o', 'x', 'X':
			piece = fmt.Sprintf(spec+string(conv), uint64(int64(L.CheckNumber(arg))))
		case 'e', 'E', 'f', 'g', 'G':
			piece = fmt.Sprintf(spec+string(conv), float64(L.CheckNumber(arg)))
		case 'q':
			piece = quoteLua(L.CheckString(arg))
		case 's':
			piece = fmt.Sprintf(spec+"s", L.ToStringMeta(L.CheckAny(arg)).String())
		default:
			L.RaiseError("invalid option '%%%c' to 'format'", conv)
		}
		out = lib.appendString(L, out, piece)
	}
	L.Push(glua.LString(out))
	return 1
}

// quoteLua quotes s the way %q does, so that Lua reads it back.
func quoteLua(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '\n':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\r':
			b.WriteString(`\r`)
		case 0:
			b.WriteString(`\000`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// unpack is the base library's unpack with a bound on the number of
// values, which would otherwise fill the stack one value at a time.
func (lib *boundedLib) unpack(L *glua.LState) int {
	t := L.CheckTable(1)
	i := L.OptInt(2, 1)
	j := L.OptInt(3, t.Len())
	if i > j {
		return 0
	}
	if n := int64(j) - int64(i) + 1; n > maxUnpack {
		L.RaiseError("too many results to unpack (%d, at most %d)", n, maxUnpack)
	}
	lib.step(L, j-i+1)
	for k := i; ; k++ {
		L.Push(t.RawGetInt(k))
		if k == j {
			break
		}
	}
	return j - i + 1
}
