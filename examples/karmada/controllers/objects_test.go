package controllers_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"context"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	workv1alpha1 "github.com/karmada-io/api/work/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/failover"

	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// probes is a fake push-mode prober whose answers a test sets per cluster.
type probes struct {
	mu      sync.Mutex
	answers map[string]failover.ProbeResult
}

func newProbes() *probes { return &probes{answers: map[string]failover.ProbeResult{}} }

func (p *probes) set(cluster string, r failover.ProbeResult) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.answers[cluster] = r
}

func (p *probes) Probe(_ context.Context, cl *clusterv1alpha1.Cluster) failover.ProbeResult {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r, ok := p.answers[cl.Name]; ok {
		return r
	}
	return failover.ProbeResult{Reachable: true, Healthy: true}
}

// clusterName makes cluster names unique per test (clusters are not
// namespaced).
func (f *fixture) clusterName(short string) string { return f.ns + "-" + short }

func (f *fixture) createCluster(name string, mode clusterv1alpha1.ClusterSyncMode) *clusterv1alpha1.Cluster {
	f.t.Helper()
	cl := &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: clusterv1alpha1.ClusterSpec{SyncMode: mode}}
	if err := f.c.Create(f.ctx, cl); err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { _ = f.c.Delete(context.Background(), cl) })
	return cl
}

// readyClusters creates the clusters in mode, then waits until each is
// Ready: the fleet a story starts from, before any workload is placed.
func (f *fixture) readyClusters(mode clusterv1alpha1.ClusterSyncMode, names ...string) {
	f.t.Helper()
	for _, name := range names {
		f.createCluster(name, mode)
	}
	for _, name := range names {
		f.waitReady(name, metav1.ConditionTrue)
	}
}

func (f *fixture) renewLease(cluster string) {
	f.t.Helper()
	now := metav1.NewMicroTime(f.clock.Now())
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: controllers.ClusterLeaseNamespace}}
	if err := f.c.Create(f.ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		f.t.Fatal(err)
	}
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: controllers.ClusterLeaseNamespace, Name: cluster}}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		err := f.c.Get(f.ctx, client.ObjectKeyFromObject(lease), lease)
		if apierrors.IsNotFound(err) {
			lease.Spec.RenewTime = &now
			return f.c.Create(f.ctx, lease)
		}
		if err != nil {
			return err
		}
		lease.Spec.RenewTime = &now
		return f.c.Update(f.ctx, lease)
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

// postCondition sets a condition on a cluster's status, as a pull-mode
// cluster's agent posts its Ready condition.
func (f *fixture) postCondition(cluster string, cond metav1.Condition) {
	f.t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cl := &clusterv1alpha1.Cluster{}
		if err := f.c.Get(f.ctx, client.ObjectKey{Name: cluster}, cl); err != nil {
			return err
		}
		meta.SetStatusCondition(&cl.Status.Conditions, cond)
		return f.c.Status().Update(f.ctx, cl)
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) cluster(name string) *clusterv1alpha1.Cluster {
	f.t.Helper()
	cl := &clusterv1alpha1.Cluster{}
	if err := f.c.Get(f.ctx, client.ObjectKey{Name: name}, cl); err != nil {
		f.t.Fatal(err)
	}
	return cl
}

func readyStatus(cl *clusterv1alpha1.Cluster) metav1.ConditionStatus {
	if c := meta.FindStatusCondition(cl.Status.Conditions, clusterv1alpha1.ClusterConditionReady); c != nil {
		return c.Status
	}
	return ""
}

func (f *fixture) waitReady(name string, want metav1.ConditionStatus) {
	f.t.Helper()
	f.eventually(fmt.Sprintf("cluster %s Ready=%s", name, want), func() (bool, string) {
		cl := f.cluster(name)
		return readyStatus(cl) == want, fmt.Sprintf("conditions %+v", cl.Status.Conditions)
	})
}

func (f *fixture) createTemplate(obj *unstructured.Unstructured) {
	f.t.Helper()
	obj.SetNamespace(f.ns)
	if err := f.c.Create(f.ctx, obj); err != nil {
		f.t.Fatal(err)
	}
}

// createClusterTemplate creates a cluster-scoped template (a ClusterRole,
// say) and deletes it when the test ends: it lives in no test's namespace.
func (f *fixture) createClusterTemplate(obj *unstructured.Unstructured) {
	f.t.Helper()
	if err := f.c.Create(f.ctx, obj); err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { _ = f.c.Delete(context.Background(), obj) })
}

func deployment(name string, replicas int64) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1",
		"kind":       "Deployment",
		"metadata":   map[string]any{"name": name, "labels": map[string]any{"app": name}},
		"spec": map[string]any{
			"replicas": replicas,
			"selector": map[string]any{"matchLabels": map[string]any{"app": name}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": name}},
				"spec":     map[string]any{"containers": []any{map[string]any{"name": "app", "image": "nginx"}}},
			},
		},
	}}
}

func (f *fixture) createBinding(rb *workv1alpha2.ResourceBinding) {
	f.t.Helper()
	rb.Namespace = f.ns
	if err := f.c.Create(f.ctx, rb); err != nil {
		f.t.Fatal(err)
	}
	// Later tests' controllers watch every namespace: leave no binding
	// behind for them.
	key := client.ObjectKeyFromObject(rb)
	f.t.Cleanup(func() {
		ctx := context.Background()
		_ = retry.RetryOnConflict(retry.DefaultRetry, func() error {
			cur := &workv1alpha2.ResourceBinding{}
			if err := f.c.Get(ctx, key, cur); err != nil {
				return client.IgnoreNotFound(err)
			}
			cur.Finalizers = nil
			return client.IgnoreNotFound(f.c.Update(ctx, cur))
		})
		_ = f.c.Delete(ctx, &workv1alpha2.ResourceBinding{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: key.Name}})
	})
}

// deploymentBinding is the ResourceBinding, not yet created, of the
// Deployment name in namespace ns (the template deployment makes), with
// replicas (0 leaves spec.replicas unset) placed on clusters. A story sets
// what else its scenario needs (placement, failover, suspension) before
// f.createBinding.
func deploymentBinding(ns, name string, replicas int32, clusters ...workv1alpha2.TargetCluster) *workv1alpha2.ResourceBinding {
	return &workv1alpha2.ResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: workv1alpha2.ResourceBindingSpec{
			Resource: workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: ns, Name: name},
			Replicas: replicas,
			Clusters: clusters,
		},
	}
}

// createClusterBinding creates a ClusterResourceBinding and, as
// createBinding does, removes it when the test ends, finalizers and all:
// later tests' controllers watch every cluster-scoped binding.
func (f *fixture) createClusterBinding(crb *workv1alpha2.ClusterResourceBinding) {
	f.t.Helper()
	if err := f.c.Create(f.ctx, crb); err != nil {
		f.t.Fatal(err)
	}
	name := crb.Name
	f.t.Cleanup(func() {
		ctx := context.Background()
		_ = retry.RetryOnConflict(retry.DefaultRetry, func() error {
			cur := &workv1alpha2.ClusterResourceBinding{}
			if err := f.c.Get(ctx, client.ObjectKey{Name: name}, cur); err != nil {
				return client.IgnoreNotFound(err)
			}
			cur.Finalizers = nil
			return client.IgnoreNotFound(f.c.Update(ctx, cur))
		})
		_ = f.c.Delete(ctx, &workv1alpha2.ClusterResourceBinding{ObjectMeta: metav1.ObjectMeta{Name: name}})
	})
}

// clusterBinding reads the ClusterResourceBinding name, as binding reads a
// ResourceBinding.
func (f *fixture) clusterBinding(name string) *workv1alpha2.ClusterResourceBinding {
	f.t.Helper()
	crb := &workv1alpha2.ClusterResourceBinding{}
	if err := f.c.Get(f.ctx, client.ObjectKey{Name: name}, crb); err != nil {
		f.t.Fatal(err)
	}
	return crb
}

func (f *fixture) binding(name string) *workv1alpha2.ResourceBinding {
	f.t.Helper()
	rb := &workv1alpha2.ResourceBinding{}
	if err := f.c.Get(f.ctx, client.ObjectKey{Namespace: f.ns, Name: name}, rb); err != nil {
		f.t.Fatal(err)
	}
	return rb
}

func clusterNames(rb *workv1alpha2.ResourceBinding) []string {
	var out []string
	for _, tc := range rb.Spec.Clusters {
		out = append(out, tc.Name)
	}
	return out
}

func taskClusters(rb *workv1alpha2.ResourceBinding) []string {
	var out []string
	for _, t := range rb.Spec.GracefulEvictionTasks {
		out = append(out, t.FromCluster)
	}
	return out
}

// waitBinding waits until cond holds on the binding.
func (f *fixture) waitBinding(name, what string, cond func(*workv1alpha2.ResourceBinding) bool) *workv1alpha2.ResourceBinding {
	f.t.Helper()
	var rb *workv1alpha2.ResourceBinding
	f.eventually(what, func() (bool, string) {
		rb = f.binding(name)
		return cond(rb), fmt.Sprintf("clusters=%v tasks=%v history=%s generation=%d observed=%d",
			clusterNames(rb), taskClusters(rb), rb.Annotations[controllers.EvictionHistoryAnnotation], rb.Generation, rb.Status.SchedulerObservedGeneration)
	})
	return rb
}

// setHealth plays Karmada's status collector: it writes the workload's
// status and health on each cluster into the binding's aggregated status.
func (f *fixture) setHealth(name string, items ...workv1alpha2.AggregatedStatusItem) {
	f.t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		rb := f.binding(name)
		base := rb.DeepCopy()
		var next []workv1alpha2.AggregatedStatusItem
		for _, it := range items {
			it.Applied = true
			next = append(next, it)
		}
		rb.Status.AggregatedStatus = next
		return f.c.Status().Patch(f.ctx, rb, client.MergeFromWithOptions(base, client.MergeFromWithOptimisticLock{}))
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

func healthItem(cluster, health string, status map[string]any) workv1alpha2.AggregatedStatusItem {
	it := workv1alpha2.AggregatedStatusItem{ClusterName: cluster, Health: workv1alpha2.ResourceHealth(health)}
	if status != nil {
		raw, _ := json.Marshal(status)
		it.Status = &runtime.RawExtension{Raw: raw}
	}
	return it
}

// work returns the binding's Work for cluster, or nil when there is none.
func (f *fixture) work(rb client.Object, cluster string) *workv1alpha1.Work {
	f.t.Helper()
	w := &workv1alpha1.Work{}
	err := f.c.Get(f.ctx, client.ObjectKey{Namespace: controllers.ExecutionNamespace(cluster), Name: controllers.WorkName(rb)}, w)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		f.t.Fatal(err)
	}
	return w
}

func (f *fixture) waitWork(rb client.Object, cluster string, exists bool) *workv1alpha1.Work {
	f.t.Helper()
	var w *workv1alpha1.Work
	f.eventually(fmt.Sprintf("Work on %s exists=%t", cluster, exists), func() (bool, string) {
		w = f.work(rb, cluster)
		return (w != nil) == exists, fmt.Sprintf("work=%v", w != nil)
	})
	return w
}

// holdFinalizer plays the member cluster's execution side: the old Work
// stays, terminating, until the workload there is confirmed gone.
const holdFinalizer = "test.fleetover.io/workload-still-running"

// holdWorkOn puts holdFinalizer on the binding's Work on cluster: once
// deleted, that Work stays terminating, as while the member cluster's
// copy still runs, until releaseWorkOn.
func (f *fixture) holdWorkOn(rb client.Object, cluster string) {
	f.t.Helper()
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		w := f.work(rb, cluster)
		w.Finalizers = append(w.Finalizers, holdFinalizer)
		return f.c.Update(f.ctx, w)
	}); err != nil {
		f.t.Fatal(err)
	}
}

// releaseWorkOn takes holdFinalizer off the binding's Work on cluster, if
// that Work is still there: the member confirms its copy is gone.
func (f *fixture) releaseWorkOn(rb client.Object, cluster string) {
	f.t.Helper()
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		w := f.work(rb, cluster)
		if w == nil {
			return nil
		}
		w.Finalizers = slices.DeleteFunc(w.Finalizers, func(s string) bool { return s == holdFinalizer })
		return f.c.Update(f.ctx, w)
	}); err != nil {
		f.t.Fatal(err)
	}
}

// manifest decodes the Work's single manifest.
func manifest(w *workv1alpha1.Work) *unstructured.Unstructured {
	if len(w.Spec.Workload.Manifests) != 1 {
		return nil
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(w.Spec.Workload.Manifests[0].Raw); err != nil {
		return nil
	}
	return u
}

func hasTaint(cl *clusterv1alpha1.Cluster, key string, effect string) bool {
	return slices.ContainsFunc(cl.Spec.Taints, func(t corev1.Taint) bool { return t.Key == key && string(t.Effect) == effect })
}

// watchEach watches list (with opts) from now until the test ends and
// hands every event to handle, on a goroutine of its own.
func (f *fixture) watchEach(list client.ObjectList, handle func(watch.Event), opts ...client.ListOption) {
	f.t.Helper()
	wc, err := client.NewWithWatch(f.rest, client.Options{Scheme: testScheme})
	if err != nil {
		f.t.Fatal(err)
	}
	w, err := wc.Watch(f.ctx, list, opts...)
	if err != nil {
		f.t.Fatal(err)
	}
	done := make(chan struct{})
	f.t.Cleanup(func() { w.Stop(); <-done })
	go func() {
		defer close(done)
		for ev := range w.ResultChan() {
			handle(ev)
		}
	}()
}

// taint adds a taint, stamped at the fake clock's now, to a cluster.
func (f *fixture) taint(cluster string, key string, effect corev1.TaintEffect) {
	f.t.Helper()
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cl := f.cluster(cluster)
		at := metav1.NewTime(f.clock.Now())
		cl.Spec.Taints = append(cl.Spec.Taints, corev1.Taint{Key: key, Effect: effect, TimeAdded: &at})
		return f.c.Update(f.ctx, cl)
	}); err != nil {
		f.t.Fatal(err)
	}
}
