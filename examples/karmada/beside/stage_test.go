package beside_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
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
	// removed: the stage was removed before its test ended (removeNow),
	// so its cleanup has nothing left to do.
	removed bool
}

func newStage(t testing.TB, cp *beside.ControlPlane, conf beside.Configuration) *stage {
	t.Helper()
	s := &stage{t: t, ctx: t.Context(), cp: cp, conf: conf, c: cp.Client, ns: strings.ToLower(string(conf)) + "-" + rand.String(6)}
	// The members are every stage's: each stage's namespace is made on
	// them by the stage, not propagated by Karmada, which would propagate
	// it to every cluster of every stage. Those copies would be Works of
	// every stage in each cluster's execution namespace, which nothing
	// removes once the stage is over (they are left to the garbage
	// collector of a kube-controller-manager, which does not run here), so
	// that every stage would tie up the removal of the others' clusters
	// and add to the work of every controller of the control plane.
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: s.ns, Labels: map[string]string{policyv1alpha1.NamespaceSkipAutoPropagationLabel: "true"}}}
	if err := s.c.Create(s.ctx, ns); err != nil {
		t.Fatal(err)
	}
	for _, m := range members {
		if err := m.Client.Create(s.ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: s.ns}}); err != nil {
			t.Fatal(err)
		}
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
		s.watchUntil(fmt.Sprintf("cluster %s Ready", name), &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: name}}, func(o client.Object) (bool, string) {
			if o == nil {
				return false, "no cluster"
			}
			cl := o.(*clusterv1alpha1.Cluster)
			return meta.IsStatusConditionTrue(cl.Status.Conditions, clusterv1alpha1.ClusterConditionReady), fmt.Sprintf("%+v", cl.Status.Conditions)
		})
	}
	return s
}

// watchUntil is eventually for one object, followed through a watch
// rather than read at every look: cond is given the object (nil while it
// does not exist).
func (s *stage) watchUntil(what string, obj client.Object, cond func(client.Object) (bool, string)) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(s.ctx, deadline)
	defer cancel()
	last := ""
	err := s.cp.WaitFor(ctx, obj, func(o client.Object) bool {
		ok, obs := cond(o)
		last = obs
		return ok
	})
	if err != nil {
		s.t.Fatalf("[%s] timed out waiting for %s (%v); last seen: %s\nkarmada-controller-manager's log ends:\n%s\nkarmada-scheduler's log ends:\n%s",
			s.conf, what, err, last, s.cp.Log("karmada-controller-manager", 25), s.cp.Log("karmada-scheduler", 15))
	}
}

// cleanupTimeout bounds the removal of what a stage made.
const cleanupTimeout = 2 * time.Minute

// cleanups are the stages' cleanups: TestMain fails the run on their
// errors. Those still running when every scenario is over are stopped
// (end): what they would remove goes with the control planes.
var cleanups = func() *cleanupSet {
	ctx, cancel := context.WithCancel(context.Background())
	return &cleanupSet{ctx: ctx, cancel: cancel}
}()

type cleanupSet struct {
	sync.WaitGroup
	ctx    context.Context
	cancel context.CancelFunc
	mu     sync.Mutex
	errs   []error
}

// end stops the cleanups still running, waits for them, and returns the
// errors of those that ran to their end.
func (c *cleanupSet) end() error {
	c.cancel()
	c.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	return errors.Join(c.errs...)
}

// cleanup removes what the stage made, so that the scenarios after it
// share the control plane and the members with no more than they make
// themselves. It runs beside them, once the scenario is over: the clusters
// first (Karmada deletes the stage's copies from the members it reaches,
// and lets go of those it cannot reach), then the stage's namespace on
// the control plane and on each member (what an unreachable cluster kept).
func (s *stage) cleanup() {
	if s.removed {
		return
	}
	cleanups.Add(1)
	go func() {
		defer cleanups.Done()
		if err := s.remove(cleanupTimeout); err != nil && cleanups.ctx.Err() == nil {
			cleanups.mu.Lock()
			cleanups.errs = append(cleanups.errs, fmt.Errorf("[%s] clean up stage %s: %w\nkarmada-controller-manager's log ends:\n%s", s.conf, s.ns, err, s.cp.Log("karmada-controller-manager", 25)))
			cleanups.mu.Unlock()
		}
	}()
}

// removeNow removes the stage at once, within d, and leaves its cleanup
// nothing to do: a benchmark's stage, whose removal must be over before
// the next benchmark measures on the same cores. What is not removed in d
// is logged, not failed: the measurement is made, and what is left goes
// with the control plane. (An unreachable cluster's Works can take long:
// each failed to delete while the cluster could not be reached, and
// Karmada retries each on its own back-off, up to minutes apart, once the
// Cluster is being deleted.)
func (s *stage) removeNow(d time.Duration) {
	s.t.Helper()
	s.removed = true
	if err := s.remove(d); err != nil {
		s.t.Logf("[%s] stage %s not removed within %s: %v", s.conf, s.ns, d, err)
	}
}

func (s *stage) remove(within time.Duration) error {
	ctx, cancel := context.WithTimeout(cleanups.ctx, within)
	defer cancel()
	errs := make([]error, len(s.clusters))
	var wg sync.WaitGroup
	for i, name := range s.clusters {
		wg.Go(func() { errs[i] = s.cp.Unjoin(ctx, name) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: s.ns}}
	if err := s.c.Delete(ctx, ns); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	for _, m := range members {
		if err := m.Client.Delete(ctx, ns.DeepCopy()); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("namespace %s on a member: %w", s.ns, err)
		}
	}
	return s.gone(ctx, ns)
}

// gone waits until obj no longer exists.
func (s *stage) gone(ctx context.Context, obj client.Object) error {
	if err := s.cp.WaitFor(ctx, obj, func(o client.Object) bool { return o == nil }); err != nil {
		return fmt.Errorf("%T %s still there: %w", obj, obj.GetName(), err)
	}
	return nil
}

// unreachableEndpoint is an API endpoint nothing answers on.
const unreachableEndpoint = "https://127.0.0.1:1"

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

// eventsOf returns the events recorded on the object of the stage's
// namespace named name, as the API server has them.
func (s *stage) eventsOf(name string) []corev1.Event {
	s.t.Helper()
	return s.apiEvents(s.ns, "", name)
}

// apiEvents returns the events the API server holds on the object of kind
// (any kind if empty) named name in namespace ("default" for a
// cluster-scoped object, where the recorders put its events).
func (s *stage) apiEvents(namespace, kind, name string) []corev1.Event {
	s.t.Helper()
	fields := client.MatchingFields{"involvedObject.name": name}
	if kind != "" {
		fields["involvedObject.kind"] = kind
	}
	list := &corev1.EventList{}
	if err := s.c.List(s.ctx, list, client.InNamespace(namespace), fields); err != nil {
		s.t.Fatal(err)
	}
	return list.Items
}

// waitEvent waits until an event on the object of kind named name (in the
// stage's namespace, or cluster-scoped) with reason, and a message that
// matches accepts when given, is recorded: through the API server, or in
// the log of karmada-controller-manager, which logs every event it
// records. Karmada's controllers record several events on an object at
// each look (every sync of a binding, on the binding and on its
// template), so the event a scenario waits for may come after client-go's
// recorder has sent that object's 25 and so never reach the API server
// (ControlPlane.LoggedEvents); the controller did record it.
func (s *stage) waitEvent(kind, name, reason string, accepts func(message string) bool) {
	s.t.Helper()
	namespace := s.ns
	if kind == "Cluster" {
		namespace = metav1.NamespaceDefault
	}
	matches := func(k, n, r, msg string) bool {
		return k == kind && n == name && r == reason && (accepts == nil || accepts(msg))
	}
	s.eventually(fmt.Sprintf("%s on %s %s", reason, kind, name), func() (bool, string) {
		var seen []string
		for _, e := range s.apiEvents(namespace, kind, name) {
			if matches(e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Reason, e.Message) {
				return true, ""
			}
			seen = append(seen, e.Reason)
		}
		logged, err := s.cp.LoggedEvents("karmada-controller-manager")
		if err != nil {
			return false, err.Error()
		}
		for _, e := range logged {
			ns := e.Object.Namespace
			if kind == "Cluster" {
				ns = namespace
			}
			if ns == namespace && matches(e.Object.Kind, e.Object.Name, e.Reason, e.Message) {
				return true, ""
			}
		}
		return false, fmt.Sprintf("through the API server: %v", seen)
	})
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
