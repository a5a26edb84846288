#!/usr/bin/env bash
# Alternates test binaries built with `go test -c` (for instance from two
# commits) on one benchmark, so that every binary sees the same load on a
# noisy machine, and prints the fastest and the mean ns/op of each.
#
#   go test -c -o /tmp/before.test ./preservation/   # at the old commit
#   go test -c -o /tmp/after.test ./preservation/    # at the new one
#   hack/bench-ab.sh preservation 'ExtractFlinkStatus$/ExtractFromJSONInto' 12 /tmp/before.test /tmp/after.test
#
# Arguments: the package directory (benchmarks read testdata relative to
# it), the -test.bench pattern, the number of rounds, then the binaries.
set -euo pipefail
if [ $# -lt 4 ]; then
  sed -n '2,11p' "$0" >&2
  exit 2
fi
dir=$1 bench=$2 rounds=$3
shift 3
bins=()
for b in "$@"; do bins+=("$(cd "$(dirname "$b")" && pwd)/$(basename "$b")"); done
cd "$dir"
for _ in $(seq "$rounds"); do
  for b in "${bins[@]}"; do
    "$b" -test.run '^$' -test.bench "$bench" -test.benchmem -test.count=1 -test.benchtime=300ms |
      awk -v bin="$(basename "$b")" '/^Benchmark/ { print bin, $1, $3 }'
  done
done | awk '
  { key = $1 " " $2; if (!(key in best) || $3 < best[key]) best[key] = $3; sum[key] += $3; n[key]++ }
  END { for (k in best) printf "%-70s fastest %8.1f  mean %8.1f ns/op  (%d runs)\n", k, best[k], sum[k] / n[k], n[k] }' | sort
