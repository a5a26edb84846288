package replay

import (
	"bytes"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fleetover/fleetover/eviction"
)

func validFixture() *Fixture {
	return &Fixture{
		Version:   Version,
		Scenario:  "tiny",
		Step:      metav1.Duration{Duration: 5 * time.Second},
		Duration:  metav1.Duration{Duration: time.Minute},
		Clusters:  []Cluster{{Name: "a", SyncMode: "Push"}, {Name: "b", SyncMode: "Pull"}},
		Workloads: []Workload{{Name: "web", Kind: "Deployment", Replicas: 1, Initial: []eviction.TargetCluster{{Name: "a", Replicas: 1}}, Final: []eviction.TargetCluster{{Name: "b", Replicas: 1}}}},
		Faults:    []Fault{{At: metav1.Duration{Duration: 10 * time.Second}, Type: FaultOutage, Cluster: "a"}},
		Evictions: []Eviction{{At: metav1.Duration{Duration: 30 * time.Second}, Workload: "web", Cluster: "a", Reason: "TaintUntolerated", PurgeMode: eviction.PurgeGracefully}},
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, validFixture()); err != nil {
		t.Fatal(err)
	}
	got, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got.Workloads[0].Final[0].Name != "b" || got.Evictions[0].At.Duration != 30*time.Second || got.Faults[0].Type != FaultOutage {
		t.Fatalf("round trip lost data: %+v", got)
	}
}

func TestReadNamesTheField(t *testing.T) {
	cases := map[string]struct {
		mutate func(*Fixture)
		want   string
	}{
		"version":                           {func(f *Fixture) { f.Version = "v0" }, "version"},
		"step":                              {func(f *Fixture) { f.Step.Duration = 0 }, "step"},
		"duration":                          {func(f *Fixture) { f.Duration.Duration = time.Second }, "duration"},
		"duplicate":                         {func(f *Fixture) { f.Clusters[1].Name = "a" }, "clusters[1].name"},
		"sync mode":                         {func(f *Fixture) { f.Clusters[0].SyncMode = "push" }, "clusters[0].syncMode"},
		"fault type":                        {func(f *Fixture) { f.Faults[0].Type = "zoneOutage" }, "faults[0].type"},
		"fault cluster":                     {func(f *Fixture) { f.Faults[0].Cluster = "c" }, "faults[0].cluster"},
		"fault time":                        {func(f *Fixture) { f.Faults[0].At.Duration = time.Hour }, "faults[0].at"},
		"fault length":                      {func(f *Fixture) { f.Faults[0].For = &metav1.Duration{Duration: time.Minute} }, "faults[0].for"},
		"partition on purge without length": {func(f *Fixture) { f.Faults[0].Type = FaultPartitionOnPurge }, "faults[0].for"},
		"partition without cluster":         {func(f *Fixture) { f.Faults[0].Type, f.Faults[0].Cluster = FaultPartition, "" }, "faults[0].cluster"},
		"final cluster":                     {func(f *Fixture) { f.Workloads[0].Final[0].Name = "c" }, "workloads[0].final[0].name"},
		"eviction":                          {func(f *Fixture) { f.Evictions[0].Workload = "api" }, "evictions[0].workload"},
		"eviction order":                    {func(f *Fixture) { f.Evictions = append(f.Evictions, Eviction{Workload: "web", Cluster: "b"}) }, "evictions[1].at"},
		"injection":                         {func(f *Fixture) { f.Injections = []Injection{{Workload: "web", Cluster: "z"}} }, "injections[0].cluster"},
		"weight cluster":                    {func(f *Fixture) { f.Workloads[0].StaticWeights = map[string]int64{"z": 1} }, "workloads[0].staticWeights[z]"},
		"weight":                            {func(f *Fixture) { f.Workloads[0].StaticWeights = map[string]int64{"a": 0} }, "workloads[0].staticWeights[a]"},
		"negative copies":                   {func(f *Fixture) { f.Workloads[0].Replicas = -1 }, "workloads[0].replicas"},
		"scheduling fault without workload": {func(f *Fixture) { f.Faults[0].Type, f.Faults[0].Cluster = FaultSuspendScheduling, "" }, "faults[0].workload"},
		"suspend fault without workload":    {func(f *Fixture) { f.Faults[0].Type = FaultSuspend }, "faults[0].workload"},
		"group name":                        {func(f *Fixture) { f.Workloads[0].AffinityGroups = []AffinityGroup{{ClusterNames: []string{"a"}}} }, "workloads[0].affinityGroups[0].name"},
		"group twice": {func(f *Fixture) {
			f.Workloads[0].AffinityGroups = []AffinityGroup{{Name: "g"}, {Name: "g"}}
		}, "workloads[0].affinityGroups[1].name"},
		"group cluster": {func(f *Fixture) {
			f.Workloads[0].AffinityGroups = []AffinityGroup{{Name: "g", ClusterNames: []string{"z"}}}
		}, "workloads[0].affinityGroups[0].clusterNames[0]"},
		"names and groups": {func(f *Fixture) {
			f.Workloads[0].ClusterNames, f.Workloads[0].AffinityGroups = []string{"a"}, []AffinityGroup{{Name: "g"}}
		}, "workloads[0].affinityGroups"},
		"group in use": {func(f *Fixture) {
			f.Workloads[0].AffinityGroups, f.Workloads[0].AffinityGroup = []AffinityGroup{{Name: "g"}}, "h"
		}, "workloads[0].affinityGroup"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			f := validFixture()
			tc.mutate(f)
			var buf bytes.Buffer
			if err := Write(&buf, f); err != nil {
				t.Fatal(err)
			}
			_, err := Read(&buf)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want one naming %s", err, tc.want)
			}
		})
	}
}

func TestReadRefusesUnknownFieldsAndTrailingData(t *testing.T) {
	for name, data := range map[string]string{
		"unknown field": `{"version":"fleetover.io/replay/v1","surprise":1}`,
		"trailing data": `{"version":"fleetover.io/replay/v1","step":"5s","duration":"1m"} {}`,
		"not json":      `version: v1`,
	} {
		if _, err := Read(strings.NewReader(data)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func FuzzRead(f *testing.F) {
	var buf bytes.Buffer
	if err := Write(&buf, validFixture()); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte(`{"version":"fleetover.io/replay/v1","step":"-5s"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		fx, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		// What Read accepts, Write writes and Read accepts again.
		var out bytes.Buffer
		if err := Write(&out, fx); err != nil {
			t.Fatalf("accepted fixture does not write: %v", err)
		}
		if _, err := Read(&out); err != nil {
			t.Fatalf("written fixture is refused: %v", err)
		}
	})
}
