#!/usr/bin/env bash
# Regenerates the DeepCopy methods and the CRD manifests of examples/karmada's
# API types with controller-gen. Run from anywhere; commit the output.
set -euo pipefail
cd "$(dirname "$0")/.."
go run sigs.k8s.io/controller-tools/cmd/controller-gen@v0.23.0 \
  object:headerFile=../../hack/boilerplate.go.txt \
  crd paths=./apis/... output:crd:dir=./config/crd
