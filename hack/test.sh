#!/usr/bin/env bash
# Runs the whole test suite: vet and race-enabled unit tests of the library and
# the simulator at the floor go.mod declares (k8s.io v0.35, Go 1.25), the
# check that the library fits Karmada's module graph, the same tests at the
# newest k8s.io release, the differential conformance test against Karmada's
# own code (hack/conformance), then the reference controllers' integration tests
# against a real kube-apiserver and etcd (built from the Go module proxy on
# first run and cached; see hack/kube-assets.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

echo "==> go vet (library)"
go vet ./...
echo "==> go test -race (library, simulator)"
go test -race -count=1 ./...

echo "==> module graph: the library inside Karmada's (hack/check-karmada-graph.sh)"
bash hack/check-karmada-graph.sh
echo "==> go vet (library, tests included) with a Go 1.25 release (the go line is 1.25.0): ${FLOOR_GO:-go1.25.7}"
GOTOOLCHAIN="${FLOOR_GO:-go1.25.7}" go vet ./...
echo "==> newest k8s.io: a copy of the library raised to k8s.io v0.37.2 (hack/test-newest.sh)"
bash hack/test-newest.sh

echo "==> conformance against Karmada v1.17.1's own code (hack/conformance, 3000 generated cases per property)"
(cd hack/conformance && go vet ./... && go test -count=1 . -cases=3000)

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
