#!/usr/bin/env bash
# Prints the path of an apidiff binary (golang.org/x/exp/cmd/apidiff at the
# exact version below), building it through the Go module proxy the first
# time and keeping it. hack/apidiff.sh compares the library's API with the
# last release with it; hack/check-karmada-graph.sh compares the API of a
# module the library raises in Karmada's graph with the version Karmada
# pins.
#
# Overrides:
#   APIDIFF_BIN      an apidiff binary to use instead of building one
#   APIDIFF_CACHE    where the built apidiff is kept
#                    (default: ${XDG_CACHE_HOME:-$HOME/.cache}/fleetover-apidiff)
set -euo pipefail

# A pseudo-version of golang.org/x/exp served by the Go module proxy: the
# one the library's go.mod already selects. Its go line is go 1.24.0 and
# its golang.org/x/tools v0.41.0, so Go 1.25 builds it: hack/test.sh builds
# it on the floor's toolchain, whose standard library the floor's checks
# and the assets build compile anyway (newer x/exp asks for Go 1.26, and
# its build then compiled the standard library for itself alone, some 60 s
# of CPU on a first run). Much older ones build against an x/tools that no
# longer compiles with current Go releases (x/tools' tokeninternal).
apidiff_version="v0.0.0-20260112195511-716be5621a96"

if [ -n "${APIDIFF_BIN:-}" ]; then
  apidiff="${APIDIFF_BIN}"
else
  cache="${APIDIFF_CACHE:-${XDG_CACHE_HOME:-${HOME}/.cache}/fleetover-apidiff}/${apidiff_version}"
  apidiff="${cache}/apidiff"
  if [ ! -x "${apidiff}" ]; then
    echo "==> building golang.org/x/exp/cmd/apidiff@${apidiff_version} into ${cache}" >&2
    mkdir -p "${cache}"
    # The tool is built by the caller's GOTOOLCHAIN (the one the packages
    # are compared with), or by the Go its own module asks for.
    (cd "${cache}" && GOTOOLCHAIN="${GOTOOLCHAIN:-auto}" GOBIN="${cache}" GOFLAGS=-mod=mod go install "golang.org/x/exp/cmd/apidiff@${apidiff_version}") >&2
  fi
fi
[ -x "${apidiff}" ] || { echo "apidiff-bin: no apidiff binary at ${apidiff}" >&2; exit 1; }
echo "${apidiff}"
