#!/usr/bin/env bash
# Runs the README's test command the way a newcomer would: on a fresh clone
# of this repository's HEAD commit, with an empty HOME, module cache and
# build cache in a temporary folder, so that everything the suite needs
# (modules, the Go 1.25 toolchain of the floor check, kube-apiserver and
# etcd) comes through the Go module proxy and is built from nothing. It
# prints hack/test.sh's per-step times and its own total.
#
#   bash hack/cold-test.sh            # cold: fresh clone, empty caches
#   bash hack/cold-test.sh --warm     # the same clone again, caches kept
#
# Uncommitted changes are not tested: a newcomer clones what is committed.
# The temporary folder (COLD_TEST_DIR, default a new one under /tmp) is
# removed at the end unless COLD_TEST_KEEP=1; --warm reuses COLD_TEST_DIR,
# which must then be given and kept from a cold run.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
warm=0
if [ "${1:-}" = "--warm" ]; then
  warm=1
  [ -n "${COLD_TEST_DIR:-}" ] && [ -d "${COLD_TEST_DIR}/clone" ] || {
    echo "cold-test: --warm needs COLD_TEST_DIR from a cold run made with COLD_TEST_KEEP=1" >&2
    exit 2
  }
fi
dir=${COLD_TEST_DIR:-$(mktemp -d /tmp/fleetover-cold-XXXXXX)}
if [ "${COLD_TEST_KEEP:-0}" != 1 ] && [ "${warm}" = 0 ]; then
  # The module cache is read-only by design: make it removable first.
  trap 'chmod -R u+w "${dir}" 2>/dev/null || true; rm -rf "${dir}"' EXIT
fi

if [ "${warm}" = 0 ]; then
  mkdir -p "${dir}/home"
  git clone --quiet "${root}" "${dir}/clone"
fi
commit=$(git -C "${dir}/clone" rev-parse --short HEAD)

# A newcomer's environment: Go on PATH, nothing else of ours. The go
# command's own defaults (proxy, checksum database) come from the Go
# installation; HOME, the caches and the Go environment file are fresh.
env -i \
  PATH="$(dirname "$(command -v go)"):/usr/local/bin:/usr/bin:/bin" \
  HOME="${dir}/home" \
  TMPDIR="${TMPDIR:-/tmp}" \
  bash -c '
    set -euo pipefail
    cd "$1"
    echo "cold-test: $(go version), commit $2, HOME=$HOME, GOMODCACHE=$(go env GOMODCACHE), GOCACHE=$(go env GOCACHE)"
    start=$(date +%s)
    bash hack/test.sh
    echo "cold-test: $3 run of the README test command took $(( $(date +%s) - start ))s"
  ' cold-test "${dir}/clone" "${commit}" "$([ "${warm}" = 1 ] && echo warm || echo cold)"
