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

# A pseudo-version of golang.org/x/exp served by the Go module proxy. Older
# ones build against a golang.org/x/tools that no longer compiles with
# current Go releases (x/tools' tokeninternal).
apidiff_version="v0.0.0-20261113113407-e3970619a1a4"

if [ -n "${APIDIFF_BIN:-}" ]; then
  apidiff="${APIDIFF_BIN}"
else
  cache="${APIDIFF_CACHE:-${XDG_CACHE_HOME:-${HOME}/.cache}/fleetover-apidiff}/${apidiff_version}"
  apidiff="${cache}/apidiff"
  if [ ! -x "${apidiff}" ]; then
    echo "==> building golang.org/x/exp/cmd/apidiff@${apidiff_version} into ${cache}" >&2
    mkdir -p "${cache}"
    # The tool is built by the Go its own module asks for, whatever
    # GOTOOLCHAIN the packages are compared with.
    (cd "${cache}" && GOTOOLCHAIN=auto GOBIN="${cache}" GOFLAGS=-mod=mod go install "golang.org/x/exp/cmd/apidiff@${apidiff_version}") >&2
  fi
fi
[ -x "${apidiff}" ] || { echo "apidiff-bin: no apidiff binary at ${apidiff}" >&2; exit 1; }
echo "${apidiff}"
