package beside_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/api/policy/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/examples/karmada/beside"
)

// stage is one scenario's part of a control plane: a namespace of its
// own and a cluster of its own per member, named after the namespace, so
// scenarios run side by side on one control plane and the same members.
type stage struct {
	t    testing.TB
	ctx  context.Context
	cp   *beside.ControlPlane
	conf beside.Configuration
	c    client.Client
	ns   string
	// clusters are the stage's clusters; clusters[i] is on members[i].
	clusters []string
}

func newStage(t testing.TB, cp *beside.ControlPlane, conf beside.Configuration) *stage {
	t.Helper()
	s := &stage{t: t, ctx: t.Context(), cp: cp, conf: conf, c: cp.Client, ns: strings.ToLower(string(conf)) + "-" + rand.String(6)}
	if err := s.c.Create(s.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: s.ns}}); err != nil {
		t.Fatal(err)
	}
	for i, m := range members {
		name := fmt.Sprintf("%s-m%d", s.ns, i+1)
		// The stage's clusters are a zone of their own: fleetover paces
		// evictions per zone (--fleetover-pace-by-zone), so the scenarios
		// beside it on the same control plane do not count in its fleet's
		// health, as if each had a control plane of its own, as in
		// Karmada's e2e. Karmada ignores the zone here.
		if err := m.Join(s.ctx, cp, name, s.ns, map[string]string{"fleetover.test/stage": s.ns}); err != nil {
			t.Fatal(err)
		}
		s.clusters = append(s.clusters, name)
	}
	t.Cleanup(s.cleanup)
	for _, name := range s.clusters {
		s.eventually(fmt.Sprintf("cluster %s Ready", name), func() (bool, string) {
			cl := s.cluster(name)
			c := meta.FindStatusCondition(cl.Status.Conditions, clusterv1alpha1.ClusterConditionReady)
			return c != nil && c.Status == metav1.ConditionTrue, fmt.Sprintf("%+v", cl.Status.Conditions)
		})
	}
	return s
}

// cleanup removes what the stage made, so the members keep nothing of it:
// the workloads first (Karmada deletes their copies), then the clusters.
func (s *stage) cleanup() {
	ctx := context.Background()
	_ = s.c.DeleteAllOf(ctx, &policyv1alpha1.PropagationPolicy{}, client.InNamespace(s.ns))
	_ = s.c.DeleteAllOf(ctx, &appsv1.Deployment{}, client.InNamespace(s.ns))
	for _, name := range s.clusters {
		_ = s.c.Delete(ctx, &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}})
		_ = s.c.Delete(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: beside.NamespaceCluster, Name: name}})
	}
	_ = s.c.Delete(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: s.ns}})
}

// eventually checks cond every quarter second until it holds, or fails
// the test with the last observation and the components' logs after the
// deadline. Karmada's controllers run on the real clock.
func (s *stage) eventually(what string, cond func() (bool, string)) {
	s.t.Helper()
	s.eventuallyWithin(deadline, what, cond)
}

// eventuallyWithin is eventually with a deadline of its own, for a wait
// whose length grows with the work (a failover of many bindings, paced).
func (s *stage) eventuallyWithin(d time.Duration, what string, cond func() (bool, string)) {
	s.t.Helper()
	end := time.Now().Add(d)
	last := ""
	for {
		ok, obs := cond()
		if ok {
			return
		}
		last = obs
		if time.Now().After(end) {
			s.t.Fatalf("[%s] timed out waiting for %s; last seen: %s\nkarmada-controller-manager's log ends:\n%s\nkarmada-scheduler's log ends:\n%s",
				s.conf, what, last, s.cp.Log("karmada-controller-manager", 25), s.cp.Log("karmada-scheduler", 15))
		}
		select {
		case <-s.ctx.Done():
			s.t.Fatalf("[%s] %s: test ended", s.conf, what)
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func (s *stage) cluster(name string) *clusterv1alpha1.Cluster {
	s.t.Helper()
	cl := &clusterv1alpha1.Cluster{}
	if err := s.c.Get(s.ctx, client.ObjectKey{Name: name}, cl); err != nil {
		s.t.Fatal(err)
	}
	return cl
}

// member returns the member cluster the stage's cluster name runs on.
func (s *stage) member(name string) *beside.Member {
	s.t.Helper()
	i := slices.Index(s.clusters, name)
	if i < 0 {
		s.t.Fatalf("%s is not one of the stage's clusters %v", name, s.clusters)
	}
	return members[i]
}

// deployment creates a Deployment template in the stage's namespace.
func (s *stage) deployment(name string, replicas int32, image string) *appsv1.Deployment {
	s.t.Helper()
	labels := map[string]string{"app": name}
	d := &appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"},
		ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: image}}},
			},
		},
	}
	if err := s.c.Create(s.ctx, d); err != nil {
		s.t.Fatal(err)
	}
	return d
}

// policy creates a PropagationPolicy of the Deployment name with the
// placement and failover behaviour given, and then what edits set.
func (s *stage) policy(name string, placement policyv1alpha1.Placement, fb *policyv1alpha1.FailoverBehavior, edits ...func(*policyv1alpha1.PropagationPolicy)) *policyv1alpha1.PropagationPolicy {
	s.t.Helper()
	p := &policyv1alpha1.PropagationPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: name},
		Spec: policyv1alpha1.PropagationSpec{
			ResourceSelectors: []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", Name: name}},
			Placement:         placement,
			Failover:          fb,
			// karmada-webhook refuses application failover without it.
			PropagateDeps: fb != nil && fb.Application != nil,
		},
	}
	for _, edit := range edits {
		edit(p)
	}
	if err := s.c.Create(s.ctx, p); err != nil {
		s.t.Fatal(err)
	}
	return p
}

// binding returns the ResourceBinding Karmada made for the Deployment
// name, or nil when there is none yet.
func (s *stage) binding(name string) *workv1alpha2.ResourceBinding {
	s.t.Helper()
	rb := &workv1alpha2.ResourceBinding{}
	err := s.c.Get(s.ctx, client.ObjectKey{Namespace: s.ns, Name: name + "-deployment"}, rb)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		s.t.Fatal(err)
	}
	return rb
}

// targets are the clusters the binding of name is scheduled to.
func (s *stage) targets(name string) []string {
	return targetNames(s.binding(name))
}

// targetNames are the clusters rb is scheduled to (none for a nil rb).
func targetNames(rb *workv1alpha2.ResourceBinding) []string {
	if rb == nil {
		return nil
	}
	var out []string
	for _, tc := range rb.Spec.Clusters {
		out = append(out, tc.Name)
	}
	return out
}

// waitScheduled waits until the binding of name is scheduled to n
// clusters and returns them.
func (s *stage) waitScheduled(name string, n int) []string {
	s.t.Helper()
	var got []string
	s.eventually(fmt.Sprintf("%s scheduled to %d cluster(s)", name, n), func() (bool, string) {
		got = s.targets(name)
		return len(got) == n, fmt.Sprint(got)
	})
	return got
}

// onMember returns the copy of the Deployment name on cluster's member,
// or nil.
func (s *stage) onMember(cluster, name string) *appsv1.Deployment {
	s.t.Helper()
	d := &appsv1.Deployment{}
	err := s.member(cluster).Client.Get(s.ctx, client.ObjectKey{Namespace: s.ns, Name: name}, d)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		s.t.Fatal(err)
	}
	return d
}

// waitOnMember waits until the copy of name on cluster exists or not.
func (s *stage) waitOnMember(cluster, name string, exists bool) *appsv1.Deployment {
	s.t.Helper()
	var d *appsv1.Deployment
	s.eventually(fmt.Sprintf("%s on %s exists=%t", name, cluster, exists), func() (bool, string) {
		d = s.onMember(cluster, name)
		return (d != nil) == exists, fmt.Sprintf("present=%t", d != nil)
	})
	return d
}

// waitReady waits until the one-replica Deployment name is ready on
// cluster's member.
func (s *stage) waitReady(cluster, name string) {
	s.t.Helper()
	s.eventually(name+" ready on "+cluster, func() (bool, string) {
		d := s.onMember(cluster, name)
		return d != nil && d.Status.ReadyReplicas == 1, fmt.Sprint(d != nil)
	})
}

// taint adds (or, with add false, removes) a taint on a cluster, added now
// unless the taint says when.
func (s *stage) taint(cluster string, taint corev1.Taint, add bool) {
	s.t.Helper()
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cl := s.cluster(cluster)
		cl.Spec.Taints = slices.DeleteFunc(cl.Spec.Taints, func(t corev1.Taint) bool { return t.MatchTaint(&taint) })
		if add {
			t := taint
			if t.TimeAdded == nil {
				now := metav1.Now()
				t.TimeAdded = &now
			}
			cl.Spec.Taints = append(cl.Spec.Taints, t)
		}
		return s.c.Update(s.ctx, cl)
	}); err != nil {
		s.t.Fatal(err)
	}
}

// eventsOf returns the reasons of the events recorded on the object of the
// stage's namespace named name.
func (s *stage) eventsOf(name string) []corev1.Event {
	s.t.Helper()
	list := &corev1.EventList{}
	if err := s.c.List(s.ctx, list, client.InNamespace(s.ns)); err != nil {
		s.t.Fatal(err)
	}
	var out []corev1.Event
	for _, e := range list.Items {
		if e.InvolvedObject.Name == name {
			out = append(out, e)
		}
	}
	return out
}

// outside reports whether every name is outside of.
func outside(names, of []string) bool {
	for _, n := range names {
		if slices.Contains(of, n) {
			return false
		}
	}
	return true
}

// stageSelector selects the stage's clusters.
func stageSelector(s *stage) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{"fleetover.test/stage": s.ns}}
}
