package controllers_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	workv1 "open-cluster-management.io/api/work/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/fencing"

	"github.com/fleetover/fleetover/examples/ocm/controllers"
)

// newAgent starts an emulated work agent for cluster, cut off the hub
// while cut is set.
func (f *fixture) newAgent(cluster string, fence time.Duration, cut *atomic.Bool) *controllers.WorkAgent {
	f.t.Helper()
	a := &controllers.WorkAgent{
		Cluster: cluster, Hub: f.c, Member: controllers.NewMemberCluster(), Clock: f.clock,
		Fence: fencing.Config{FenceAfter: fence}, Reachable: func() bool { return !cut.Load() },
	}
	if err := a.Validate(); err != nil {
		f.t.Fatal(err)
	}
	return a
}

// syncAgents runs one pass of every agent.
func (f *fixture) syncAgents(agents ...*controllers.WorkAgent) {
	f.t.Helper()
	for _, a := range agents {
		if _, err := a.Sync(f.ctx); err != nil {
			f.t.Fatalf("agent of %s: %v", a.Cluster, err)
		}
	}
}

// stepAgents steps the clock by step until t, running the agents after
// each step and check, which fails the test when two copies would write.
func (f *fixture) stepAgents(t time.Time, step time.Duration, check func(), agents ...*controllers.WorkAgent) {
	f.t.Helper()
	for f.clock.Now().Before(t) {
		f.stepTo(minTime(t, f.clock.Now().Add(step)))
		f.syncAgents(agents...)
		check()
	}
}

func minTime(a, b time.Time) time.Time {
	if a.Before(b) {
		return a
	}
	return b
}

// setFencingEpoch writes the failover state of an earlier life of the
// workload: its failovers so far gave its copies epochs up to epoch.
func (f *fixture) setFencingEpoch(placement string, epoch int64) {
	f.t.Helper()
	raw, err := json.Marshal(controllers.FailoverState{Version: controllers.FailoverStateVersion, FencingEpoch: epoch})
	if err != nil {
		f.t.Fatal(err)
	}
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		pd := f.decision(placement)
		if pd.Annotations == nil {
			pd.Annotations = map[string]string{}
		}
		pd.Annotations[controllers.FailoverStateAnnotation] = string(raw)
		return f.c.Update(f.ctx, pd)
	}); err != nil {
		f.t.Fatal(err)
	}
}

// Story 8: a partition, not an outage. The work agent of the Flink job's
// cluster is cut off the hub: it cannot renew its lease, and the hub
// cannot confirm that the old copy is gone. The agent fences through the
// library (fencing.Decide: two minutes after its last renewal it suspends
// the job); the hub, told of the fence by the agent's declaration on its
// ManagedCluster, gives up on the old copy only FenceAfter + skew + margin
// (or the escape timeout, if longer) after the lease was last renewed, so
// the new copy starts after the fence and never while the old one runs,
// with the job id and the next fencing epoch. When the partition heals the
// agent removes the old copy instead of resuming it.
func TestStory8PartitionedAgentFencesBeforeTheNewCopy(t *testing.T) {
	const fenceAfter = 2 * time.Minute
	const escape = 3 * time.Minute
	f := newFixture(t, func(c *controllers.Config) {
		outageConfig(c)
		c.StatefulFailoverInjection = true
		c.AgentFenceAfter = fenceAfter
		c.Assess.DirectlyEscapeTimeout = escape
	})
	f.start()
	down, spare := f.clusterName("a"), f.clusterName("b")
	f.joinTrackedClusters(down, spare)
	var cut, never atomic.Bool
	agentDown, agentSpare := f.newAgent(down, fenceAfter, &cut), f.newAgent(spare, fenceAfter, &never)
	agents := []*controllers.WorkAgent{agentDown, agentSpare}

	// The job has failed over four times before: its copies carry epoch 4.
	f.createPlacement("flink")
	f.decide("flink", down)
	f.setFencingEpoch("flink", 4)
	manifest, rules := flinkDeployment(f.ns, "orders")
	set := f.createSet("orders", "flink", manifest, "flinkdeployments", rules, directlyKeepingJobID())
	old := f.waitWorks(set, "work on the first cluster", down)[down]
	if old.Labels[fencing.SingleWriterLabel] != "true" {
		t.Fatalf("the single-writer work is not marked for the agent: labels %v", old.Labels)
	}
	f.syncAgents(agents...)
	running := func() bool {
		obj := agentDown.Member.Get(f.ns, "orders")
		return obj != nil && !fencing.Stopped(obj, fencing.MethodSuspend)
	}
	if !running() {
		t.Fatal("the agent did not apply the job on its cluster")
	}
	f.eventually("the agent's fence declared", func() (bool, string) {
		got := f.managedCluster(down).Annotations[fencing.FenceAfterAnnotation]
		return got == fenceAfter.String(), got
	})
	f.feedback(set, down, map[string]any{"jobId": "4f6a2c9e0b1d", "jobState": "RUNNING", "lifecycleState": "STABLE"})

	// Never two writers: whenever a work exists on spare, the job on down
	// is stopped.
	newCopyAt := time.Time{}
	check := func() {
		if _, ok := f.works(set)[spare]; !ok {
			return
		}
		if newCopyAt.IsZero() {
			newCopyAt = f.clock.Now()
		}
		if running() {
			t.Fatalf("at +%s a copy on %s was dispatched while the job on %s still runs", f.clock.Now().Sub(epoch), spare, down)
		}
	}

	// The partition: down's agent cannot renew from now on.
	cut.Store(true)
	lastRenewal := agentDown.State().LastRenewal
	f.stepAgents(f.clock.Now().Add(45*time.Second), 5*time.Second, check, agents...)
	noNew := f.waitTaint(down, clusterv1.ManagedClusterTaintUnreachable, clusterv1.TaintEffectNoSelectIfNew)
	f.stepAgents(noNew.TimeAdded.Add(time.Minute), 5*time.Second, check, agents...)
	f.waitTaint(down, clusterv1.ManagedClusterTaintUnreachable, clusterv1.TaintEffectNoSelect)
	f.waitDecision("flink", "job placed on the spare cluster", spare)
	f.eventually("old work being deleted, held by the cut-off agent", func() (bool, string) {
		mw := &workv1.ManifestWork{}
		err := f.c.Get(f.ctx, keyOf(old), mw)
		return err == nil && !mw.DeletionTimestamp.IsZero(), fmt.Sprintf("%v", err)
	})
	st := f.failoverState("flink")
	if len(st.Tasks) != 1 || st.Tasks[0].FencingEpoch != 5 || st.FencingEpoch != 5 {
		t.Fatalf("the failover's task does not carry epoch 5: %+v", st)
	}

	// Until the fence, the old job runs and nothing is dispatched.
	fenceAt := lastRenewal.Add(fenceAfter)
	if !f.clock.Now().Before(fenceAt) {
		t.Fatalf("the story reached the fence (%s) before the failover (%s)", fenceAt.Sub(epoch), f.clock.Now().Sub(epoch))
	}
	f.stepAgents(fenceAt.Add(-time.Second), time.Second, check, agents...)
	if !running() || !newCopyAt.IsZero() {
		t.Fatalf("before the fence: job running %v, new copy at %v", running(), newCopyAt)
	}
	f.stepAgents(fenceAt, time.Second, check, agents...)
	if running() {
		t.Fatalf("the agent did not fence %s after its last renewal", fenceAfter)
	}
	if obj := agentDown.Member.Get(f.ns, "orders"); obj == nil || obj.Object["spec"].(map[string]any)["job"].(map[string]any)["state"] != "suspended" {
		t.Fatalf("the fenced job is not suspended: %v", obj)
	}

	// The hub gives up on the old copy once the fence is surely over:
	// the escape timeout (3m, longer than the fence wait of 2m40s) from
	// the last renewal it saw.
	giveUp := lastRenewal.Add(max(escape, eviction.FencedEscapeWait(fenceAfter, eviction.AssessOptions{})))
	f.stepAgents(giveUp.Add(-time.Second), 5*time.Second, check, agents...)
	if got := workClusters(f.works(set)); len(got) != 1 || got[0] != down {
		t.Fatalf("new copy dispatched before the hub's wait for the fence ended: works on %v", got)
	}
	f.stepAgents(giveUp, time.Second, check, agents...)
	var ws map[string]*workv1.ManifestWork
	f.eventually("new copy dispatched after the fence", func() (bool, string) {
		ws = f.works(set)
		_, ok := ws[spare]
		return ok, fmt.Sprintf("works on %v", workClusters(ws))
	})
	check()
	labels := workManifest(ws[spare]).GetLabels()
	if labels[jobIDLabel] != "4f6a2c9e0b1d" || labels[eviction.FencingEpochLabel] != "5" {
		t.Fatalf("new copy's labels %v: want the old job id and fencing epoch 5", labels)
	}
	f.syncAgents(agents...)
	if obj := agentSpare.Member.Get(f.ns, "orders"); obj == nil || obj.GetLabels()[eviction.FencingEpochLabel] != "5" {
		t.Fatalf("the job on %s does not run with epoch 5: %v", spare, obj)
	}

	// The partition heals: the agent hears the hub, finds its work being
	// deleted, removes the job and lets the work go; it resumes nothing.
	cut.Store(false)
	f.stepAgents(f.clock.Now().Add(5*time.Second), 5*time.Second, check, agents...)
	f.eventually("old work gone", func() (bool, string) {
		_, ok := f.works(set)[down]
		return !ok, "still there"
	})
	f.stepAgents(f.clock.Now().Add(30*time.Second), 5*time.Second, check, agents...)
	if obj := agentDown.Member.Get(f.ns, "orders"); obj != nil {
		t.Fatalf("the old job came back on %s after the partition: %v", down, obj)
	}
}

// A fence that does not fit the escape is refused at start-up.
func TestStory8EscapeShorterThanTheFenceIsRefused(t *testing.T) {
	f := newFixture(t, func(c *controllers.Config) {
		c.AgentFenceAfter = 5 * time.Minute
		c.Assess.DirectlyEscapeTimeout = 4 * time.Minute
	})
	mgr, err := ctrl.NewManager(restConfig, manager.Options{
		Scheme: testScheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = controllers.Setup(f.ctx, mgr, f.cfg)
	if err == nil || !strings.Contains(err.Error(), "assess.directlyEscapeTimeout") {
		t.Fatal("Setup accepted an escape shorter than the agents' fence")
	}
	t.Log(err)
}
