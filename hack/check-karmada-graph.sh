#!/usr/bin/env bash
# Proves that the library drops into Karmada's module graph: a scratch module
# that requires Karmada and this checkout (through a replace), and imports
# Karmada's pkg/util/helper beside every library package, must after
# `go mod tidy`
#   - keep its go line at Karmada's Go minor (1.25.x),
#   - keep every k8s.io staging module (k8s.io/api, apimachinery, client-go,
#     ...) at Karmada's minor (v0.35.x),
#   - keep k8s.io/utils, k8s.io/kube-openapi and k8s.io/klog/v2 at the exact
#     versions Karmada requires,
#   - raise no other module Karmada requires, except those listed in
#     allowed_raises below with the reason,
#   - build every library package with the Go release named by FLOOR_GO
#     (the oldest the go line allows), fetched through the module proxy as
#     a toolchain module, from the very module versions the library's own
#     go.mod selects (so that build is the floor step's, cached),
#   - and, for each module it raises, have the raised version export the
#     same API as the one Karmada pins, or one apidiff calls compatible,
#     for every package of it that Karmada imports: Karmada's code that
#     uses it then compiles as before. (Building that code instead meant
#     compiling some 700 of Karmada's packages, its clientsets and
#     informers, with one more toolchain, for the two that import
#     gopher-lua.)
#
# Overrides: KARMADA_VERSION, FLOOR_GO (a toolchain name such as go1.25.7, or
# "local" to build with the Go on PATH).
set -euo pipefail

karmada_version="${KARMADA_VERSION:-v1.17.1}"
floor_go="${FLOOR_GO:-go1.25.7}"
want_go_minor="1.25"
want_k8s_minor="v0.35"

# Modules the library needs newer than Karmada has, each with why.
#   github.com/yuin/gopher-lua: Karmada pins a 2022 commit whose pattern
#   matcher recurses without a bound, so a hostile health script can overflow
#   the goroutine stack (a fatal error no recover catches); v1.1.2 bounds it.
allowed_raises=(github.com/yuin/gopher-lua)

root=$(cd "$(dirname "$0")/.." && pwd)
scratch=$(mktemp -d)
trap 'rm -rf "${scratch}"' EXIT
fail=0
problem() { echo "check-karmada-graph: $*" >&2; fail=1; }

karmada_mod=$(go mod download -json "github.com/karmada-io/karmada@${karmada_version}" |
  sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')
[ -f "${karmada_mod}" ] || { echo "check-karmada-graph: no go.mod for Karmada ${karmada_version}" >&2; exit 1; }
# "path version" for every module Karmada requires.
karmada_requires=$(go mod edit -json "${karmada_mod}" |
  awk '/"Path":/ {gsub(/[",]/, "", $2); p = $2} /"Version":/ {gsub(/[",]/, "", $2); print p, $2}')
karmada_version_of() { awk -v m="$1" '$1 == m {print $2}' <<<"${karmada_requires}"; }

# Internal packages cannot be imported from outside; the library packages
# that use them bring them into the build.
library_packages=$(cd "${root}" && go list -f '{{if .GoFiles}}{{.ImportPath}}{{end}}' ./... | grep -v -e '/examples/' -e '/internal/')

cat >"${scratch}/go.mod" <<EOF
module fleetover.test/karmadagraph

go ${want_go_minor}.0

require (
	github.com/fleetover/fleetover v0.0.0
	github.com/karmada-io/karmada ${karmada_version}
)

replace github.com/fleetover/fleetover => ${root}
EOF
{
  echo "// Command karmadagraph links Karmada's helpers and fleetover together."
  echo "package main"
  echo
  echo "import ("
  echo "	_ \"github.com/karmada-io/karmada/pkg/util/helper\""
  for p in ${library_packages}; do echo "	_ \"${p}\""; done
  echo ")"
  echo
  echo "func main() {}"
} >"${scratch}/main.go"

cd "${scratch}"
GOTOOLCHAIN=local GOFLAGS=-mod=mod go mod tidy

go_line=$(go mod edit -json | sed -n 's/^[[:space:]]*"Go": "\(.*\)",$/\1/p')
case "${go_line}" in
  "${want_go_minor}" | "${want_go_minor}".*) ;;
  *) problem "go line is ${go_line}, want ${want_go_minor}.x" ;;
esac

selected=$(go list -m -f '{{.Path}} {{.Version}}' all)
selected_version_of() { awk -v m="$1" '$1 == m {print $2}' <<<"${selected}"; }

while read -r path version; do
  case "${path}" in
    k8s.io/utils | k8s.io/kube-openapi | k8s.io/klog/v2) ;;
    k8s.io/*)
      # Staging modules are released with Kubernetes' minor under major
      # version 0 (v1.35.0 -> v0.35.0); others (k8s.io/gengo) use
      # pseudo-versions and are left out.
      if [[ "${version}" =~ ^v0\.[0-9]+\.[0-9]+$ && "${version}" != "${want_k8s_minor}".* ]]; then
        problem "${path} is ${version}, want ${want_k8s_minor}.x"
      fi
      ;;
  esac
done <<<"${selected}"

for m in k8s.io/api k8s.io/apimachinery k8s.io/client-go k8s.io/component-helpers; do
  [ -n "$(selected_version_of "${m}")" ] || problem "${m} is missing from the graph"
done

raised=()
while read -r path want; do
  got=$(selected_version_of "${path}")
  [ -z "${got}" ] || [ "${got}" = "${want}" ] && continue
  case "${path}" in
    k8s.io/utils | k8s.io/kube-openapi | k8s.io/klog/v2)
      problem "${path} is ${got}, Karmada requires ${want}"
      continue
      ;;
  esac
  allowed=0
  for a in "${allowed_raises[@]}"; do [ "${a}" = "${path}" ] && allowed=1; done
  if [ "${allowed}" = 1 ]; then
    raised+=("${path} ${want} -> ${got} (allowed)")
  else
    problem "${path} raised from Karmada's ${want} to ${got}"
  fi
done <<<"${karmada_requires}"
for r in "${raised[@]}"; do echo "check-karmada-graph: raised ${r}"; done

# The modules the library's packages are built from: at the floor its own
# go.mod selects for each the version Karmada's graph does, so the build
# below is the floor step's compile (the same toolchain, flags and
# versions), found in the build cache rather than a second compile of
# k8s.io. A module the library requires below Karmada's shows here: raise
# it to Karmada's version in go.mod.
modules_built() {
  # shellcheck disable=SC2086 # library_packages is a list of import paths
  go list -deps -f '{{with .Module}}{{if not .Main}}{{.Path}} {{.Version}}{{end}}{{end}}' ${library_packages} |
    grep -v '^github.com/fleetover/fleetover ' | sort -u
}
in_karmada=$(modules_built)
at_floor=$(cd "${root}" && modules_built)
while read -r path floor_version karmada_selects; do
  [ "${floor_version}" = "${karmada_selects}" ] ||
    problem "${path} is ${floor_version} in the library's go.mod and ${karmada_selects} in Karmada's graph; require ${karmada_selects}"
done < <(join <(echo "${at_floor}") <(echo "${in_karmada}"))

echo "check-karmada-graph: building the library with ${floor_go}"
# shellcheck disable=SC2086 # library_packages is a list of import paths
GOTOOLCHAIN="${floor_go}" go build ${library_packages} ||
  problem "the library does not build with ${floor_go} in Karmada's graph"

# same_api MODULE OLD NEW: every package of MODULE that Karmada's code
# imports has, at NEW, the API it has at OLD, or one apidiff finds no
# incompatible change in.
same_api() {
  local module=$1 old=$2 new=$3 karmada_dir pkgs p v
  karmada_dir=$(go list -m -f '{{.Dir}}' github.com/karmada-io/karmada)
  pkgs=$(grep -rhoE --include='*.go' --exclude='*_test.go' "\"${module}(/[^\"]*)?\"" "${karmada_dir}" | tr -d '"' | sort -u)
  if [ -z "${pkgs}" ]; then
    echo "check-karmada-graph: Karmada's code imports no package of ${module}"
    return 0
  fi
  for v in "${old}" "${new}"; do
    mkdir -p "${scratch}/api-${v}"
    (
      cd "${scratch}/api-${v}"
      printf 'module fleetover.test/apicheck\n\ngo %s.0\n\nrequire %s %s\n' "${want_go_minor}" "${module}" "${v}" >go.mod
      { echo "package apicheck"; echo "import ("; for p in ${pkgs}; do echo "	_ \"${p}\""; done; echo ")"; } >apicheck.go
      GOTOOLCHAIN=local GOFLAGS=-mod=mod go mod tidy >/dev/null
      # apidiff reads the packages' export data, which the go command
      # compiles: on the floor toolchain, with the standard library the
      # library's build above compiled.
      for p in ${pkgs}; do GOTOOLCHAIN="${floor_go}" "${apidiff}" -w "../${v}-$(echo "${p}" | tr / _).exp" "${p}"; done
    )
  done
  for p in ${pkgs}; do
    local report
    report=$("${apidiff}" "${scratch}/${old}-$(echo "${p}" | tr / _).exp" "${scratch}/${new}-$(echo "${p}" | tr / _).exp")
    if grep -q '^Incompatible changes:' <<<"${report}"; then
      problem "${p} at ${new} is not compatible with ${old}, which Karmada pins:"
      echo "${report}" >&2
    else
      echo "check-karmada-graph: ${p}: ${old} -> ${new}: $( [ -z "${report}" ] && echo "same API" || echo "compatible changes only")"
    fi
  done
}
if [ "${#raised[@]}" -gt 0 ]; then
  apidiff=$(bash "${root}/hack/apidiff-bin.sh")
  for a in "${allowed_raises[@]}"; do
    got=$(selected_version_of "${a}")
    want=$(karmada_version_of "${a}")
    [ -n "${got}" ] && [ -n "${want}" ] && [ "${got}" != "${want}" ] && same_api "${a}" "${want}" "${got}"
  done
fi

if [ "${fail}" != 0 ]; then
  echo "check-karmada-graph: FAILED (scratch go.mod follows)" >&2
  cat go.mod >&2
  exit 1
fi
echo "check-karmada-graph: ok: go ${go_line}; $(printf '%s %s, ' \
  k8s.io/apimachinery "$(selected_version_of k8s.io/apimachinery)" \
  k8s.io/utils "$(selected_version_of k8s.io/utils)" \
  k8s.io/kube-openapi "$(selected_version_of k8s.io/kube-openapi)" \
  k8s.io/klog/v2 "$(selected_version_of k8s.io/klog/v2)")Karmada ${karmada_version}"
