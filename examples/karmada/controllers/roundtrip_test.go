package controllers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	ctrlcluster "sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/randfill"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/api/policy/v1alpha1"
	workv1alpha1 "github.com/karmada-io/api/work/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"

	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// The round trip: every field of a Karmada object is filled with random
// values (sigs.k8s.io/randfill), the object is created on the real API
// server with Karmada's CRDs, one controller's write path runs on it, and
// the object read back as unstructured JSON (so fields the Go types do not
// know would count too) must differ from the one before only in the fields
// that controller owns.

const roundTripSeeds = 3

// filler returns a randfill filler whose values pass Karmada's CRD
// validation: short lowercase names (valid as names, label values,
// condition types and reasons), small positive numbers, whole-second
// times, valid quantities and JSON documents. Enumerated fields are set by
// each case after filling.
func filler(seed int64) *randfill.Filler {
	name := func(c randfill.Continue) string {
		const letters = "abcdefghijklmnopqrstuvwxyz"
		n := 3 + c.Intn(6)
		b := make([]byte, n)
		for i := range b {
			b[i] = letters[c.Intn(len(letters))]
		}
		return string(b)
	}
	return randfill.NewWithSeed(seed).NilChance(0).NumElements(1, 2).MaxDepth(12).Funcs(
		func(s *string, c randfill.Continue) { *s = name(c) },
		func(i *int, c randfill.Continue) { *i = 1 + c.Intn(3) },
		func(i *int32, c randfill.Continue) { *i = int32(1 + c.Intn(3)) },
		func(i *int64, c randfill.Continue) { *i = int64(1 + c.Intn(3)) },
		func(u *uint, c randfill.Continue) { *u = uint(c.Intn(3)) },
		func(q *resource.Quantity, c randfill.Continue) {
			*q = *resource.NewQuantity(int64(1+c.Intn(64)), resource.DecimalSI)
		},
		func(t *metav1.Time, c randfill.Continue) {
			*t = metav1.NewTime(epoch.Add(-time.Duration(1+c.Intn(86400)) * time.Second))
		},
		func(r *runtime.RawExtension, c randfill.Continue) {
			r.Raw = []byte(fmt.Sprintf(`{"phase":%q,"observedGeneration":%d}`, name(c), 1+c.Intn(5)))
		},
		func(m *map[string]string, c randfill.Continue) {
			*m = map[string]string{name(c): name(c)}
		},
		func(s *metav1.ConditionStatus, c randfill.Continue) {
			*s = []metav1.ConditionStatus{metav1.ConditionTrue, metav1.ConditionFalse, metav1.ConditionUnknown}[c.Intn(3)]
		},
		func(h *workv1alpha2.ResourceHealth, c randfill.Continue) { *h = workv1alpha2.ResourceHealthy },
		func(h *workv1alpha1.ResourceHealth, c randfill.Continue) { *h = workv1alpha1.ResourceHealthy },
		func(u *types.UID, c randfill.Continue) { *u = types.UID(name(c)) },
		func(o *corev1.TolerationOperator, c randfill.Continue) { *o = corev1.TolerationOpEqual },
		func(e *corev1.TaintEffect, c randfill.Continue) { *e = corev1.TaintEffectNoSchedule },
		func(o *corev1.NodeSelectorOperator, c randfill.Continue) { *o = corev1.NodeSelectorOpIn },
		func(o *metav1.LabelSelectorOperator, c randfill.Continue) { *o = metav1.LabelSelectorOpIn },
		func(n *corev1.ResourceName, c randfill.Continue) { *n = corev1.ResourceName(name(c)) },
		func(m *policyv1alpha1.PurgeMode, c randfill.Continue) { *m = policyv1alpha1.PurgeModeGracefully },
		func(m *policyv1alpha1.ConflictResolution, c randfill.Continue) { *m = policyv1alpha1.ConflictOverwrite },
		func(m *policyv1alpha1.ReplicaSchedulingType, c randfill.Continue) {
			*m = policyv1alpha1.ReplicaSchedulingTypeDuplicated
		},
		func(m *policyv1alpha1.ReplicaDivisionPreference, c randfill.Continue) {
			*m = policyv1alpha1.ReplicaDivisionPreferenceWeighted
		},
		func(m *policyv1alpha1.DynamicWeightFactor, c randfill.Continue) {
			*m = policyv1alpha1.DynamicWeightByAvailableReplicas
		},
		func(m *policyv1alpha1.SpreadFieldValue, c randfill.Continue) { *m = policyv1alpha1.SpreadByFieldRegion },
		func(m *clusterv1alpha1.ClusterSyncMode, c randfill.Continue) { *m = clusterv1alpha1.Push },
	)
}

// fuzzBinding fills a binding's spec and status. steer then sets the
// fields that decide what the controller under test does.
func fuzzBinding(seed int64) (workv1alpha2.ResourceBindingSpec, workv1alpha2.ResourceBindingStatus) {
	var spec workv1alpha2.ResourceBindingSpec
	var status workv1alpha2.ResourceBindingStatus
	fl := filler(seed)
	fl.Fill(&spec)
	fl.Fill(&status)
	for i := range spec.GracefulEvictionTasks {
		spec.GracefulEvictionTasks[i].Reason = eviction.ReasonApplicationFailure
	}
	return spec, status
}

// unstructuredOf reads obj from the API server as JSON, without the fields
// every write changes.
func (f *fixture) unstructuredOf(obj client.Object) map[string]any {
	f.t.Helper()
	gvk, err := apiutil.GVKForObject(obj, testScheme)
	if err != nil {
		f.t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(gvk)
	if err := f.c.Get(f.ctx, client.ObjectKeyFromObject(obj), u); err != nil {
		f.t.Fatal(err)
	}
	for _, p := range [][]string{{"metadata", "resourceVersion"}, {"metadata", "generation"}, {"metadata", "managedFields"}} {
		unstructured.RemoveNestedField(u.Object, p...)
	}
	return u.Object
}

// owned is a field a controller may change: a path, and for a list of
// conditions or taints only its entries whose key field has one of keys.
type owned struct {
	path []string
	// entryKey and keys, when set, own only the list entries whose
	// entryKey field is one of keys.
	entryKey string
	keys     []string
}

func mask(obj map[string]any, fields []owned) map[string]any {
	out := runtime.DeepCopyJSON(obj)
	for _, o := range fields {
		if o.entryKey == "" {
			unstructured.RemoveNestedField(out, o.path...)
			continue
		}
		list, found, _ := unstructured.NestedSlice(out, o.path...)
		if !found {
			continue
		}
		var kept []any
		for _, e := range list {
			m, _ := e.(map[string]any)
			if v, _ := m[o.entryKey].(string); !contains(o.keys, v) {
				kept = append(kept, e)
			}
		}
		if len(kept) == 0 {
			unstructured.RemoveNestedField(out, o.path...)
		} else {
			_ = unstructured.SetNestedSlice(out, kept, o.path...)
		}
	}
	return out
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// assertOnlyOwnedChanged fails when anything but the owned fields differs,
// and when the write path changed nothing at all (the case did not
// exercise it).
func (f *fixture) assertOnlyOwnedChanged(what string, before, after map[string]any, fields []owned) {
	f.t.Helper()
	if reflect.DeepEqual(before, after) {
		f.t.Fatalf("%s: the write path wrote nothing; the case does not exercise it", what)
	}
	b, a := mask(before, fields), mask(after, fields)
	if !reflect.DeepEqual(b, a) {
		bj, _ := json.MarshalIndent(b, "", " ")
		aj, _ := json.MarshalIndent(a, "", " ")
		f.t.Fatalf("%s changed fields it does not own:\n%s", what, lineDiff(string(bj), string(aj)))
	}
}

func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out []string
	for i := 0; i < max(len(al), len(bl)); i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			out = append(out, "- "+x, "+ "+y)
		}
		if len(out) > 40 {
			break
		}
	}
	return strings.Join(out, "\n")
}

// roundTripBinding creates a filled binding of kind with steer applied and
// its status written, and returns it.
func (f *fixture) roundTripBinding(kind controllers.BindingKind, seed int64, steer func(*workv1alpha2.ResourceBindingSpec, *workv1alpha2.ResourceBindingStatus)) client.Object {
	f.t.Helper()
	spec, status := fuzzBinding(seed)
	steer(&spec, &status)
	name := fmt.Sprintf("rt-%d-%s", seed, strings.ToLower(string(kind)))
	meta := metav1.ObjectMeta{Name: name, Labels: map[string]string{"team": "payments"}, Annotations: map[string]string{"owner": "someone-else"}}
	var obj client.Object
	if kind == controllers.ClusterResourceBindingKind {
		meta.Name = f.ns + "-" + name
		obj = &workv1alpha2.ClusterResourceBinding{ObjectMeta: meta, Spec: spec}
	} else {
		meta.Namespace = f.ns
		obj = &workv1alpha2.ResourceBinding{ObjectMeta: meta, Spec: spec}
	}
	if err := f.c.Create(f.ctx, obj); err != nil {
		f.t.Fatalf("create filled %s: %v", kind, err)
	}
	f.t.Cleanup(func() { _ = f.c.Delete(context.Background(), obj) })
	base := obj.DeepCopyObject().(client.Object)
	switch b := obj.(type) {
	case *workv1alpha2.ResourceBinding:
		b.Status = status
	case *workv1alpha2.ClusterResourceBinding:
		b.Status = status
	}
	if err := f.c.Status().Patch(f.ctx, obj, client.MergeFrom(base)); err != nil {
		f.t.Fatalf("write filled %s status: %v", kind, err)
	}
	return obj
}

func reconcileOnce(t *testing.T, r reconcile.Reconciler, obj client.Object) {
	t.Helper()
	if _, err := r.Reconcile(t.Context(), reconcile.Request{NamespacedName: client.ObjectKeyFromObject(obj)}); err != nil {
		t.Fatalf("reconcile: %v", err)
	}
}

func assertConflictResolution(t *testing.T, f *fixture, obj client.Object) {
	t.Helper()
	got, _, _ := unstructured.NestedString(f.unstructuredOf(obj), "spec", "conflictResolution")
	if got != string(policyv1alpha1.ConflictOverwrite) {
		t.Fatalf("conflictResolution = %q after the write, want Overwrite", got)
	}
}

// cachedClient returns a client whose reads come from an informer cache
// with the controllers' binding index, as the taint manager needs.
func (f *fixture) cachedClient() client.Client {
	f.t.Helper()
	cl, err := ctrlcluster.New(restConfig, func(o *ctrlcluster.Options) {
		o.Scheme = testScheme
		o.Cache = scopedCache(f.ns)
	})
	if err != nil {
		f.t.Fatal(err)
	}
	if err := controllers.IndexBindingsByCluster(f.ctx, cl.GetFieldIndexer()); err != nil {
		f.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f.t.Cleanup(cancel)
	go func() { _ = cl.Start(ctx) }()
	if !cl.GetCache().WaitForCacheSync(f.ctx) {
		f.t.Fatal("cache did not sync")
	}
	return cl.GetClient()
}

func TestRoundTripClusterHealthKeepsUnownedFields(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	for seed := int64(1); seed <= roundTripSeeds; seed++ {
		cl := &clusterv1alpha1.Cluster{}
		fl := filler(seed)
		fl.Fill(&cl.Spec)
		fl.Fill(&cl.Status)
		cl.Name = f.clusterName(fmt.Sprint("rt", seed))
		cl.Labels = map[string]string{"region": "eu"}
		cl.Annotations = map[string]string{"owner": "someone-else"}
		cl.Spec.SyncMode = clusterv1alpha1.Push
		status := cl.Status
		if err := f.c.Create(f.ctx, cl); err != nil {
			t.Fatalf("create filled Cluster: %v", err)
		}
		t.Cleanup(func() { _ = f.c.Delete(context.Background(), cl) })
		base := cl.DeepCopy()
		cl.Status = status
		if err := f.c.Status().Patch(f.ctx, cl, client.MergeFrom(base)); err != nil {
			t.Fatalf("write filled Cluster status: %v", err)
		}
		before := f.unstructuredOf(cl)
		tracker, err := failover.NewClusterHealthTracker(f.clock, failover.ClusterHealthConfig{})
		if err != nil {
			t.Fatal(err)
		}
		c := &controllers.ClusterHealthController{
			Client: f.c, Clock: f.clock,
			Tracker: tracker,
			Prober:  newProbes(),
		}
		reconcileOnce(t, c, cl)
		f.assertOnlyOwnedChanged(fmt.Sprintf("Cluster seed %d: cluster health", seed), before, f.unstructuredOf(cl), []owned{
			{path: []string{"status", "conditions"}, entryKey: "type", keys: []string{clusterv1alpha1.ClusterConditionReady}},
			{path: []string{"spec", "taints"}, entryKey: "key", keys: []string{clusterv1alpha1.TaintClusterNotReady, clusterv1alpha1.TaintClusterUnreachable}},
			{path: []string{"metadata", "annotations", controllers.ClusterHealthStateAnnotation}},
		})
	}
}

// bindingOwned are the fields the binding controllers own: the placement
// and its eviction tasks, and fleetover's annotations.
var bindingOwned = []owned{
	{path: []string{"spec", "clusters"}},
	{path: []string{"spec", "gracefulEvictionTasks"}},
	{path: []string{"metadata", "annotations", controllers.EvictionHistoryAnnotation}},
	{path: []string{"metadata", "annotations", controllers.ApplicationHealthRecordsAnnotation}},
	{path: []string{"metadata", "annotations", controllers.StatusObservationsAnnotation}},
}

func TestRoundTripBindingControllersKeepUnownedFields(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	target, spare := f.clusterName("rt-target"), f.clusterName("rt-spare")
	f.createCluster(target, clusterv1alpha1.Push)
	f.createCluster(spare, clusterv1alpha1.Push)
	now := metav1.NewTime(f.clock.Now())
	cl := f.cluster(target)
	cl.Spec.Taints = []corev1.Taint{{Key: "decommission", Effect: corev1.TaintEffectNoExecute, TimeAdded: &now}}
	if err := f.c.Update(f.ctx, cl); err != nil {
		t.Fatal(err)
	}
	// Both clusters Ready, so the pacer sees a healthy fleet.
	for _, name := range []string{target, spare} {
		cl := f.cluster(name)
		meta.SetStatusCondition(&cl.Status.Conditions, metav1.Condition{Type: clusterv1alpha1.ClusterConditionReady, Status: metav1.ConditionTrue, Reason: "ClusterReady"})
		if err := f.c.Status().Update(f.ctx, cl); err != nil {
			t.Fatal(err)
		}
	}
	cached := f.cachedClient()
	onTarget := func(spec *workv1alpha2.ResourceBindingSpec) {
		spec.Clusters = []workv1alpha2.TargetCluster{{Name: target, Replicas: 1}}
		spec.Placement.ClusterTolerations = nil
		spec.Placement.ClusterAffinity = nil
		spec.Placement.ClusterAffinities = nil
		spec.Suspension.Dispatching = ptr.To(false)
		spec.Suspension.DispatchingOnClusters = nil
		// The failover scheduler leaves a binding whose scheduling is
		// suspended alone: its write path needs scheduling on.
		spec.Suspension.Scheduling = ptr.To(false)
		spec.Failover = nil
	}

	for _, kind := range controllers.BindingKinds() {
		for seed := int64(1); seed <= roundTripSeeds; seed++ {
			func() { // taint-manager
				obj := f.roundTripBinding(kind, seed*10+1, func(spec *workv1alpha2.ResourceBindingSpec, status *workv1alpha2.ResourceBindingStatus) {
					onTarget(spec)
					// Duplicated with no spread and no other task (whose
					// clusters would count as lost): the inline placement
					// finds the spare cluster, and the status write
					// reports the observation.
					spec.Placement.SpreadConstraints = nil
					spec.Placement.ReplicaScheduling = nil
					spec.GracefulEvictionTasks = nil
					status.SchedulerObservedGeneration = 0
				})
				before := f.unstructuredOf(obj)
				pacer, err := eviction.NewPacer(eviction.PacerConfig{Clock: f.clock})
				if err != nil {
					t.Fatal(err)
				}
				tm := &controllers.TaintManager{
					Client: cached, Clock: f.clock,
					Pacer:            pacer,
					InlineScheduling: true,
				}
				f.eventually("binding in the cache", func() (bool, string) {
					return cached.Get(f.ctx, client.ObjectKeyFromObject(obj), kind.NewObject()) == nil, "not yet"
				})
				reconcileOnce(t, tm, f.cluster(target))
				after := f.unstructuredOf(obj)
				f.assertOnlyOwnedChanged(fmt.Sprintf("%s seed %d: taint manager", kind, seed), before, after,
					append(bindingOwned, owned{path: []string{"status", "schedulerObservedGeneration"}}))
				assertConflictResolution(t, f, obj)
				// The eviction and the placement in one spec write, the
				// scheduler's observation in the status write.
				clusters, _, _ := unstructured.NestedSlice(after, "spec", "clusters")
				observed, _, _ := unstructured.NestedInt64(after, "status", "schedulerObservedGeneration")
				live := kind.NewObject()
				if err := f.c.Get(f.ctx, client.ObjectKeyFromObject(obj), live); err != nil {
					t.Fatal(err)
				}
				if len(clusters) != 1 || clusters[0].(map[string]any)["name"] != spare || observed != live.GetGeneration() {
					t.Fatalf("%s seed %d: clusters %v, observed generation %d of %d: want the spare cluster, observed", kind, seed, clusters, observed, live.GetGeneration())
				}
			}()
			func() { // graceful-eviction
				obj := f.roundTripBinding(kind, seed*10+2, func(spec *workv1alpha2.ResourceBindingSpec, _ *workv1alpha2.ResourceBindingStatus) {
					onTarget(spec)
					// A task not yet stamped: the assessment stamps it.
					spec.GracefulEvictionTasks[0].CreationTimestamp = nil
				})
				before := f.unstructuredOf(obj)
				g := &controllers.GracefulEvictionController{
					Client: f.c, Clock: f.clock, Kind: kind, InlineScheduling: true,
				}
				reconcileOnce(t, g, obj)
				f.assertOnlyOwnedChanged(fmt.Sprintf("%s seed %d: graceful eviction", kind, seed), before, f.unstructuredOf(obj),
					append(bindingOwned, owned{path: []string{"status", "schedulerObservedGeneration"}}))
				assertConflictResolution(t, f, obj)
			}()
			func() { // application-failover
				obj := f.roundTripBinding(kind, seed*10+3, func(spec *workv1alpha2.ResourceBindingSpec, status *workv1alpha2.ResourceBindingStatus) {
					onTarget(spec)
					spec.Failover = &policyv1alpha1.FailoverBehavior{Application: &policyv1alpha1.ApplicationFailoverBehavior{
						DecisionConditions: policyv1alpha1.DecisionConditions{TolerationSeconds: ptr.To[int32](0)},
						PurgeMode:          policyv1alpha1.PurgeModeGracefully,
						GracePeriodSeconds: ptr.To[int32](60),
					}}
					status.AggregatedStatus[0].ClusterName = target
					status.AggregatedStatus[0].Health = workv1alpha2.ResourceUnhealthy
				})
				before := f.unstructuredOf(obj)
				a := &controllers.ApplicationFailoverController{
					Client: f.c, Clock: f.clock, Kind: kind, Health: health.NewRegistry(health.RegistryConfig{}),
				}
				reconcileOnce(t, a, obj)
				after := f.unstructuredOf(obj)
				f.assertOnlyOwnedChanged(fmt.Sprintf("%s seed %d: application failover", kind, seed), before, after, bindingOwned)
				assertConflictResolution(t, f, obj)
				if clusters, _, _ := unstructured.NestedSlice(after, "spec", "clusters"); len(clusters) != 0 {
					t.Fatalf("the unhealthy target was not evicted: clusters %v", clusters)
				}
			}()
			func() { // scheduler
				obj := f.roundTripBinding(kind, seed*10+4, func(spec *workv1alpha2.ResourceBindingSpec, _ *workv1alpha2.ResourceBindingStatus) {
					onTarget(spec)
					spec.Clusters = nil
					spec.Placement.SpreadConstraints = nil
					spec.Placement.ClusterAffinity = &policyv1alpha1.ClusterAffinity{ClusterNames: []string{spare}}
					spec.GracefulEvictionTasks = spec.GracefulEvictionTasks[:1]
					spec.GracefulEvictionTasks[0].FromCluster = target
					spec.GracefulEvictionTasks[0].ClustersBeforeFailover = []string{target}
				})
				before := f.unstructuredOf(obj)
				s := &controllers.FailoverScheduler{
					Client: f.c, Clock: f.clock, Kind: kind,
				}
				reconcileOnce(t, s, obj)
				after := f.unstructuredOf(obj)
				f.assertOnlyOwnedChanged(fmt.Sprintf("%s seed %d: failover scheduler", kind, seed), before, after,
					append(bindingOwned, owned{path: []string{"status", "schedulerObservedGeneration"}}))
				assertConflictResolution(t, f, obj)
				if clusters, _, _ := unstructured.NestedSlice(after, "spec", "clusters"); len(clusters) != 1 {
					t.Fatalf("not re-placed: clusters %v", clusters)
				}
			}()
			func() { // dispatcher
				tmpl := deployment(fmt.Sprintf("rt-%d", seed), 1)
				tmpl.SetNamespace(f.ns)
				if err := f.c.Create(f.ctx, tmpl); err != nil && !strings.Contains(err.Error(), "already exists") {
					t.Fatal(err)
				}
				obj := f.roundTripBinding(kind, seed*10+5, func(spec *workv1alpha2.ResourceBindingSpec, _ *workv1alpha2.ResourceBindingStatus) {
					onTarget(spec)
					spec.GracefulEvictionTasks = nil
					spec.Resource = workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: f.ns, Name: tmpl.GetName()}
				})
				// A Work that exists already, filled: the dispatcher
				// patches it.
				work := &workv1alpha1.Work{}
				fl := filler(seed)
				fl.Fill(&work.Spec)
				workStatus := workv1alpha1.WorkStatus{}
				fl.Fill(&workStatus)
				work.Namespace, work.Name = controllers.ExecutionNamespace(target), controllers.WorkName(obj)
				work.Labels = map[string]string{"team": "payments"}
				work.Spec.SuspendDispatching = ptr.To(true)
				if err := f.c.Create(f.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: work.Namespace}}); err != nil && !strings.Contains(err.Error(), "already exists") {
					t.Fatal(err)
				}
				if err := f.c.Create(f.ctx, work); err != nil {
					t.Fatalf("create filled Work: %v", err)
				}
				t.Cleanup(func() { _ = f.c.Delete(context.Background(), work) })
				wbase := work.DeepCopy()
				work.Status = workStatus
				if err := f.c.Status().Patch(f.ctx, work, client.MergeFrom(wbase)); err != nil {
					t.Fatalf("write filled Work status: %v", err)
				}
				before, workBefore := f.unstructuredOf(obj), f.unstructuredOf(work)
				d := &controllers.WorkDispatcher{Client: f.c, Clock: f.clock, Kind: kind}
				reconcileOnce(t, d, obj)
				f.assertOnlyOwnedChanged(fmt.Sprintf("%s seed %d: dispatcher (binding)", kind, seed), before, f.unstructuredOf(obj), []owned{{path: []string{"metadata", "finalizers"}}})
				assertConflictResolution(t, f, obj)
				f.assertOnlyOwnedChanged(fmt.Sprintf("%s seed %d: dispatcher (Work)", kind, seed), workBefore, f.unstructuredOf(work), []owned{
					{path: []string{"spec", "workload"}},
					{path: []string{"spec", "suspendDispatching"}},
					{path: []string{"status", "conditions"}, entryKey: "type", keys: []string{workv1alpha1.WorkDispatching}},
				})
				// Let the binding go without the dispatcher.
				t.Cleanup(func() {
					cur := kind.NewObject()
					if f.c.Get(context.Background(), client.ObjectKeyFromObject(obj), cur) == nil {
						cur.SetFinalizers(nil)
						_ = f.c.Update(context.Background(), cur)
					}
				})
			}()
		}
	}
}
