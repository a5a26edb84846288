#!/usr/bin/env bash
# Runs the whole test suite, step by step, and prints each step's duration
# and a summary at the end. A fresh machine needs only Go: modules, the
# Go 1.25 toolchain of the floor check, kube-apiserver and etcd come through
# the Go module proxy and are cached (see hack/kube-assets.sh), so the first
# run is the slow one (docs/contributing.md gives the expected times).
#
# Where -race runs, and on which k8s.io, is chosen so that each large module
# graph is compiled as few times as possible while every check stays:
#   - The library's own code is raced once, at the newest k8s.io
#     (hack/test-newest.sh): the race detector finds races in our code,
#     which does not depend on the k8s.io release, and the reference
#     controllers' tests below are raced on that same release, so the
#     race-instrumented k8s.io is compiled once for all three. Once only
#     if every module under it is at the same version too: test-newest.sh
#     moves its copy's modules to examples/karmada's versions, and
#     examples/ocm requires the same (a patch apart in k8s.io/utils or
#     golang.org/x/sys made every k8s.io package a compile of its own).
#   - At the floor go.mod declares (k8s.io v0.35, the release Karmada
#     v1.17 and v1.18 build on, and the oldest Go its go line allows,
#     FLOOR_GO) the library is vetted and tested without -race: it proves
#     the code builds and behaves on the oldest supported releases of
#     both. One toolchain for the floor's vet and test compiles the floor's
#     k8s.io once; the running Go (the newest) vets and tests the library
#     in the newest step. The conformance test against Karmada's own code
#     (hack/conformance, Karmada v1.18.1) runs on the same minor release
#     but at the patch Karmada v1.18.1 requires (k8s.io v0.35.3), so it
#     does not reuse that compile; it reuses the assets build's instead
#     (hack/kube-assets.sh builds Karmada's components with the same flags,
#     in a graph that selects the same versions), and so does the
#     scheduler step.
#   - The module graph check builds inside Karmada v1.17.1's graph with
#     that same floor toolchain, from the versions the floor's go.mod
#     selects (it checks they are Karmada's): the library step's compile.
#   - The reference controllers' integration tests (examples/karmada,
#     examples/ocm) run with -race: they are the concurrent code. Beside the
#     real Karmada, only the test process (the harness and
#     fleetover-controller-manager) is raced; Karmada's components are
#     Karmada's release build.
#   - Where a module is both vetted and raced, `go vet -race` vets it: vet
#     compiles every dependency, and with the same flags as the raced test
#     that compile is shared (without -race the whole Kubernetes graph
#     would be compiled twice, once plain for vet and once raced).
#   - Every `go test` runs with -vet=off, after a `go vet` of the same
#     packages: vet checks a package with facts it computes for every
#     package the package imports, and keys them by its flags, so the
#     subset of checks go test runs by default would compute them all
#     again (on a first run, for some 2,000 packages of k8s.io, Karmada and
#     the standard library); `go vet` runs every check that subset has.
# Every `go test` has an explicit -timeout, sized from measurements on a
# 2-core machine with a margin (docs/contributing.md).
#
# Override: TEST_SH_STEPS, a space-separated list of step ids to run
# (default: all; ids: library apidiff graph carrier newest vet-examples
# conformance scheduler kube-assets karmada ocm karmada-assets beside), for
# a rerun of one part. The steps run in the order the list at the end
# gives, some of them beside the others (it says why).
set -euo pipefail
cd "$(dirname "$0")/.."

# Test binaries and the binaries the tests build are linked without DWARF
# (-w): only a debugger reads it (stack traces, the race detector's reports
# and profiles read the symbol and line tables, which stay), and it was
# some 40 % of the link of each raced binary of examples/karmada (the
# beside test's: 23 s of CPU, 13 s without). It changes no compile.
#
# Test code (the library's, the examples', their dependencies and the
# standard library under them) is compiled without inlining
# (-gcflags=all=-l): inlining copies callees' bodies into their callers
# (and into the export data every importer reads), where the back end
# compiles them again; it changes no behaviour a test can see (the race
# detector instruments what a function does, inlined or not); and without
# it the raced compile of the library's graph took 24 % less CPU (go
# build -race -a, 184 s against 140 s, twice each) while examples/karmada's
# raced tests took as long (457 s of CPU against 434 s, and 256 s against
# 239 s of wall time); the library's CPU-bound tests (fleetsim, the Lua
# interpreter) take some 16 s of CPU more, raced, on every run, against
# some 240 s the compile saves on a first run (docs/contributing.md). The
# packages built in Karmada v1.18.1's module graph keep the go command's
# default flags (karmada_goflags, set by the job that runs them): the
# conformance and scheduler steps, and the beside test's build of
# fleetover-karmada-scheduler, reuse the assets build's compile of the
# same Karmada and k8s.io packages, and Karmada's components and
# kube-apiserver are built as released (hack/kube-assets.sh sets its own
# GOFLAGS), so what the benchmarks beside Karmada measure is Karmada's
# release build.
karmada_goflags="${GOFLAGS:+${GOFLAGS} }-ldflags=-w"
export GOFLAGS="${karmada_goflags} -gcflags=all=-l"

steps=()
titles=()
durations=()
cpus=()
current_title=""
current=""
suite_start=${SECONDS}
# In a job started with spawn, the file its steps' rows go to (the
# foreground reads them when it joins the job); empty in the foreground.
rows_file=""

# record ID WALL CPU TITLE: one row of the summary.
record() {
  if [ -n "${rows_file}" ]; then
    printf '%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"${rows_file}"
  else
    steps+=("$1")
    durations+=("$2")
    cpus+=("$3")
    titles+=("$4")
  fi
}

summary() {
  local status=$?
  echo
  echo "==> summary"
  local i
  printf '    %-14s %6s %8s\n' "step" "wall" "CPU"
  for i in "${!steps[@]}"; do
    if [ "${cpus[$i]}" = FAILED ]; then
      printf '    %-14s %5ss %8s  %s\n' "${steps[$i]}" "${durations[$i]}" "${cpus[$i]}" "${titles[$i]}"
    else
      printf '    %-14s %5ss %7ss  %s\n' "${steps[$i]}" "${durations[$i]}" "${cpus[$i]}" "${titles[$i]}"
    fi
  done
  if [ "${status}" != 0 ] && [ -n "${current}" ]; then
    printf '    %-14s %5ss %8s  %s\n' "${current}" "$((SECONDS - step_start))" "FAILED" "${current_title}"
  fi
  children_cpu
  printf '    %-14s %5ss %7ss\n' "total" "$((SECONDS - suite_start))" "${cpu_raw}"
  if [ "${status}" = 0 ]; then echo "PASS"; else echo "FAIL"; fi
}

wanted() {
  [ -z "${TEST_SH_STEPS:-}" ] && return 0
  local s
  for s in ${TEST_SH_STEPS}; do [ "${s}" = "$1" ] && return 0; done
  return 1
}

# Jobs: commands started in the background (spawn), each in a subshell of
# its own with its output in a file, printed when the foreground joins it.
declare -A job_pid=() job_log=() job_cpu=() job_rows=()
# The CPU time of the jobs joined so far whose steps carry their own.
detached_cpu=0

# children_cpu sets cpu_raw to the user + system CPU seconds of every
# process this shell has waited for so far (bash's `times`, second line),
# and cpu_now to that less the jobs' own: bash waits for a job when it
# ends, whichever step runs then, so a job's CPU time is taken off until a
# step joins it (a job whose steps carry their own, off for good). It must
# run in this shell, not in $(...): a subshell has waited for nothing, so
# `times` writes to a file.
times_out=$(mktemp)
cpu_raw=0
cpu_now=0
children_cpu() {
  times >"${times_out}"
  cpu_raw=$(awk 'NR == 2 {
    t = 0
    for (i = 1; i <= 2; i++) { split($i, p, "m"); sub("s", "", p[2]); t += p[1] * 60 + p[2] }
    printf "%d", t
  }' "${times_out}")
  cpu_now=$((cpu_raw - detached_cpu))
  local id
  for id in "${!job_pid[@]}"; do
    # A job that has ended and been waited for has written its CPU time.
    if ! kill -0 "${job_pid[${id}]}" 2>/dev/null && [ -s "${job_cpu[${id}]}" ]; then
      cpu_now=$((cpu_now - $(cat "${job_cpu[${id}]}")))
    fi
  done
}

# step ID TITLE COMMAND...: runs the command, timed, unless TEST_SH_STEPS
# leaves ID out. Beside the wall time it prints the CPU time the step's
# processes used (two cores: up to twice the wall time): a step far below
# its wall time waits (downloads, a real clock), one near twice it
# computes. In the foreground, a job that has ended by then is joined
# after it (check_jobs).
step() {
  local id=$1 title=$2
  shift 2
  wanted "${id}" || return 0
  current=${id}
  current_title=${title}
  step_start=${SECONDS}
  children_cpu
  local cpu_start=${cpu_now}
  echo "==> ${title}"
  "$@"
  children_cpu
  local took=$((SECONDS - step_start)) cpu=$((cpu_now - cpu_start))
  echo "<== ${title}: ${took}s (CPU ${cpu}s)"
  record "${id}" "${took}" "${cpu}" "${title}"
  current=""
  if [ -z "${rows_file}" ]; then check_jobs; fi
}

# spawn ID NICENESS COMMAND...: starts COMMAND (a function, steps, a
# script) in the background at the given niceness (0: the foreground's
# priority). A job of steps records them as the foreground would; a step
# that fails ends the job, and the foreground fails when it joins it.
spawn() {
  local id=$1 niceness=$2
  shift 2
  job_log[${id}]=$(mktemp)
  job_cpu[${id}]=$(mktemp)
  job_rows[${id}]=$(mktemp)
  (
    job_pid=()
    detached_cpu=0
    rows_file=${job_rows[${id}]}
    times_out=$(mktemp) # not the foreground's file
    current=""
    # The job's id and start, fixed now: a step's locals shadow them.
    trap "job_ended ${id} ${SECONDS}" EXIT
    if [ "${niceness}" != 0 ]; then renice -n "${niceness}" -p "${BASHPID}" >/dev/null 2>&1 || true; fi
    "$@"
  ) >"${job_log[${id}]}" 2>&1 &
  job_pid[${id}]=$!
}

# job_ended ID START, a job's EXIT trap: records the step it failed in,
# and writes the CPU time of its processes for children_cpu.
job_ended() {
  local rc=$? id=$1 start=$2
  if [ "${rc}" != 0 ] && [ -n "${current}" ]; then
    record "${current}" "$((SECONDS - step_start))" "FAILED" "${current_title}"
  fi
  children_cpu
  rm -f "${times_out}"
  echo "    (ran in the background for $((SECONDS - start))s, CPU ${cpu_raw}s)"
  echo "${cpu_raw}" >"${job_cpu[${id}]}"
  exit "${rc}"
}

# joined ID waits for a job, prints its output, adds its steps' rows to the
# summary and returns its status.
joined() {
  local id=$1 rc=0 row_id wall cpu title
  wait "${job_pid[${id}]}" || rc=$?
  cat "${job_log[${id}]}"
  if [ -s "${job_rows[${id}]}" ]; then
    while IFS=$'\t' read -r row_id wall cpu title; do
      steps+=("${row_id}")
      durations+=("${wall}")
      cpus+=("${cpu}")
      titles+=("${title} [in the background]")
    done <"${job_rows[${id}]}"
    detached_cpu=$((detached_cpu + $(cat "${job_cpu[${id}]}" 2>/dev/null || echo 0)))
  fi
  rm -f "${job_log[${id}]}" "${job_cpu[${id}]}" "${job_rows[${id}]}"
  unset "job_pid[${id}]" "job_log[${id}]" "job_cpu[${id}]" "job_rows[${id}]"
  return "${rc}"
}

# The jobs of steps that run beside the foreground's, in the order they
# start; check_jobs joins those that have ended (a failure shows as soon
# as the foreground's step ends), join_jobs waits for the rest.
step_jobs=(floor newest karmada-graph)
check_jobs() {
  local id
  for id in "${step_jobs[@]}"; do
    if [ -n "${job_pid[${id}]:-}" ] && ! kill -0 "${job_pid[${id}]}" 2>/dev/null; then
      joined "${id}"
    fi
  done
}
join_jobs() {
  local id
  for id in "${step_jobs[@]}"; do
    if [ -n "${job_pid[${id}]:-}" ]; then joined "${id}"; fi
  done
}

stop_tree() {
  local child
  for child in $(pgrep -P "$1" 2>/dev/null); do stop_tree "${child}"; done
  kill "$1" 2>/dev/null || true
}

floor_go="${FLOOR_GO:-go1.25.7}"

library_floor() {
  GOTOOLCHAIN="${floor_go}" go vet ./...
  GOTOOLCHAIN="${floor_go}" go test -vet=off -count=1 -timeout=15m ./...
}

# apidiff type-checks the library against its dependencies' export data,
# which the go command compiles: on the floor toolchain it is the library
# step's compile, not a second one with the running Go.
api_compatibility() {
  GOTOOLCHAIN="${floor_go}" bash hack/apidiff-selftest.sh
  GOTOOLCHAIN="${floor_go}" bash hack/apidiff.sh
}

conformance() {
  (cd hack/conformance && go vet ./... && go test -vet=off -count=1 -timeout=15m . -cases=3000)
}

# fleetover's filter plugins in Karmada's own scheduler: a module of its
# own, on the Kubernetes release of the Karmada it embeds (Karmada v1.18.1,
# k8s.io v0.35.3, as the conformance test); its vet compiles what the
# beside step's build of the scheduler links. Not raced: the plugins keep
# no state, and the scheduling framework that calls them concurrently is
# Karmada's.
karmada_scheduler() {
  (cd examples/karmada/cmd/fleetover-karmada-scheduler && go vet ./... && go test -vet=off -count=1 -timeout=5m ./...)
}

# The annotation reader the scheduler plugins share with the reference
# controllers is at the library's floor: on the floor toolchain, its
# compile of k8s.io is the library step's.
carrier() {
  (cd examples/karmada/carrier && GOTOOLCHAIN="${floor_go}" go vet ./... && GOTOOLCHAIN="${floor_go}" go test -vet=off -count=1 -timeout=5m ./...)
}

# The floor's checks, on the floor toolchain: they share its compile with
# each other and with nothing else, so they run one after the other in a
# job of their own beside the rest (see the step list).
floor_steps() {
  step library "library at the floor, ${floor_go} (vet, test)" library_floor
  step apidiff "API compatibility with the last release" api_compatibility
  step graph "module graph inside Karmada's" bash hack/check-karmada-graph.sh
  step carrier "annotation carrier at the floor, ${floor_go}" carrier
}

# The checks in Karmada v1.18.1's module graph: the Karmada and k8s.io
# packages they compile are those the assets build compiles for Karmada's
# components (hack/kube-assets.sh: the same versions, the same flags), so
# they start once that build has ended and find them in the build cache.
# The job waits for it itself (it polls the build's output, which the build
# writes last): joining the build is the karmada-assets step's, which comes
# only after the reference controllers' tests, some 100 s after the build
# ends on a first run. A job starts with no jobs of its own (spawn), so the
# build's process id is passed in assets_pid, set when the build starts.
karmada_graph_steps() {
  export GOFLAGS="${karmada_goflags}"
  if [ -n "${assets_pid}" ]; then await_output "${assets_out}" "${assets_pid}"; fi
  step conformance "conformance against Karmada's own code" conformance
  step scheduler "fleetover-karmada-scheduler (Karmada's scheduler with fleetover's plugins)" karmada_scheduler
}

# The binaries the integration tests start (kube-apiserver, etcd and
# Karmada's components) are the longest build of a first run: it starts in
# the background at once. It publishes kube-apiserver and etcd first
# (hack/kube-assets.sh, KUBE_ASSETS_KUBE_READY): the reference
# controllers' tests need only those and start then, while Karmada's
# components build; the tests beside Karmada wait for the whole build.
# Later runs find them cached.
assets_out=$(mktemp)
kube_ready=$(mktemp)
assets_pid=""

# await_output FILE PID returns once FILE has content or process PID has
# ended, whichever comes first (it polls: bash cannot wait for part of a
# process, nor for a process that is not its child).
await_output() {
  while [ ! -s "$1" ] && kill -0 "$2" 2>/dev/null; do sleep 1; done
}
assets=""
kube=""
build_assets() {
  KUBE_ASSETS_KUBE_READY="${kube_ready}" bash hack/kube-assets.sh >"${assets_out}"
}

# kube_assets sets kube to the folder of kube-apiserver and etcd, waiting
# for the build to publish it.
kube_assets() {
  if [ -z "${job_pid[assets]:-}" ]; then
    all_assets
    return
  fi
  await_output "${kube_ready}" "${assets_pid}"
  if [ ! -s "${kube_ready}" ]; then
    all_assets # the build ended without it: its error
    return
  fi
  kube=$(cat "${kube_ready}")
  grep -v '^go: downloading' "${job_log[assets]}" | grep 'kube-apiserver and etcd' || true
  echo "    KUBEBUILDER_ASSETS=${kube}"
}

# all_assets sets assets (and kube) to the folder of every binary, waiting
# for the build to end; its CPU time counts in the step that waits.
all_assets() {
  if [ -n "${job_pid[assets]:-}" ]; then
    local log rc=0
    log=$(mktemp)
    joined assets >"${log}" 2>&1 || rc=$?
    if [ "${rc}" != 0 ]; then
      cat "${log}" >&2
      rm -f "${log}"
      return 1
    fi
    grep -v '^go: downloading' "${log}" | tail -n 3 || true
    rm -f "${log}"
  else
    KUBE_ASSETS_KUBE_READY="" bash hack/kube-assets.sh >"${assets_out}"
  fi
  assets=$(cat "${assets_out}")
  kube=${kube:-${assets}}
  echo "    KUBEBUILDER_ASSETS=${assets}"
}

# The examples' vet compiles their raced dependencies (k8s.io,
# controller-runtime, Karmada's and OCM's API types: the tests reuse that
# compile), and needs no kube-apiserver: it runs while the assets build
# does, before the step that waits for it. The karmada and ocm steps then
# only compile and run their tests (each vets its module itself when run
# without this step).
examples_vetted=""
vet_examples() {
  (cd examples/karmada && go vet -race ./...)
  (cd examples/ocm && go vet -race ./...)
  examples_vetted=1
}

# examples/ocm's tests run beside examples/karmada's: both wait on their
# API servers more than they compute (on two cores examples/karmada's
# tests leave about half a core idle, about what examples/ocm's use), and
# both run on the fake clock, so the sharing moves no deadline. They start
# once examples/karmada's vet has compiled the raced packages the two
# share, so that they do not compile them each for itself at the same time.
examples_karmada() {
  [ -n "${kube}" ] || kube_assets
  [ -n "${examples_vetted}" ] || (cd examples/karmada && go vet -race ./...)
  spawn ocm 0 examples_ocm
  (cd examples/karmada && KUBEBUILDER_ASSETS="${kube}" go test -vet=off -race -count=1 -timeout=20m $(go list ./... | grep -v /beside))
}

# Karmada's own control plane, twice (Karmada alone, and fleetover beside
# it), with three member clusters: its own step, so that its API servers
# do not share the two cores with the other integration tests (the jobs
# that may still run beside it are at a lower priority, and yield). Its
# scenarios mostly wait on Karmada's real clock (tolerations, the
# graceful eviction timeout), so they run eight at a time, not go test's
# default of one per core: the harness starts them longest first
# (-beside.parallel, beside/admission_test.go), and go test's -parallel
# only has to let them all wait for it. On two cores eight at a time took
# 183 s for some 1,050 s of scenarios (the longest about 75 s), twelve
# 182 s with every scenario slower. The harness raises the components'
# client rate limits (beside/main_test.go, timings): at the default,
# eight at a time starved Karmada's controller manager, whose events then
# came past the scenarios' deadlines.
beside_karmada() {
  [ -n "${assets}" ] || all_assets
  [ -n "${examples_vetted}" ] || (cd examples/karmada && go vet -race ./beside/)
  (cd examples/karmada && KUBEBUILDER_ASSETS="${assets}" go test -vet=off -race -count=1 -parallel=64 -timeout=20m ./beside/ -beside.parallel=8)
}

examples_ocm() {
  [ -n "${kube}" ] || kube_assets
  [ -n "${examples_vetted}" ] || (cd examples/ocm && go vet -race ./...)
  (cd examples/ocm && KUBEBUILDER_ASSETS="${kube}" go test -vet=off -race -count=1 -timeout=15m ./...)
}

# The ocm step: examples/ocm's run, started beside the karmada step's
# tests, or here when the karmada step did not run.
ocm_step() {
  if [ -n "${job_pid[ocm]:-}" ]; then joined ocm; else examples_ocm; fi
}

# A run stopped by a signal is a failed run (without these, the EXIT trap
# would see the status of the last command that finished, and say PASS).
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'summary; for p in "${job_pid[@]}"; do stop_tree "${p}"; done; rm -f "${assets_out}" "${kube_ready}" "${times_out}" "${job_log[@]}" "${job_cpu[@]}" "${job_rows[@]}"' EXIT

# The order. On two cores a first run computes from its first second to
# its last but for the beside step (Karmada's real clock), so what decides
# its length is what waits on what: the foreground is the path to the
# beside step (the examples' raced compile, kube-apiserver, the reference
# controllers' tests, Karmada's components), at the normal priority; the
# assets build runs beside it from the start, at the same priority. Every
# check that nothing on that path needs runs in a job at a lower priority
# (nice 10), fed by the CPU the path leaves: the floor's checks from the
# start (the floor toolchain compiles what nothing else does), the library
# at the newest k8s.io once the examples' vet has compiled the raced
# k8s.io it shares, and the checks in Karmada's module graph once the
# assets build has ended, having compiled what they share with it. On a
# warm run the reference controllers' tests start at once.
if wanted kube-assets || wanted karmada || wanted karmada-assets || wanted beside || wanted ocm; then
  spawn assets 0 build_assets
  assets_pid=${job_pid[assets]}
fi
if wanted library || wanted apidiff || wanted graph || wanted carrier; then
  spawn floor 10 floor_steps
fi
step vet-examples "examples/karmada and examples/ocm (vet -race, which compiles their tests' dependencies)" vet_examples
if wanted newest; then
  spawn newest 10 step newest "library at the newest k8s.io (vet, test -race)" bash hack/test-newest.sh
fi
if wanted conformance || wanted scheduler; then
  spawn karmada-graph 10 karmada_graph_steps
fi
step kube-assets "kube-apiserver and etcd (built in the background since the start)" kube_assets
step karmada "examples/karmada (real kube-apiserver, -race)" examples_karmada
step ocm "examples/ocm (real kube-apiserver, -race; run beside the karmada step's tests)" ocm_step
step karmada-assets "Karmada's components (built in the background since the start)" all_assets
step beside "beside the real Karmada (its control plane, K and F, -race)" beside_karmada
join_jobs
