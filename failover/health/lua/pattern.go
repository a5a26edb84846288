package lua

// This file matches Lua 5.1 patterns with a budget: every step of the
// backtracking search is charged, so a pattern such as '.-.-.-.-b' on a
// long subject stops at the budget instead of running for minutes (the
// pattern functions of gopher-lua have no such check).

const (
	maxCaptures   = 32
	maxMatchDepth = 200
	capUnfinished = -1
	capPosition   = -2
	patternEscape = '%'
)

// patternError is a malformed pattern; budgetError a crossed budget. Both
// unwind the matcher by panicking and are recovered in matcher.run.
type patternError string
type budgetError struct{}

type matcher struct {
	src, pat string
	level    int
	capInit  [maxCaptures]int
	capLen   [maxCaptures]int
	depth    int
	budget   *budget
}

func (m *matcher) charge(n int64) {
	if !m.budget.step(n) {
		panic(budgetError{})
	}
}

// run calls f, turning the matcher's panics into errors: a patternError
// into its message, a budgetError into errBudget.
func (m *matcher) run(f func()) (msg string, overBudget bool) {
	defer func() {
		switch p := recover().(type) {
		case nil:
		case patternError:
			msg = string(p)
		case budgetError:
			overBudget = true
		default:
			panic(p)
		}
	}()
	f()
	return "", false
}

func (m *matcher) classEnd(p int) int {
	pat := m.pat
	if p >= len(pat) {
		panic(patternError("malformed pattern (ends with '%')"))
	}
	c := pat[p]
	p++
	switch c {
	case patternEscape:
		if p >= len(pat) {
			panic(patternError("malformed pattern (ends with '%')"))
		}
		return p + 1
	case '[':
		if p < len(pat) && pat[p] == '^' {
			p++
		}
		// The first character of a set may be ']' itself.
		for {
			if p >= len(pat) {
				panic(patternError("malformed pattern (missing ']')"))
			}
			c := pat[p]
			p++
			if c == patternEscape {
				if p >= len(pat) {
					panic(patternError("malformed pattern (missing ']')"))
				}
				p++
			}
			if p < len(pat) && pat[p] == ']' {
				return p + 1
			}
		}
	}
	return p
}

func isLower(c byte) bool { return 'a' <= c && c <= 'z' }
func isUpper(c byte) bool { return 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool { return '0' <= c && c <= '9' }
func isAlpha(c byte) bool { return isLower(c) || isUpper(c) }
func isSpace(c byte) bool { return c == ' ' || ('\t' <= c && c <= '\r') }
func isCntrl(c byte) bool { return c < 32 || c == 127 }
func isPunct(c byte) bool { return c > 32 && c < 127 && !isAlpha(c) && !isDigit(c) }
func isXDigit(c byte) bool {
	return isDigit(c) || ('a' <= c && c <= 'f') || ('A' <= c && c <= 'F')
}

func matchClass(c, class byte) bool {
	var res bool
	lower := class
	if isUpper(class) {
		lower = class + ('a' - 'A')
	}
	switch lower {
	case 'a':
		res = isAlpha(c)
	case 'c':
		res = isCntrl(c)
	case 'd':
		res = isDigit(c)
	case 'l':
		res = isLower(c)
	case 'p':
		res = isPunct(c)
	case 's':
		res = isSpace(c)
	case 'u':
		res = isUpper(c)
	case 'w':
		res = isAlpha(c) || isDigit(c)
	case 'x':
		res = isXDigit(c)
	case 'z':
		res = c == 0
	default:
		return class == c
	}
	if isUpper(class) {
		return !res
	}
	return res
}

// matchBracketClass matches c against the set pat[p] == '[' .. pat[ec] == ']'.
func (m *matcher) matchBracketClass(c byte, p, ec int) bool {
	pat := m.pat
	sig := true
	p++
	if pat[p] == '^' {
		sig = false
		p++
	}
	for ; p < ec; p++ {
		switch {
		case pat[p] == patternEscape:
			p++
			if matchClass(c, pat[p]) {
				return sig
			}
		case pat[p+1] == '-' && p+2 < ec:
			if pat[p] <= c && c <= pat[p+2] {
				return sig
			}
			p += 2
		case pat[p] == c:
			return sig
		}
	}
	return !sig
}

func (m *matcher) singleMatch(s, p, ep int) bool {
	if s >= len(m.src) {
		return false
	}
	c := m.src[s]
	switch m.pat[p] {
	case '.':
		return true
	case patternEscape:
		return matchClass(c, m.pat[p+1])
	case '[':
		return m.matchBracketClass(c, p, ep-1)
	default:
		return m.pat[p] == c
	}
}

// match returns the end of the match of pat[p:] at src[s:], or -1.
func (m *matcher) match(s, p int) int {
	m.depth++
	if m.depth > maxMatchDepth {
		panic(patternError("pattern too complex"))
	}
	defer func() { m.depth-- }()
	for {
		m.charge(1)
		if p == len(m.pat) {
			return s
		}
		switch m.pat[p] {
		case '(':
			if p+1 < len(m.pat) && m.pat[p+1] == ')' {
				return m.startCapture(s, p+2, capPosition)
			}
			return m.startCapture(s, p+1, capUnfinished)
		case ')':
			return m.endCapture(s, p+1)
		case patternEscape:
			if p+1 < len(m.pat) {
				switch next := m.pat[p+1]; {
				case next == 'b':
					if s = m.matchBalance(s, p+2); s == -1 {
						return -1
					}
					p += 4
					continue
				case next == 'f':
					p += 2
					if p >= len(m.pat) || m.pat[p] != '[' {
						panic(patternError("missing '[' after '%f' in pattern"))
					}
					ep := m.classEnd(p)
					var prev, cur byte
					if s > 0 {
						prev = m.src[s-1]
					}
					if s < len(m.src) {
						cur = m.src[s]
					}
					if !m.matchBracketClass(prev, p, ep-1) && m.matchBracketClass(cur, p, ep-1) {
						p = ep
						continue
					}
					return -1
				case isDigit(next):
					if s = m.matchCapture(s, next); s == -1 {
						return -1
					}
					p += 2
					continue
				}
			}
		case '$':
			if p+1 == len(m.pat) {
				if s == len(m.src) {
					return s
				}
				return -1
			}
		}
		ep := m.classEnd(p)
		matched := m.singleMatch(s, p, ep)
		if ep < len(m.pat) {
			switch m.pat[ep] {
			case '?':
				if matched {
					if r := m.match(s+1, ep+1); r != -1 {
						return r
					}
				}
				p = ep + 1
				continue
			case '*':
				return m.maxExpand(s, p, ep)
			case '+':
				if !matched {
					return -1
				}
				return m.maxExpand(s+1, p, ep)
			case '-':
				return m.minExpand(s, p, ep)
			}
		}
		if !matched {
			return -1
		}
		s++
		p = ep
	}
}

func (m *matcher) maxExpand(s, p, ep int) int {
	i := 0
	for m.singleMatch(s+i, p, ep) {
		m.charge(1)
		i++
	}
	for ; i >= 0; i-- {
		if r := m.match(s+i, ep+1); r != -1 {
			return r
		}
	}
	return -1
}

func (m *matcher) minExpand(s, p, ep int) int {
	for {
		if r := m.match(s, ep+1); r != -1 {
			return r
		}
		if !m.singleMatch(s, p, ep) {
			return -1
		}
		s++
	}
}

func (m *matcher) startCapture(s, p, what int) int {
	if m.level >= maxCaptures {
		panic(patternError("too many captures"))
	}
	m.capInit[m.level] = s
	m.capLen[m.level] = what
	m.level++
	r := m.match(s, p)
	if r == -1 {
		m.level--
	}
	return r
}

func (m *matcher) endCapture(s, p int) int {
	l := -1
	for i := m.level - 1; i >= 0; i-- {
		if m.capLen[i] == capUnfinished {
			l = i
			break
		}
	}
	if l < 0 {
		panic(patternError("invalid pattern capture"))
	}
	m.capLen[l] = s - m.capInit[l]
	r := m.match(s, p)
	if r == -1 {
		m.capLen[l] = capUnfinished
	}
	return r
}

func (m *matcher) matchBalance(s, p int) int {
	if p+1 >= len(m.pat) {
		panic(patternError("missing arguments to '%b'"))
	}
	if s >= len(m.src) || m.src[s] != m.pat[p] {
		return -1
	}
	open, close := m.pat[p], m.pat[p+1]
	depth := 1
	for i := s + 1; i < len(m.src); i++ {
		m.charge(1)
		switch c := m.src[i]; {
		case c == close:
			if depth--; depth == 0 {
				return i + 1
			}
		case c == open:
			depth++
		}
	}
	return -1
}

func (m *matcher) checkCapture(l byte) int {
	i := int(l) - '1'
	if i < 0 || i >= m.level || m.capLen[i] == capUnfinished {
		panic(patternError("invalid capture index"))
	}
	return i
}

func (m *matcher) matchCapture(s int, l byte) int {
	i := m.checkCapture(l)
	n := m.capLen[i]
	m.charge(int64(n))
	if len(m.src)-s >= n && m.src[m.capInit[i]:m.capInit[i]+n] == m.src[s:s+n] {
		return s + n
	}
	return -1
}

// capture returns capture i of the match src[s:e]: a string, or a 1-based
// position for a position capture. With no captures, capture 0 is the whole
// match.
func (m *matcher) capture(i, s, e int) (str string, pos int, isPos bool) {
	if i >= m.level {
		if i != 0 {
			panic(patternError("invalid capture index"))
		}
		return m.src[s:e], 0, false
	}
	if m.capLen[i] == capUnfinished {
		panic(patternError("unfinished capture"))
	}
	if m.capLen[i] == capPosition {
		return "", m.capInit[i] + 1, true
	}
	return m.src[m.capInit[i] : m.capInit[i]+m.capLen[i]], 0, false
}

// find looks for the first match at or after init; anchored patterns
// ('^...') are tried at init only. It returns the match's bounds, or -1.
func (m *matcher) find(init int) (start, end int) {
	p := 0
	anchor := len(m.pat) > 0 && m.pat[0] == '^'
	if anchor {
		p = 1
	}
	for s := init; s <= len(m.src); s++ {
		m.level = 0
		if e := m.match(s, p); e != -1 {
			return s, e
		}
		if anchor {
			break
		}
	}
	return -1, -1
}
