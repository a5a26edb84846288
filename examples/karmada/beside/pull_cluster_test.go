package beside_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/api/policy/v1alpha1"
	workv1alpha1 "github.com/karmada-io/api/work/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/fencing"

	"github.com/fleetover/fleetover/examples/karmada/beside"
	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// pullAgent stands in for the karmada-agent of a Pull-mode cluster that
// fences itself: while it reaches the control plane it renews its
// cluster's Lease in karmada-cluster, posts its cluster Ready with the
// Deployment API enabled, and lets go of a deleted Work of its execution
// namespace (the finalizer Karmada's binding controller puts on every
// Work), as the agent's execution controller does once it has deleted the
// copy. The cluster declares a fence (fencing.FenceAfterAnnotation). It
// runs no member API server: nothing here needs the copy itself.
type pullAgent struct {
	s    *stage
	name string

	mu     sync.Mutex
	silent bool
}

// executionFinalizer is the finalizer Karmada's binding controller puts on
// a Work and the execution controller of the cluster's side removes.
const executionFinalizer = "karmada.io/execution-controller"

// pullCluster joins a Pull-mode cluster named after the stage, in its zone,
// with its agent running until the stage ends.
func (s *stage) pullCluster(fence fencing.Config) *pullAgent {
	s.t.Helper()
	a := &pullAgent{s: s, name: s.ns + "-pull"}
	key, value := fencing.Declare(fence)
	cl := &clusterv1alpha1.Cluster{
		ObjectMeta: metav1.ObjectMeta{
			Name:        a.name,
			Labels:      map[string]string{"fleetover.test/stage": s.ns},
			Annotations: map[string]string{key: value},
		},
		Spec: clusterv1alpha1.ClusterSpec{SyncMode: clusterv1alpha1.Pull, Zone: s.ns},
	}
	if err := s.c.Create(s.ctx, cl); err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() {
		ctx := context.Background()
		_ = s.c.Delete(ctx, &clusterv1alpha1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: a.name}})
		_ = s.c.Delete(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: beside.NamespaceCluster, Name: a.name}})
	})
	ctx, cancel := context.WithCancel(s.ctx)
	done := make(chan struct{})
	s.t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			if !a.isSilent() {
				// A failed pass is tried again on the next tick, as the
				// agent's own loops would; the test's waits see the rest.
				_ = a.pass(ctx)
			}
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	s.eventually("Pull cluster "+a.name+" Ready", func() (bool, string) {
		c := meta.FindStatusCondition(s.cluster(a.name).Status.Conditions, clusterv1alpha1.ClusterConditionReady)
		return c != nil && c.Status == metav1.ConditionTrue, fmt.Sprint(c)
	})
	return a
}

// silence stops (true) or resumes (false) the agent: a silent agent
// neither renews nor posts anything, as one cut off from the control plane.
func (a *pullAgent) silence(silent bool) {
	a.mu.Lock()
	a.silent = silent
	a.mu.Unlock()
}

func (a *pullAgent) isSilent() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.silent
}

// pass is one round of the agent: renew the Lease, post Ready, let go of
// deleted Works.
func (a *pullAgent) pass(ctx context.Context) error {
	c := a.s.c
	now := metav1.NewMicroTime(time.Now())
	lease := &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Namespace: beside.NamespaceCluster, Name: a.name}}
	if _, err := controllerutil.CreateOrUpdate(ctx, c, lease, func() error {
		lease.Spec.HolderIdentity = ptr.To(a.name)
		lease.Spec.LeaseDurationSeconds = ptr.To[int32](40)
		lease.Spec.RenewTime = &now
		return nil
	}); err != nil {
		return err
	}
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cl := &clusterv1alpha1.Cluster{}
		if err := c.Get(ctx, client.ObjectKey{Name: a.name}, cl); err != nil {
			return err
		}
		if ready := meta.FindStatusCondition(cl.Status.Conditions, clusterv1alpha1.ClusterConditionReady); ready != nil &&
			ready.Status == metav1.ConditionTrue && len(cl.Status.APIEnablements) > 0 {
			return nil
		}
		meta.SetStatusCondition(&cl.Status.Conditions, metav1.Condition{
			Type: clusterv1alpha1.ClusterConditionReady, Status: metav1.ConditionTrue,
			Reason: "ClusterReady", Message: "the agent reaches its cluster's API server",
		})
		cl.Status.APIEnablements = []clusterv1alpha1.APIEnablement{{
			GroupVersion: "apps/v1",
			Resources:    []clusterv1alpha1.APIResource{{Name: "deployments", Kind: "Deployment"}},
		}}
		return c.Status().Update(ctx, cl)
	}); err != nil {
		return err
	}
	works := &workv1alpha1.WorkList{}
	if err := c.List(ctx, works, client.InNamespace(a.executionNamespace())); err != nil {
		return err
	}
	for i := range works.Items {
		w := &works.Items[i]
		if w.DeletionTimestamp == nil || !controllerutil.RemoveFinalizer(w, executionFinalizer) {
			continue
		}
		if err := c.Update(ctx, w); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
	}
	return nil
}

// executionNamespace is where Karmada keeps the cluster's Works.
func (a *pullAgent) executionNamespace() string { return controllers.ExecutionNamespace(a.name) }

// work returns the cluster's Work of the Deployment name, or nil.
func (a *pullAgent) work(name string) *workv1alpha1.Work {
	a.s.t.Helper()
	works := &workv1alpha1.WorkList{}
	if err := a.s.c.List(a.s.ctx, works, client.InNamespace(a.executionNamespace())); err != nil {
		a.s.t.Fatal(err)
	}
	for i := range works.Items {
		w := &works.Items[i]
		if slices.ContainsFunc(w.Spec.Workload.Manifests, func(m workv1alpha1.Manifest) bool {
			var obj metav1.PartialObjectMetadata
			return json.Unmarshal(m.Raw, &obj) == nil && obj.Namespace == a.s.ns && obj.Name == name
		}) {
			return w
		}
	}
	return nil
}

// taskFrom returns the binding's eviction task from cluster, or nil.
func taskFrom(rb *workv1alpha2.ResourceBinding, cluster string) *workv1alpha2.GracefulEvictionTask {
	if rb == nil {
		return nil
	}
	i := slices.IndexFunc(rb.Spec.GracefulEvictionTasks, func(t workv1alpha2.GracefulEvictionTask) bool { return t.FromCluster == cluster })
	if i < 0 {
		return nil
	}
	return &rb.Spec.GracefulEvictionTasks[i]
}

// A Pull-mode cluster's agent goes silent (its Lease is no longer
// renewed: Karmada's cluster controller marks the cluster Ready Unknown),
// and a NoExecute taint evicts a Directly workload from it. Its Work there
// cannot be confirmed gone: Karmada's binding controller deletes it, and
// only the silent agent would let go of it. Karmada alone starts the new
// copy once the eviction task times out (--graceful-eviction-timeout),
// while the old copy may still run on the silent cluster. Beside it,
// fleetover keeps the task past that timeout, so the new copy waits,
// reading the fence the cluster declares and when its agent last renewed
// its Lease (the escape of a fencing member counts from there); when the
// agent comes back and lets go of the old Work, the task goes
// (PurgedDirectly) and the new copy starts.
func TestPullClusterSilentAgentDirectly(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, s *stage) {
		agent := s.pullCluster(fencing.Config{FenceAfter: 20 * time.Second})
		spare := s.clusters[1]
		// The first placement goes to the Pull cluster: the spare is
		// kept out until then.
		notYet := corev1.Taint{Key: "fleetover.test/not-yet", Effect: corev1.TaintEffectNoSchedule}
		s.taint(spare, notYet, true)
		s.deployment("web", 1, "nginx:1.19.0")
		s.policy("web", policyv1alpha1.Placement{
			ClusterAffinity:    &policyv1alpha1.ClusterAffinity{ClusterNames: []string{agent.name, spare}},
			ClusterTolerations: []corev1.Toleration{failTestToleration()},
			SpreadConstraints: []policyv1alpha1.SpreadConstraint{{
				SpreadByField: policyv1alpha1.SpreadByFieldCluster, MaxGroups: 1, MinGroups: 1,
			}},
		}, &policyv1alpha1.FailoverBehavior{
			Cluster: &policyv1alpha1.ClusterFailoverBehavior{PurgeMode: policyv1alpha1.PurgeModeDirectly},
		})
		if got := s.waitScheduled("web", 1); got[0] != agent.name {
			t.Fatalf("web scheduled to %v, want the Pull cluster %s", got, agent.name)
		}
		s.eventually("web's Work on "+agent.name, func() (bool, string) {
			return agent.work("web") != nil, "none"
		})
		s.taint(spare, notYet, false)

		agent.silence(true)
		s.eventually(agent.name+" Ready Unknown", func() (bool, string) {
			c := meta.FindStatusCondition(s.cluster(agent.name).Status.Conditions, clusterv1alpha1.ClusterConditionReady)
			return c != nil && c.Status == metav1.ConditionUnknown, fmt.Sprint(c)
		})
		s.taint(agent.name, failTest, true)
		s.eventually("web rescheduled to "+spare, func() (bool, string) {
			now := s.targets("web")
			return slices.Equal(now, []string{spare}), fmt.Sprint(now)
		})
		s.eventually("web's Work on the silent "+agent.name+" deleted and held", func() (bool, string) {
			w := agent.work("web")
			return w != nil && w.DeletionTimestamp != nil, fmt.Sprint(w != nil)
		})

		if s.conf == beside.KarmadaAlone {
			s.eventually("the new copy on "+spare+" while the old Work is held", func() (bool, string) {
				w := agent.work("web")
				return s.onMember(spare, "web") != nil && w != nil, fmt.Sprintf("held=%t", w != nil)
			})
			if task := taskFrom(s.binding("web"), agent.name); task != nil {
				t.Errorf("the new copy started with the Directly task from %s still on the binding", agent.name)
			}
			agent.silence(false)
			return
		}
		// Past the point where Karmada's own task would have timed out
		// (--graceful-eviction-timeout, 30 s here, from the task's stamp),
		// the task and the hold are still there.
		s.eventuallyWithin(2*deadline, "the Directly task outliving --graceful-eviction-timeout", func() (bool, string) {
			task := taskFrom(s.binding("web"), agent.name)
			if task == nil {
				t.Fatalf("fleetover dropped the Directly task from %s while its Work is held there; events: %v",
					agent.name, reasons(s.eventsOf(s.binding("web").Name)))
			}
			return task.CreationTimestamp != nil && time.Since(task.CreationTimestamp.Time) > 35*time.Second, fmt.Sprint(task.CreationTimestamp)
		})
		if s.onMember(spare, "web") != nil {
			t.Fatalf("the new copy started on %s while the old Work on the silent %s is held", spare, agent.name)
		}
		agent.silence(false)
		s.eventually("the Directly task removed once the agent let go of the old Work", func() (bool, string) {
			return taskFrom(s.binding("web"), agent.name) == nil && agent.work("web") == nil, "task or Work still there"
		})
		s.waitReady(spare, "web")
		s.eventually("the task's removal said why", func() (bool, string) {
			evs := reasons(s.eventsOf(s.binding("web").Name))
			return slices.Contains(evs, "ResourceBinding/"+string(eviction.RemovedPurgedDirectly)), fmt.Sprint(evs)
		})
	})
}
