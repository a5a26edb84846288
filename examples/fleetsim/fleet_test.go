package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fleetover/fleetover/examples/fleetsim/karmadafleet"
)

const exportDir = "testdata/karmada-export"

// karmadaFailoverOn turns Karmada's cluster failover on.
const karmadaFailoverOn = "--feature-gates=Failover=true --enable-no-execute-taint-eviction=true"

// The workloads of the testdata export, by the names the simulator gives
// them, and the binding it leaves out.
var exportWorkloads = []string{"analytics/fraud-detector", "orders/orders-db", "platform/ingress-gateway", "search/search-api", "shop/payments", "shop/web"}

func TestRunFleetExport(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"-fleet", exportDir, "-karmada-flags", karmadaFailoverOn}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errOut.String(), out.String())
	}
	s := out.String()
	for _, w := range exportWorkloads {
		// Each workload starts where the export placed it.
		if !regexp.MustCompile(`(?m)^\+00:00:00 .*` + regexp.QuoteMeta(w) + `\s+placement `).MatchString(s) {
			t.Errorf("the timeline does not place %s at the start", w)
		}
	}
	for _, want := range []string{
		"FLEET  fleet testdata/karmada-export: 6 clusters, 7 bindings (6 simulated, 1 left out), 6 policies",
		"ClusterResourceBinding platform-reader-clusterrole (testdata/karmada-export/clusterresourcebindings.yaml)",
		"spec.replicas: ClusterRole platform-reader has no replicas: only workloads with replicas are simulated; left out",
		"OverridePolicy shop/web-eu-image",
		// Where each workload comes from, and what its policy gave.
		"  workload shop/payments: ResourceBinding shop/payments-deployment, policy PropagationPolicy shop/payments (its placement, failover)\n",
		"  workload platform/ingress-gateway: ResourceBinding platform/ingress-gateway-deployment, policy ClusterPropagationPolicy platform-defaults\n",
		// search-api spreads over two regions: the outage of aws-use1-a
		// (us-east-1) is made good in us-east-1, beside gcp-euw1-b in
		// europe-west1.
		"search/search-api                    placement [aws-use1-a, gcp-euw1-b]",
		"search/search-api                    placement [aws-use1-b, gcp-euw1-b]",
		// gcp-euw1-c is Ready False in the export; aws-use1-a runs the most
		// workloads and goes down by default.
		"notReady of gcp-euw1-c at +00:00:05",
		"outage of aws-use1-a at +00:05:00",
		"  default fault: aws-use1-a (running the most workloads) is down from 5m0s for 30m0s\n",
		// The binding's status shows web failing on gcp-euw1-b, and the
		// Flink job's id.
		"workloadUnhealthy: shop/web on gcp-euw1-b at +00:00:05",
		"job id 5b0e8f7ac2d14e6f9a3b7c1d2e4f6a8b",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	// The eviction in flight from gcp-euw1-c ends once the replacements
	// run, and its old copy goes.
	if !regexp.MustCompile(`search/search-api@gcp-euw1-c\s+eviction task removed: ReplacementHealthy`).MatchString(s) ||
		!regexp.MustCompile(`search/search-api@gcp-euw1-c\s+old copy deleted`).MatchString(s) {
		t.Error("the eviction in flight from gcp-euw1-c did not run to its end")
	}
	// The export's placement, static weights included.
	if !regexp.MustCompile(`shop/payments\s+placement \[aws-use1-a=3, aws-use1-b=2, gcp-euw1-b=1\]`).MatchString(s) {
		t.Error("payments does not start on the export's placement")
	}
	// Nothing lands on the cluster that is not Ready (it keeps its
	// not-ready taint), and the onprem taint is tolerated by the platform
	// policy only.
	if m := regexp.MustCompile(`(?m)^.*(dispatch|placement).*gcp-euw1-c.*$`).FindString(s); m != "" {
		t.Errorf("a workload went to the cluster that is not Ready: %s", m)
	}
	onprem := regexp.MustCompile(`(?m)^.*@onprem-fra\s+dispatched.*$`).FindAllString(s, -1)
	if len(onprem) == 0 {
		t.Error("the platform policy tolerates dedicated=batch, yet nothing went to onprem-fra")
	}
	for _, line := range onprem {
		if !strings.Contains(line, "platform/ingress-gateway") {
			t.Errorf("a workload that does not tolerate dedicated=batch went to onprem-fra: %s", line)
		}
	}
}

func TestRunFleetJSON(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"-fleet", exportDir, "-o", "json", "-quiet"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var doc map[string]any
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("stdout is not one JSON document: %v", err)
	}
	if !strings.Contains(errOut.String(), "not modelled") {
		t.Errorf("the findings go to stderr with -o json: %q", errOut.String())
	}
}

func writeFile(t *testing.T, name, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// -scenario over -fleet: its settings and faults replace the defaults;
// the fault standing for the cluster not Ready stays.
func TestRunFleetWithScenario(t *testing.T) {
	p := writeFile(t, "faults.yaml", "name: zone-a\nduration: 30m\nsettings:\n  evictionTimeout: 1m\nfaults:\n  - {at: 2m, type: zoneOutage, zone: us-east-1b, for: 10m}\n")
	var out, errOut bytes.Buffer
	if code := run([]string{"-fleet", exportDir, "-scenario", p, "-quiet"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	s := out.String()
	for _, want := range []string{`scenario "zone-a"`, "zoneOutage of aws-use1-b at +00:02:00", "notReady of gcp-euw1-c at +00:00:05", "30m0s of fleet time"} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "outage of aws-use1-a") || strings.Contains(s, "default fault") {
		t.Error("the default fault ran although the scenario gives faults")
	}
	// Settings alone keep the default fault.
	p = writeFile(t, "settings.yaml", "settings:\n  evictionTimeout: 1m\n")
	out.Reset()
	if code := run([]string{"-fleet", exportDir, "-scenario", p, "-quiet"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{"  default fault: aws-use1-a (running the most workloads) is down from 5m0s for 30m0s\n", "outage of aws-use1-a at +00:05:00", "notReady of gcp-euw1-c at +00:00:05"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("with settings only, output lacks %q", want)
		}
	}
}

func TestRunFleetBadInput(t *testing.T) {
	bad := writeFile(t, "export.yaml", "apiVersion: work.karmada.io/v1alpha2\nkind: ResourceBinding\nmetadata: {name: b, namespace: ns}\nspec: {replicas: many}\n")
	noClusters := writeFile(t, "export.yaml", "apiVersion: v1\nkind: List\nitems: []\n")
	overlayFleet := writeFile(t, "over.yaml", "name: x\nclusters: [{name: a, zone: b}]\n")
	overlayFault := writeFile(t, "over.yaml", "name: x\nfaults:\n  - {at: 1m, type: outage, cluster: nowhere}\n")
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"wrong type", []string{"-fleet", bad}, bad + " (document 1): ResourceBinding ns/b: spec.replicas: Invalid value: \"string\": must be an integer"},
		{"no clusters", []string{"-fleet", noClusters}, "no Cluster (cluster.karmada.io/v1alpha1) in the input"},
		{"missing", []string{"-fleet", filepath.Join(t.TempDir(), "none")}, "no such file or directory"},
		{"scenario gives clusters", []string{"-fleet", exportDir, "-scenario", overlayFleet}, overlayFleet + ":2: clusters: the fleet comes from -fleet"},
		{"scenario fault on an unknown cluster", []string{"-fleet", exportDir, "-scenario", overlayFault}, overlayFault + `:3: faults[0].cluster: unknown cluster "nowhere"`},
		{"campaign", []string{"-fleet", bad, "-campaign", "2"}, "spec.replicas"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := run(tc.args, &out, &errOut); code != 2 {
				t.Fatalf("exit %d, want 2", code)
			}
			if !strings.Contains(errOut.String(), tc.want) {
				t.Errorf("stderr %q lacks %q", errOut.String(), tc.want)
			}
		})
	}
}

func TestRunFleetFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-scale", "-fleet", exportDir}, "fleetsim: -fleet: does nothing with -scale"},
		{[]string{"-fleet", ""}, "fleetsim: -fleet: names a file or directory"},
	} {
		var out, errOut bytes.Buffer
		if code := run(tc.args, &out, &errOut); code != 2 || !strings.HasPrefix(errOut.String(), tc.want) || out.Len() != 0 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut.String(), tc.want)
		}
	}
}

// A campaign on -fleet runs random faults on the export's fleet; a
// failing schedule replays with -scenario alone.
func TestCampaignOnFleet(t *testing.T) {
	var out bytes.Buffer
	if code := run([]string{"-campaign", "3", "-fleet", exportDir}, &out, io.Discard); code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	if want := "campaign on the fleet testdata/karmada-export: 3 schedules (seeds 1..3), 2160 steps,"; !strings.Contains(out.String(), want) {
		t.Errorf("output %q lacks %q", out.String(), want)
	}
	run, err := loadFleetRun(exportDir, "")
	if err != nil {
		t.Fatal(err)
	}
	// Each schedule keeps the faults standing for the export's state.
	data, err := WithRandomFaults(run.Data, must(ParseScenario("gen.yaml", run.Data)), 9, 0)
	if err == nil {
		data, err = run.withStandingFaults(data)
	}
	if err != nil {
		t.Fatal(err)
	}
	sched, err := ParseScenario("schedule.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	standing := 0
	for _, f := range sched.Faults {
		if f.At == 0 && ((f.Type == FaultNotReady && f.Cluster == "gcp-euw1-c") || (f.Type == FaultWorkloadUnhealthy && f.Workload == "shop/web" && f.Cluster == "gcp-euw1-b")) {
			standing++
		}
	}
	if standing != 2 {
		t.Errorf("a campaign schedule has %d of the 2 standing faults: %+v", standing, sched.Faults)
	}
	sc, err := ParseScenario("replay.yaml", run.Data)
	if err != nil {
		t.Fatalf("the fleet's scenario does not replay alone: %v", err)
	}
	if len(sc.Clusters) != 6 || len(sc.Workloads) != len(exportWorkloads) {
		t.Errorf("scenario has %d clusters, %d workloads", len(sc.Clusters), len(sc.Workloads))
	}
}

// How the export becomes a scenario: affinities by label, field and name
// become cluster names, static weights by zone become the clusters in it,
// and what cannot be simulated is reported, not dropped.
func TestFleetScenario(t *testing.T) {
	f, err := karmadafleet.Load(exportDir)
	if err != nil {
		t.Fatal(err)
	}
	run, err := buildFleetRun(f, exportDir, "", nil)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := ParseScenario("gen.yaml", run.Data)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*WorkloadSpec{}
	for i := range sc.Workloads {
		byName[sc.Workloads[i].Name] = &sc.Workloads[i]
	}
	web := byName["shop/web"]
	// env=prod minus the excluded onprem-fra.
	if got := strings.Join(web.Placement.ClusterAffinity.ClusterNames, ","); got != "aws-use1-a,aws-use1-b,aws-use1-c,gcp-euw1-b,gcp-euw1-c" {
		t.Errorf("web affinity %s", got)
	}
	if len(web.Placement.SpreadConstraints) != 2 || web.Failover == nil || web.Failover.Application == nil {
		t.Errorf("web placement %+v, failover %+v", web.Placement, web.Failover)
	}
	pay := byName["shop/payments"]
	wp := pay.Placement.ReplicaScheduling.WeightPreference
	if pay.Placement.ReplicaScheduling.ReplicaSchedulingType != "Divided" || wp == nil || len(wp.StaticWeightList) != 2 ||
		strings.Join(wp.StaticWeightList[1].TargetCluster.ClusterNames, ",") != "aws-use1-b,gcp-euw1-b" || wp.StaticWeightList[0].Weight != 2 {
		t.Errorf("payments weights %+v", wp)
	}
	if len(pay.Clusters) != 3 || pay.Clusters[0] != (TargetSpec{Name: "aws-use1-a", Replicas: 3}) {
		t.Errorf("payments starts on %+v", pay.Clusters)
	}
	flink := byName["analytics/fraud-detector"]
	if flink.State["jobId"] != "5b0e8f7ac2d14e6f9a3b7c1d2e4f6a8b" {
		t.Errorf("fraud-detector state %v, want the job id its copy reports", flink.State)
	}
	var faults []string
	for _, fs := range sc.Faults {
		faults = append(faults, fs.At.D().String()+" "+fs.Type+" "+fs.Workload+" "+fs.Cluster+" "+fs.For.D().String())
	}
	if got, want := strings.Join(faults, "; "), "5m0s outage  aws-use1-a 30m0s; 0s notReady  gcp-euw1-c 0s; 0s workloadUnhealthy shop/web gcp-euw1-b 0s"; got != want {
		t.Errorf("faults %q, want %q", got, want)
	}
	if flink.Kind != "FlinkDeployment" || flink.Failover.Cluster.StatePreservation == nil || strings.Join(flink.Placement.ClusterAffinity.ClusterNames, ",") != "aws-use1-a,aws-use1-b,aws-use1-c" {
		t.Errorf("fraud-detector %+v", flink)
	}
	if gw := byName["platform/ingress-gateway"]; gw.Placement.ClusterAffinity != nil || len(gw.Tolerations) != 1 {
		t.Errorf("ingress-gateway: no affinity (every cluster), one toleration: %+v", gw)
	}
	search := byName["search/search-api"]
	if got := fmt.Sprintf("%+v", search.Placement.SpreadConstraints); got != "[{SpreadByField:region MinGroups:2 MaxGroups:2} {SpreadByField:cluster MinGroups:2 MaxGroups:2}]" {
		t.Errorf("search-api keeps its region and cluster spreads, got %s", got)
	}
	regions := map[string]string{}
	for _, c := range sc.Clusters {
		regions[c.Name] = c.Region
	}
	if regions["aws-use1-b"] != "us-east-1" || regions["gcp-euw1-b"] != "europe-west1" {
		t.Errorf("the clusters' regions are not the export's: %v", regions)
	}
	var taints []string
	for _, c := range sc.Clusters {
		for _, tn := range c.Taints {
			taints = append(taints, c.Name+":"+tn.Key+"="+tn.Value+":"+tn.Effect)
		}
		if c.Name == "aws-use1-a" && c.Zone != "us-east-1a" {
			t.Errorf("aws-use1-a in zone %q, want its only spec.zones entry", c.Zone)
		}
	}
	if got := strings.Join(taints, " "); got != "gcp-euw1-c:cluster.karmada.io/not-ready=:NoSchedule onprem-fra:dedicated=batch:NoSchedule" {
		t.Errorf("taints %s", got)
	}
	if len(run.Left) != 1 || run.Left[0].Name != "platform-reader-clusterrole" {
		t.Errorf("left out %v", run.Left)
	}
}

// Values the simulator cannot take are reported and the rest runs.
func TestFleetScenarioReports(t *testing.T) {
	export := `apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: m1}
spec: {syncMode: Pull, zones: [z1, z2]}
---
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: m2}
spec: {syncMode: Push}
status: {conditions: [{type: Ready, status: Unknown, reason: ClusterNotReachable, message: "", lastTransitionTime: "2026-01-01T00:00:00Z"}]}
---
apiVersion: work.karmada.io/v1alpha2
kind: ResourceBinding
metadata: {name: a, namespace: ns}
spec:
  resource: {apiVersion: apps.kruise.io/v1alpha1, kind: CloneSet, namespace: ns, name: a}
  replicas: 2
  clusters: [{name: m1, replicas: 2}, {name: gone, replicas: 2}]
  placement:
    clusterAffinity: {labelSelector: {matchLabels: {env: prod}}}
---
apiVersion: work.karmada.io/v1alpha2
kind: ResourceBinding
metadata: {name: b, namespace: ns}
spec:
  resource: {apiVersion: apps/v1, kind: Deployment, namespace: ns, name: b}
  replicas: 2
  placement:
    clusterAffinity: {fieldSelector: {matchExpressions: [{key: rack, operator: In, values: [r1]}]}}
---
apiVersion: work.karmada.io/v1alpha2
kind: ResourceBinding
metadata: {name: c, namespace: ns}
spec:
  resource: {apiVersion: apps/v1, kind: Deployment, namespace: ns, name: c}
  replicas: 2
  clusters: [{name: m1, replicas: 2}]
  placement:
    spreadConstraints: [{spreadByField: zone, maxGroups: 1}]
  failover: {application: {decisionConditions: {tolerationSeconds: -5}}}
---
apiVersion: work.karmada.io/v1alpha2
kind: ResourceBinding
metadata: {name: d, namespace: ns}
spec:
  resource: {apiVersion: apps/v1, kind: Deployment, namespace: ns, name: d}
  replicas: 3
  clusters: [{name: m1, replicas: 3}]
  placement:
    spreadConstraints: [{spreadByField: zone, maxGroups: 1}]
    replicaScheduling: {replicaSchedulingType: Divided, weightPreference: {staticWeightList: [{targetCluster: {clusterNames: [m9]}, weight: 3}]}}
`
	run := exportRun(t, export)
	var got []string
	for _, fd := range run.Findings {
		got = append(got, fd.Object.String()+" "+fd.Field)
	}
	want := []string{
		"Cluster m1 spec.zones",
		"Cluster m1 status.conditions",
		"Cluster m2 spec.zone",
		"ResourceBinding ns/a spec.resource.kind",
		"ResourceBinding ns/a spec.placement.clusterAffinity",
		"ResourceBinding ns/b spec.placement.clusterAffinity",
		"ResourceBinding ns/c spec.placement.spreadConstraints",
		"ResourceBinding ns/c spec.failover",
		// Divided: the spread is ignored, as in Karmada; and a zone spread
		// without a cluster one.
		"ResourceBinding ns/d spec.placement.spreadConstraints",
		"ResourceBinding ns/d spec.placement.spreadConstraints",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	sc, err := ParseScenario("gen.yaml", run.Data)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Workloads) != 1 || sc.Workloads[0].Name != "ns/d" || len(sc.Workloads[0].Placement.SpreadConstraints) != 0 ||
		sc.Workloads[0].Placement.ReplicaScheduling.WeightPreference != nil {
		t.Errorf("workloads %+v", sc.Workloads)
	}
	// m2 is Ready Unknown: partitioned from the start; m1 is the busiest
	// Ready cluster and goes down.
	var faults []string
	for _, fs := range sc.Faults {
		faults = append(faults, fs.Type+" "+fs.Cluster)
	}
	if got := strings.Join(faults, ", "); got != "outage m1, partition m2" {
		t.Errorf("faults %s", got)
	}
}

// A scenario's evictions in flight: validated, and run as the graceful
// eviction controller runs a task it finds on a binding.
func TestScenarioEvictionTasks(t *testing.T) {
	base := "name: inflight\nduration: 5m\nclusters: [{name: a, zone: za}, {name: b, zone: zb}]\nworkloads:\n" +
		"  - name: job\n    kind: FlinkDeployment\n    replicas: 1\n    clusters: [{name: b}]\n" +
		"    placement: {spreadConstraints: [{minGroups: 1, maxGroups: 1}]}\n" +
		"    failover: {cluster: {purgeMode: Directly, statePreservation: {rules: [{aliasLabelName: failover.fleetover.io/jobid, jsonPath: \"{ .jobStatus.jobId }\"}]}}}\n"
	good := base + "    evictionTasks: [{fromCluster: a, purgeMode: Directly, reason: TaintUntolerated, producer: TaintManager, " +
		"preservedLabelState: {failover.fleetover.io/jobid: 0123456789abcdef0123456789abcdef}, clustersBeforeFailover: [a]}]\n"
	sc, err := ParseScenario("inflight.yaml", []byte(good))
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEngine(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if v := e.Run(); len(v) > 0 {
		t.Fatalf("violations: %v", v)
	}
	var b bytes.Buffer
	if err := e.Timeline().Render(&b); err != nil {
		t.Fatal(err)
	}
	tl := b.String()
	// Directly: the new copy waits until the old one is deleted, then
	// resumes the job the task preserved.
	del := strings.Index(tl, "job@a  old copy deleted")
	disp := strings.Index(tl, "job@b  dispatched (1 replicas), injected failover.fleetover.io/jobid=0123456789abcdef0123456789abcdef, runs job 0123456789abcdef0123456789abcdef")
	if del < 0 || disp < 0 || disp < del {
		t.Errorf("want the old copy on a deleted, then the job resumed on b:\n%s", tl)
	}
	for _, tc := range []struct{ tasks, want string }{
		{"[{fromCluster: c, reason: TaintUntolerated, producer: p}]", `inflight.yaml:11: workloads[0].evictionTasks[0].fromCluster: unknown cluster "c"`},
		{"[{fromCluster: b, reason: TaintUntolerated, producer: p}]", "workloads[0].evictionTasks[0].fromCluster: the workload is leaving b and placed there at once"},
		{"[{fromCluster: a, reason: TaintUntolerated}]", "workloads[0].evictionTasks[0].producer: Required value"},
		{"[{fromCluster: a, reason: x, producer: p}, {fromCluster: a, reason: X, producer: p}]", "workloads[0].evictionTasks[1].fromCluster: Duplicate value"},
		{"[{fromCluster: a, reason: X, producer: p, color: red}]", `unknown field "color"`},
	} {
		_, err := ParseScenario("inflight.yaml", []byte(base+"    evictionTasks: "+tc.tasks+"\n"))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.tasks, err, tc.want)
		}
	}
}

// FuzzFleetScenario: whatever export the reader accepts becomes a scenario
// the scenario parser accepts (what cannot be simulated is reported and
// left out, never written), and it runs without a panic.
func FuzzFleetScenario(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join(exportDir, "*.yaml"))
	var all []byte
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		all = append(all, "\n---\n"...)
		all = append(all, data...)
	}
	f.Add(all)
	f.Add([]byte("apiVersion: cluster.karmada.io/v1alpha1\nkind: Cluster\nmetadata: {name: m1}\nspec: {syncMode: Push, taints: [{key: \"a b\", effect: NoSchedule}]}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fl, err := karmadafleet.Parse("fuzz.yaml", data)
		if err != nil {
			return
		}
		run, err := buildFleetRun(fl, "fuzz", "", nil)
		if err != nil {
			if len(fl.Clusters) > 0 {
				t.Fatalf("a fleet with clusters was refused: %v", err)
			}
			return
		}
		sc, err := ParseScenario("gen.yaml", run.Data)
		if err != nil {
			t.Fatalf("the generated scenario does not parse: %v\n%s", err, run.Data)
		}
		sc.Duration = Duration(20 * sc.Step.D())
		e, err := NewEngine(sc, Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range e.Run() {
			if v.Invariant == InvNoPanic {
				t.Fatalf("%v", v)
			}
		}
	})
}

// An export's clusterAffinities become the scenario's affinity groups, in
// order and by the clusters each selects; a group that selects none is
// reported and left out, and the simulation moves the workload group by
// group.
func TestFleetAffinityGroups(t *testing.T) {
	export := `apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: m1, labels: {tier: primary}}
spec: {syncMode: Push, zone: z1}
---
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: m2}
spec: {syncMode: Push, zone: z2}
---
apiVersion: work.karmada.io/v1alpha2
kind: ResourceBinding
metadata: {name: web, namespace: ns}
spec:
  resource: {apiVersion: apps/v1, kind: Deployment, namespace: ns, name: web}
  replicas: 2
  clusters: [{name: m1}]
  placement:
    clusterAffinities:
      - {affinityName: primary, labelSelector: {matchLabels: {tier: primary}}}
      - {affinityName: nowhere, clusterNames: [m9]}
      - {affinityName: backup, clusterNames: [m2]}
    spreadConstraints: [{spreadByField: cluster, minGroups: 1, maxGroups: 1}]
`
	run := exportRun(t, export)
	var findings []string
	for _, fd := range run.Findings {
		findings = append(findings, fd.Field+": "+fd.Message)
	}
	if want := `spec.placement.clusterAffinities[1]: affinity group "nowhere" selects no cluster of the input; the group is left out`; !slices.Contains(findings, want) {
		t.Errorf("findings %q lack %q", findings, want)
	}
	sc, err := ParseScenario("gen.yaml", run.Data)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprintf("%+v", sc.Workloads[0].Placement.ClusterAffinities); got != "[{AffinityName:primary ClusterAffinity:{ClusterNames:[m1] Zones:[]}} {AffinityName:backup ClusterAffinity:{ClusterNames:[m2] Zones:[]}}]" {
		t.Errorf("affinity groups %s", got)
	}
	// The default fault takes m1 down: the workload moves to the backup
	// group.
	e, err := NewEngine(sc, Options{})
	if err != nil {
		t.Fatal(err)
	}
	e.Run()
	if got := placementOf(e, "ns/web"); got != "[m2]" {
		t.Errorf("placement at the end %s, want [m2]: the backup group", got)
	}
}

// A binding's status.schedulerObservingAffinityName is the group the
// simulation starts in: the failover of a cluster both groups select stays
// in the later group the binding was placed by, as Karmada's scheduler
// tries only that group and those after it.
func TestFleetObservedAffinityGroup(t *testing.T) {
	export := func(groups, status string) string {
		return `apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: m1}
spec: {syncMode: Push, zone: z1}
---
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: m2}
spec: {syncMode: Push, zone: z2}
---
apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: m3}
spec: {syncMode: Push, zone: z3}
---
apiVersion: work.karmada.io/v1alpha2
kind: ResourceBinding
metadata: {name: web, namespace: ns}
spec:
  resource: {apiVersion: apps/v1, kind: Deployment, namespace: ns, name: web}
  replicas: 2
  clusters: [{name: m2}]
  placement:
    clusterAffinities:
` + groups + `    spreadConstraints: [{spreadByField: cluster, minGroups: 1, maxGroups: 1}]
` + status
	}
	// A second binding keeps the run's scenario from being empty when
	// the first is left out.
	const otherBinding = `---
apiVersion: work.karmada.io/v1alpha2
kind: ResourceBinding
metadata: {name: api, namespace: ns}
spec:
  resource: {apiVersion: apps/v1, kind: Deployment, namespace: ns, name: api}
  replicas: 1
  clusters: [{name: m2}]
`
	const overlapping = `      - {affinityName: primary, clusterNames: [m1, m2]}
      - {affinityName: backup, clusterNames: [m2, m3]}
`
	for _, tc := range []struct {
		name, groups, status, group, end, finding string
	}{
		{"placed by the later group", overlapping, "status: {schedulerObservingAffinityName: backup}\n", "backup", "[m3]", ""},
		{"no group observed", overlapping, "", "", "[m1]", ""},
		{"a name of no term", overlapping, "status: {schedulerObservingAffinityName: standby}\n", "", "[m1]",
			`status.schedulerObservingAffinityName: "standby" names no affinity term of the placement: the first term is in use, as in Karmada`},
		{"the observed group left out", `      - {affinityName: primary, clusterNames: [m1, m2]}
      - {affinityName: gone, clusterNames: [m9]}
      - {affinityName: backup, clusterNames: [m2, m3]}
`, "status: {schedulerObservingAffinityName: gone}\n", "backup", "[m3]", ""},
		{"no group kept from the observed one on", `      - {affinityName: primary, clusterNames: [m1, m2]}
      - {affinityName: gone, clusterNames: [m9]}
`, "status: {schedulerObservingAffinityName: gone}\n", "", "",
			`status.schedulerObservingAffinityName: no affinity group from "gone" on selects a cluster of the input; left out`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := exportRun(t, export(tc.groups, tc.status)+otherBinding)
			var findings []string
			for _, fd := range run.Findings {
				findings = append(findings, fd.Field+": "+fd.Message)
			}
			if tc.finding != "" && !slices.Contains(findings, tc.finding) {
				t.Errorf("findings %q lack %q", findings, tc.finding)
			}
			sc, err := ParseScenario("gen.yaml", run.Data)
			if err != nil {
				t.Fatal(err)
			}
			if tc.end == "" {
				if len(sc.Workloads) != 1 || sc.Workloads[0].Name != "ns/api" {
					t.Fatalf("workloads %+v, want ns/api alone: ns/web is left out", sc.Workloads)
				}
				return
			}
			web := slices.IndexFunc(sc.Workloads, func(w WorkloadSpec) bool { return w.Name == "ns/web" })
			if web < 0 {
				t.Fatalf("ns/web is not in the scenario; findings %q", findings)
			}
			if got := sc.Workloads[web].AffinityGroup; got != tc.group {
				t.Errorf("affinity group at the start %q, want %q", got, tc.group)
			}
			// The default fault takes m2, the busiest cluster, down.
			e, err := NewEngine(sc, Options{})
			if err != nil {
				t.Fatal(err)
			}
			e.Run()
			if got := placementOf(e, "ns/web"); got != tc.end {
				t.Errorf("placement at the end %s, want %s", got, tc.end)
			}
		})
	}
}

// exportRun reads export as one file of a Karmada export and builds its run.
func exportRun(t *testing.T, export string) *fleetRun {
	t.Helper()
	f, err := karmadafleet.Parse("export.yaml", []byte(export))
	if err != nil {
		t.Fatal(err)
	}
	// The placement tests follow fleetover's failover; Karmada's rules
	// place the same way once a failover happens.
	run, err := buildFleetRun(f, "export.yaml", "", nil, fleetRules{Rules: RulesFleetover})
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// A binding's suspended scheduling carries over into the scenario, and is
// not reported as something the simulator cannot follow.
func TestFleetSuspendedScheduling(t *testing.T) {
	run := exportRun(t, `apiVersion: cluster.karmada.io/v1alpha1
kind: Cluster
metadata: {name: m1}
spec: {syncMode: Push, zone: z1}
---
apiVersion: work.karmada.io/v1alpha2
kind: ResourceBinding
metadata: {name: web, namespace: ns}
spec:
  resource: {apiVersion: apps/v1, kind: Deployment, namespace: ns, name: web}
  replicas: 1
  clusters: [{name: m1}]
  suspension: {scheduling: true}
`)
	sc, err := ParseScenario("gen.yaml", run.Data)
	if err != nil {
		t.Fatal(err)
	}
	if !sc.Workloads[0].SchedulingSuspended {
		t.Errorf("the binding's suspended scheduling is lost:\n%s", run.Data)
	}
	for _, fd := range run.Findings {
		if strings.Contains(fd.Field, "scheduling") {
			t.Errorf("a modelled field is reported: %s: %s", fd.Field, fd.Message)
		}
	}
}
