package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// smallExport is a Karmada v1.17 export: three Ready clusters and a
// Deployment on m1 whose policy lists no toleration; m1, running the most
// workloads, goes down at +5m by default.
const smallExport = `apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: m1}
spec: {syncMode: Push, zone: z1}
status: {conditions: [{type: Ready, status: "True", reason: ClusterReady, lastTransitionTime: "2026-03-01T00:00:00Z"}]}
---
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: m2}
spec: {syncMode: Push, zone: z2}
status: {conditions: [{type: Ready, status: "True", reason: ClusterReady, lastTransitionTime: "2026-03-01T00:00:00Z"}]}
---
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: m3}
spec: {syncMode: Push, zone: z3}
status: {conditions: [{type: Ready, status: "True", reason: ClusterReady, lastTransitionTime: "2026-03-01T00:00:00Z"}]}
---
apiVersion: work.karmada.io/v1alpha2
kind: ResourceBinding
metadata: {name: web-deployment, namespace: shop}
spec:
  resource: {apiVersion: apps/v1, kind: Deployment, namespace: shop, name: web}
  replicas: 2
  clusters: [{name: m1, replicas: 2}]
  placement:
    clusterAffinity: {clusterNames: [m1, m2, m3]}
    spreadConstraints: [{spreadByField: cluster, minGroups: 1, maxGroups: 1}]
`

// notReadyPolicy is the ClusterTaintPolicy Karmada's documentation gives
// for cluster failover: NoExecute on Ready False or Unknown.
const notReadyPolicy = `
---
apiVersion: policy.karmada.io/v1alpha1
kind: ClusterTaintPolicy
metadata: {name: not-ready, creationTimestamp: "2026-03-01T00:00:00Z"}
spec:
  addOnConditions: [{conditionType: Ready, operator: In, statusValues: ["False", "Unknown"]}]
  removeOnConditions: [{conditionType: Ready, operator: In, statusValues: ["True"]}]
  taints: [{key: cluster.karmada.io/not-ready, effect: NoExecute}]
`

func writeExport(t *testing.T, content string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "export.yaml"), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func runOut(t *testing.T, wantCode int, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	if code := run(args, &out, &errOut); code != wantCode {
		t.Fatalf("run %q: exit %d, want %d\n%s\n%s", args, code, wantCode, errOut.String(), out.String())
	}
	return out.String() + errOut.String()
}

// evictedAt returns the sim time of web's first eviction from m1, or "".
func evictedAt(out string) string {
	m := regexp.MustCompile(`(?m)^(\+\d\d:\d\d:\d\d)\s+evict\s+shop/web@m1\s+evicted`).FindStringSubmatch(out)
	if m == nil {
		return ""
	}
	return m[1]
}

// A -fleet run models Karmada's own rules by default: with Karmada's
// defaults nothing fails over; with the Failover gate and NoExecute
// eviction on, only a ClusterTaintPolicy's NoExecute taint evicts, at once
// (no default toleration since v1.15) after Karmada's 2 s hold; fleetover's
// rules evict after the 5 min NoExecute timeout and the 300 s default
// toleration.
func TestFleetModelsKarmadaRules(t *testing.T) {
	plain := writeExport(t, smallExport)
	withPolicy := writeExport(t, smallExport+notReadyPolicy)
	for _, tc := range []struct {
		name    string
		args    []string
		evicted string
		header  []string
	}{
		{"Karmada's defaults", []string{"-fleet", plain}, "", []string{
			"RULES  Karmada's",
			"cluster failover: off, nothing evicts",
			"karmada-controller-manager flags: none given (-karmada-flags): every flag at Karmada's default",
			"feature gates: Failover=false, GracefulEviction=true, StatefulFailoverInjection=false",
			"default tolerations: none (karmada-webhook adds none since v1.15)",
			"eviction pacing: each eviction held 2s (--resource-eviction-rate 0.5)",
			"assumed: controller restarts keep",
		}},
		{"failover on, no taint policy", []string{"-fleet", plain, "-karmada-flags", karmadaFailoverOn}, "", []string{
			"nothing evicts until a ClusterTaintPolicy adds one",
		}},
		{"failover on, a taint policy", []string{"-fleet", withPolicy, "-karmada-flags", karmadaFailoverOn}, "+00:05:35", []string{
			"cluster failover: on; NoExecute taints from ClusterTaintPolicy 2026-03-01T00:00:00Z/not-ready",
		}},
		{"a taint policy, Failover gate off", []string{"-fleet", withPolicy}, "", []string{
			"1 ClusterTaintPolicies are not applied: Karmada runs their controller only with the Failover feature gate",
		}},
		{"a slower eviction rate", []string{"-fleet", withPolicy, "-karmada-flags", karmadaFailoverOn + " --resource-eviction-rate=0.1"}, "+00:05:40", []string{
			"each eviction held 10s (--resource-eviction-rate 0.1)",
		}},
		{"fleetover's rules", []string{"-fleet", plain, "-rules", "fleetover"}, "+00:15:30", []string{
			"RULES  fleetover's",
			"NoExecute taints from the health taint, 5m0s after Ready leaves True",
			"default tolerations: not-ready and unreachable NoExecute for 300s",
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := runOut(t, 0, tc.args...)
			if got := evictedAt(out); got != tc.evicted {
				t.Errorf("web evicted from m1 at %q, want %q", got, tc.evicted)
			}
			for _, h := range tc.header {
				if !strings.Contains(out, h) {
					t.Errorf("the header lacks %q:\n%s", h, out)
				}
			}
		})
	}
}

// -karmada-flags is karmada-controller-manager's command line, read by the
// shared parser: its errors carry the flag.
func TestKarmadaFlagsErrors(t *testing.T) {
	dir := writeExport(t, smallExport)
	for line, want := range map[string]string{
		"--cluster-lease-duration=10s":         "fleetsim: -karmada-flags: flag --cluster-lease-duration belongs to karmada-agent",
		"--resource-eviction-rate=-1":          "fleetsim: -karmada-flags: --resource-eviction-rate: Invalid value: -1",
		"--feature-gates=Failover=maybe":       `fleetsim: -karmada-flags: invalid value "Failover=maybe" for flag -feature-gates`,
		"--no-such-flag":                       "fleetsim: -karmada-flags: flag provided but not defined: -no-such-flag",
		"'--feature-gates=Failover=true":       "fleetsim: -karmada-flags: unterminated ' quote",
		"--enable-no-execute-taint-eviction x": `fleetsim: -karmada-flags: unexpected argument "x"`,
	} {
		var out, errOut bytes.Buffer
		if code := run([]string{"-fleet", dir, "-karmada-flags", line}, &out, &errOut); code != 2 {
			t.Errorf("%q: exit %d, want 2", line, code)
		}
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("%q: stderr %q, want %q", line, errOut.String(), want)
		}
	}
	for _, args := range [][]string{
		{"-karmada-flags", karmadaFailoverOn},
		{"-compare"},
		{"-rules", "karmada"},
		{"-fleet", dir, "-rules", "other"},
		{"-fleet", dir, "-compare", "-rules", "fleetover"},
	} {
		var errOut bytes.Buffer
		if code := run(args, &bytes.Buffer{}, &errOut); code != 2 {
			t.Errorf("%q: exit %d, want 2: %s", args, code, errOut.String())
		}
	}
	// Flags of controllers the simulator does not model are named.
	out := runOut(t, 0, "-fleet", dir, "-karmada-flags", "--concurrent-work-syncs=9 --cluster-monitor-period=3s", "-quiet")
	if !strings.Contains(out, "flags that change nothing here (the simulator probes every cluster once a step and models no other controller): --cluster-monitor-period --concurrent-work-syncs") {
		t.Errorf("the header does not name the flags that change nothing:\n%s", out)
	}
}

// Karmada v1.18.1's Directly purge holds the new copy until the eviction
// task times out (--graceful-eviction-timeout, 10 min here), then starts it
// with the old copy on the unreachable cluster unconfirmed; the task is gone
// by then, so its state goes nowhere. With the StatefulFailoverInjection
// gate Karmada injects only a Directly task's state, so the Gracefully
// purged copy starts without it.
func TestKarmadaRulesDirectlyAndInjection(t *testing.T) {
	sc := mustParse(t, `
settings:
  rules: karmada
  clusterFailover: true
  statefulFailoverInjection: true
  clusterTaintPolicies:
  - name: not-ready
    addOnConditions: [{conditionType: Ready, operator: In, statusValues: ["False", "Unknown"]}]
    taints: [{key: cluster.karmada.io/not-ready, effect: NoExecute}]
clusters: [{name: a, zone: z1}, {name: b, zone: z2}]
workloads:
- name: job
  kind: FlinkDeployment
  replicas: 1
  state: {jobId: 0123456789abcdef0123456789abcdef}
  clusters: [{name: a}]
  placement: {spreadConstraints: [{spreadByField: cluster, minGroups: 1, maxGroups: 1}]}
  failover:
    cluster: {purgeMode: Directly, statePreservation: {rules: [{aliasLabelName: failover.fleetover.io/jobid, jsonPath: "{ .jobStatus.jobId }"}]}}
- name: graceful
  kind: FlinkDeployment
  replicas: 1
  state: {jobId: fedcba9876543210fedcba9876543210}
  clusters: [{name: a}]
  placement: {spreadConstraints: [{spreadByField: cluster, minGroups: 1, maxGroups: 1}]}
  failover:
    cluster: {purgeMode: Gracefully, statePreservation: {rules: [{aliasLabelName: failover.fleetover.io/jobid, jsonPath: "{ .jobStatus.jobId }"}]}}
faults:
- {at: 1m, type: outage, cluster: a}
duration: 40m
`)
	e, err := NewEngine(sc, Options{KeepGoing: true})
	if err != nil {
		t.Fatal(err)
	}
	e.Run()
	var dispatched []string
	var evicted, started, removed time.Duration
	for _, ev := range e.Timeline().Events {
		switch {
		case ev.Kind == EvDispatch && ev.Cluster == "b":
			dispatched = append(dispatched, ev.Workload+": "+ev.Detail)
			if ev.Workload == "job" {
				started = ev.At
			}
		case ev.Kind == EvEvict && ev.Workload == "job":
			evicted = ev.At
		case ev.Kind == EvTaskDone && ev.Workload == "job":
			removed = ev.At
			if !strings.Contains(ev.Detail, "timed out (--graceful-eviction-timeout), the old copy's deletion unconfirmed") {
				t.Errorf("job's task removed with %q, want its timeout", ev.Detail)
			}
		}
	}
	if len(dispatched) != 2 || !strings.HasPrefix(dispatched[0], "graceful: dispatched (1 replicas), runs job ") ||
		!strings.HasPrefix(dispatched[1], "job: dispatched (1 replicas), runs job ") || strings.Contains(strings.Join(dispatched, "\n"), "injected") {
		t.Errorf("dispatches to b %q: want graceful's, then job's, neither with state", dispatched)
	}
	if evicted == 0 || started != evicted+10*time.Minute || removed != started {
		t.Errorf("job evicted at %s, started on b at %s, its task removed at %s: want the start and the removal at the eviction + 10m", evicted, started, removed)
	}
	if violationsCode(sc, e.Violations()) != 0 {
		t.Errorf("a violation under Karmada's rules is a finding, not a failure: %v", e.Violations())
	}
}

// -compare runs the export twice, with the same faults, and prints per
// workload what differs.
func TestCompare(t *testing.T) {
	dir := writeExport(t, smallExport+notReadyPolicy)
	out := runOut(t, 0, "-fleet", dir, "-karmada-flags", karmadaFailoverOn, "-compare")
	for _, want := range []string{
		"RULES  Karmada's",
		"RULES  fleetover's",
		"COMPARE  the same fleet and faults under Karmada's rules (" + karmadaFailoverOn + ") and fleetover's",
		"shop/web: time to recover 55s under Karmada's rules, 5m50s under fleetover's",
		"shop/web: no copy running 35s under Karmada's rules, 5m30s under fleetover's",
		"under karmada's rules:\nSUMMARY",
		"under fleetover's rules:\nSUMMARY",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("-compare output lacks %q:\n%s", want, out)
		}
	}
	if !regexp.MustCompile(`(?m)^\* shop/web\s+Karmada\s+1\s+55s`).MatchString(out) {
		t.Errorf("no marked Karmada row for shop/web:\n%s", out)
	}
}

// Karmada v1.18.1 with nothing that fits the evicted workload (#7455): the
// scheduler's failure leaves the binding unscheduled, so the task is not
// removed at once as "every target healthy" would; it goes at its grace
// period (--graceful-eviction-timeout, 2 min here), and the last copy with
// it.
func TestKarmadaRulesLastCopyGoesAtTheGracePeriod(t *testing.T) {
	sc := mustParse(t, `
name: lonely
duration: 20m
settings:
  rules: karmada
  clusterFailover: true
  gracefulEvictionTimeout: 2m
  clusterTaintPolicies:
  - name: not-ready
    addOnConditions: [{conditionType: Ready, operator: In, statusValues: ["False", "Unknown"]}]
    taints: [{key: cluster.karmada.io/not-ready, effect: NoExecute}]
clusters: [{name: a, zone: z1}, {name: b, zone: z2}]
workloads:
- name: w
  kind: Deployment
  replicas: 2
  placement: {clusterAffinity: {clusterNames: [a]}}
faults:
- {at: 2m, type: notReady, cluster: a, for: 15m}
`)
	e, err := NewEngine(sc, Options{KeepGoing: true})
	if err != nil {
		t.Fatal(err)
	}
	v := e.Run()
	var evicted, removed, deleted time.Duration
	for _, ev := range e.Timeline().Events {
		switch {
		case ev.Kind == EvEvict && ev.Workload == "w":
			evicted = ev.At
		case ev.Kind == EvTaskDone && ev.Workload == "w":
			removed = ev.At
		case ev.Kind == EvDelete && ev.Workload == "w" && deleted == 0:
			deleted = ev.At
		}
	}
	if evicted == 0 || removed != evicted+2*time.Minute || deleted != removed {
		t.Errorf("w evicted at %s, its task removed at %s, its last copy deleted at %s: want both at the eviction + 2m", evicted, removed, deleted)
	}
	if len(v) == 0 || v[0].Invariant != InvLastCopyKept || v[0].At != removed {
		t.Errorf("want a %s finding when the task goes, got %v", InvLastCopyKept, v)
	}
}
