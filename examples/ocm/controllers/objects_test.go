package controllers_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/util/retry"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	workv1alpha1 "open-cluster-management.io/api/work/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/fleetover/fleetover/failover"

	"github.com/fleetover/fleetover/examples/ocm/controllers"
)

// clusterName makes cluster names unique per test (ManagedClusters are not
// namespaced, and each has a namespace of its own name).
func (f *fixture) clusterName(short string) string { return f.ns + "-" + short }

// joinCluster plays OCM's registration: the ManagedCluster, its namespace,
// and the klusterlet's first report (Available=True and a lease renewal).
func (f *fixture) joinCluster(name string) {
	f.t.Helper()
	f.registerCluster(name)
	f.setAvailable(name, metav1.ConditionTrue)
	f.renewLease(name)
}

// joinTrackedClusters joins each cluster, then waits until the health
// controller tracks every one of them as Ready: the fleet a story starts
// from, before any placement decides.
func (f *fixture) joinTrackedClusters(names ...string) {
	f.t.Helper()
	for _, name := range names {
		f.joinCluster(name)
	}
	for _, name := range names {
		f.waitHealthTracked(name)
	}
}

// registerCluster creates the ManagedCluster and its namespace, before its
// klusterlet reported anything.
func (f *fixture) registerCluster(name string) {
	f.t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if err := f.c.Create(f.ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		f.t.Fatal(err)
	}
	mc := &clusterv1.ManagedCluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"fleet": f.ns}},
		Spec:       clusterv1.ManagedClusterSpec{HubAcceptsClient: true, LeaseDurationSeconds: 60},
	}
	if err := f.c.Create(f.ctx, mc); err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { _ = f.c.Delete(context.Background(), mc) })
}

// setAvailable plays the klusterlet writing its Available condition.
func (f *fixture) setAvailable(name string, status metav1.ConditionStatus) {
	f.t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		mc := &clusterv1.ManagedCluster{}
		if err := f.c.Get(f.ctx, client.ObjectKey{Name: name}, mc); err != nil {
			return err
		}
		meta.SetStatusCondition(&mc.Status.Conditions, metav1.Condition{
			Type: clusterv1.ManagedClusterConditionAvailable, Status: status,
			Reason: "ManagedClusterAvailable", Message: "reported by the test's klusterlet",
			LastTransitionTime: metav1.NewTime(f.clock.Now()),
		})
		return f.c.Status().Update(f.ctx, mc)
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

// renewLease plays the klusterlet renewing its lease at the fake now.
func (f *fixture) renewLease(cluster string) {
	f.t.Helper()
	now := metav1.NewMicroTime(f.clock.Now())
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: cluster, Name: controllers.ClusterLeaseName}}
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

// advance steps the fake clock by step until it reaches t, renewing the
// leases of the alive clusters at each step, as their klusterlets would.
func (f *fixture) advance(t time.Time, step time.Duration, alive ...string) {
	f.t.Helper()
	for f.clock.Now().Before(t) {
		if f.crashPending() {
			f.recoverCrash()
		}
		next := f.clock.Now().Add(step)
		if next.After(t) {
			next = t
		}
		f.stepTo(next)
		for _, c := range alive {
			f.renewLease(c)
		}
	}
}

func (f *fixture) managedCluster(name string) *clusterv1.ManagedCluster {
	f.t.Helper()
	mc := &clusterv1.ManagedCluster{}
	if err := f.c.Get(f.ctx, client.ObjectKey{Name: name}, mc); err != nil {
		f.t.Fatal(err)
	}
	return mc
}

func taint(mc *clusterv1.ManagedCluster, key string, effect clusterv1.TaintEffect) *clusterv1.Taint {
	for i := range mc.Spec.Taints {
		if t := &mc.Spec.Taints[i]; t.Key == key && t.Effect == effect {
			return t
		}
	}
	return nil
}

// waitTaint waits until the cluster carries key:effect and returns it.
// silenceUntilNoSelect lets cluster's klusterlet go silent while the alive
// clusters keep renewing their leases, and steps the clock until the
// unreachable NoSelect taint lands on cluster: NoSelectIfNew once the lease
// is overdue, NoSelect outageConfig's eviction timeout later. It returns
// the NoSelect taint.
func (f *fixture) silenceUntilNoSelect(cluster string, alive ...string) clusterv1.Taint {
	f.t.Helper()
	f.advance(f.clock.Now().Add(45*time.Second), 5*time.Second, alive...)
	noNew := f.waitTaint(cluster, clusterv1.ManagedClusterTaintUnreachable, clusterv1.TaintEffectNoSelectIfNew)
	f.advance(noNew.TimeAdded.Add(time.Minute), 5*time.Second, alive...)
	return f.waitTaint(cluster, clusterv1.ManagedClusterTaintUnreachable, clusterv1.TaintEffectNoSelect)
}

func (f *fixture) waitTaint(name, key string, effect clusterv1.TaintEffect) clusterv1.Taint {
	f.t.Helper()
	var out clusterv1.Taint
	f.eventually(fmt.Sprintf("taint %s:%s on %s", key, effect, name), func() (bool, string) {
		mc := f.managedCluster(name)
		if t := taint(mc, key, effect); t != nil {
			out = *t
			return true, ""
		}
		return false, fmt.Sprintf("%v", mc.Spec.Taints)
	})
	return out
}

// waitHealthTracked waits until the health controller has heard the
// cluster (its state annotation is written).
func (f *fixture) waitHealthTracked(name string) {
	f.t.Helper()
	f.eventually("health of "+name+" tracked", func() (bool, string) {
		var st failover.ClusterHealthState
		raw := f.managedCluster(name).Annotations[controllers.ClusterHealthStateAnnotation]
		if json.Unmarshal([]byte(raw), &st) != nil || st.Ready == nil {
			return false, raw
		}
		return st.Ready.Status == metav1.ConditionTrue, raw
	})
}

func (f *fixture) createPlacement(name string, tolerations ...clusterv1beta1.Toleration) {
	f.t.Helper()
	p := &clusterv1beta1.Placement{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: name},
		Spec: clusterv1beta1.PlacementSpec{
			NumberOfClusters: ptrInt32(1),
			Tolerations:      tolerations,
			Predicates: []clusterv1beta1.ClusterPredicate{{RequiredClusterSelector: clusterv1beta1.ClusterSelector{
				LabelSelector: metav1.LabelSelector{MatchLabels: map[string]string{"fleet": f.ns}},
			}}},
		},
	}
	if err := f.c.Create(f.ctx, p); err != nil {
		f.t.Fatal(err)
	}
}

func ptrInt32(v int32) *int32 { return &v }

// decide plays OCM's placement controller making the first decision.
func (f *fixture) decide(placement string, clusters ...string) {
	f.t.Helper()
	pd := &clusterv1beta1.PlacementDecision{ObjectMeta: metav1.ObjectMeta{
		Namespace: f.ns, Name: controllers.DecisionName(placement),
		Labels: map[string]string{clusterv1beta1.PlacementLabel: placement},
	}}
	if err := f.c.Create(f.ctx, pd); err != nil {
		f.t.Fatal(err)
	}
	for _, c := range clusters {
		pd.Status.Decisions = append(pd.Status.Decisions, clusterv1beta1.ClusterDecision{ClusterName: c, Reason: "test"})
	}
	if err := f.c.Status().Update(f.ctx, pd); err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) decision(placement string) *clusterv1beta1.PlacementDecision {
	f.t.Helper()
	pd := &clusterv1beta1.PlacementDecision{}
	if err := f.c.Get(f.ctx, client.ObjectKey{Namespace: f.ns, Name: controllers.DecisionName(placement)}, pd); err != nil {
		f.t.Fatal(err)
	}
	return pd
}

func decided(pd *clusterv1beta1.PlacementDecision) []string {
	var out []string
	for _, d := range pd.Status.Decisions {
		out = append(out, d.ClusterName)
	}
	return out
}

func (f *fixture) failoverState(placement string) controllers.FailoverState {
	f.t.Helper()
	var st controllers.FailoverState
	raw, ok := f.decision(placement).Annotations[controllers.FailoverStateAnnotation]
	if !ok {
		return st
	}
	if err := json.Unmarshal([]byte(raw), &st); err != nil {
		f.t.Fatal(err)
	}
	return st
}

func taskClusters(st controllers.FailoverState) []string {
	var out []string
	for _, t := range st.Tasks {
		out = append(out, t.FromCluster)
	}
	return out
}

// waitDecision waits until the placement decides exactly clusters.
func (f *fixture) waitDecision(placement, what string, clusters ...string) {
	f.t.Helper()
	f.eventually(what, func() (bool, string) {
		got := decided(f.decision(placement))
		return slices.Equal(got, clusters), fmt.Sprintf("decisions %v", got)
	})
}

// feedbackRule is one JSONPaths status feedback rule: name and path.
type feedbackRule struct{ name, path string }

// createSet creates the ManifestWorkReplicaSet of one workload manifest,
// with status feedback rules for it and a failover policy (nil: none).
func (f *fixture) createSet(name, placement string, manifest *unstructured.Unstructured, resource string, rules []feedbackRule, policy *failover.FailoverBehavior) *workv1alpha1.ManifestWorkReplicaSet {
	f.t.Helper()
	raw, err := json.Marshal(manifest.Object)
	if err != nil {
		f.t.Fatal(err)
	}
	var paths []workv1.JsonPath
	for _, r := range rules {
		paths = append(paths, workv1.JsonPath{Name: r.name, Path: r.path})
	}
	gvk := manifest.GroupVersionKind()
	set := &workv1alpha1.ManifestWorkReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: f.ns, Name: name},
		Spec: workv1alpha1.ManifestWorkReplicaSetSpec{
			PlacementRefs: []workv1alpha1.LocalPlacementReference{{Name: placement}},
			ManifestWorkTemplate: workv1.ManifestWorkSpec{
				Workload: workv1.ManifestsTemplate{Manifests: []workv1.Manifest{{RawExtension: runtime.RawExtension{Raw: raw}}}},
				ManifestConfigs: []workv1.ManifestConfigOption{{
					ResourceIdentifier: workv1.ResourceIdentifier{Group: gvk.Group, Resource: resource, Name: manifest.GetName(), Namespace: manifest.GetNamespace()},
					FeedbackRules:      []workv1.FeedbackRule{{Type: workv1.JSONPathsType, JsonPaths: paths}},
				}},
			},
		},
	}
	if policy != nil {
		p, err := json.Marshal(policy)
		if err != nil {
			f.t.Fatal(err)
		}
		set.Annotations = map[string]string{controllers.FailoverPolicyAnnotation: string(p)}
	}
	if err := f.c.Create(f.ctx, set); err != nil {
		f.t.Fatal(err)
	}
	return set
}

// works returns the set's ManifestWorks by cluster (namespace).
func (f *fixture) works(set *workv1alpha1.ManifestWorkReplicaSet) map[string]*workv1.ManifestWork {
	f.t.Helper()
	list := &workv1.ManifestWorkList{}
	if err := f.c.List(f.ctx, list, client.MatchingLabels{controllers.ReplicaSetUIDLabel: string(set.UID)}); err != nil {
		f.t.Fatal(err)
	}
	out := map[string]*workv1.ManifestWork{}
	for i := range list.Items {
		out[list.Items[i].Namespace] = &list.Items[i]
	}
	return out
}

func workClusters(ws map[string]*workv1.ManifestWork) []string {
	var out []string
	for c := range ws {
		out = append(out, c)
	}
	slices.Sort(out)
	return out
}

// waitWorks waits until the set has works on exactly clusters.
func (f *fixture) waitWorks(set *workv1alpha1.ManifestWorkReplicaSet, what string, clusters ...string) map[string]*workv1.ManifestWork {
	f.t.Helper()
	want := slices.Sorted(slices.Values(clusters))
	var ws map[string]*workv1.ManifestWork
	f.eventually(what, func() (bool, string) {
		ws = f.works(set)
		got := workClusters(ws)
		return slices.Equal(got, want), fmt.Sprintf("works on %v", got)
	})
	return ws
}

// feedback plays the work agent reporting status feedback for the first
// manifest of the set's work on cluster.
func (f *fixture) feedback(set *workv1alpha1.ManifestWorkReplicaSet, cluster string, values map[string]any) {
	f.t.Helper()
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		mw := f.works(set)[cluster]
		if mw == nil {
			return fmt.Errorf("no work on %s", cluster)
		}
		var fv []workv1.FeedbackValue
		for _, name := range slices.Sorted(mapsKeys(values)) {
			v := workv1.FeedbackValue{Name: name}
			switch x := values[name].(type) {
			case int:
				v.Value = workv1.FieldValue{Type: workv1.Integer, Integer: ptrInt64(int64(x))}
			case string:
				v.Value = workv1.FieldValue{Type: workv1.String, String: &x}
			case bool:
				v.Value = workv1.FieldValue{Type: workv1.Boolean, Boolean: &x}
			}
			fv = append(fv, v)
		}
		now := metav1.NewTime(f.clock.Now())
		mw.Status.ResourceStatus.Manifests = []workv1.ManifestCondition{{
			ResourceMeta:    workv1.ManifestResourceMeta{Ordinal: 0},
			StatusFeedbacks: workv1.StatusFeedbackResult{Values: fv},
			Conditions: []metav1.Condition{{Type: workv1.ManifestAvailable, Status: metav1.ConditionTrue,
				Reason: "ResourceAvailable", Message: "test", LastTransitionTime: now}},
		}}
		return f.c.Status().Update(f.ctx, mw)
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

func mapsKeys(m map[string]any) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func ptrInt64(v int64) *int64 { return &v }

// workManifest decodes the first manifest of a work.
func workManifest(mw *workv1.ManifestWork) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	_ = u.UnmarshalJSON(mw.Spec.Workload.Manifests[0].Raw)
	return u
}

// deployment is a Deployment manifest with its status feedback rules: what
// the Deployment health rule reads, generation included.
func deployment(ns, name string, replicas int64) (*unstructured.Unstructured, []feedbackRule) {
	u := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"namespace": ns, "name": name},
		"spec": map[string]any{
			"replicas": replicas,
			"selector": map[string]any{"matchLabels": map[string]any{"app": name}},
			"template": map[string]any{
				"metadata": map[string]any{"labels": map[string]any{"app": name}},
				"spec":     map[string]any{"containers": []any{map[string]any{"name": "app", "image": "nginx"}}},
			},
		},
	}}
	return u, []feedbackRule{
		{"generation", ".metadata.generation"},
		{"observedGeneration", ".status.observedGeneration"},
		{"updatedReplicas", ".status.updatedReplicas"},
		{"availableReplicas", ".status.availableReplicas"},
	}
}

// deploymentStatus is the feedback of a Deployment with available of its
// replicas available.
func deploymentStatus(replicas, available int) map[string]any {
	return map[string]any{"generation": 1, "observedGeneration": 1, "updatedReplicas": replicas, "availableReplicas": available}
}

func keyOf(o client.Object) client.ObjectKey { return client.ObjectKeyFromObject(o) }

// neverTogether watches, until the test ends, that the set never has a work
// on b while its work on a exists (deleting or not): two copies of a
// single-writer workload would run.
func (f *fixture) neverTogether(set *workv1alpha1.ManifestWorkReplicaSet, a, b string) {
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			list := &workv1.ManifestWorkList{}
			if err := f.c.List(context.Background(), list, client.MatchingLabels{controllers.ReplicaSetUIDLabel: string(set.UID)}); err == nil {
				seen := map[string]bool{}
				for i := range list.Items {
					seen[list.Items[i].Namespace] = true
				}
				if seen[a] && seen[b] {
					f.t.Errorf("works on %s and %s at the same time: two copies of a single-writer workload", a, b)
					return
				}
			}
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()
	f.t.Cleanup(func() { close(done); <-stopped })
}
