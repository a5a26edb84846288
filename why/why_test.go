package why_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clocktesting "k8s.io/utils/clock/testing"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/scheduling"
	"github.com/fleetover/fleetover/suspension"
	"github.com/fleetover/fleetover/why"
)

var now = time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

func readyCluster(name, zone string) why.Cluster {
	return why.Cluster{Name: name, Zone: zone, Conditions: []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue}}}
}

// downCluster is unreachable since `since`, with the unreachable NoExecute
// taint stamped then.
func downCluster(name, zone string, since time.Time) why.Cluster {
	return why.Cluster{Name: name, Zone: zone,
		Conditions: []metav1.Condition{{Type: "Ready", Status: metav1.ConditionUnknown, Reason: "ClusterStatusUnknown", LastTransitionTime: metav1.Time{Time: since}}},
		Taints: []corev1.Taint{
			{Key: failover.TaintKeyClusterUnreachable, Effect: corev1.TaintEffectNoSchedule, TimeAdded: &metav1.Time{Time: since}},
			{Key: failover.TaintKeyClusterUnreachable, Effect: corev1.TaintEffectNoExecute, TimeAdded: &metav1.Time{Time: since}},
		}}
}

func defaultTolerations() []corev1.Toleration {
	return failover.DefaultClusterTolerations(failover.DefaultTolerationsConfig{})
}

// outage is a Duplicated workload on a and b; b has been unreachable for
// `down`; c is a ready spare.
func outage(down time.Duration) why.Input {
	clusters := []why.Cluster{readyCluster("a", "z1"), downCluster("b", "z1", now.Add(-down)), readyCluster("c", "z1")}
	fleet := make([]scheduling.Cluster, len(clusters))
	for i, c := range clusters {
		fleet[i] = scheduling.Cluster{Name: c.Name, Taints: c.Taints}
	}
	return why.Input{
		Targets:     []eviction.TargetCluster{{Name: "a"}, {Name: "b"}},
		Clusters:    clusters,
		Tolerations: defaultTolerations(),
		Placement: &scheduling.Request{Type: scheduling.Duplicated, Clusters: fleet,
			Filters: []scheduling.Filter{scheduling.TaintToleration(failover.TolerationOptions{})}},
		Now: now,
	}
}

func held(t *testing.T, c why.Chain) why.Explanation {
	t.Helper()
	h, ok := c.Held()
	if !ok {
		t.Fatalf("nothing holds the workload; chain:\n%s", render(c))
	}
	return h
}

func render(c why.Chain) string {
	var b []byte
	w := &sliceWriter{&b}
	_ = c.Render(w)
	return string(b)
}

type sliceWriter struct{ b *[]byte }

func (w *sliceWriter) Write(p []byte) (int, error) { *w.b = append(*w.b, p...); return len(p), nil }

func TestWorkloadTolerationNotYetExpired(t *testing.T) {
	c := why.Workload(outage(time.Minute))
	h := held(t, c)
	if h.Reason != why.ReasonTolerationNotExpired || h.Cluster != "b" {
		t.Fatalf("held by %s on %q, want TolerationNotExpired on b\n%s", h.Reason, h.Cluster, render(c))
	}
	// The default toleration is 300 s from the taint's TimeAdded.
	if want := now.Add(4 * time.Minute); !h.Until.Equal(want) || !c.NextChange.Equal(want) {
		t.Fatalf("until %v, next change %v, want %v", h.Until, c.NextChange, want)
	}
	if h.Warning {
		t.Fatal("a running toleration is a wait, not a warning")
	}
}

func TestWorkloadEvictedAndPlaced(t *testing.T) {
	c := why.Workload(outage(10 * time.Minute))
	if _, ok := c.Held(); ok {
		t.Fatalf("an expired toleration with a spare cluster should hold nothing:\n%s", render(c))
	}
	if !hasReason(c, why.ReasonTolerationExpired) || !hasReason(c, why.ReasonPlacementDue) {
		t.Fatalf("want TolerationExpired then PlacementDue:\n%s", render(c))
	}
}

func TestWorkloadClusterFailoverOff(t *testing.T) {
	in := outage(10 * time.Minute)
	in.Gates.ClusterFailoverOff = true
	h := held(t, why.Workload(in))
	if h.Reason != why.ReasonClusterFailoverOff || !h.Warning {
		t.Fatalf("held by %s (warning %v), want a ClusterFailoverDisabled warning", h.Reason, h.Warning)
	}
}

func TestWorkloadFullDisruption(t *testing.T) {
	clk := clocktesting.NewFakeClock(now)
	p, err := eviction.NewPacer(eviction.PacerConfig{Clock: clk})
	if err != nil {
		t.Fatal(err)
	}
	p.Observe([]eviction.ClusterHealthView{{Name: "a", Zone: "z1"}, {Name: "b", Zone: "z1"}, {Name: "c", Zone: "z1"}})
	in := outage(10 * time.Minute)
	in.Pacer = p
	h := held(t, why.Workload(in))
	if h.Reason != why.ReasonFullDisruption || h.Step != why.StepPacing {
		t.Fatalf("held by %s at %s, want FullDisruption at Pacing", h.Reason, h.Step)
	}
}

func TestWorkloadNoFeasibleCluster(t *testing.T) {
	in := outage(10 * time.Minute)
	// The only spare is down too.
	in.Clusters[2] = downCluster("c", "z1", now.Add(-time.Hour))
	in.Placement.Clusters[2] = scheduling.Cluster{Name: "c", Taints: in.Clusters[2].Taints}
	h := held(t, why.Workload(in))
	if h.Step != why.StepPlacement || h.Reason != why.ReasonNoFeasibleCluster {
		t.Fatalf("held by %s at %s, want NoFeasibleCluster at Placement", h.Reason, h.Step)
	}
	in.Placement.Clusters = in.Placement.Clusters[:2]
	in.Clusters = in.Clusters[:2]
	if h := held(t, why.Workload(in)); h.Reason != why.ReasonNoClusterLeft || !h.Warning {
		t.Fatalf("held by %s, want a NoClusterToMoveTo warning", h.Reason)
	}
}

func TestWorkloadNoHealthInterpreter(t *testing.T) {
	in := outage(0)
	in.Clusters[1] = readyCluster("b", "z1")
	in.Policy = &failover.FailoverBehavior{Application: &failover.ApplicationFailoverBehavior{}}
	in.Application = why.Application{
		Kind:     schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"},
		Registry: health.NewRegistry(health.RegistryConfig{}),
	}
	h := held(t, why.Workload(in))
	if h.Reason != why.ReasonNoHealthInterpreter || !h.Warning {
		t.Fatalf("held by %s, want a NoHealthInterpreter warning", h.Reason)
	}
	in.Application.Kind = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	if c := why.Workload(in); !hasReason(c, why.ReasonSettled) {
		t.Fatalf("a Deployment has a built-in interpreter and every copy is healthy:\n%s", render(c))
	}
}

func TestWorkloadApplicationCountdown(t *testing.T) {
	in := outage(0)
	in.Clusters[1] = readyCluster("b", "z1")
	in.Policy = &failover.FailoverBehavior{Application: &failover.ApplicationFailoverBehavior{
		DecisionConditions: failover.DecisionConditions{TolerationSeconds: ptr(int32(120))}}}
	in.Application.Health = []failover.ObservedHealth{{ClusterName: "a", Status: health.Healthy}, {ClusterName: "b", Status: health.Unhealthy}}
	in.Application.Records = []failover.WorkloadHealthRecord{{ClusterName: "b", FailingSince: &metav1.Time{Time: now.Add(-time.Minute)}, Settled: true}}
	h := held(t, why.Workload(in))
	if h.Reason != why.ReasonUnhealthyNotExpired || !h.Until.Equal(now.Add(time.Minute)) {
		t.Fatalf("held by %s until %v, want UnhealthyTolerationNotExpired until %v", h.Reason, h.Until, now.Add(time.Minute))
	}
	in.Gates.ApplicationFailoverOff = true
	if h := held(t, why.Workload(in)); h.Reason != why.ReasonApplicationFailoverOff || !h.Warning {
		t.Fatalf("held by %s, want an ApplicationFailoverDisabled warning", h.Reason)
	}
	in.Gates.ApplicationFailoverOff = false
	in.Application.Records[0].FailingSince = &metav1.Time{Time: now.Add(-3 * time.Minute)}
	c := why.Workload(in)
	if !hasReason(c, why.ReasonApplicationEvictionDue) || !hasReason(c, why.ReasonPlacementDue) {
		t.Fatalf("an expired countdown evicts and re-places:\n%s", render(c))
	}
}

// oldCopies reports every listed cluster's old copy as still running.
type oldCopies map[string]eviction.OldCopy

func (o oldCopies) OldCopy(cluster string) eviction.OldCopy { return o[cluster] }

func TestWorkloadDirectlyWaitsForOldCopy(t *testing.T) {
	in := outage(10 * time.Minute)
	// The eviction from b happened: c replaces it, and the task carries the
	// job's state; the old copy on b is still there.
	in.Targets = []eviction.TargetCluster{{Name: "a"}, {Name: "c"}}
	in.Tasks = []eviction.GracefulEvictionTask{{FromCluster: "b", PurgeMode: eviction.PurgeDirectly, Reason: eviction.ReasonTaintUntolerated,
		Producer: "taint-manager", ClustersBeforeFailover: []string{"a", "b"}, PreservedLabelState: map[string]string{"job-id": "42"},
		CreationTimestamp: &metav1.Time{Time: now.Add(-time.Minute)}}}
	in.OldCopies = oldCopies{"b": {}}
	in.Dispatched = []string{"a"}
	c := why.Workload(in)
	h := held(t, c)
	if h.Reason != why.ReasonWaitingForOldCopy || h.Cluster != "c" {
		t.Fatalf("held by %s on %q, want WaitingForOldCopy on c\n%s", h.Reason, h.Cluster, render(c))
	}
	in.OldCopies = oldCopies{"b": {Gone: true}}
	if c := why.Workload(in); hasReason(c, why.ReasonWaitingForOldCopy) {
		t.Fatalf("the old copy is gone, the dispatch must not wait:\n%s", render(c))
	}
}

func hasReason(c why.Chain, r why.Reason) bool {
	for _, s := range c.Steps {
		if s.Reason == r {
			return true
		}
	}
	return false
}

func TestWorkloadInvalidPolicy(t *testing.T) {
	in := outage(0)
	in.Policy = &failover.FailoverBehavior{Application: &failover.ApplicationFailoverBehavior{
		DecisionConditions: failover.DecisionConditions{TolerationSeconds: ptr(int32(-1))}}}
	if h := held(t, why.Workload(in)); h.Reason != why.ReasonInvalidFailoverPolicy {
		t.Fatalf("held by %s, want InvalidFailoverPolicy", h.Reason)
	}
}

// A zone spread that keeps the only spare out is named as the cause, with
// the cluster it kept out.
func TestWorkloadZoneSpreadLeavesNoPlace(t *testing.T) {
	in := outage(10 * time.Minute)
	// a and b run in z1, the spare c in z2; the workload may use one zone.
	in.Placement.Clusters[0].Zones = []string{"z1"}
	in.Placement.Clusters[1].Zones = []string{"z1"}
	in.Placement.Clusters[2].Zones = []string{"z2"}
	in.Placement.ZoneSpread = &scheduling.SpreadConstraint{MaxGroups: 1}
	h := held(t, why.Workload(in))
	if h.Step != why.StepPlacement || h.Reason != why.ReasonZoneSpreadBlocks || !h.Warning {
		t.Fatalf("held by %s at %s (warning %t), want a NoPlaceWithinZoneSpread warning at Placement", h.Reason, h.Step, h.Warning)
	}
	if !strings.Contains(h.Message, "c could take it") {
		t.Errorf("message %q does not name c", h.Message)
	}
	// With room for a second zone, c takes the workload.
	in.Placement.ZoneSpread.MaxGroups = 2
	if c := why.Workload(in); hasReason(c, why.ReasonZoneSpreadBlocks) || !hasReason(c, why.ReasonPlacementDue) {
		t.Fatalf("with two zones allowed c should take the workload:\n%s", render(c))
	}
}

// A region spread is named the same way; it holds beside a zone spread
// that alone would let the spare in.
func TestWorkloadRegionSpreadLeavesNoPlace(t *testing.T) {
	in := outage(10 * time.Minute)
	// a and b run in eu, the spare c in us; the workload may use one region.
	for i, region := range []string{"eu", "eu", "us"} {
		in.Placement.Clusters[i].Region = region
		in.Placement.Clusters[i].Zones = []string{fmt.Sprintf("z%d", i)}
	}
	in.Placement.ZoneSpread = &scheduling.SpreadConstraint{MaxGroups: 3}
	in.Placement.RegionSpread = &scheduling.SpreadConstraint{MaxGroups: 1}
	h := held(t, why.Workload(in))
	if h.Step != why.StepPlacement || h.Reason != why.ReasonRegionSpreadBlocks || !h.Warning {
		t.Fatalf("held by %s at %s (warning %t), want a NoPlaceWithinRegionSpread warning at Placement", h.Reason, h.Step, h.Warning)
	}
	if !strings.Contains(h.Message, "c could take it but lie outside the regions") {
		t.Errorf("message %q does not name c and the regions", h.Message)
	}
	in.Placement.RegionSpread.MaxGroups = 2
	if c := why.Workload(in); hasReason(c, why.ReasonRegionSpreadBlocks) || !hasReason(c, why.ReasonPlacementDue) {
		t.Fatalf("with two regions allowed c should take the workload:\n%s", render(c))
	}
}

// A workload whose scheduling is suspended is held at Placement until it
// resumes, whatever room the fleet has.
func TestWorkloadSchedulingSuspended(t *testing.T) {
	in := outage(10 * time.Minute)
	in.SchedulingSuspended = true
	h := held(t, why.Workload(in))
	if h.Step != why.StepPlacement || h.Reason != why.ReasonSchedulingSuspended || h.Warning {
		t.Fatalf("held by %s at %s (warning %t), want SchedulingSuspended at Placement, no warning", h.Reason, h.Step, h.Warning)
	}
	in.SchedulingSuspended = false
	if c := why.Workload(in); hasReason(c, why.ReasonSchedulingSuspended) || !hasReason(c, why.ReasonPlacementDue) {
		t.Fatalf("once scheduling resumes the spare should take the workload:\n%s", render(c))
	}
}

// An eviction whose cluster's dispatching became suspended before anything
// replaced it is held by the re-placement: the explanation says the
// failover is paused and the eviction undone, not that no cluster can take
// the workload.
func TestWorkloadHeldClusterUndoesTheEviction(t *testing.T) {
	in := outage(10 * time.Minute)
	in.Targets = []eviction.TargetCluster{{Name: "a"}}
	in.Tasks = []eviction.GracefulEvictionTask{{FromCluster: "b", ClustersBeforeFailover: []string{"a", "b"}}}
	in.Suspension = &suspension.Suspension{DispatchingOnClusters: &suspension.SuspendClusters{ClusterNames: []string{"b"}}}
	in.Placement.Workload = &scheduling.Workload{Suspension: in.Suspension}
	h := held(t, why.Workload(in))
	if h.Step != why.StepPlacement || h.Reason != why.ReasonFailoverPaused || h.Warning || !strings.Contains(h.Message, "undone") {
		t.Fatalf("held by %s at %s (warning %t): %q; want FailoverPaused at Placement, no warning", h.Reason, h.Step, h.Warning, h.Message)
	}
	// A copy that is gone leaves nothing for the suspension to keep: the
	// spare takes the workload's place.
	in.OldCopies = eviction.OldCopyLookupFunc(func(string) eviction.OldCopy { return eviction.OldCopy{Gone: true} })
	if c := why.Workload(in); !hasReason(c, why.ReasonPlacementDue) {
		t.Fatalf("with b's copy gone the spare should take the workload:\n%s", render(c))
	}
	in.OldCopies = nil
	in.Suspension, in.Placement.Workload = nil, nil
	if c := why.Workload(in); !hasReason(c, why.ReasonPlacementDue) {
		t.Fatalf("once dispatching resumes the spare should take the workload:\n%s", render(c))
	}
}

// A later affinity group (an alternative request) answers when the group
// in use has no room: the workload on a and b, held to two clusters, may
// run in a primary group (a, b) or a backup group (c, d); b is down.
func TestWorkloadAlternativeGroupTakesTheWorkload(t *testing.T) {
	in := outage(10 * time.Minute)
	in.Clusters = append(in.Clusters, readyCluster("d", "z1"))
	in.Placement.Clusters = append(in.Placement.Clusters, scheduling.Cluster{Name: "d"})
	in.Placement.Spread = &scheduling.SpreadConstraint{MinGroups: 2, MaxGroups: 2}
	backup := *in.Placement
	backup.Filters = append(slices.Clone(in.Placement.Filters), scheduling.SelectedClusters(map[string]bool{"c": true, "d": true}))
	in.Placement.Filters = append(in.Placement.Filters, scheduling.SelectedClusters(map[string]bool{"a": true, "b": true}))
	if c := why.Workload(in); hasReason(c, why.ReasonPlacementDue) {
		t.Fatalf("without the backup group the primary one has no room, yet the chain says:\n%s", render(c))
	}
	in.Alternatives = []*scheduling.Request{&backup}
	if c := why.Workload(in); !hasReason(c, why.ReasonPlacementDue) {
		t.Fatalf("the backup group should take the workload:\n%s", render(c))
	}
}
