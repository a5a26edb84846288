package controllers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/api/policy/v1alpha1"
	workv1alpha1 "github.com/karmada-io/api/work/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/examples/fleetsim/replay"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/preservation"
	"github.com/fleetover/fleetover/suspension"

	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// replayDir holds the simulator's replayed scenarios and their fixtures
// (go test ./examples/fleetsim -run TestReplayFixtures -update writes them).
const replayDir = "../../fleetsim/testdata/replay"

// TestReplaySimulatorScenarios runs each scenario the simulator recorded
// through the reference controllers on the API server: the same fleet,
// settings, first placement and faults on the same fake-clock steps, with
// the test playing the member clusters as the simulator models them
// (leases, probes, Work deletion, collected status). The controllers must
// end with every workload where the simulator left it, evict the same
// workloads from the same clusters in the same order, for the same reasons
// and purge modes, and start new copies with the same preserved state. A
// difference is a defect in the simulator or in the controllers.
func TestReplaySimulatorScenarios(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join(replayDir, "*.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 4 {
		t.Fatalf("%d fixtures in %s, want the embedded scenario and three more", len(files), replayDir)
	}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		fx, err := replay.Read(strings.NewReader(string(data)))
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		t.Run(fx.Scenario, func(t *testing.T) {
			t.Parallel()
			r := newReplayRun(t, fx)
			r.run()
			r.compare()
		})
	}
}

// replayRun is one scenario replayed: the controllers, and the member
// clusters the test plays.
type replayRun struct {
	*fixture
	fx       *replay.Fixture
	probes   *probes
	registry *health.Registry
	// stateLabels are the preserved-state labels a workload's rules write.
	stateLabels map[string][]string

	mu      sync.Mutex         // guards down: the Work watch reads it
	down    map[string]bool    // simulator cluster name: in an outage or a partition
	failing map[[2]string]bool // workload, cluster ("" for every cluster)
	copies  map[string]*memberCopy
	// suspensions are the workloads' dispatch suspensions, in the
	// simulator's cluster names, as the faults left them.
	suspensions map[string]*suspension.Suspension
	// armed are the clusters a partitionOnPurge fault armed, with the
	// partition's length; partEnds are the partitions it started, with
	// their ends.
	armed    map[string]time.Duration
	partEnds map[string]time.Time
	// agents are the pull-mode clusters' agents: each decides its
	// cluster's Ready condition from its own probes, debounced with the
	// scenario's thresholds, and posts it, as Karmada's agent does.
	agents failover.ClusterHealthTracker

	evictions  *evictionRecorder
	injections []replay.Injection
	// twoCopies are the moments a single-writer workload ran two copies.
	twoCopies *copyMonitor
}

func (r *replayRun) isDown(cluster string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.down[cluster]
}

// memberCopy is the workload on a member cluster, keyed by its Work.
type memberCopy struct {
	created time.Time
	settled bool // healthy at least once: its job runs
}

func newReplayRun(t *testing.T, fx *replay.Fixture) *replayRun {
	s := fx.Settings
	p := newProbes()
	tolerationSeconds := s.DefaultTolerationSeconds
	f := newFixture(t, func(c *controllers.Config) {
		c.Prober = p
		c.ProbeInterval = fx.Step.Duration
		c.ClusterHealth = failover.ClusterHealthConfig{
			FailureThreshold:   s.FailureThreshold.Duration,
			SuccessThreshold:   s.SuccessThreshold.Duration,
			MonitorGracePeriod: s.MonitorGracePeriod.Duration,
			StartupGracePeriod: s.StartupGracePeriod.Duration,
		}
		c.ClusterTaints = failover.ClusterTaintConfig{NoExecuteAfterTimeout: s.NoExecuteTaints, EvictionTimeout: s.EvictionTimeout.Duration}
		c.ClusterFailover = failover.ClusterFailoverDefaults{PurgeMode: s.ClusterPurgeMode, GracePeriodSeconds: int32(s.GracefulEvictionTimeout.Duration / time.Second)}
		c.DefaultTolerations = failover.DefaultTolerationsConfig{NotReadyTolerationSeconds: &tolerationSeconds, UnreachableTolerationSeconds: &tolerationSeconds}
		c.Pacer = eviction.PacerConfig{Rate: s.EvictionsPerSecond, Burst: max(1, int(s.EvictionsPerSecond)), PerZone: s.PacePerZone}
		c.Assess = eviction.AssessOptions{Timeout: s.GracefulEvictionTimeout.Duration, CancelOnRecovery: s.CancelOnRecovery}
		c.StatefulFailoverInjection = s.StatefulFailoverInjection
	})
	r := &replayRun{
		fixture: f, fx: fx, probes: p,
		registry:    health.NewRegistry(health.RegistryConfig{}),
		stateLabels: map[string][]string{},
		down:        map[string]bool{},
		failing:     map[[2]string]bool{},
		suspensions: map[string]*suspension.Suspension{},
		copies:      map[string]*memberCopy{},
		armed:       map[string]time.Duration{},
		partEnds:    map[string]time.Time{},
	}
	agents, err := failover.NewClusterHealthTracker(f.clock, failover.ClusterHealthConfig{
		FailureThreshold: s.FailureThreshold.Duration,
		SuccessThreshold: s.SuccessThreshold.Duration,
	})
	if err != nil {
		t.Fatal(err)
	}
	r.agents = agents
	for _, ft := range fx.Faults {
		switch ft.Type {
		case replay.FaultOutage, replay.FaultNotReady, replay.FaultPartition, replay.FaultPartitionOnPurge, replay.FaultRecover:
			if ft.Cluster == "" {
				t.Fatalf("fault %s at %s names no cluster: the replay plays single-cluster faults only", ft.Type, ft.At.Duration)
			}
		}
	}
	for _, w := range fx.Workloads {
		fb := w.Failover
		if fb == nil {
			continue
		}
		for _, sp := range []*preservation.StatePreservation{clusterState(fb), applicationState(fb)} {
			if sp == nil {
				continue
			}
			for _, rule := range sp.Rules {
				r.stateLabels[w.Name] = append(r.stateLabels[w.Name], rule.AliasLabelName)
			}
		}
	}
	return r
}

func (r *replayRun) real(cluster string) string { return r.clusterName(cluster) }

func (r *replayRun) simName(cluster string) string { return strings.TrimPrefix(cluster, r.ns+"-") }

// run builds the fleet, then steps the fake clock through the scenario.
func (r *replayRun) run() {
	r.t.Helper()
	r.start()
	r.recordEvictions()
	for _, c := range r.fx.Clusters {
		cl := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: r.real(c.Name)}, Spec: clusterv1alpha1.ClusterSpec{
			SyncMode: clusterv1alpha1.ClusterSyncMode(c.SyncMode),
			Region:   c.Region,
		}}
		if c.Zone != "" {
			// As Karmada's API server stores a Cluster: in spec.zones.
			cl.Spec.Zones = []string{c.Zone}
		}
		if err := r.c.Create(r.ctx, cl); err != nil {
			r.t.Fatal(err)
		}
		r.t.Cleanup(func() { _ = r.c.Delete(context.Background(), cl) })
		if c.SyncMode == "Pull" {
			r.renewLease(r.real(c.Name))
		}
	}
	for _, c := range r.fx.Clusters {
		r.waitReady(r.real(c.Name), metav1.ConditionTrue)
	}
	for _, w := range r.fx.Workloads {
		r.createWorkload(w)
	}
	r.twoCopies = &copyMonitor{}
	for _, w := range r.fx.Workloads {
		rb := r.binding(w.Name)
		for _, tc := range w.Initial {
			r.waitWork(rb, r.real(tc.Name), true)
		}
		if singleWriter(w, r.fx.Settings.ClusterPurgeMode) {
			r.watchCopies(w.Name, string(rb.UID))
		}
	}
	// The first copies have run for a while: they are healthy at once.
	r.syncMembers(r.clock.Now().Add(-r.fx.Settings.StartupDelay.Duration))
	r.settle()

	steps := int(r.fx.Duration.Duration / r.fx.Step.Duration)
	faults := r.fx.Faults
	for i := 1; i <= steps; i++ {
		r.clock.Step(r.fx.Step.Duration)
		elapsed := r.clock.Now().Sub(epoch)
		for len(faults) > 0 && faults[0].At.Duration <= elapsed {
			r.apply(faults[0])
			faults = faults[1:]
		}
		r.endPartitions()
		for _, c := range r.fx.Clusters {
			if c.SyncMode == "Pull" && !r.isDown(c.Name) {
				r.renewLeaseNow(r.real(c.Name))
				r.postAgentStatus(r.real(c.Name))
			}
		}
		r.syncMembers(time.Time{})
		r.settle()
	}
}

// createWorkload creates the workload's template and its binding, placed
// where the simulator first placed it.
func (r *replayRun) createWorkload(w replay.Workload) {
	r.t.Helper()
	r.createTemplate(template(w))
	gvk := replay.GVK(w.Kind)
	placement := &policyv1alpha1.Placement{
		ReplicaScheduling:  &policyv1alpha1.ReplicaSchedulingStrategy{ReplicaSchedulingType: policyv1alpha1.ReplicaSchedulingTypeDuplicated},
		ClusterTolerations: w.Tolerations,
	}
	if w.Divided {
		placement.ReplicaScheduling = &policyv1alpha1.ReplicaSchedulingStrategy{ReplicaSchedulingType: policyv1alpha1.ReplicaSchedulingTypeDivided}
		if len(w.StaticWeights) > 0 {
			prefs := &policyv1alpha1.ClusterPreferences{}
			for _, name := range slices.Sorted(maps.Keys(w.StaticWeights)) {
				prefs.StaticWeightList = append(prefs.StaticWeightList, policyv1alpha1.StaticClusterWeight{
					TargetCluster: policyv1alpha1.ClusterAffinity{ClusterNames: []string{r.real(name)}}, Weight: w.StaticWeights[name]})
			}
			placement.ReplicaScheduling.ReplicaDivisionPreference = policyv1alpha1.ReplicaDivisionPreferenceWeighted
			placement.ReplicaScheduling.WeightPreference = prefs
		}
	}
	if len(w.ClusterNames) > 0 {
		placement.ClusterAffinity = &policyv1alpha1.ClusterAffinity{}
		for _, name := range w.ClusterNames {
			placement.ClusterAffinity.ClusterNames = append(placement.ClusterAffinity.ClusterNames, r.real(name))
		}
	}
	if sp := w.ClusterSpread; sp != nil {
		placement.SpreadConstraints = append(placement.SpreadConstraints, policyv1alpha1.SpreadConstraint{SpreadByField: policyv1alpha1.SpreadByFieldCluster, MinGroups: int(sp.MinGroups), MaxGroups: int(sp.MaxGroups)})
	}
	if sp := w.ZoneSpread; sp != nil {
		placement.SpreadConstraints = append(placement.SpreadConstraints, policyv1alpha1.SpreadConstraint{SpreadByField: policyv1alpha1.SpreadByFieldZone, MinGroups: int(sp.MinGroups), MaxGroups: int(sp.MaxGroups)})
	}
	if sp := w.RegionSpread; sp != nil {
		placement.SpreadConstraints = append(placement.SpreadConstraints, policyv1alpha1.SpreadConstraint{SpreadByField: policyv1alpha1.SpreadByFieldRegion, MinGroups: int(sp.MinGroups), MaxGroups: int(sp.MaxGroups)})
	}
	// The group the binding starts in goes into its status below; none
	// named means the first.
	for _, g := range w.AffinityGroups {
		term := policyv1alpha1.ClusterAffinityTerm{AffinityName: g.Name}
		for _, name := range g.ClusterNames {
			term.ClusterNames = append(term.ClusterNames, r.real(name))
		}
		placement.ClusterAffinities = append(placement.ClusterAffinities, term)
	}
	rb := &workv1alpha2.ResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Name: w.Name},
		Spec: workv1alpha2.ResourceBindingSpec{
			Resource:  workv1alpha2.ObjectReference{APIVersion: gvk.GroupVersion().String(), Kind: w.Kind, Namespace: r.ns, Name: w.Name},
			Replicas:  w.Replicas,
			Placement: placement,
		},
	}
	for _, tc := range w.Initial {
		replicas := tc.Replicas
		if !w.Divided {
			replicas = w.Replicas
		}
		rb.Spec.Clusters = append(rb.Spec.Clusters, workv1alpha2.TargetCluster{Name: r.real(tc.Name), Replicas: replicas})
	}
	r.suspensions[w.Name] = w.Suspension
	var scheduling *bool
	if w.SchedulingSuspended {
		scheduling = ptr.To(true)
	}
	rb.Spec.Suspension = r.bindingSuspension(w.Suspension, scheduling)
	if fb := w.Failover; fb != nil {
		rb.Spec.Failover, rb.Annotations = karmadaFailover(r.t, fb)
	}
	r.createBinding(rb)
	if w.AffinityGroup != "" {
		// As Karmada's scheduler records the group it placed by. The API
		// server clears a created binding's status, so this is a write of
		// its own; a merge patch leaves whatever a controller wrote there
		// meanwhile.
		patch, err := json.Marshal(map[string]any{"status": map[string]any{"schedulerObservingAffinityName": w.AffinityGroup}})
		if err != nil {
			r.t.Fatal(err)
		}
		if err := r.c.Status().Patch(r.ctx, rb, client.RawPatch(types.MergePatchType, patch)); err != nil {
			r.t.Fatal(err)
		}
	}
}

// karmadaFailover splits the library's failover behaviour into Karmada's
// field and the fleetover extension annotation for what Karmada lacks.
func karmadaFailover(t *testing.T, fb *failover.FailoverBehavior) (*policyv1alpha1.FailoverBehavior, map[string]string) {
	t.Helper()
	// The library's types carry Karmada's field names: what Karmada has
	// converts by name, the rest is dropped here and carried below.
	data, err := json.Marshal(fb)
	if err != nil {
		t.Fatal(err)
	}
	out := &policyv1alpha1.FailoverBehavior{}
	if err := json.Unmarshal(data, out); err != nil {
		t.Fatal(err)
	}
	ext := controllers.PolicyExtension{Version: controllers.AnnotationSchemaVersion}
	if a := fb.Application; a != nil && (a.BlockPredecessorSeconds != nil || a.PreConditions != nil) {
		ext.Application = &controllers.ApplicationExtension{BlockPredecessorSeconds: a.BlockPredecessorSeconds, PreConditions: a.PreConditions}
	}
	if c := fb.Cluster; c != nil && c.GracePeriodSeconds != nil {
		ext.Cluster = &controllers.ClusterExtension{GracePeriodSeconds: c.GracePeriodSeconds}
	}
	if ext.Application == nil && ext.Cluster == nil {
		return out, nil
	}
	raw, err := json.Marshal(ext)
	if err != nil {
		t.Fatal(err)
	}
	return out, map[string]string{controllers.PolicyExtensionAnnotation: string(raw)}
}

// template is the resource template of w.
func template(w replay.Workload) *unstructured.Unstructured {
	gvk := replay.GVK(w.Kind)
	labels := map[string]any{"app": w.Name}
	podTemplate := map[string]any{
		"metadata": map[string]any{"labels": labels},
		"spec":     map[string]any{"containers": []any{map[string]any{"name": "app", "image": "nginx"}}},
	}
	spec := map[string]any{
		"replicas": int64(w.Replicas),
		"selector": map[string]any{"matchLabels": labels},
		"template": podTemplate,
	}
	switch w.Kind {
	case "FlinkDeployment":
		spec = map[string]any{
			"image":        "flink:1.20",
			"flinkVersion": "v1_20",
			"job":          map[string]any{"jarURI": "local:///opt/flink/examples/streaming/WordCount.jar", "parallelism": int64(w.Replicas)},
		}
	case "StatefulSet":
		spec["serviceName"] = w.Name
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": gvk.GroupVersion().String(),
		"kind":       w.Kind,
		"metadata":   map[string]any{"name": w.Name, "labels": labels},
		"spec":       spec,
	}}
}

// apply plays one fault of the ground truth.
func (r *replayRun) apply(ft replay.Fault) {
	r.t.Helper()
	r.t.Logf("+%s fault %s %s %s", ft.At.Duration, ft.Type, ft.Cluster, ft.Workload)
	switch ft.Type {
	case replay.FaultOutage, replay.FaultPartition, replay.FaultRecover:
		// To the controllers a partition is an outage: nothing is heard
		// from the cluster and no deletion there completes. Its copies run
		// on, which the copy monitor assumes of any cluster that is down.
		if ft.Type == replay.FaultRecover {
			delete(r.armed, ft.Cluster)
			delete(r.partEnds, ft.Cluster)
		}
		r.setDown(ft.Cluster, ft.Type != replay.FaultRecover)
	case replay.FaultPartitionOnPurge:
		r.armed[ft.Cluster] = ft.For.Duration
	case replay.FaultNotReady:
		// Reachable (its workloads run, its deletions complete), but its
		// health endpoint fails.
		r.probes.set(r.real(ft.Cluster), failover.ProbeResult{Reachable: true, Healthy: false, Message: "health check failed"})
	case replay.FaultWorkloadUnhealthy, replay.FaultWorkloadHealthy:
		r.failing[[2]string{ft.Workload, ft.Cluster}] = ft.Type == replay.FaultWorkloadUnhealthy
	case replay.FaultRestart:
		r.restart()
	case replay.FaultSuspend, replay.FaultResume:
		dispatching := replay.ChangeSuspension(r.suspensions[ft.Workload], ft.Cluster, ft.Type == replay.FaultSuspend)
		r.suspensions[ft.Workload] = dispatching
		if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			rb := r.binding(ft.Workload)
			var scheduling *bool
			if rb.Spec.Suspension != nil {
				scheduling = rb.Spec.Suspension.Scheduling
			}
			rb.Spec.Suspension = r.bindingSuspension(dispatching, scheduling)
			return r.c.Update(r.ctx, rb)
		}); err != nil {
			r.t.Fatal(err)
		}
	case replay.FaultSuspendScheduling, replay.FaultResumeScheduling:
		if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			rb := r.binding(ft.Workload)
			if rb.Spec.Suspension == nil {
				rb.Spec.Suspension = &workv1alpha2.Suspension{}
			}
			rb.Spec.Suspension.Scheduling = ptr.To(ft.Type == replay.FaultSuspendScheduling)
			return r.c.Update(r.ctx, rb)
		}); err != nil {
			r.t.Fatal(err)
		}
	default:
		r.t.Fatalf("fault type %q is not replayed", ft.Type)
	}
}

// bindingSuspension is a binding's spec.suspension: the dispatch suspension
// s, with the simulator's cluster names made real, and scheduling; nil when
// neither suspends anything.
func (r *replayRun) bindingSuspension(s *suspension.Suspension, scheduling *bool) *workv1alpha2.Suspension {
	if s == nil && scheduling == nil {
		return nil
	}
	out := &workv1alpha2.Suspension{Scheduling: scheduling}
	if s != nil {
		out.Dispatching = s.Dispatching
		if on := s.DispatchingOnClusters; on != nil {
			out.DispatchingOnClusters = &policyv1alpha1.SuspendClusters{}
			for _, name := range on.ClusterNames {
				out.DispatchingOnClusters.ClusterNames = append(out.DispatchingOnClusters.ClusterNames, r.real(name))
			}
		}
	}
	return out
}

// setDown cuts cluster off (down) or brings it back: a push cluster's API
// server stops answering probes; a pull cluster's agent stops renewing its
// lease (run does).
func (r *replayRun) setDown(cluster string, down bool) {
	r.mu.Lock()
	r.down[cluster] = down
	r.mu.Unlock()
	r.probes.set(r.real(cluster), failover.ProbeResult{Reachable: !down, Healthy: !down})
}

// endPartitions ends the partitions on purge that are due.
func (r *replayRun) endPartitions() {
	now := r.clock.Now()
	for cluster, end := range r.partEnds {
		if !now.Before(end) {
			delete(r.partEnds, cluster)
			r.t.Logf("+%s partition of %s during purge ends", now.Sub(epoch), cluster)
			r.setDown(cluster, false)
		}
	}
}

// syncMembers plays the member clusters for every workload: a Work's
// deletion completes only where its cluster can be reached (a finalizer
// holds it until then, as Karmada's execution controller does), and each
// reachable cluster reports its copy's status, which the test writes into
// the binding's aggregated status with the health the library's
// interpreters give it, as the simulator's members do. Copies seen for
// the first time started at startedAt, or now when it is zero.
func (r *replayRun) syncMembers(startedAt time.Time) {
	r.t.Helper()
	now := r.clock.Now()
	if startedAt.IsZero() {
		startedAt = now
	}
	// The members read the controllers' cache, which the last step left
	// with every write seen (settle): a list from the API server waits for
	// its watch cache to be known fresh, up to a tenth of a second for a
	// kind with no recent event, and a replay lists at every step.
	bindings := &workv1alpha2.ResourceBindingList{}
	if err := r.cache.List(r.ctx, bindings, client.InNamespace(r.ns)); err != nil {
		r.t.Fatal(err)
	}
	byUID := map[string][]workv1alpha1.Work{}
	works := &workv1alpha1.WorkList{}
	if err := r.cache.List(r.ctx, works, client.HasLabels{workv1alpha2.ResourceBindingPermanentIDLabel}); err != nil {
		r.t.Fatal(err)
	}
	for _, work := range works.Items {
		uid := work.Labels[workv1alpha2.ResourceBindingPermanentIDLabel]
		byUID[uid] = append(byUID[uid], work)
	}
	for _, w := range r.fx.Workloads {
		i := slices.IndexFunc(bindings.Items, func(rb workv1alpha2.ResourceBinding) bool { return rb.Name == w.Name })
		if i < 0 {
			r.t.Fatalf("binding %s is gone", w.Name)
		}
		rb := &bindings.Items[i]
		works := byUID[string(rb.UID)]
		reported := map[string]workv1alpha2.AggregatedStatusItem{}
		for _, it := range rb.Status.AggregatedStatus {
			reported[it.ClusterName] = it
		}
		var items []workv1alpha2.AggregatedStatusItem
		for i := range works {
			work := &works[i]
			cluster := r.simName(strings.TrimPrefix(work.Namespace, controllers.ExecutionNamespacePrefix))
			key := work.Namespace + "/" + work.Name
			if d, ok := r.armed[cluster]; ok && work.DeletionTimestamp != nil && !r.isDown(cluster) {
				// The copy starts being deleted: the armed partition begins.
				delete(r.armed, cluster)
				r.partEnds[cluster] = now.Add(d)
				r.t.Logf("+%s partition of %s during purge starts", now.Sub(epoch), cluster)
				r.setDown(cluster, true)
			}
			switch {
			case work.DeletionTimestamp != nil && !r.isDown(cluster):
				r.holdWork(work, false)
				delete(r.copies, key)
				continue
			case work.DeletionTimestamp == nil:
				r.holdWork(work, true)
			}
			if r.isDown(cluster) {
				// Nothing is heard from it: the last report stays.
				if it, ok := reported[r.real(cluster)]; ok {
					items = append(items, it)
				}
				continue
			}
			if work.DeletionTimestamp != nil {
				continue
			}
			items = append(items, r.report(w, cluster, key, work, startedAt))
		}
		slices.SortFunc(items, func(a, b workv1alpha2.AggregatedStatusItem) int { return strings.Compare(a.ClusterName, b.ClusterName) })
		if statusItemsEqual(rb.Status.AggregatedStatus, items) {
			continue
		}
		r.setHealth(w.Name, items...)
	}
}

// report is what cluster reports for the copy its Work runs.
func (r *replayRun) report(w replay.Workload, cluster, key string, work *workv1alpha1.Work, startedAt time.Time) workv1alpha2.AggregatedStatusItem {
	r.t.Helper()
	now := r.clock.Now()
	m := manifest(work)
	if m == nil {
		r.t.Fatalf("Work %s has no single manifest", key)
	}
	cp := r.copies[key]
	if cp == nil {
		cp = &memberCopy{created: startedAt}
		r.copies[key] = cp
		r.noteNewCopy(w, cluster, m)
	}
	replicas := int64(w.Replicas)
	if v, ok, _ := unstructured.NestedInt64(m.Object, "spec", "replicas"); ok {
		replicas = v
	}
	failing := r.failing[[2]string{w.Name, cluster}] || r.failing[[2]string{w.Name, ""}]
	ready := int64(0)
	if !failing && !now.Before(cp.created.Add(r.fx.Settings.StartupDelay.Duration)) {
		ready = replicas
	}
	c := replay.Copy{Name: w.Name, Replicas: replicas, Ready: ready, Failing: failing, Created: cp.created}
	if w.Kind == "FlinkDeployment" {
		// Until its job first runs a copy that resumes preserved state
		// reports its submission's own job id; then the job it resumed.
		// A copy started without state (a first copy: the scenario's job)
		// is its own job from the start.
		c.JobID = r.jobOf(w, m)
		if ready == 0 && !cp.settled && r.resumesState(w, m) {
			c.JobID = "submitted-" + key
		}
	}
	status := replay.Status(w.Kind, c)
	h := r.registry.Interpret(replay.Object(w.Kind, w.Name, replicas, status)).Status
	if h == health.Healthy {
		cp.settled = true
	}
	raw, err := json.Marshal(status)
	if err != nil {
		r.t.Fatal(err)
	}
	return workv1alpha2.AggregatedStatusItem{ClusterName: r.real(cluster), Status: &runtime.RawExtension{Raw: raw}, Applied: true, Health: workv1alpha2.ResourceHealth(h)}
}

// resumesState reports whether the copy m was started with preserved
// state.
func (r *replayRun) resumesState(w replay.Workload, m *unstructured.Unstructured) bool {
	for _, k := range r.stateLabels[w.Name] {
		if m.GetLabels()[k] != "" {
			return true
		}
	}
	return false
}

// jobOf is the job a stateful copy runs: the preserved job id it was
// started with, or the scenario's for a first copy.
func (r *replayRun) jobOf(w replay.Workload, m *unstructured.Unstructured) string {
	labels := m.GetLabels()
	for _, k := range r.stateLabels[w.Name] {
		if v := labels[k]; v != "" {
			return v
		}
	}
	return w.State["jobId"]
}

// noteNewCopy records a new copy that started with preserved state.
func (r *replayRun) noteNewCopy(w replay.Workload, cluster string, m *unstructured.Unstructured) {
	injected := map[string]string{}
	for _, k := range r.stateLabels[w.Name] {
		if v, ok := m.GetLabels()[k]; ok {
			injected[k] = v
		}
	}
	if len(injected) > 0 {
		r.injections = append(r.injections, replay.Injection{At: metav1.Duration{Duration: r.clock.Now().Sub(epoch)}, Workload: w.Name, Cluster: cluster, Labels: injected})
	}
}

// holdWork adds (hold) or removes the member's finalizer on a Work.
func (r *replayRun) holdWork(work *workv1alpha1.Work, hold bool) {
	r.t.Helper()
	if slices.Contains(work.Finalizers, holdFinalizer) == hold {
		return
	}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur := &workv1alpha1.Work{}
		if err := r.c.Get(r.ctx, client.ObjectKeyFromObject(work), cur); err != nil {
			return client.IgnoreNotFound(err)
		}
		if hold && cur.DeletionTimestamp != nil {
			return nil
		}
		cur.Finalizers = slices.DeleteFunc(cur.Finalizers, func(s string) bool { return s == holdFinalizer })
		if hold {
			cur.Finalizers = append(cur.Finalizers, holdFinalizer)
		}
		return client.IgnoreNotFound(r.c.Update(r.ctx, cur))
	})
	if err != nil {
		r.t.Fatal(err)
	}
	if hold {
		r.t.Cleanup(func() { r.releaseWork(client.ObjectKeyFromObject(work)) })
	}
}

// releaseWork drops the member's finalizer at the end of the test.
func (r *replayRun) releaseWork(key client.ObjectKey) {
	_ = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur := &workv1alpha1.Work{}
		if err := r.c.Get(context.Background(), key, cur); err != nil {
			return client.IgnoreNotFound(err)
		}
		if !slices.Contains(cur.Finalizers, holdFinalizer) {
			return nil
		}
		cur.Finalizers = slices.DeleteFunc(cur.Finalizers, func(s string) bool { return s == holdFinalizer })
		return client.IgnoreNotFound(r.c.Update(context.Background(), cur))
	})
}

func statusItemsEqual(a, b []workv1alpha2.AggregatedStatusItem) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].ClusterName != b[i].ClusterName || a[i].Health != b[i].Health || a[i].Applied != b[i].Applied {
			return false
		}
		var ra, rb []byte
		if a[i].Status != nil {
			ra = a[i].Status.Raw
		}
		if b[i].Status != nil {
			rb = b[i].Status.Raw
		}
		if !jsonEqual(ra, rb) {
			return false
		}
	}
	return true
}

func jsonEqual(a, b []byte) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	return reflect.DeepEqual(va, vb)
}

// evictionRecorder watches the scenario's bindings and records each
// eviction task as it appears, with the fake clock's time: a task can
// come and go within one step (a divided workload's replicas join a
// cluster that already runs healthy ones).
type evictionRecorder struct {
	mu        sync.Mutex
	tasks     map[string]map[string]bool // binding: the clusters its tasks leave
	evictions []replay.Eviction
}

func (r *replayRun) recordEvictions() {
	r.t.Helper()
	rec := &evictionRecorder{tasks: map[string]map[string]bool{}}
	r.evictions = rec
	r.watchEach(&workv1alpha2.ResourceBindingList{}, func(ev watch.Event) {
		rb, ok := ev.Object.(*workv1alpha2.ResourceBinding)
		if !ok || ev.Type == watch.Deleted {
			return
		}
		at := r.clock.Now().Sub(epoch)
		rec.mu.Lock()
		defer rec.mu.Unlock()
		now := map[string]bool{}
		for _, task := range rb.Spec.GracefulEvictionTasks {
			cluster := r.simName(task.FromCluster)
			now[cluster] = true
			if rec.tasks[rb.Name][cluster] {
				continue
			}
			rec.evictions = append(rec.evictions, replay.Eviction{At: metav1.Duration{Duration: at}, Workload: rb.Name, Cluster: cluster,
				Reason: task.Reason, PurgeMode: eviction.PurgeMode(task.PurgeMode).Normalize()})
		}
		rec.tasks[rb.Name] = now
	}, client.InNamespace(r.ns))
}

func (rec *evictionRecorder) list() []replay.Eviction {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return slices.Clone(rec.evictions)
}

// compare holds the controllers' run to the simulator's.
func (r *replayRun) compare() {
	r.t.Helper()
	var problems []string
	for _, w := range r.fx.Workloads {
		want, got := placementString(w.Final, w.Divided), placementString(r.finalPlacement(w), w.Divided)
		if want != got {
			problems = append(problems, fmt.Sprintf("%s ends on %s, the simulator left it on %s", w.Name, got, want))
		}
	}
	// A reaction may be seen a step or two late (a busy API server), and
	// the simulator collects status a step after a change: times agree
	// within three steps.
	within := 3 * r.fx.Step.Duration
	evictions := r.evictions.list()
	problems = append(problems, compareEvictions(r.fx.Evictions, evictions, within)...)
	problems = append(problems, r.twoCopies.list()...)
	if want, got := injectionSet(r.fx.Injections), injectionSet(r.injections); !slices.Equal(want, got) {
		problems = append(problems, fmt.Sprintf("new copies started with state %v, the simulator's with %v", got, want))
	} else {
		used := make([]bool, len(r.injections))
		for _, in := range r.fx.Injections {
			for i, g := range r.injections {
				if used[i] || g.Workload != in.Workload || g.Cluster != in.Cluster {
					continue
				}
				used[i] = true
				if (g.At.Duration - in.At.Duration).Abs() > within {
					problems = append(problems, fmt.Sprintf("%s started on %s with its state at +%s, the simulator's at +%s", in.Workload, in.Cluster, g.At.Duration, in.At.Duration))
				}
				break
			}
		}
	}
	if len(problems) > 0 {
		r.t.Errorf("scenario %s: the controllers and the simulator disagree:\n  %s\nsimulator's evictions:   %s\ncontrollers' evictions:  %s",
			r.fx.Scenario, strings.Join(problems, "\n  "), evictionsString(r.fx.Evictions), evictionsString(evictions))
	}
}

func (r *replayRun) finalPlacement(w replay.Workload) []eviction.TargetCluster {
	var out []eviction.TargetCluster
	for _, tc := range r.binding(w.Name).Spec.Clusters {
		out = append(out, eviction.TargetCluster{Name: r.simName(tc.Name), Replicas: tc.Replicas})
	}
	return out
}

func placementString(tcs []eviction.TargetCluster, divided bool) string {
	parts := make([]string, 0, len(tcs))
	for _, tc := range tcs {
		if divided {
			parts = append(parts, fmt.Sprintf("%s=%d", tc.Name, tc.Replicas))
		} else {
			parts = append(parts, tc.Name)
		}
	}
	slices.Sort(parts)
	return "[" + strings.Join(parts, ", ") + "]"
}

// compareEvictions checks that the controllers evicted what the simulator
// did, for the same reasons and purge modes, and in the same order: of two
// evictions the simulator made at different times, the controllers must
// not make the later one first (evictions of one instant have no order);
// and each within the given time of the simulator's.
func compareEvictions(want, got []replay.Eviction, within time.Duration) []string {
	var problems []string
	type key struct{ workload, cluster string }
	seen := map[key]int{}
	index := func(evs []replay.Eviction) map[key][]replay.Eviction {
		out := map[key][]replay.Eviction{}
		for _, ev := range evs {
			k := key{ev.Workload, ev.Cluster}
			out[k] = append(out[k], ev)
		}
		return out
	}
	byKeyGot := index(got)
	// matched[i] is the controllers' eviction matching want[i].
	matched := make([]*replay.Eviction, len(want))
	for i, ev := range want {
		k := key{ev.Workload, ev.Cluster}
		n := seen[k]
		seen[k]++
		if n >= len(byKeyGot[k]) {
			problems = append(problems, fmt.Sprintf("the simulator evicted %s from %s at +%s; the controllers did not", ev.Workload, ev.Cluster, ev.At.Duration))
			continue
		}
		g := byKeyGot[k][n]
		matched[i] = &g
		if d := (g.At.Duration - ev.At.Duration).Abs(); d > within {
			problems = append(problems, fmt.Sprintf("%s left %s at +%s, the simulator's at +%s", ev.Workload, ev.Cluster, g.At.Duration, ev.At.Duration))
		}
		if g.Reason != ev.Reason || g.PurgeMode != ev.PurgeMode {
			problems = append(problems, fmt.Sprintf("%s left %s for %s, purge %s; the simulator: %s, purge %s", ev.Workload, ev.Cluster, g.Reason, g.PurgeMode, ev.Reason, ev.PurgeMode))
		}
	}
	for k, evs := range byKeyGot {
		if extra := len(evs) - seen[k]; extra > 0 {
			problems = append(problems, fmt.Sprintf("the controllers evicted %s from %s %d more time(s) than the simulator", k.workload, k.cluster, extra))
		}
	}
	for i := range want {
		for j := range want {
			if matched[i] == nil || matched[j] == nil || want[i].At.Duration >= want[j].At.Duration {
				continue
			}
			if matched[i].At.Duration > matched[j].At.Duration {
				problems = append(problems, fmt.Sprintf("order: the simulator evicted %s from %s before %s from %s; the controllers the other way round",
					want[i].Workload, want[i].Cluster, want[j].Workload, want[j].Cluster))
			}
		}
	}
	return problems
}

func evictionsString(evs []replay.Eviction) string {
	parts := make([]string, 0, len(evs))
	for _, ev := range evs {
		parts = append(parts, fmt.Sprintf("+%s %s@%s (%s, %s)", ev.At.Duration, ev.Workload, ev.Cluster, ev.Reason, ev.PurgeMode))
	}
	return strings.Join(parts, "; ")
}

func injectionSet(ins []replay.Injection) []string {
	out := make([]string, 0, len(ins))
	for _, in := range ins {
		var labels []string
		for _, k := range slices.Sorted(maps.Keys(in.Labels)) {
			labels = append(labels, k+"="+in.Labels[k])
		}
		out = append(out, fmt.Sprintf("%s@%s{%s}", in.Workload, in.Cluster, strings.Join(labels, ",")))
	}
	slices.Sort(out)
	return out
}

// renewLeaseNow is the agent's renewal once its Lease exists: one patch.
func (r *replayRun) renewLeaseNow(cluster string) {
	r.t.Helper()
	patch := fmt.Sprintf(`{"spec":{"renewTime":%q}}`, metav1.NewMicroTime(r.clock.Now()).Format(metav1.RFC3339Micro))
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: controllers.ClusterLeaseNamespace, Name: cluster}}
	if err := r.c.Patch(r.ctx, lease, client.RawPatch(types.MergePatchType, []byte(patch))); err != nil {
		r.t.Fatal(err)
	}
}

// postAgentStatus is a pull-mode cluster's agent at work: it probes its
// own API server (the scenario's probe answer for the cluster), debounces
// the answer against the Ready condition the cluster carries now (which the
// control plane may have turned Unknown meanwhile), and posts the result
// when it differs.
func (r *replayRun) postAgentStatus(cluster string) {
	r.t.Helper()
	cl := &clusterv1alpha1.Cluster{}
	if err := r.c.Get(r.ctx, client.ObjectKey{Name: cluster}, cl); err != nil {
		r.t.Fatal(err)
	}
	posted := meta.FindStatusCondition(cl.Status.Conditions, clusterv1alpha1.ClusterConditionReady)
	if st, ok := r.agents.Export(cluster); !ok || (posted != nil && (st.Ready == nil || st.Ready.Status != posted.Status)) {
		st := failover.ClusterHealthState{SyncMode: failover.ClusterSyncModePush}
		if posted != nil {
			st.Ready = posted.DeepCopy()
		}
		if err := r.agents.Import(cluster, st); err != nil {
			r.t.Fatal(err)
		}
	}
	decided, err := r.agents.ObserveProbe(cluster, r.probes.Probe(r.ctx, cl))
	if err != nil {
		r.t.Fatal(err)
	}
	if posted != nil && posted.Status == decided.Status && posted.Reason == decided.Reason {
		return
	}
	r.postCondition(cluster, decided)
}

// singleWriter reports whether w must never run two copies, as the
// simulator's invariant has it: it preserves state, runs on one cluster,
// and every failover it has purges the old copy directly.
func singleWriter(w replay.Workload, clusterPurge eviction.PurgeMode) bool {
	fb := w.Failover
	if fb == nil || w.Divided || w.ClusterSpread == nil || w.ClusterSpread.MaxGroups != 1 {
		return false
	}
	stateful := clusterState(fb) != nil || applicationState(fb) != nil
	purge := clusterPurge
	if fb.Cluster != nil && fb.Cluster.PurgeMode != "" {
		purge = fb.Cluster.PurgeMode
	}
	if purge == "" {
		purge = eviction.PurgeGracefully // the library's default for a cluster failover
	}
	return stateful && purge.Normalize() == eviction.PurgeDirectly &&
		(fb.Application == nil || fb.Application.PurgeMode.Normalize() == eviction.PurgeDirectly)
}

// copyMonitor records every moment a single-writer workload had two
// copies that could both run.
type copyMonitor struct {
	mu       sync.Mutex
	overlaps []string
}

func (m *copyMonitor) add(s string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.overlaps = append(m.overlaps, s)
}

func (m *copyMonitor) list() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.overlaps)
}

// liveWork is a Work of a single-writer workload as the monitor saw it.
type liveWork struct {
	created, deletingSince time.Duration // fake-clock time since the start; deletingSince 0: not deleting
}

// watchCopies watches the Works of one single-writer workload. Every Work
// counts, a terminating one too (its workload may still run) and one on a
// cluster that is down (it runs again when the cluster returns). The one
// exception is the documented Directly escape: a Work terminating on a
// cluster that is down no longer counts against a Work created
// eviction.DefaultDirectlyEscapeTimeout or more after its deletion began
// (less the replay's observation lag of up to three steps).
func (r *replayRun) watchCopies(workload, uid string) {
	r.t.Helper()
	lag := 3 * r.fx.Step.Duration
	live := map[string]*liveWork{}
	reported := map[[2]string]bool{}
	r.watchEach(&workv1alpha1.WorkList{}, func(ev watch.Event) {
		work, ok := ev.Object.(*workv1alpha1.Work)
		if !ok {
			return
		}
		now := r.clock.Now().Sub(epoch)
		cluster := r.simName(strings.TrimPrefix(work.Namespace, controllers.ExecutionNamespacePrefix))
		switch ev.Type {
		case watch.Deleted:
			delete(live, cluster)
			return
		case watch.Added, watch.Modified:
			lw := live[cluster]
			if lw == nil {
				lw = &liveWork{created: now}
				live[cluster] = lw
			}
			if work.DeletionTimestamp != nil && lw.deletingSince == 0 {
				lw.deletingSince = now
			}
		}
		for old, o := range live {
			for young, y := range live {
				if old == young || y.created < o.created {
					continue
				}
				escaped := o.deletingSince > 0 && r.isDown(old) && y.created >= o.deletingSince+eviction.DefaultDirectlyEscapeTimeout-lag
				if !escaped && !reported[[2]string{old, young}] {
					reported[[2]string{old, young}] = true
					r.twoCopies.add(fmt.Sprintf("%s ran two copies at +%s: on %s and on %s", workload, now, old, young))
				}
			}
		}
	}, client.MatchingLabels{workv1alpha2.ResourceBindingPermanentIDLabel: uid})
}

// clusterState and applicationState are a failover behaviour's state
// preservation rules, for a cluster and for an application failover.
func clusterState(fb *failover.FailoverBehavior) *preservation.StatePreservation {
	if fb.Cluster == nil {
		return nil
	}
	return fb.Cluster.StatePreservation
}

func applicationState(fb *failover.FailoverBehavior) *preservation.StatePreservation {
	if fb.Application == nil {
		return nil
	}
	return fb.Application.StatePreservation
}
