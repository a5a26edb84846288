#!/usr/bin/env bash
# Self-test of hack/apidiff.sh on a throw-away repository: a one-package
# module whose baseline commit has an exported function that the work tree
# removes. The check must fail while CHANGELOG.md's Unreleased section does
# not name the function (also when only an older release's section does),
# pass once it does, read the baseline from RELEASES, ignore examples/ and
# internal packages, fail clearly when the baseline commit is missing, and
# load a baseline that needs a module the work tree dropped with its own
# go.mod.
# The module has no dependencies, so this costs a few seconds once apidiff
# is built.
set -euo pipefail

script_dir=$(cd "$(dirname "$0")" && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "${scratch}"' EXIT
repo="${scratch}/repo"
mkdir -p "${repo}/p" "${repo}/internal/q" "${repo}/examples/e"
failures=0
fail() { echo "apidiff-selftest: FAIL: $*" >&2; failures=$((failures + 1)); }

git_() { git -C "${repo}" -c user.name=selftest -c user.email=selftest@example.invalid -c commit.gpgsign=false "$@"; }

cat >"${repo}/go.mod" <<'EOF'
module example.com/selftest

go 1.25.0
EOF
cat >"${repo}/p/p.go" <<'EOF'
// Package p is the public package of the self-test module.
package p

// Kept stays.
func Kept() {}

// Dropped is removed after the baseline.
func Dropped() {}

// T has a method that changes its signature.
type T struct{}

// M changes.
func (T) M() {}
EOF
cat >"${repo}/internal/q/q.go" <<'EOF'
// Package q is internal: its API is not public.
package q

// Gone is removed after the baseline without a CHANGELOG line.
func Gone() {}
EOF
cat >"${repo}/examples/e/e.go" <<'EOF'
// Package e is an example: its API is not public.
package e

// Gone is removed after the baseline without a CHANGELOG line.
func Gone() {}
EOF
git init --quiet "${repo}"
git_ add -A
git_ commit --quiet -m baseline
base=$(git_ rev-parse HEAD)

# The work tree: p.Dropped removed, T.M changed, internal and example
# functions removed, a function added.
cat >"${repo}/p/p.go" <<'EOF'
// Package p is the public package of the self-test module.
package p

// Kept stays.
func Kept() {}

// Added is new.
func Added() {}

// T has a method that changes its signature.
type T struct{}

// M changes.
func (T) M(int) {}
EOF
printf '// Package q is internal.\npackage q\n' >"${repo}/internal/q/q.go"
printf '// Package e is an example.\npackage e\n' >"${repo}/examples/e/e.go"

changelog() {
  cat >"${repo}/CHANGELOG.md"
}
run() {
  local out rc=0
  out=$(APIDIFF_REPO="${repo}" bash "${script_dir}/apidiff.sh" 2>&1) || rc=$?
  printf '%s\n' "${out}" >"${scratch}/last.out"
  return "${rc}"
}
expect_fail() { # what, pattern the output must contain
  if run; then
    fail "$1: the check passed"
    sed 's/^/    /' "${scratch}/last.out" >&2
  elif ! grep -qF -- "$2" "${scratch}/last.out"; then
    fail "$1: the output does not mention $2"
    sed 's/^/    /' "${scratch}/last.out" >&2
  fi
}
expect_pass() {
  if ! run; then
    fail "$1: the check failed"
    sed 's/^/    /' "${scratch}/last.out" >&2
  fi
}

echo "==> apidiff self-test in ${repo}"
printf 'v0.1.0 %s\n' "${base}" >"${repo}/RELEASES"

# 1. Nothing named: both changes are reported, and the check fails.
changelog <<'EOF'
# Changelog

## [Unreleased]

### Added
- `p.Added`.
EOF
expect_fail "undeclared removal" "p.Dropped"
grep -qF "p.T.M" "${scratch}/last.out" || fail "the changed method p.T.M is not reported"
if grep -qF "q.Gone" "${scratch}/last.out" || grep -qF "e.Gone" "${scratch}/last.out"; then
  fail "an internal or example package was checked"
fi
echo "    an undeclared removal fails:"
sed 's/^/      | /' "${scratch}/last.out"

# 2. Named only in an older release's section: still missing.
changelog <<'EOF'
# Changelog

## [Unreleased]

### Changed
- `p.T.M` takes an int.

## [0.1.0]

### Removed
- `p.Dropped`: call `p.Kept`.
EOF
expect_fail "named only under a released version" "p.Dropped"

# 3. A longer identifier does not name a shorter one.
changelog <<'EOF'
# Changelog

## [Unreleased]

- `p.T.M` takes an int; `p.DroppedSoon` is unrelated.
EOF
expect_fail "a longer identifier" "p.Dropped"

# 4. Both named: the check passes.
changelog <<'EOF'
# Changelog

## [Unreleased]

### Changed
- `p.T.M` takes an int.

### Removed
- `p.Dropped`: call `p.Kept`.
EOF
expect_pass "every change named"
grep -qF "baseline ${base:0:12} (RELEASES (v0.1.0))" "${scratch}/last.out" || fail "the baseline was not taken from RELEASES"

# 5. The baseline commit is not in the clone: a clear failure.
printf 'v0.1.0 %s\n' "0123456789abcdef0123456789abcdef01234567" >"${repo}/RELEASES"
expect_fail "missing baseline" "is not in this clone"

# 6. No release recorded and not this repository's first baseline either.
rm "${repo}/RELEASES"
expect_fail "default baseline missing" "583b264"

# 7. A baseline that needs a module the work tree no longer requires is
# loaded with its own go.mod (the work tree's is tried first). The module is
# a local one, through a replace, so the test still downloads nothing.
mkdir -p "${repo}/dep"
printf 'module example.com/dep\n\ngo 1.25.0\n' >"${repo}/dep/go.mod"
printf '// Package dep is a module only the baseline requires.\npackage dep\n' >"${repo}/dep/dep.go"
cp "${repo}/go.mod" "${scratch}/go.mod.head"
printf '\nrequire example.com/dep v0.0.0\n\nreplace example.com/dep => ./dep\n' >>"${repo}/go.mod"
printf '// The baseline imports a module the work tree drops.\npackage p\n\nimport _ "example.com/dep"\n' >"${repo}/p/dep.go"
git_ add -A
git_ commit --quiet -m "baseline with a dependency"
printf 'v0.2.0 %s\n' "$(git_ rev-parse HEAD)" >"${repo}/RELEASES"
rm "${repo}/p/dep.go"
cp "${scratch}/go.mod.head" "${repo}/go.mod"
expect_pass "a baseline that needs a module the work tree drops"

# The baseline worktree is gone after each run.
if [ "$(git -C "${repo}" worktree list | wc -l)" -ne 1 ]; then
  fail "a baseline worktree was left behind: $(git -C "${repo}" worktree list)"
fi

if [ "${failures}" -gt 0 ]; then
  echo "apidiff-selftest: ${failures} failure(s)" >&2
  exit 1
fi
echo "    apidiff self-test: 7 cases passed"
