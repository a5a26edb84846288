#!/usr/bin/env bash
# Tests the library at the newest end of its support range: a temporary copy
# of the checkout (the library module only; examples/karmada is a module of
# its own) with the k8s.io requirements raised to NEWEST_K8S, vetted and
# tested with the race detector (hack/test.sh says why here). The checkout
# itself stays at the floor its go.mod declares.
#
# Override: NEWEST_K8S (a k8s.io staging version such as v0.37.2; at one
# the examples do not build on, the other modules stay at what it
# requires).
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
# The rest of the graph at the versions the reference controllers build
# with (examples/karmada, on the same k8s.io; examples/ocm is kept at the
# same versions): the raced compile of k8s.io and of everything under it
# is then the one the karmada and ocm steps reuse. Without this, a patch
# release apart in a module at the bottom of the graph (k8s.io/utils,
# go.yaml.in/yaml/v3) made every k8s.io package a different compile, three
# times over. Only modules both graphs hold are moved, to the version the
# examples select (never below the library's own requirement: the
# examples require the library too). They are moved with go mod edit, not
# go get: go get refuses a version below what another module it moves
# requires (the examples' pruned graph holds golang.org/x/tools/go/expect
# below what golang.org/x/exp asks for), where the requirement just
# yields to the higher one; what matters is that every package the
# library's tests build comes from the version the examples' does.
modules() { go list -m -f '{{if not .Main}}{{if not .Replace}}{{.Path}} {{.Version}}{{end}}{{end}}' all | sort; }
examples_modules=$(cd "${root}/examples/karmada" && modules)
if [ "$(awk '$1 == "k8s.io/api" {print $2}' <<<"${examples_modules}")" = "${newest}" ]; then
  align=$(join <(echo "${examples_modules}") <(modules) | awk '$2 != $3 {print "-require=" $1 "@" $2}')
  if [ -n "${align}" ]; then
    # shellcheck disable=SC2086 # one -require=module@version per word
    go mod edit ${align}
    go mod tidy
  fi
fi
echo "==> library at k8s.io ${newest}: $(go mod edit -json | sed -n 's/^[[:space:]]*"Go": "\(.*\)",$/go \1/p')"
# -race here too: vet then compiles the dependencies as the raced test
# below does, so they are compiled once, not twice.
go vet -race ./...
# -vet=off: vet ran above (hack/test.sh says why not twice).
go test -vet=off -race -count=1 -timeout=20m ./...
