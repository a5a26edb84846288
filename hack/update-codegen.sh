#!/usr/bin/env bash
# Regenerates the committed DeepCopy methods of the library's API types.
set -euo pipefail
cd "$(dirname "$0")/.."
CONTROLLER_GEN_VERSION=v0.23.0
go run "sigs.k8s.io/controller-tools/cmd/controller-gen@${CONTROLLER_GEN_VERSION}" \
  object:headerFile=hack/boilerplate.go.txt \
  paths=./failover/... paths=./eviction/... paths=./preservation/... paths=./suspension/...
