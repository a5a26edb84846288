package main

import (
	"errors"
	"strings"
	"testing"
	"time"
	"unicode/utf16"
)

const validHead = `name: t
duration: 30m
clusters:
  - {name: a, zone: z1}
  - {name: b, zone: z2, syncMode: Pull}
`

func TestParseScenarioErrorsNameLineAndField(t *testing.T) {
	cases := []struct {
		name string
		yaml string
		want string // the first error, exactly
	}{
		{
			name: "empty zone",
			yaml: "clusters:\n  - name: a\n    zone: z\n  - name: b\n    zone: \"\"\n",
			want: `s.yaml:5: clusters[1].zone: must not be empty: every cluster belongs to a zone`,
		},
		{
			name: "unknown field",
			yaml: "clusters:\n  - name: a\n    zone: z\n    zonne: y\n",
			want: `s.yaml:4: clusters[0].zonne: unknown field "zonne"`,
		},
		{
			name: "bad duration",
			yaml: "duration: soon\nclusters:\n  - {name: a, zone: z}\n",
			want: `s.yaml:1: duration: "soon" is not a duration (want e.g. 30s, 5m, 1h)`,
		},
		{
			name: "wrong type",
			yaml: validHead + "workloads:\n  - name: w\n    kind: Deployment\n    replicas: many\n",
			want: `s.yaml:9: workloads[0].replicas: string "many" is not a valid integer`,
		},
		{
			name: "yaml syntax",
			yaml: "name: x\n\tclusters: []\n",
			want: `s.yaml:2: found a tab character that violates indentation`,
		},
		{
			name: "unknown sync mode",
			yaml: "clusters:\n  - {name: a, zone: z, syncMode: Sideways}\n",
			want: `s.yaml:2: clusters[0].syncMode: must be Push or Pull, got "Sideways"`,
		},
		{
			name: "duplicate cluster",
			yaml: "clusters:\n  - {name: a, zone: z}\n  - {name: a, zone: z}\n",
			want: `s.yaml:3: clusters[1].name: duplicate cluster "a"`,
		},
		{
			name: "library validation of the failover block",
			yaml: validHead + "workloads:\n  - name: w\n    kind: Deployment\n    replicas: 1\n    failover:\n      cluster:\n        purgeMode: Directly\n        gracePeriodSeconds: 30\n",
			want: `s.yaml:13: workloads[0].failover.cluster.gracePeriodSeconds: `,
		},
		{
			name: "unknown field in a library block",
			yaml: validHead + "workloads:\n  - name: w\n    kind: Deployment\n    replicas: 1\n    failover:\n      application:\n        toleration: 3\n",
			want: `s.yaml:12: workloads[0].failover.application.toleration: unknown field "toleration"`,
		},
		{
			name: "type error in a library block",
			yaml: validHead + "workloads:\n  - name: w\n    kind: Deployment\n    replicas: 1\n    failover:\n      application:\n        decisionConditions:\n          tolerationSeconds: soon\n",
			want: `s.yaml:13: workloads[0].failover.application.decisionConditions.tolerationSeconds: string is not a valid integer`,
		},
		{
			name: "legacy and current suspension spellings together",
			yaml: validHead + "workloads:\n  - name: w\n    kind: Deployment\n    replicas: 1\n    suspension:\n      dispatching: true\n      suspendDispatching: true\n",
			want: `s.yaml:10: workloads[0].suspension: suspension: "dispatching" and its legacy spelling "suspendDispatching" are both set`,
		},
		{
			name: "suspension of an unknown cluster",
			yaml: validHead + "workloads:\n  - name: w\n    kind: Deployment\n    replicas: 1\n    suspension:\n      suspendDispatchingOnClusters:\n        clusterNames: [a, nowhere]\n",
			want: `s.yaml:12: workloads[0].suspension.suspendDispatchingOnClusters.clusterNames[1]: unknown cluster "nowhere"`,
		},
		{
			name: "fault on an unknown cluster",
			yaml: validHead + "faults:\n  - {at: 1m, type: outage, cluster: c}\n",
			want: `s.yaml:7: faults[0].cluster: unknown cluster "c"`,
		},
		{
			name: "fault after the end",
			yaml: validHead + "faults:\n  - at: 2h\n    type: restart\n",
			want: `s.yaml:7: faults[0].at: 2h0m0s is after the end of the scenario (30m0s)`,
		},
		{
			name: "flapReady without a period",
			yaml: validHead + "faults:\n  - {at: 1m, type: flapReady, cluster: a, for: 5m}\n",
			want: `s.yaml:7: faults[0].period: a flapReady needs a period of at least one step (5s)`,
		},
		{
			name: "partitionOnPurge without its length",
			yaml: validHead + "faults:\n  - {at: 1m, type: partitionOnPurge, cluster: a}\n",
			want: `s.yaml:7: faults[0].for: a partitionOnPurge says how long the partition lasts`,
		},
		{
			name: "stateUnreadable without a workload",
			yaml: validHead + "faults:\n  - {at: 1m, type: stateUnreadable}\n",
			want: `s.yaml:7: faults[0].workload: a stateUnreadable fault names a workload`,
		},
		{
			name: "suspendScheduling without a workload",
			yaml: validHead + "faults:\n  - {at: 1m, type: suspendScheduling}\n",
			want: `s.yaml:7: faults[0].workload: a suspendScheduling fault names a workload`,
		},
		{
			name: "unknown fault type",
			yaml: validHead + "faults:\n  - {at: 1m, type: meteor}\n",
			want: `s.yaml:7: faults[0].type: must be one of`,
		},
		{
			name: "weights on a duplicated workload",
			yaml: validHead + "workloads:\n  - name: w\n    kind: Deployment\n    replicas: 1\n    placement:\n      replicaScheduling:\n        weightPreference:\n          staticWeightList: [{targetCluster: {clusterNames: [a]}, weight: 0}]\n",
			want: `s.yaml:12: workloads[0].placement.replicaScheduling.weightPreference: weights only apply to a Divided workload`,
		},
		{
			name: "NaN eviction rate",
			yaml: "settings: {evictionsPerSecond: .nan}\nclusters:\n  - {name: a, zone: z}\n",
			want: `s.yaml:1: settings.evictionsPerSecond: must be a number, got NaN`,
		},
		{
			name: "infinite eviction rate",
			yaml: "settings:\n  evictionsPerSecond: .inf\nclusters:\n  - {name: a, zone: z}\n",
			want: `s.yaml:2: settings.evictionsPerSecond: must be a number, got +Inf`,
		},
		{
			name: "vanishing eviction rate",
			yaml: "settings:\n  evictionsPerSecond: 1e-300\nclusters:\n  - {name: a, zone: z}\n",
			want: `s.yaml:2: settings.evictionsPerSecond: must be between 1e-05 and 1e+06 (leave it out for the default 50), got 1e-300`,
		},
		{
			name: "not a mapping",
			yaml: "- just\n- a list\n",
			want: `s.yaml:1: a scenario is a mapping with clusters, workloads and faults`,
		},
		{
			name: "a document marker alone",
			yaml: "---",
			want: `s.yaml:1: empty scenario`,
		},
		{
			name: "an explicit null",
			yaml: "# nothing\n~\n",
			want: `s.yaml:2: a scenario is a mapping with clusters, workloads and faults`,
		},
		{
			name: "no clusters",
			yaml: "name: x\n",
			want: `s.yaml: clusters: a scenario needs at least one cluster`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseScenario("s.yaml", []byte(tc.yaml))
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, ErrInvalidScenario) {
				t.Errorf("errors.Is(err, ErrInvalidScenario) is false for %v", err)
			}
			var pe *ParseError
			if !errors.As(err, &pe) || len(pe.Errors) == 0 {
				t.Fatalf("not a *ParseError: %v", err)
			}
			if got := pe.Errors[0].Error(); !strings.HasPrefix(got, tc.want) {
				t.Errorf("first error\n got: %s\nwant: %s...", got, tc.want)
			}
		})
	}
}

func TestParseScenarioReportsEveryError(t *testing.T) {
	_, err := ParseScenario("s.yaml", []byte("clusters:\n  - {name: a, zone: \"\"}\n  - {name: a, zone: z}\nfaults:\n  - {at: 1m, type: outage}\n"))
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("want a *ParseError, got %v", err)
	}
	var fields []string
	for _, e := range pe.Errors {
		fields = append(fields, e.Field)
	}
	want := []string{"clusters[0].zone", "clusters[1].name", "faults[0].cluster"}
	if strings.Join(fields, " ") != strings.Join(want, " ") {
		t.Errorf("fields %v, want %v", fields, want)
	}
}

func TestParseScenarioDecodesPolicyBlocksIntoLibraryTypes(t *testing.T) {
	sc, err := ParseScenario("scenario.yaml", embeddedScenario)
	if err != nil {
		t.Fatal(err)
	}
	if sc.Step.D() != 5*time.Second || sc.Duration.D() != 90*time.Minute {
		t.Errorf("step %s duration %s", sc.Step.D(), sc.Duration.D())
	}
	byName := map[string]*WorkloadSpec{}
	for i := range sc.Workloads {
		byName[sc.Workloads[i].Name] = &sc.Workloads[i]
	}
	flink := byName["flink"]
	if flink == nil || flink.Failover == nil || flink.Failover.Cluster == nil {
		t.Fatal("flink has no cluster failover block")
	}
	if got := flink.Failover.Cluster.PurgeMode; got != "Directly" {
		t.Errorf("flink purge mode %q", got)
	}
	rules := flink.Failover.Cluster.StatePreservation.Rules
	if len(rules) != 1 || rules[0].JSONPath != "{ .jobStatus.jobId }" || rules[0].AliasLabelName != "failover.fleetover.io/jobid" {
		t.Errorf("flink rules %+v", rules)
	}
	web := byName["web"]
	if web.Suspend == nil || web.Suspend.DispatchingOnClusters == nil || web.Suspend.DispatchingOnClusters.ClusterNames[0] != "west-2" {
		t.Errorf("web suspension (legacy spelling) not decoded: %+v", web.Suspend)
	}
	if a := byName["checkout"].Failover.Application; a == nil || *a.DecisionConditions.TolerationSeconds != 120 || *a.BlockPredecessorSeconds != 1800 {
		t.Errorf("checkout application failover %+v", a)
	}
	if sc.Settings.NoExecuteTaints == nil || !*sc.Settings.NoExecuteTaints {
		t.Error("NoExecute taints should default to on")
	}
}

func TestDurationAcceptsSecondsAndUnits(t *testing.T) {
	sc, err := ParseScenario("s.yaml", []byte("duration: 90\nstep: 10s\nclusters: [{name: a, zone: z}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if sc.Duration.D() != 90*time.Second || sc.Step.D() != 10*time.Second {
		t.Errorf("got duration %s step %s", sc.Duration.D(), sc.Step.D())
	}
}

func FuzzParseScenario(f *testing.F) {
	f.Add(embeddedScenario)
	f.Add([]byte(validHead))
	f.Add(RandomScenario(7, 0))
	f.Add([]byte("clusters:\n  - {name: a, zone: z}\nworkloads:\n  - {name: w, kind: Deployment, replicas: 1, failover: {application: {}}}\n"))
	f.Add([]byte("- [\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := ParseScenario("fuzz.yaml", data)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || len(pe.Errors) == 0 {
				t.Fatalf("error is not a non-empty *ParseError: %v", err)
			}
			lines := yamlLines(data)
			for _, se := range pe.Errors {
				if se.Line < 0 || se.Line > lines || se.Msg == "" {
					t.Fatalf("error outside the file's %d lines or empty: %+v", lines, se)
				}
			}
			return
		}
		// A scenario the parser accepts must run without a panic; a few
		// steps are enough to reach every controller.
		sc.Duration = Duration(min(sc.Duration.D(), 20*sc.Step.D()))
		e, err := NewEngine(sc, Options{})
		if err != nil {
			return
		}
		for _, v := range e.Run() {
			if v.Invariant == InvNoPanic {
				t.Fatalf("%v", v)
			}
		}
	})
}

// yamlLines counts the lines of a YAML document as the YAML parser does: a
// line ends at LF, CR, CR LF, NEL, LS or PS, and a document that starts
// with a UTF-16 byte order mark is read as UTF-16.
func yamlLines(data []byte) int {
	text := string(data)
	if len(data) >= 2 && (data[0] == 0xFF && data[1] == 0xFE || data[0] == 0xFE && data[1] == 0xFF) {
		units := make([]uint16, 0, len(data)/2)
		for i := 2; i+1 < len(data); i += 2 {
			if data[0] == 0xFF {
				units = append(units, uint16(data[i])|uint16(data[i+1])<<8)
			} else {
				units = append(units, uint16(data[i])<<8|uint16(data[i+1]))
			}
		}
		text = string(utf16.Decode(units))
	}
	lines := 1
	for i := 0; i < len(text); i++ {
		switch {
		case text[i] == '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			lines++
		case text[i] == '\n':
			lines++
		case strings.HasPrefix(text[i:], "\u0085"), strings.HasPrefix(text[i:], "\u2028"), strings.HasPrefix(text[i:], "\u2029"):
			lines++
		}
	}
	return lines
}

func TestYAMLLines(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{
		{"", 1},
		{"a", 1},
		{"a\n", 2},
		{"\r0", 2},
		{"a\r\nb", 2},
		{"a\r\rb", 3},
		{"a\u2028b\u0085c\u2029", 4},
		{"\xff\xfea\x00\r\x00b\x00", 2},
		{"\xfe\xff\x00a\x00\n\x00\r\x00b", 3},
	} {
		if got := yamlLines([]byte(tc.in)); got != tc.want {
			t.Errorf("yamlLines(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}
