#!/usr/bin/env bash
# Checks the library's exported API against the last release.
#
# For every library package (the packages of the root module outside
# examples/, hack/ and any internal/ directory), it compares the API at the
# baseline commit with the API in the work tree using
# golang.org/x/exp/cmd/apidiff (hack/apidiff-bin.sh), and fails when an
# incompatible change is not named in CHANGELOG.md's Unreleased section.
#
# An incompatible change is named when the Unreleased section contains the
# identifier qualified by its package name, as a whole word: `eviction.PendingPurge`
# for "PendingPurge: removed" in package eviction, `failover.Detector.Import`
# for "Detector.Import: changed ...", `health.NewLuaInterpreter` for
# failover/health. A removed package is named by its import path relative to
# the module (for example `failover/health/lua`). Write the line as
# CHANGELOG.md asks: what changed and what to use instead.
#
# The baseline is the commit of the last release recorded in RELEASES
# ("vX.Y.Z <commit>" lines); until a release is recorded it is 583b264, the
# API of 2026-11-23 that CHANGELOG.md's first section starts from. The
# baseline is checked out with `git worktree add` into a temporary directory,
# removed on exit. The check needs the repository's history: a shallow clone
# that lacks the baseline commit fails with a message saying so.
#
# Overrides (the self-test, hack/apidiff-selftest.sh, uses them):
#   APIDIFF_REPO     the repository to check (default: this checkout)
#   APIDIFF_BASE     the baseline commit (default: from RELEASES, else 583b264)
#   APIDIFF_BIN, APIDIFF_CACHE  as hack/apidiff-bin.sh reads them
set -euo pipefail

# The API before the first release: CHANGELOG.md's first section counts from it.
first_baseline="583b264462ad0216388793007a782037f8e8ee91"

script_dir=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "${APIDIFF_REPO:-${script_dir}/..}" && pwd)
cd "${repo}"
export GOWORK=off

die() { echo "apidiff: $*" >&2; exit 1; }

# --- the baseline -----------------------------------------------------------
base="${APIDIFF_BASE:-}"
base_from="APIDIFF_BASE"
if [ -z "${base}" ] && [ -f RELEASES ]; then
  # The last "vX.Y.Z <commit>" line is the last release.
  last=$(grep -E '^v[0-9]+\.[0-9]+\.[0-9]+[[:space:]]+[0-9a-f]{7,40}([[:space:]]|$)' RELEASES | tail -n 1 || true)
  if [ -n "${last}" ]; then
    base=$(echo "${last}" | awk '{print $2}')
    base_from="RELEASES ($(echo "${last}" | awk '{print $1}'))"
  fi
fi
if [ -z "${base}" ]; then
  base="${first_baseline}"
  base_from="no release recorded in RELEASES yet: the API of 2026-11-23"
fi
if ! git rev-parse --git-dir >/dev/null 2>&1; then
  die "${repo} is not a git repository"
fi
if ! git cat-file -e "${base}^{commit}" 2>/dev/null; then
  die "the baseline commit ${base} (${base_from}) is not in this clone; the API check needs the repository's history (in a shallow clone: git fetch --unshallow)"
fi
base_full=$(git rev-parse "${base}^{commit}")

[ -f CHANGELOG.md ] || die "no CHANGELOG.md in ${repo}"
if ! grep -qE '^## \[?[Uu]nreleased\]?' CHANGELOG.md; then
  die "CHANGELOG.md has no \"## [Unreleased]\" section"
fi

# --- apidiff ------------------------------------------------------------------
apidiff=$(bash "${script_dir}/apidiff-bin.sh")

# --- the baseline tree ----------------------------------------------------------
scratch=$(mktemp -d)
base_tree="${scratch}/base"
# The Unreleased section: from its heading to the next second-level heading.
unreleased="${scratch}/unreleased.md"
awk '
  /^## / { if (inside) exit; if ($0 ~ /^## \[?[Uu]nreleased\]?/) { inside = 1; next } }
  inside { print }
' CHANGELOG.md >"${unreleased}"
cleanup() {
  git -C "${repo}" worktree remove --force "${base_tree}" >/dev/null 2>&1 || true
  rm -rf "${scratch}"
  git -C "${repo}" worktree prune >/dev/null 2>&1 || true
}
trap cleanup EXIT
git worktree add --detach --quiet "${base_tree}" "${base_full}"
# The baseline is loaded with the work tree's go.mod and go.sum when it
# builds with them: both sides then see the same dependencies, so what
# apidiff reports is the library's own change, not a dependency's, and the
# baseline's dependencies are the compile the caller's build already made,
# not a second one at the release's versions (hack/test.sh runs this after
# the library's tests on the same toolchain). A baseline that needs a
# module the work tree no longer requires keeps its own.
rm -f "${base_tree}/go.sum"
cp go.mod "${base_tree}/"
[ ! -f go.sum ] || cp go.sum "${base_tree}/"
if ! (cd "${base_tree}" && go list -mod=readonly ./... >/dev/null 2>&1); then
  git -C "${base_tree}" checkout --quiet -- .
  git -C "${base_tree}" clean --quiet --force -- go.sum
fi

# library_packages DIR prints "importpath name" for each library package of
# the module in DIR: not under examples/ or hack/, not internal, not main.
library_packages() {
  (cd "$1" && go list -f '{{.ImportPath}} {{.Name}}' ./...) | awk -v mod="$2" '
    {
      rel = substr($1, length(mod) + 2)
      if ($1 == mod) rel = ""
      if (rel ~ /^(examples|hack)(\/|$)/) next
      if (rel ~ /(^|\/)internal(\/|$)/) next
      if ($2 == "main") next
      print
    }'
}
module=$(go list -m)
base_module=$(cd "${base_tree}" && go list -m)
[ "${module}" = "${base_module}" ] || die "the module path changed from ${base_module} to ${module}: every import path breaks; this check does not cover that"

library_packages "${base_tree}" "${module}" | sort >"${scratch}/base.pkgs"
library_packages "${repo}" "${module}" | sort >"${scratch}/head.pkgs"

echo "==> API of ${module}: baseline ${base_full:0:12} (${base_from}) against the work tree"
echo "    apidiff ${apidiff}"

missing=()
incompatible=0
# changelog_names QUALIFIED reports whether the Unreleased section names it
# as a whole word (so eviction.WorkloadHealthy does not name eviction.WorkloadHealth).
# (grep reads a file: grep -q in a pipeline can end its writer early, which
# pipefail would report as a failure.)
changelog_names() { grep -qFw -- "$1" "${unreleased}"; }

while read -r path name; do
  rel="${path#"${module}"/}"
  if ! grep -q "^${path} " "${scratch}/head.pkgs"; then
    incompatible=$((incompatible + 1))
    if changelog_names "${rel}"; then
      echo "    ${rel}: package removed (named in CHANGELOG.md)"
    else
      echo "    ${rel}: package removed: NOT named in CHANGELOG.md's Unreleased section"
      missing+=("${rel} (package removed)")
    fi
    continue
  fi
  old_exp="${scratch}/old.${name}.$$.exp"
  new_exp="${scratch}/new.${name}.$$.exp"
  (cd "${base_tree}" && "${apidiff}" -w "${old_exp}" "${path}") ||
    die "could not load ${rel} at the baseline ${base_full:0:12} (output above)"
  "${apidiff}" -w "${new_exp}" "${path}" ||
    die "could not load ${rel} in the work tree: it must compile (output above)"
  report=$("${apidiff}" "${old_exp}" "${new_exp}")
  # apidiff prints "Incompatible changes:" and "Compatible changes:" headings,
  # each followed by "- IDENT: what" lines.
  incompat=$(printf '%s\n' "${report}" | awk '/^Incompatible changes:/ {s=1; next} /^Compatible changes:/ {s=0} s && /^- / {print}')
  ncompat=$(printf '%s\n' "${report}" | awk '/^Compatible changes:/ {s=1; next} /^Incompatible changes:/ {s=0} s && /^- / {n++} END {print n+0}')
  nincompat=0
  [ -n "${incompat}" ] && nincompat=$(printf '%s\n' "${incompat}" | wc -l)
  echo "    ${rel}: ${nincompat} incompatible, ${ncompat} compatible change(s)"
  while IFS= read -r line; do
    [ -n "${line}" ] || continue
    incompatible=$((incompatible + 1))
    change="${line#- }"
    ident="${change%%: *}"
    # A method reads "(*T).M" or "(T).M": name it T.M.
    ident=$(printf '%s' "${ident}" | sed -E 's/^\(\*?([A-Za-z0-9_]+)\)\./\1./')
    qualified="${name}.${ident}"
    if changelog_names "${qualified}"; then
      echo "      ok       ${qualified}: ${change#*: }"
    else
      echo "      MISSING  ${qualified}: ${change#*: }"
      missing+=("${qualified}: ${change#*: }")
    fi
  done <<<"${incompat}"
done <"${scratch}/base.pkgs"

while read -r path name; do
  if ! grep -q "^${path} " "${scratch}/base.pkgs"; then
    echo "    ${path#"${module}"/}: new package"
  fi
done <"${scratch}/head.pkgs"

if [ "${#missing[@]}" -gt 0 ]; then
  echo "apidiff: ${#missing[@]} incompatible change(s) not named in CHANGELOG.md's Unreleased section:" >&2
  for m in "${missing[@]}"; do
    echo "  ${m}" >&2
  done
  echo "apidiff: name each one there (as \`package.Identifier\`), with what to use instead" >&2
  exit 1
fi
echo "    ${incompatible} incompatible change(s) since ${base_full:0:12}, each named in CHANGELOG.md's Unreleased section"
