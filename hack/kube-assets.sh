#!/usr/bin/env bash
# Builds the binaries the integration tests start, from the Go module proxy
# alone (no release tarballs, no container images), and caches them by
# version: kube-apiserver and etcd, which envtest starts for the reference
# controllers' tests (as karmada-apiserver and as member clusters), and
# Karmada's own control plane components for the tests that run beside
# Karmada: karmada-controller-manager, karmada-scheduler, karmada-webhook
# and karmada-aggregated-apiserver.
#
# kube-apiserver is built at the Kubernetes release Karmada builds on
# (v1.35.x for Karmada v1.18), in one module with etcd and Karmada's
# components: the k8s.io staging modules, gRPC, protobuf and the
# OpenTelemetry packages they share are compiled once. etcd is the release
# that Kubernetes release's go.mod requires (k8s.io/kubernetes v1.35.3
# requires go.etcd.io/etcd/server/v3 v3.6.5): adding it then selects no
# other version of any module the API server or Karmada's components build
# with. A newer etcd in that module would raise gRPC and OpenTelemetry
# under both; in a module of its own it compiled some 240 packages the
# API server's build had compiled already (on two cores, 131 s of CPU
# against 40 s).
#
# stdout: the assets folder only (use it as KUBEBUILDER_ASSETS).
# stderr: progress.
#
# It builds in two stages, each published to a folder of its own: first
# kube-apiserver and etcd (all the reference controllers' tests need),
# then Karmada's components beside copies of those two (the folder it
# prints). KUBE_ASSETS_KUBE_READY, when set, names a file the script writes
# the first folder's path into as soon as that folder is complete, so that
# a caller can start the tests that need only it while Karmada's components
# build (hack/test.sh does).
#
# Overrides: KUBE_ASSETS_K8S_VERSION, KUBE_ASSETS_ETCD_VERSION,
# KUBE_ASSETS_KARMADA_VERSION, KUBE_ASSETS_CACHE (the parent folder of the
# per-version folders).
set -euo pipefail

k8s_version="${KUBE_ASSETS_K8S_VERSION:-v1.35.3}"
etcd_version="${KUBE_ASSETS_ETCD_VERSION:-v3.6.5}"
karmada_version="${KUBE_ASSETS_KARMADA_VERSION:-v1.18.1}"
karmada_components=(controller-manager scheduler webhook aggregated-apiserver)
# Staging modules (k8s.io/api, k8s.io/apiserver, ...) carry the same minor and
# patch as Kubernetes under major version 0: v1.36.3 -> v0.36.3.
staging_version="v0.${k8s_version#v1.}"

cache_root="${KUBE_ASSETS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fleetover/kube-assets}"
kube="${cache_root}/${k8s_version}-${etcd_version}"
assets="${kube}-karmada-${karmada_version}"

log() { echo "kube-assets: $*" >&2; }

# kube_works DIR: DIR holds a kube-apiserver and an etcd that run.
kube_works() {
  [ -x "$1/kube-apiserver" ] && [ -x "$1/etcd" ] &&
    "$1/kube-apiserver" --version >/dev/null 2>&1 &&
    "$1/etcd" --version >/dev/null 2>&1
}

assets_work() {
  kube_works "${assets}" || return 1
  local c
  for c in "${karmada_components[@]}"; do
    "${assets}/karmada-${c}" --help >/dev/null 2>&1 || return 1
  done
}

# kube_ready DIR tells the caller (KUBE_ASSETS_KUBE_READY) that DIR holds
# kube-apiserver and etcd.
kube_ready() {
  [ -z "${KUBE_ASSETS_KUBE_READY:-}" ] || echo "$1" >"${KUBE_ASSETS_KUBE_READY}"
}

# publish FROM TO CHECK...: moves FROM to TO atomically (a reader sees no
# folder or a complete one), unless the command CHECK... finds TO complete
# (a run that finishes second keeps the first run's binaries).
publish() {
  local from=$1 to=$2
  shift 2
  if ! "$@"; then
    rm -rf "${to}"
    mv "${from}" "${to}" 2>/dev/null || "$@" || { log "cannot publish ${to}"; exit 1; }
  fi
}

if assets_work; then
  kube_ready "${assets}"
  echo "${assets}"
  exit 0
fi

mkdir -p "${cache_root}"
work=$(mktemp -d "${cache_root}/.build-XXXXXX")
trap 'chmod -R u+w "${work}" 2>/dev/null || true; rm -rf "${work}"' EXIT

# The builds must not touch the caller's module (GOFLAGS may carry -mod=...),
# nor try to fetch a newer toolchain. The checksum database does not answer
# for Karmada's module here: the exact version pins it.
#
# The compiler flags are the go command's defaults (no -trimpath, cgo as
# the machine has it), the flags hack/conformance and
# examples/karmada/cmd/fleetover-karmada-scheduler are vetted and tested
# with: their module graphs hold Karmada v1.18.1 and k8s.io v0.35.3 at the
# versions this build's graph holds, so the packages they share with
# Karmada's components (some 700 for the conformance test, 850 for the
# scheduler) are compiled once, by whichever runs first, and found in the
# build cache by the other. A flag that changes how a package compiles
# (CGO_ENABLED=0, -trimpath) would make each a compile of its own: on a
# first run on two cores that was some 800 s of CPU. -ldflags only changes
# the link.
export GOFLAGS=-mod=mod GOWORK=off GOTOOLCHAIN="${GOTOOLCHAIN:-local}"
export GONOSUMDB="${GONOSUMDB:+${GONOSUMDB},}github.com/karmada-io/karmada"
start=$(date +%s)

# kube-apiserver: k8s.io/kubernetes replaces its staging modules with local
# folders, which do not exist in the module zip, so a consumer must replace
# each of them with the published staging release of the same version.
# Karmada's components require those same staging releases: one module
# builds both, so the k8s.io packages they share are compiled once (by the
# first stage, found in the build cache by the second).
mkdir -p "${work}/apiserver" "${work}/kube" "${work}/out"
cd "${work}/apiserver"
go mod init fleetover.local/kube-assets/apiserver >/dev/null 2>&1
k8s_mod=$(go mod download -json "k8s.io/kubernetes@${k8s_version}" |
  sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",\{0,1\}$/\1/p')
[ -n "${k8s_mod}" ] || { log "cannot download k8s.io/kubernetes@${k8s_version}"; exit 1; }
go mod edit -require="k8s.io/kubernetes@${k8s_version}" -require="github.com/karmada-io/karmada@${karmada_version}" \
  -require="go.etcd.io/etcd/server/v3@${etcd_version}"
staging=$(sed -n 's#^[[:space:]]*\(k8s\.io/[A-Za-z0-9._-]*\) => \./staging/src/.*#\1#p' "${k8s_mod}")
[ -n "${staging}" ] || { log "no staging replaces found in ${k8s_mod}"; exit 1; }
for m in ${staging}; do
  go mod edit -replace="${m}=${m}@${staging_version}"
done
{
  echo "//go:build tools"
  echo
  echo "package tools"
  echo
  echo "import ("
  echo "	_ \"k8s.io/kubernetes/cmd/kube-apiserver\""
  echo "	_ \"go.etcd.io/etcd/server/v3\""
  for c in "${karmada_components[@]}"; do echo "	_ \"github.com/karmada-io/karmada/cmd/${c}\""; done
  echo ")"
} >tools.go
go mod tidy >&2
# Stamp the versions a release build would carry, so clients and the
# servers' own compatibility checks see v1.35.x and v1.18.x, not
# v0.0.0-master.
minor="${k8s_version#v1.}"; minor="${minor%%.*}"
version_pkg=k8s.io/component-base/version
karmada_version_pkg=github.com/karmada-io/karmada/pkg/version
ldflags="-s -w -X ${version_pkg}.gitVersion=${k8s_version} -X ${version_pkg}.gitMajor=1 -X ${version_pkg}.gitMinor=${minor} -X ${version_pkg}.gitTreeState=clean -X ${karmada_version_pkg}.gitVersion=${karmada_version}"

# Stage 1: kube-apiserver and etcd, in one build (the server module's root
# package is the etcd main package; go build names it after the module's
# last element without the major version, "server"). The version stamps
# are kube-apiserver's; etcd links no package they name. `etcd --version`
# prints the version of the etcd API module the graph selects (v3.6.7, which
# Karmada requires), not the server's.
if kube_works "${kube}"; then
  log "kube-apiserver and etcd found in ${kube}"
else
  log "building kube-apiserver ${k8s_version} (staging ${staging_version}) and etcd ${etcd_version}"
  go build "-ldflags=${ldflags}" -o "${work}/kube/" k8s.io/kubernetes/cmd/kube-apiserver go.etcd.io/etcd/server/v3 >&2
  mv "${work}/kube/server" "${work}/kube/etcd"
  "${work}/kube/kube-apiserver" --version >&2
  "${work}/kube/etcd" --version >&2
  publish "${work}/kube" "${kube}" kube_works "${kube}"
  log "kube-apiserver and etcd built in $(( $(date +%s) - start ))s -> ${kube}"
fi
kube_ready "${kube}"

# Stage 2: Karmada's components, beside copies of kube-apiserver and etcd
# (one folder holds every binary the tests beside Karmada start).
log "building Karmada ${karmada_version}'s ${karmada_components[*]}"
pkgs=()
for c in "${karmada_components[@]}"; do pkgs+=("github.com/karmada-io/karmada/cmd/${c}"); done
go build "-ldflags=${ldflags}" -o "${work}/out/" "${pkgs[@]}" >&2
for c in "${karmada_components[@]}"; do mv "${work}/out/${c}" "${work}/out/karmada-${c}"; done
cp "${kube}/kube-apiserver" "${kube}/etcd" "${work}/out/"
cd "${cache_root}"
publish "${work}/out" "${assets}" assets_work

# The CPU time of the build's processes, as `times` counts them (written
# to a file: in $(...) it would count a subshell's children, none).
times >"${work}/times"
cpu=$(awk 'NR == 2 {t = 0; for (i = 1; i <= 2; i++) {split($i, p, "m"); sub("s", "", p[2]); t += p[1] * 60 + p[2]}; printf "%d", t}' "${work}/times")
log "built in $(( $(date +%s) - start ))s (CPU ${cpu}s) -> ${assets}"
echo "${assets}"
