#!/usr/bin/env bash
# Tests the library at the newest end of its support range: a temporary copy
# of the checkout (the library module only; examples/karmada is a module of
# its own) with the k8s.io requirements raised to NEWEST_K8S, vetted and
# tested with the race detector (hack/test.sh says why here). The checkout
# itself stays at the floor its go.mod declares.
#
# Override: NEWEST_K8S (a k8s.io staging version such as v0.37.2).
set -euo pipefail

newest="${NEWEST_K8S:-v0.37.2}"
root=$(cd "$(dirname "$0")/.." && pwd)
copy=$(mktemp -d)
trap 'rm -rf "${copy}"' EXIT

# Tracked and new files as they are in the work tree, so uncommitted changes
# are tested too.
(cd "${root}" && git ls-files --cached --others --exclude-standard -z |
  grep -zv '^examples/karmada/' | tar --null --ignore-failed-read -cf - -T -) |
  tar -xf - -C "${copy}"

cd "${copy}"
go get "k8s.io/api@${newest}" "k8s.io/apimachinery@${newest}" \
  "k8s.io/client-go@${newest}" "k8s.io/component-helpers@${newest}"
go mod tidy
echo "==> library at k8s.io ${newest}: $(go mod edit -json | sed -n 's/^[[:space:]]*"Go": "\(.*\)",$/go \1/p')"
# -race here too: vet then compiles the dependencies as the raced test
# below does, so they are compiled once, not twice.
go vet -race ./...
go test -race -count=1 -timeout=20m ./...
