package failover_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
)

// A FailingSince in the future must not mean "never evicted": it is clamped
// to now, and the workload is evicted one toleration after the restart.
func TestHostileDetectorImportClampsFutureFailingSince(t *testing.T) {
	clk := clocktesting.NewFakePassiveClock(hostileT0)
	det := mustOK(failover.NewDetector(clk, failover.DetectorConfig{}))
	future := metav1.NewTime(time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC))
	if err := det.Import([]failover.DetectorRecord{{Binding: "shop/web",
		WorkloadHealthRecord: failover.WorkloadHealthRecord{ClusterName: "m1", FailingSince: &future}}}); err != nil {
		t.Fatal(err)
	}
	if got := det.Export()[0].FailingSince; !got.Time.Equal(hostileT0) {
		t.Fatalf("FailingSince after import = %s, want clamped to %s", got, hostileT0)
	}
	policy := detPolicy(60)
	wh := []failover.ObservedHealth{{ClusterName: "m1", Status: health.Unhealthy}, {ClusterName: "m2", Status: health.Healthy}}
	clk.SetTime(hostileT0.Add(60 * time.Second))
	d, err := det.Detect("shop/web", policy, []string{"m1", "m2"}, wh)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Evictions) != 1 {
		t.Fatalf("one toleration after the restart: %+v, want m1 evicted", d)
	}
}

// A zero FailingSince would evict at the first look; a record without names
// cannot be attributed. Each is refused and nothing is imported.
func TestHostileDetectorImportRejects(t *testing.T) {
	zero := metav1.Time{}
	now := metav1.NewTime(hostileT0)
	good := failover.DetectorRecord{Binding: "ok", WorkloadHealthRecord: failover.WorkloadHealthRecord{ClusterName: "m1", FailingSince: &now}}
	for name, tc := range map[string]struct {
		rec  failover.DetectorRecord
		want string
	}{
		"zero failingSince": {failover.DetectorRecord{Binding: "b", WorkloadHealthRecord: failover.WorkloadHealthRecord{ClusterName: "m1", FailingSince: &zero}}, "records[1].failingSince"},
		"no binding":        {failover.DetectorRecord{WorkloadHealthRecord: failover.WorkloadHealthRecord{ClusterName: "m1"}}, "records[1].binding"},
		"no cluster":        {failover.DetectorRecord{Binding: "b"}, "records[1].clusterName"},
	} {
		t.Run(name, func(t *testing.T) {
			det := mustOK(failover.NewDetector(clocktesting.NewFakePassiveClock(hostileT0), failover.DetectorConfig{}))
			err := det.Import([]failover.DetectorRecord{good, tc.rec})
			if !errors.Is(err, failover.ErrInvalidDetectorRecord) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Import error = %v, want ErrInvalidDetectorRecord naming %s", err, tc.want)
			}
			if got := det.Export(); len(got) != 0 {
				t.Fatalf("a refused import kept %v", got)
			}
		})
	}
}

// Records handed back to the pure decision function come from an
// annotation too: a future or zero FailingSince starts the countdown now.
func TestHostileDetectApplicationFailureDistrustsRecords(t *testing.T) {
	policy := detPolicy(60)
	wh := []failover.ObservedHealth{{ClusterName: "m1", Status: health.Unhealthy}, {ClusterName: "m2", Status: health.Healthy}}
	for name, since := range map[string]metav1.Time{
		"future": metav1.NewTime(time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)),
		"zero":   {},
	} {
		t.Run(name, func(t *testing.T) {
			in := failover.DetectorInput{Policy: policy, Clusters: []string{"m1", "m2"}, Health: wh,
				Records: []failover.WorkloadHealthRecord{{ClusterName: "m1", FailingSince: &since}}}
			d, err := failover.DetectApplicationFailure(in, hostileT0, failover.DetectorConfig{})
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Evictions) != 0 || !d.RecordsChanged || !d.NextCheck.Equal(hostileT0.Add(60*time.Second)) {
				t.Fatalf("first look: %+v, want no eviction, records changed, next check one toleration later", d)
			}
			in.Records = d.Records
			d, err = failover.DetectApplicationFailure(in, hostileT0.Add(60*time.Second), failover.DetectorConfig{})
			if err != nil || len(d.Evictions) != 1 {
				t.Fatalf("one toleration later: %+v, %v; want m1 evicted", d, err)
			}
		})
	}
}

// FuzzDetectorImport: any JSON list of records is refused, or imported with
// every countdown started at a real time no later than now.
func FuzzDetectorImport(f *testing.F) {
	f.Add([]byte(`[{"binding":"a/b","clusterName":"m1","failingSince":"9999-01-01T00:00:00Z"}]`))
	f.Add([]byte(`[{"binding":"a/b","clusterName":"m1","failingSince":"0001-01-01T00:00:00Z"},{"binding":"a/c","clusterName":"m2","settled":true}]`))
	f.Add([]byte(`[{"binding":"","clusterName":"m1"}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var recs []failover.DetectorRecord
		if err := json.Unmarshal(data, &recs); err != nil {
			return
		}
		det := mustOK(failover.NewDetector(clocktesting.NewFakePassiveClock(hostileT0), failover.DetectorConfig{}))
		if err := det.Import(recs); err != nil {
			if !errors.Is(err, failover.ErrInvalidDetectorRecord) {
				t.Fatalf("Import error %v does not wrap ErrInvalidDetectorRecord", err)
			}
			if got := det.Export(); len(got) != 0 {
				t.Fatalf("a refused import kept %v", got)
			}
			return
		}
		for _, r := range det.Export() {
			if r.FailingSince != nil && (r.FailingSince.IsZero() || r.FailingSince.After(hostileT0)) {
				t.Fatalf("imported countdown start %s is zero or after now %s", r.FailingSince, hostileT0)
			}
		}
	})
}
