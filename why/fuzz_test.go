package why_test

import (
	"bytes"
	"errors"
	"math"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/preservation"
	"github.com/fleetover/fleetover/scheduling"
	"github.com/fleetover/fleetover/suspension"
	"github.com/fleetover/fleetover/why"
)

// gen builds explainer inputs from fuzz bytes. Every choice reads one byte;
// once the bytes run out every choice is 0, which picks the smallest value
// (an empty slice, a nil pointer), so any input builds a finite value.
type gen struct {
	data []byte
	now  time.Time
}

func (g *gen) byte() byte {
	if len(g.data) == 0 {
		return 0
	}
	b := g.data[0]
	g.data = g.data[1:]
	return b
}

func (g *gen) intn(n int) int { return int(g.byte()) % n }
func (g *gen) bool() bool     { return g.byte()&1 == 1 }

// count is the length of a slice: small, so inputs stay meaningful.
func (g *gen) count() int { return g.intn(4) }

func (g *gen) name() string {
	return [...]string{"", "a", "b", "c", "d", "a,b"}[g.intn(6)]
}

func (g *gen) names() []string {
	if g.intn(5) == 0 {
		return nil
	}
	out := make([]string, g.count())
	for i := range out {
		out[i] = g.name()
	}
	return out
}

func (g *gen) time() time.Time {
	switch g.intn(6) {
	case 0:
		return time.Time{}
	case 1:
		return g.now
	case 2:
		return g.now.Add(-time.Duration(g.byte()) * time.Minute)
	case 3:
		return g.now.Add(time.Duration(g.byte()) * time.Second)
	case 4:
		return time.Unix(math.MaxInt64/2, 0)
	default:
		return time.Unix(0, 0)
	}
}

func (g *gen) metaTime() *metav1.Time {
	if !g.bool() {
		return nil
	}
	return &metav1.Time{Time: g.time()}
}

func (g *gen) int32p() *int32 {
	if !g.bool() {
		return nil
	}
	v := [...]int32{0, 1, -1, 10, 300, math.MaxInt32, math.MinInt32}[g.intn(7)]
	return &v
}

func (g *gen) int64p() *int64 {
	if !g.bool() {
		return nil
	}
	v := [...]int64{0, 1, -1, 300, math.MaxInt64, math.MinInt64}[g.intn(6)]
	return &v
}

func (g *gen) boolp() *bool {
	if !g.bool() {
		return nil
	}
	v := g.bool()
	return &v
}

func (g *gen) taintKey() string {
	return [...]string{"", failover.TaintKeyClusterNotReady, failover.TaintKeyClusterUnreachable, "maintenance"}[g.intn(4)]
}

func (g *gen) taint() corev1.Taint {
	return corev1.Taint{Key: g.taintKey(), Value: g.name(),
		Effect:    [...]corev1.TaintEffect{"", corev1.TaintEffectNoExecute, corev1.TaintEffectNoSchedule, "Bogus"}[g.intn(4)],
		TimeAdded: g.metaTime()}
}

func (g *gen) taints() []corev1.Taint {
	out := make([]corev1.Taint, g.count())
	for i := range out {
		out[i] = g.taint()
	}
	return out
}

func (g *gen) taintp() *corev1.Taint {
	if !g.bool() {
		return nil
	}
	t := g.taint()
	return &t
}

func (g *gen) toleration() corev1.Toleration {
	return corev1.Toleration{Key: g.taintKey(), Value: g.name(),
		Operator:          [...]corev1.TolerationOperator{"", corev1.TolerationOpExists, corev1.TolerationOpEqual, "Gt"}[g.intn(4)],
		Effect:            [...]corev1.TaintEffect{"", corev1.TaintEffectNoExecute, corev1.TaintEffectNoSchedule}[g.intn(3)],
		TolerationSeconds: g.int64p()}
}

func (g *gen) tolerations() []corev1.Toleration {
	out := make([]corev1.Toleration, g.count())
	for i := range out {
		out[i] = g.toleration()
	}
	return out
}

func (g *gen) conditions() []metav1.Condition {
	out := make([]metav1.Condition, g.count())
	for i := range out {
		out[i] = metav1.Condition{Type: [...]string{"Ready", "Other", ""}[g.intn(3)],
			Status: [...]metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown, ""}[g.intn(4)],
			Reason: g.name(), Message: g.name(), LastTransitionTime: metav1.Time{Time: g.time()}}
	}
	return out
}

func (g *gen) purgeMode() eviction.PurgeMode {
	return [...]eviction.PurgeMode{"", eviction.PurgeDirectly, eviction.PurgeGracefully, eviction.PurgeNever, "Immediately", "bogus"}[g.intn(6)]
}

func (g *gen) targets() []eviction.TargetCluster {
	if g.intn(5) == 0 {
		return nil
	}
	out := make([]eviction.TargetCluster, g.count())
	for i := range out {
		out[i] = eviction.TargetCluster{Name: g.name(), Replicas: int32(g.intn(5)) - 1}
	}
	return out
}

func (g *gen) task() eviction.GracefulEvictionTask {
	t := eviction.GracefulEvictionTask{FromCluster: g.name(), PurgeMode: g.purgeMode(), Replicas: g.int32p(),
		Reason: [...]string{"", eviction.ReasonTaintUntolerated, eviction.ReasonApplicationFailure}[g.intn(3)], Message: g.name(),
		GracePeriodSeconds: g.int32p(), SuppressDeletion: g.boolp(), CreationTimestamp: g.metaTime(),
		ClustersBeforeFailover: g.names()}
	if g.bool() {
		t.PreservedLabelState = map[string]string{g.name(): g.name()}
	}
	return t
}

func (g *gen) tasks() []eviction.GracefulEvictionTask {
	out := make([]eviction.GracefulEvictionTask, g.count())
	for i := range out {
		out[i] = g.task()
	}
	return out
}

func (g *gen) statePreservation() *preservation.StatePreservation {
	if !g.bool() {
		return nil
	}
	sp := &preservation.StatePreservation{}
	for range g.count() {
		sp.Rules = append(sp.Rules, preservation.StatePreservationRule{AliasLabelName: g.name(), JSONPath: [...]string{"", "{.a}", "{"}[g.intn(3)]})
	}
	return sp
}

func (g *gen) policy() *failover.FailoverBehavior {
	if !g.bool() {
		return nil
	}
	fb := &failover.FailoverBehavior{}
	if g.bool() {
		fb.Application = &failover.ApplicationFailoverBehavior{PurgeMode: g.purgeMode(), GracePeriodSeconds: g.int32p(),
			BlockPredecessorSeconds: g.int32p(), StatePreservation: g.statePreservation()}
		fb.Application.DecisionConditions.TolerationSeconds = g.int32p()
		if g.bool() {
			fb.Application.PreConditions = &failover.PreConditions{DelaySeconds: g.int32p()}
		}
	}
	if g.bool() {
		fb.Cluster = &failover.ClusterFailoverBehavior{PurgeMode: g.purgeMode(), GracePeriodSeconds: g.int32p(), StatePreservation: g.statePreservation()}
	}
	return fb
}

func (g *gen) healthStatus() health.Status {
	return [...]health.Status{health.Healthy, health.Unhealthy, health.Unknown, "", "bogus"}[g.intn(5)]
}

func (g *gen) observed() []failover.ObservedHealth {
	out := make([]failover.ObservedHealth, g.count())
	for i := range out {
		out[i] = failover.ObservedHealth{ClusterName: g.name(), Status: g.healthStatus(), CollectedSince: metav1.Time{Time: g.time()}, Settled: g.bool()}
	}
	return out
}

func (g *gen) records() []failover.WorkloadHealthRecord {
	out := make([]failover.WorkloadHealthRecord, g.count())
	for i := range out {
		out[i] = failover.WorkloadHealthRecord{ClusterName: g.name(), FailingSince: g.metaTime(), Settled: g.bool()}
	}
	return out
}

func (g *gen) filters() []scheduling.Filter {
	switch g.intn(3) {
	case 0:
		return nil
	case 1:
		return []scheduling.Filter{}
	}
	out := make([]scheduling.Filter, g.count())
	for i := range out {
		if g.bool() {
			out[i] = scheduling.DefaultFilters()[g.intn(len(scheduling.DefaultFilters()))]
		} // else a nil entry
	}
	return out
}

func (g *gen) clusters() []scheduling.Cluster {
	out := make([]scheduling.Cluster, g.count())
	for i := range out {
		out[i] = scheduling.Cluster{Name: g.name(), Taints: g.taints(), Region: g.name(), Zones: g.names(), AvailableReplicas: g.int32p()}
	}
	return out
}

func (g *gen) spread() *scheduling.SpreadConstraint {
	if !g.bool() {
		return nil
	}
	return &scheduling.SpreadConstraint{MinGroups: int32(g.intn(4)) - 1, MaxGroups: int32(g.intn(4)) - 1}
}

func (g *gen) oldCopies() eviction.OldCopyLookup {
	switch g.intn(3) {
	case 0:
		return nil
	case 1:
		var f eviction.OldCopyLookupFunc // a nil func in a non-nil interface
		return f
	}
	gone, unreachable, deleting := g.bool(), g.bool(), g.time()
	return eviction.OldCopyLookupFunc(func(string) eviction.OldCopy {
		return eviction.OldCopy{Gone: gone, Unreachable: unreachable, DeletingSince: deleting}
	})
}

func (g *gen) healthLookup() eviction.HealthLookup {
	switch g.intn(3) {
	case 0:
		return nil
	case 1:
		var f eviction.HealthLookupFunc
		return f
	}
	st := g.healthStatus()
	return eviction.HealthLookupFunc(func(string) health.Status { return st })
}

func (g *gen) suspension() *suspension.Suspension {
	if !g.bool() {
		return nil
	}
	s := &suspension.Suspension{Dispatching: g.boolp()}
	if g.bool() {
		s.DispatchingOnClusters = &suspension.SuspendClusters{ClusterNames: g.names()}
	}
	return s
}

func (g *gen) workload() *scheduling.Workload {
	if !g.bool() {
		return nil
	}
	w := &scheduling.Workload{Name: g.name(), Tolerations: g.tolerations(), Placement: g.names(), EvictionTasks: g.tasks(),
		BlockPredecessorSeconds: g.int32p(), Now: g.time()}
	if s := g.suspension(); s != nil {
		w.Suspension = s
	}
	if g.bool() {
		w.OldCopies = g.oldCopies()
	}
	return w
}

func (g *gen) request() *scheduling.Request {
	if !g.bool() {
		return nil
	}
	r := &scheduling.Request{Workload: g.workload(), Type: [...]scheduling.ReplicaSchedulingType{"", scheduling.Duplicated, scheduling.Divided, "bogus"}[g.intn(4)],
		Targets: g.targets(), Evicted: g.targets(), Clusters: g.clusters(), Filters: g.filters(),
		Spread: g.spread(), ZoneSpread: g.spread(), RegionSpread: g.spread(), Replicas: int32(g.intn(6)) - 1,
		Division: [...]scheduling.DivisionPreference{"", scheduling.DivideByStaticWeight, "bogus"}[g.intn(3)]}
	if g.bool() {
		r.StaticWeights = map[string]int64{g.name(): int64(g.intn(3)) - 1}
	}
	return r
}

func (g *gen) requests() []*scheduling.Request {
	out := make([]*scheduling.Request, g.count())
	for i := range out {
		out[i] = g.request() // nil entries included
	}
	return out
}

func (g *gen) result() scheduling.Result {
	res := scheduling.Result{Feasible: g.names(), RetryAt: g.time()}
	if n := g.count(); n > 0 || g.bool() {
		res.Rejected = map[string]scheduling.Rejection{}
		for range n {
			res.Rejected[g.name()] = scheduling.Rejection{Filter: g.name(), Reason: g.name(), Until: g.time(), Taint: g.taintp()}
		}
	}
	return res
}

func (g *gen) plan() scheduling.Plan {
	p := scheduling.Plan{Targets: g.targets(), Held: g.names(), Changed: g.bool(), Filtered: g.result(),
		RegionExcluded: g.names(), ZoneExcluded: g.names(),
		Reason: [...]string{"", scheduling.ReasonRegionSpread, scheduling.ReasonZoneSpread, "other"}[g.intn(4)]}
	for range g.count() {
		p.Moves = append(p.Moves, scheduling.Move{From: g.name(), To: g.name(), Replicas: int32(g.intn(3))})
	}
	return p
}

func (g *gen) pacer() eviction.Pacer {
	if !g.bool() {
		return nil
	}
	p, err := eviction.NewPacer(eviction.PacerConfig{})
	if err != nil {
		return nil
	}
	if g.bool() {
		var views []eviction.ClusterHealthView
		for range g.count() {
			views = append(views, eviction.ClusterHealthView{Name: g.name(), Healthy: g.bool()})
		}
		p.Observe(views)
	}
	return p
}

func (g *gen) registry() *health.Registry {
	switch g.intn(3) {
	case 0:
		return nil
	case 1:
		return &health.Registry{} // a zero Registry, not made by NewRegistry
	}
	return health.NewRegistry(health.RegistryConfig{WithoutBuiltins: g.bool()})
}

func (g *gen) gvk() schema.GroupVersionKind {
	return [...]schema.GroupVersionKind{{}, {Group: "apps", Version: "v1", Kind: "Deployment"}, {Version: "v1", Kind: "Widget"}}[g.intn(3)]
}

func (g *gen) path() *field.Path {
	if !g.bool() {
		return nil
	}
	return field.NewPath("spec")
}

// FuzzExplainers calls every exported explainer of package why on inputs
// built from the fuzz bytes, nil pointers, nil slice entries, nil
// interfaces and out-of-range values included: none may panic.
func FuzzExplainers(f *testing.F) {
	f.Add([]byte{})
	f.Add(bytes.Repeat([]byte{1}, 64))
	f.Add(bytes.Repeat([]byte{0xff}, 256))
	f.Add(bytes.Repeat([]byte{1, 0, 2, 3}, 128))
	f.Add(bytes.Repeat([]byte{7, 1, 1, 3, 5, 2}, 200))
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, data []byte) {
		g := &gen{data: data, now: now}
		var out []why.Explanation
		out = append(out, why.ClusterHealth(g.name(), g.conditions(), g.taints()))
		out = append(out, why.Toleration(g.name(), failover.TolerationDecision{
			Action: failover.EvictionAction(g.intn(5)), At: g.time(), After: time.Duration(g.intn(3)-1) * time.Second,
			Taint: g.taintp(), Toleration: func() *corev1.Toleration {
				if !g.bool() {
					return nil
				}
				tol := g.toleration()
				return &tol
			}(), Unstamped: g.bool()}))
		out = append(out, why.Pacing(g.name(), eviction.DisruptionState{Zone: g.name(),
			Mode: [...]eviction.DisruptionMode{"", eviction.DisruptionNormal, eviction.DisruptionPartial, eviction.DisruptionFull}[g.intn(4)],
			Rate: [...]float64{0, 1, -1, math.NaN(), math.Inf(1)}[g.intn(5)], Message: g.name()}, g.time(), g.bool(), now))
		pol := g.policy()
		var app *failover.ApplicationFailoverBehavior
		if pol != nil {
			app = pol.Application
		}
		det := failover.Detection{Records: g.records(), NextCheck: g.time()}
		for range g.count() {
			det.Evictions = append(det.Evictions, failover.ApplicationEviction{FromCluster: g.name(), PurgeMode: g.purgeMode()})
		}
		out = append(out, why.ApplicationHealth(g.name(), failover.DetectorInput{Policy: app, Clusters: g.names(), Health: g.observed(), Records: g.records()}, det))
		out = append(out, why.EvictionTask(g.task()))
		var perr error
		if g.intn(4) == 0 {
			perr = errors.New("no room")
		}
		out = append(out, why.Placement(g.names(), g.plan(), perr))
		if e, ok := why.Dispatch(g.name(), g.bool(), eviction.DispatchGate{Blocked: g.bool(), Until: g.time(), BlockedBy: g.name(), Escaped: g.bool()}); ok {
			out = append(out, e)
		}
		out = append(out, why.State(g.name(), g.targets(), g.tasks(), preservation.InjectionPolicy{WhileOldCopyRuns: g.bool(), IntoSeveralTargets: g.bool()}))
		a := eviction.Assessment{Kept: g.tasks(), NextAssessment: g.time()}
		for range g.count() {
			a.Removed = append(a.Removed, eviction.RemovedTask{Task: g.task(), Reason: eviction.RemovalReason(g.name())})
		}
		out = append(out, why.GracefulEviction(a)...)
		out = append(out, why.ClusterTaints(g.name(), failover.ClusterTaintDiff{ToAdd: g.taints(), ToRemove: g.taints(), Changed: g.bool(), NextCheck: g.time()}))
		out = append(out, why.Evict(g.name(), eviction.EvictResult{Targets: g.targets(), Outcome: [...]eviction.EvictOutcome{"", eviction.EvictTaskAdded, eviction.EvictAlreadyInProgress, "bogus"}[g.intn(4)]}))
		out = append(out, why.Filters(g.result())...)
		for _, e := range out {
			_ = e.String()
		}

		warnings := why.Warnings(why.PolicyInput{Policy: g.policy(), Path: g.path(), Tolerations: g.tolerations(), TolerationsPath: g.path(),
			TolerationOptions: failover.TolerationOptions{EnableComparisonOperators: g.bool()}, Kind: g.gvk(), Registry: g.registry(),
			Gates: why.Gates{ClusterFailoverOff: g.bool(), ApplicationFailoverOff: g.bool()}, Placement: g.request(), PlacementPath: g.path(),
			Alternatives: g.requests()})
		for _, w := range warnings {
			_ = w.String()
		}

		in := why.Input{Targets: g.targets(), Tasks: g.tasks(), Policy: g.policy(), Tolerations: g.tolerations(),
			TolerationOptions: failover.TolerationOptions{EnableComparisonOperators: g.bool()},
			Gates:             why.Gates{ClusterFailoverOff: g.bool(), ApplicationFailoverOff: g.bool()}, Pacer: g.pacer(),
			Application: why.Application{Kind: g.gvk(), Registry: g.registry(), Health: g.observed(), Records: g.records(),
				Config: failover.DetectorConfig{UnknownResetsCountdown: g.bool()}},
			Suspension: g.suspension(), Placement: g.request(), Alternatives: g.requests(), SchedulingSuspended: g.bool(),
			Dispatched: g.names(), OldCopies: g.oldCopies(), TargetHealth: g.healthLookup(), SchedulerBehind: g.bool(),
			Assess: eviction.AssessOptions{Timeout: time.Duration(g.intn(3)-1) * time.Minute, EmptyTargetsAreHealthy: g.bool(),
				CancelOnRecovery: g.bool(), DirectlyEscapeTimeout: time.Duration(g.intn(3)-1) * time.Minute},
			Now: now}
		for range g.count() {
			in.Clusters = append(in.Clusters, why.Cluster{Name: g.name(), Zone: g.name(), Conditions: g.conditions(), Taints: g.taints()})
		}
		if g.bool() {
			in.Injection = &preservation.InjectionPolicy{WhileOldCopyRuns: g.bool(), IntoSeveralTargets: g.bool()}
		}
		c := why.Workload(in)
		if c.Holding >= len(c.Steps) {
			t.Fatalf("Holding %d out of %d steps", c.Holding, len(c.Steps))
		}
		c.Held()
		var buf bytes.Buffer
		if err := c.Render(&buf); err != nil {
			t.Fatal(err)
		}
		_ = why.Reasons()
	})
}

// TestHostileWarningsNilAlternative: a nil entry among the alternatives is no
// placement; it neither panics nor counts as room elsewhere.
func TestHostileWarningsNilAlternative(t *testing.T) {
	fleet := []scheduling.Cluster{{Name: "a"}, {Name: "b"}}
	in := why.PolicyInput{
		Placement:    &scheduling.Request{Clusters: fleet, Targets: []eviction.TargetCluster{{Name: "a"}, {Name: "b"}}},
		Alternatives: []*scheduling.Request{nil},
	}
	got := why.Warnings(in)
	if len(got) != 1 || got[0].Reason != why.ReasonNoClusterLeft {
		t.Fatalf("got %v, want one %s", got, why.ReasonNoClusterLeft)
	}
}

// TestHostileTolerationEvictAfterWithoutTaint: a decision to evict later that
// names no taint (built by hand, or by a caller that lost it) is explained,
// not a panic.
func TestHostileTolerationEvictAfterWithoutTaint(t *testing.T) {
	at := time.Date(2025, 3, 1, 12, 5, 0, 0, time.UTC)
	e := why.Toleration("x", failover.TolerationDecision{Action: failover.EvictAfter, At: at})
	if e.Reason != why.ReasonTolerationNotExpired || !e.Holds || !e.Until.Equal(at) {
		t.Fatalf("got %+v", e)
	}
	if want := "(none)"; !bytes.Contains([]byte(e.Message), []byte(want)) {
		t.Errorf("message %q does not say the taint is unknown (%s)", e.Message, want)
	}
}
