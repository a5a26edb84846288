package controllers_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/api/policy/v1alpha1"
	workv1alpha1 "github.com/karmada-io/api/work/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/fencing"

	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// pullAgent plays a Pull-mode cluster's karmada-agent with fencing: it
// renews the cluster's lease while it reaches the control plane, runs the
// binding's Work on its member cluster (holding the Work with
// holdFinalizer while the copy exists), and decides its fence through
// fencing.Decide, stopping the copy the way fencing.Config.StopFor says.
type pullAgent struct {
	f       *fixture
	cluster string
	cfg     fencing.Config
	cut     bool // partitioned: no renewal, nothing read from the control plane
	state   fencing.State
	// copy is the workload on the member cluster (nil: none).
	copy *unstructured.Unstructured
}

// declare writes the agent's fence on its Cluster, as fencing.Declare says.
func (a *pullAgent) declare() {
	a.f.t.Helper()
	key, value := fencing.Declare(a.cfg)
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cl := a.f.cluster(a.cluster)
		if cl.Annotations == nil {
			cl.Annotations = map[string]string{}
		}
		cl.Annotations[key] = value
		return a.f.c.Update(a.f.ctx, cl)
	}); err != nil {
		a.f.t.Fatal(err)
	}
}

// running reports whether the copy on the member cluster runs.
func (a *pullAgent) running() bool {
	return a.copy != nil && !fencing.Stopped(a.copy, fencing.MethodSuspend)
}

// sync is one pass of the agent over rb's Work on its cluster.
func (a *pullAgent) sync(rb client.Object) {
	a.f.t.Helper()
	now := a.f.clock.Now()
	if !a.cut {
		a.f.renewLease(a.cluster)
		a.state.LastRenewal = now
	}
	d := fencing.Decide(a.state, now, a.cfg)
	switch d.Action {
	case fencing.ActionFence:
		if a.copy != nil {
			stop, err := a.cfg.StopFor(a.copy)
			if err != nil || stop.Object == nil {
				a.copy = nil
			} else {
				a.copy = stop.Object
			}
		}
		a.state.FencedAt = now
		return
	case fencing.ActionStayFenced:
		return
	case fencing.ActionResume:
		a.state.FencedAt = time.Time{}
	}
	if a.cut {
		return
	}
	w := a.f.work(rb, a.cluster)
	switch {
	case w == nil:
		a.copy = nil
	case !w.DeletionTimestamp.IsZero():
		// Placed here no more: remove the copy, then let the Work go.
		a.copy = nil
		a.f.releaseWorkOn(rb, a.cluster)
	default:
		if a.copy == nil {
			a.f.holdWorkOn(rb, a.cluster)
		}
		a.copy = manifest(w) // applied, or re-applied on a resume
	}
}

// Story 15: a partition, not an outage, of a Pull-mode cluster running a
// Flink job under purge mode Directly. Its agent cannot renew its lease
// and the control plane cannot confirm the old copy gone. The agent fences
// (eight minutes after its last renewal it suspends the job); the control
// plane, told of the fence by the agent's declaration on its Cluster,
// gives up on the old copy only once the fence is surely over, counted
// from the lease's last renewal (the escape timeout, 10 min, being longer
// than the fence's wait of 8m40s), not from the deletion: the new copy
// starts after the fence, never while the old one runs, with the job id
// and fencing epoch 1. When the partition heals the agent removes the old
// copy instead of resuming it.
func TestStory15PullAgentFencesBeforeTheNewCopy(t *testing.T) {
	t.Parallel()
	const fenceAfter = 8 * time.Minute
	f := newFixture(t, func(c *controllers.Config) {
		c.Prober = newProbes()
		c.ClusterTaints = failover.ClusterTaintConfig{NoExecuteAfterTimeout: true, EvictionTimeout: time.Minute}
		c.StatefulFailoverInjection = true
	})
	f.start()
	pull, spare := f.clusterName("pull"), f.clusterName("spare")
	f.createCluster(pull, clusterv1alpha1.Pull)
	f.createCluster(spare, clusterv1alpha1.Push)
	agent := &pullAgent{f: f, cluster: pull, cfg: fencing.Config{FenceAfter: fenceAfter}}
	if errs := fencing.ValidateConfig(agent.cfg, nil); len(errs) > 0 {
		t.Fatal(errs)
	}
	if errs := eviction.ValidateFencedEscape(f.cfg.Assess, fenceAfter, nil); len(errs) > 0 {
		t.Fatalf("the control plane's escape does not fit the agent's fence: %v", errs)
	}
	agent.declare()
	f.renewLease(pull)
	f.waitReady(pull, metav1.ConditionTrue)
	f.waitReady(spare, metav1.ConditionTrue)

	f.createTemplate(&unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "flink.apache.org/v1beta1",
		"kind":       "FlinkDeployment",
		"metadata":   map[string]any{"name": "orders"},
		"spec":       map[string]any{"image": "flink:1.20", "flinkVersion": "v1_20", "job": map[string]any{"upgradeMode": "last-state"}},
	}})
	f.createBinding(flinkJobBinding(f.ns, "orders", policyv1alpha1.PurgeModeDirectly, workv1alpha2.TargetCluster{Name: pull}))
	rb := f.binding("orders")
	f.waitWork(rb, pull, true)
	agent.sync(rb)
	if !agent.running() {
		t.Fatal("the agent does not run the job")
	}
	f.setHealth("orders", healthItem(pull, "Healthy", map[string]any{
		"jobStatus": map[string]any{"jobId": "9f1e2d3c4b5a", "state": "RUNNING"},
	}))

	// Whenever the new copy's Work exists, the old job is stopped.
	newCopyAt := time.Time{}
	check := func() {
		if f.work(rb, spare) == nil {
			return
		}
		if newCopyAt.IsZero() {
			newCopyAt = f.clock.Now()
		}
		if agent.running() {
			t.Fatalf("at +%s the new copy's Work exists while the job on %s still runs", f.clock.Now().Sub(epoch), pull)
		}
	}
	advance := func(to time.Time) {
		t.Helper()
		for f.clock.Now().Before(to) {
			f.stepTo(minTime(to, f.clock.Now().Add(10*time.Second)))
			agent.sync(rb)
			check()
		}
	}

	// The partition: the agent's renewals stop reaching the control plane.
	agent.cut = true
	lastRenewal := agent.state.LastRenewal
	advance(lastRenewal.Add(failover.DefaultClusterMonitorGracePeriod))
	f.waitReady(pull, metav1.ConditionUnknown)
	key := types.NamespacedName{Name: pull}
	// NoExecute follows the eviction timeout (1 min) after Ready left True.
	ready := meta.FindStatusCondition(f.cluster(pull).Status.Conditions, clusterv1alpha1.ClusterConditionReady)
	noExecute := ready.LastTransitionTime.Add(time.Minute)
	f.eventually("unreachable NoExecute deadline", func() (bool, string) {
		at, ok := f.ctrls.ClusterHealth.Schedule.Pending(key)
		return ok && at.Equal(noExecute), at.String()
	})
	advance(noExecute)
	f.eventually("unreachable NoExecute taint", func() (bool, string) {
		cl := f.cluster(pull)
		return hasTaint(cl, clusterv1alpha1.TaintClusterUnreachable, string(corev1.TaintEffectNoExecute)), "taints " + taintString(cl)
	})
	evictAt := f.waitPending("toleration deadline", f.ctrls.TaintManager.Schedule, key)
	advance(evictAt)
	rb = f.waitBinding("orders", "job placed on the spare cluster", func(rb *workv1alpha2.ResourceBinding) bool {
		return slices.Equal(clusterNames(rb), []string{spare}) && slices.Equal(taskClusters(rb), []string{pull})
	})
	if got := rb.Spec.GracefulEvictionTasks[0].PreservedLabelState; got[jobIDLabel] != "9f1e2d3c4b5a" || got[eviction.FencingEpochLabel] != "1" {
		t.Fatalf("the eviction task carries %v: want the job id and fencing epoch 1", got)
	}
	f.eventually("old Work terminating, held by the cut-off agent", func() (bool, string) {
		w := f.work(rb, pull)
		return w != nil && !w.DeletionTimestamp.IsZero(), fmt.Sprintf("work %v", w != nil)
	})

	// The eviction came before the fence: the old job still runs, and the
	// new copy is held back.
	fenceAt := lastRenewal.Add(fenceAfter)
	if !f.clock.Now().Before(fenceAt) || !agent.running() {
		t.Fatalf("at +%s (fence at +%s) the job runs: %v", f.clock.Now().Sub(epoch), fenceAt.Sub(epoch), agent.running())
	}
	f.eventually("the new Work held back", func() (bool, string) {
		held := f.ctrls.Dispatcher.Held(client.ObjectKeyFromObject(rb))
		return slices.Equal(held, []string{spare}), fmt.Sprintf("held %v", held)
	})
	advance(fenceAt)
	if agent.running() {
		t.Fatalf("the agent did not fence %s after its last renewal", fenceAfter)
	}

	// The control plane gives up on the old copy once the fence is surely
	// over: the escape timeout (10 min, longer than the fence's wait of
	// 8m40s) after the lease's last renewal.
	giveUp := lastRenewal.Add(max(eviction.DefaultDirectlyEscapeTimeout, eviction.FencedEscapeWait(fenceAfter, eviction.AssessOptions{})))
	advance(giveUp.Add(-10 * time.Second))
	if !newCopyAt.IsZero() {
		t.Fatalf("new copy at +%s, before the wait for the fence ended at +%s", newCopyAt.Sub(epoch), giveUp.Sub(epoch))
	}
	advance(giveUp)
	var newWork *workv1alpha1.Work
	f.eventually("the new copy's Work once the fence is surely over", func() (bool, string) {
		newWork = f.work(rb, spare)
		b := f.binding("orders")
		var stamps []string
		for _, task := range b.Spec.GracefulEvictionTasks {
			stamps = append(stamps, fmt.Sprintf("%s@%v", task.FromCluster, task.CreationTimestamp))
		}
		return newWork != nil, fmt.Sprintf("now +%s, held %v, tasks %v, ready %s", f.clock.Now().Sub(epoch),
			f.ctrls.Dispatcher.Held(client.ObjectKeyFromObject(rb)), stamps, readyStatus(f.cluster(pull)))
	})
	check()
	labels := manifest(newWork).GetLabels()
	if labels[jobIDLabel] != "9f1e2d3c4b5a" || labels[eviction.FencingEpochLabel] != "1" {
		t.Fatalf("new copy's labels %v: want the old job id and fencing epoch 1", labels)
	}

	// The partition heals: the agent finds its Work terminating, removes
	// the job and lets the Work go; it resumes nothing.
	agent.cut = false
	advance(f.clock.Now().Add(10 * time.Second))
	f.waitWork(rb, pull, false)
	advance(f.clock.Now().Add(30 * time.Second))
	if agent.copy != nil {
		t.Fatalf("the old job came back on %s after the partition: %v", pull, agent.copy)
	}
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}
