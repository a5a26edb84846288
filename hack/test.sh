#!/usr/bin/env bash
# Runs the whole test suite: vet and race-enabled unit tests of the library and
# the simulator, then the reference controllers' integration tests against a
# real kube-apiserver and etcd (built from the Go module proxy on first run and
# cached; see hack/kube-assets.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "==> go vet (library)"
go vet ./...
echo "==> go test -race (library, simulator)"
go test -race -count=1 ./...

if [ -f examples/karmada/go.mod ]; then
  echo "==> kube-apiserver and etcd for the integration tests"
  assets=$(bash hack/kube-assets.sh)
  echo "    KUBEBUILDER_ASSETS=${assets}"
  echo "==> go vet and go test (examples/karmada, real kube-apiserver)"
  (cd examples/karmada && go vet ./... && KUBEBUILDER_ASSETS="${assets}" go test -race -count=1 ./...)
fi

if [ -f examples/ocm/go.mod ]; then
  assets=$(bash hack/kube-assets.sh)
  echo "==> go vet and go test (examples/ocm, real kube-apiserver, OCM's CRDs)"
  (cd examples/ocm && go vet ./... && KUBEBUILDER_ASSETS="${assets}" go test -race -count=1 ./...)
fi
