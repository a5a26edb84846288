package controllers_test

import (
	"bytes"
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/api/policy/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/examples/internal/karmadaflags"
	explainapp "github.com/fleetover/fleetover/examples/karmada/cmd/fleetover-explain/app"
	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// failoverCondition returns the binding's Failover condition, nil when it
// has none.
func failoverCondition(rb *workv1alpha2.ResourceBinding) *metav1.Condition {
	return meta.FindStatusCondition(rb.Status.Conditions, controllers.FailoverConditionType)
}

func failoverString(c *metav1.Condition) string {
	if c == nil {
		return "no Failover condition"
	}
	return fmt.Sprintf("Failover=%s reason %s: %s", c.Status, c.Reason, c.Message)
}

// waitCondition waits until the binding's Failover condition has status
// and reason, and returns it.
func (f *fixture) waitCondition(name string, status metav1.ConditionStatus, reason string) *metav1.Condition {
	f.t.Helper()
	var c *metav1.Condition
	f.eventually(fmt.Sprintf("Failover=%s reason %s", status, reason), func() (bool, string) {
		c = failoverCondition(f.binding(name))
		return c != nil && c.Status == status && c.Reason == reason, failoverString(c)
	})
	return c
}

// explainCommand runs fleetover-explain's logic against the test's API
// server at the fake clock's time, with the controller manager flags
// given, and returns its output and exit code.
func (f *fixture) explainCommand(target string, flags ...string) (string, int) {
	f.t.Helper()
	o := explainapp.NewOptions()
	fs := flagSet(o)
	if err := fs.Parse(append(flags, target)); err != nil {
		f.t.Fatal(err)
	}
	o.Clock = f.clock
	var stdout, stderr bytes.Buffer
	code := explainapp.Run(f.ctx, restConfig, o, fs.Args(), &stdout, &stderr)
	if stderr.Len() > 0 {
		f.t.Logf("fleetover-explain %s: stderr: %s", target, stderr.String())
	}
	return stdout.String(), code
}

// stepLine returns the line of the command's output for step, and whether
// it is marked as the holding step.
func stepLine(out, step string) (string, bool) {
	for _, line := range strings.Split(out, "\n") {
		if len(line) < 2 {
			continue
		}
		if fields := strings.Fields(line[2:]); len(fields) > 0 && fields[0] == step {
			return line, line[0] == '>'
		}
	}
	return "", false
}

func flagSet(o *explainapp.Options) *flag.FlagSet {
	fs := flag.NewFlagSet("fleetover-explain", flag.ContinueOnError)
	o.AddFlags(fs)
	return fs
}

// failoverEvents returns the reasons of the events that announced a new
// Failover reason on the binding.
func (f *fixture) failoverEvents(log *eventLog, name string) []string {
	return reasonsOf(log.of(f.ns+"/"+name, controllers.FailoverChangedAction))
}

// stopWithFailoverEvents waits until the Failover events of name are want,
// stops the controllers, and checks that they still are: exactly those,
// none lost, none added by a reconcile in flight. The event of a change
// follows its condition's write within the same reconcile; stopping as
// soon as the condition shows could cancel that reconcile between the two
// (the write lands, the client sees its context canceled), which is a
// shutdown's loss, not a double or missing announcement.
func (f *fixture) stopWithFailoverEvents(log *eventLog, name string, want []string) {
	f.t.Helper()
	f.eventually(fmt.Sprintf("Failover events of %s %v", name, want), func() (bool, string) {
		got := f.failoverEvents(log, name)
		return slices.Equal(got, want), fmt.Sprint(got)
	})
	f.stopControllers() // waits for every reconcile in flight
	if got := f.failoverEvents(log, name); !slices.Equal(got, want) {
		f.t.Fatalf("Failover events %v, want exactly one per change of reason: %v", got, want)
	}
}

// Story 9: the binding says where its failover stands. A cluster gets a
// NoExecute taint the workload tolerates for a minute: the Failover
// condition says the toleration runs until then (and fleetover-explain
// prints the chain, held at the toleration); when it ends the workload is
// evicted and placed on the healthy cluster, and the condition says the
// old copy waits for the new one to be healthy; once it is, the condition
// turns False. Each change of reason is announced by exactly one event,
// whatever the number of reconciles in between.
func TestStory9FailoverConditionFollowsAnOutage(t *testing.T) {
	t.Parallel()
	events := &eventLog{}
	f := newFixture(t, func(c *controllers.Config) {
		c.Prober = newProbes()
		c.EventRecorder = events
	})
	f.start()
	failing, healthy := f.clusterName("a"), f.clusterName("b")
	f.readyClusters(clusterv1alpha1.Push, failing, healthy)
	f.createTemplate(deployment("web", 2))
	rb := deploymentBinding(f.ns, "web", 2, workv1alpha2.TargetCluster{Name: failing})
	rb.Spec.Placement = &policyv1alpha1.Placement{ClusterTolerations: []corev1.Toleration{{
		Key: "maintenance", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](60),
	}}}
	f.createBinding(rb)
	rb = f.binding("web")
	f.waitWork(rb, failing, true)
	f.setHealth("web", healthItem(failing, "Healthy", nil))
	f.waitBinding("web", "generation observed", func(rb *workv1alpha2.ResourceBinding) bool {
		return rb.Status.SchedulerObservedGeneration == rb.Generation
	})
	target := f.ns + "/web"
	out, code := f.explainCommand(target)
	if code != explainapp.ExitSettled {
		t.Fatalf("fleetover-explain %s exited %d before any fault, want %d:\n%s", target, code, explainapp.ExitSettled, out)
	}
	if line, _ := stepLine(out, controllers.StepWorkload); !strings.Contains(line, controllers.ReasonSettled) {
		t.Fatalf("healthy binding: no settled step in\n%s", out)
	}
	if c := failoverCondition(f.binding("web")); c != nil {
		t.Fatalf("a binding with nothing to explain got %s", failoverString(c))
	}

	// The taint: the toleration runs for a minute.
	taintedAt := f.clock.Now()
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cl := f.cluster(failing)
		at := metav1.NewTime(taintedAt)
		cl.Spec.Taints = append(cl.Spec.Taints, corev1.Taint{Key: "maintenance", Effect: corev1.TaintEffectNoExecute, TimeAdded: &at})
		return f.c.Update(f.ctx, cl)
	}); err != nil {
		t.Fatal(err)
	}
	until := taintedAt.Add(time.Minute)
	c := f.waitCondition("web", metav1.ConditionTrue, controllers.ReasonTolerationNotExpired)
	if !strings.Contains(c.Message, until.UTC().Format(time.RFC3339)) || !strings.Contains(c.Message, failing) {
		t.Fatalf("condition message %q does not say which cluster and until when (%s)", c.Message, until.UTC().Format(time.RFC3339))
	}
	out, code = f.explainCommand(target)
	t.Logf("fleetover-explain %s:\n%s", target, out)
	line, held := stepLine(out, controllers.StepToleration)
	if code != explainapp.ExitHeld || !held || !strings.Contains(line, controllers.ReasonTolerationNotExpired) ||
		!strings.Contains(line, until.UTC().Format(time.RFC3339)) || !strings.Contains(line, taintedAt.UTC().Format(time.RFC3339)) {
		t.Fatalf("fleetover-explain (exit %d) does not hold the binding at the toleration, since %s until %s:\n%s", code, taintedAt.UTC().Format(time.RFC3339), until.UTC().Format(time.RFC3339), out)
	}
	if !strings.Contains(out, "held by Toleration ("+controllers.ReasonTolerationNotExpired+"); changes by itself at "+until.UTC().Format(time.RFC3339)) {
		t.Fatalf("fleetover-explain does not say when the toleration ends:\n%s", out)
	}

	// The toleration ends: evicted and placed on the healthy cluster, the
	// old copy kept until the new one is healthy.
	f.stepTo(until)
	f.waitBinding("web", "moved to the healthy cluster", func(rb *workv1alpha2.ResourceBinding) bool {
		return slices.Equal(clusterNames(rb), []string{healthy}) && slices.Equal(taskClusters(rb), []string{failing})
	})
	f.waitCondition("web", metav1.ConditionTrue, controllers.ReasonWaitingForReplacement)
	f.waitWork(rb, healthy, true)
	out, code = f.explainCommand(target)
	if line, held := stepLine(out, controllers.StepGracefulEviction); code != explainapp.ExitHeld || !held || !strings.Contains(line, controllers.ReasonWaitingForReplacement) {
		t.Fatalf("fleetover-explain (exit %d) does not hold the binding at the graceful eviction:\n%s", code, out)
	}
	if line, _ := stepLine(out, controllers.StepEviction); !strings.Contains(line, "TaintUntolerated") || !strings.Contains(line, failing) {
		t.Fatalf("fleetover-explain does not show the eviction from %s:\n%s", failing, out)
	}

	// Healthy on the new cluster: the task ends, and so does the failover.
	f.setHealth("web", healthItem(failing, "Unknown", nil), healthItem(healthy, "Healthy", nil))
	f.waitBinding("web", "task completed", func(rb *workv1alpha2.ResourceBinding) bool { return len(rb.Spec.GracefulEvictionTasks) == 0 })
	c = f.waitCondition("web", metav1.ConditionFalse, controllers.ReasonSettled)
	if !strings.Contains(c.Message, healthy) {
		t.Fatalf("settled condition %q does not name the cluster the workload runs on", c.Message)
	}
	f.waitWork(rb, failing, false)

	// More reconciles (a label on the binding, a cluster's Ready
	// condition unchanged) change no reason and announce nothing.
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		b := f.binding("web")
		b.Labels = map[string]string{"touched": "yes"}
		return f.c.Update(f.ctx, b)
	}); err != nil {
		t.Fatal(err)
	}
	f.waitBinding("web", "label seen", func(rb *workv1alpha2.ResourceBinding) bool { return rb.Labels["touched"] == "yes" })
	f.stopWithFailoverEvents(events, "web", []string{controllers.ReasonTolerationNotExpired, controllers.ReasonWaitingForReplacement, controllers.ReasonSettled})
	out, code = f.explainCommand(target)
	if code != explainapp.ExitSettled {
		t.Fatalf("fleetover-explain exited %d after the failover, want %d:\n%s", code, explainapp.ExitSettled, out)
	}
	if !strings.Contains(out, "condition Failover=False reason "+controllers.ReasonSettled) {
		t.Fatalf("fleetover-explain does not show the condition the controllers wrote:\n%s", out)
	}
}

// Story 9, purge mode Directly: the new copy waits for the old one to be
// gone. The condition and fleetover-explain say so, naming the old
// cluster; once the old Work is gone the binding waits for the new copy
// to be healthy.
func TestStory9DirectlyWaitingForTheOldCopyIsExplained(t *testing.T) {
	t.Parallel()
	events := &eventLog{}
	f := newFixture(t, func(c *controllers.Config) {
		c.Prober = newProbes()
		c.EventRecorder = events
	})
	f.start()
	oldCluster, newCluster := f.clusterName("a"), f.clusterName("b")
	f.readyClusters(clusterv1alpha1.Push, oldCluster, newCluster)
	f.createTemplate(deployment("job", 1))
	rb := deploymentBinding(f.ns, "job", 1, workv1alpha2.TargetCluster{Name: oldCluster})
	rb.Spec.Failover = &policyv1alpha1.FailoverBehavior{Cluster: &policyv1alpha1.ClusterFailoverBehavior{PurgeMode: policyv1alpha1.PurgeModeDirectly}}
	f.createBinding(rb)
	rb = f.binding("job")
	f.waitWork(rb, oldCluster, true)
	f.holdWorkOn(rb, oldCluster)
	f.setHealth("job", healthItem(oldCluster, "Healthy", nil))

	f.taint(oldCluster, "maintenance", corev1.TaintEffectNoExecute)
	c := f.waitCondition("job", metav1.ConditionTrue, controllers.ReasonWaitingForOldCopy)
	if !strings.Contains(c.Message, oldCluster) || !strings.Contains(c.Message, newCluster) {
		t.Fatalf("condition message %q does not name the old and the new cluster", c.Message)
	}
	f.eventually("old Work terminating", func() (bool, string) {
		w := f.work(rb, oldCluster)
		return w != nil && !w.DeletionTimestamp.IsZero(), fmt.Sprintf("work %v", w != nil)
	})
	out, code := f.explainCommand(f.ns + "/job")
	t.Logf("fleetover-explain:\n%s", out)
	line, held := stepLine(out, controllers.StepDispatch)
	if code != explainapp.ExitHeld || !held || !strings.Contains(line, controllers.ReasonWaitingForOldCopy) || !strings.Contains(line, oldCluster) {
		t.Fatalf("fleetover-explain (exit %d) does not hold the binding at the dispatch, waiting for %s:\n%s", code, oldCluster, out)
	}
	if !strings.Contains(out, "held by Dispatch ("+controllers.ReasonWaitingForOldCopy+")\n") {
		t.Fatalf("fleetover-explain names a time at which the wait ends by itself, but only the old copy's deletion ends it:\n%s", out)
	}

	// The old copy is gone: the new copy is dispatched, and the binding
	// waits for it to be healthy.
	f.releaseWorkOn(rb, oldCluster)
	f.waitWork(rb, newCluster, true)
	f.waitCondition("job", metav1.ConditionTrue, controllers.ReasonWaitingForReplacement)
	f.setHealth("job", healthItem(newCluster, "Healthy", nil))
	f.waitCondition("job", metav1.ConditionFalse, controllers.ReasonSettled)
	f.stopWithFailoverEvents(events, "job", []string{controllers.ReasonWaitingForOldCopy, controllers.ReasonWaitingForReplacement, controllers.ReasonSettled})
}

// Story 9, no feasible cluster: the workload must leave its cluster and no
// other cluster takes it (the only other one carries a NoSchedule taint it
// does not tolerate). The last copy stays, and the condition, a Warning
// event and fleetover-explain say which cluster was ruled out by which
// filter.
func TestStory9NoFeasibleClusterIsExplained(t *testing.T) {
	t.Parallel()
	events := &eventLog{}
	f := newFixture(t, func(c *controllers.Config) {
		c.Prober = newProbes()
		c.EventRecorder = events
	})
	f.start()
	failing, other := f.clusterName("a"), f.clusterName("b")
	f.readyClusters(clusterv1alpha1.Push, failing, other)
	f.taint(other, "dedicated", corev1.TaintEffectNoSchedule)
	f.createTemplate(deployment("web", 1))
	// The placement names its two clusters: the fleet holds the clusters
	// of the tests that run beside this one, which fleetover-explain,
	// reading the whole fleet, would count as room.
	binding := deploymentBinding(f.ns, "web", 1, workv1alpha2.TargetCluster{Name: failing})
	binding.Spec.Placement = &policyv1alpha1.Placement{ClusterAffinity: &policyv1alpha1.ClusterAffinity{ClusterNames: []string{failing, other}}}
	f.createBinding(binding)
	rb := f.binding("web")
	f.waitWork(rb, failing, true)
	f.setHealth("web", healthItem(failing, "Healthy", nil))

	f.taint(failing, "maintenance", corev1.TaintEffectNoExecute)
	c := f.waitCondition("web", metav1.ConditionTrue, controllers.ReasonNoFeasibleCluster)
	if !strings.Contains(c.Message, other) || !strings.Contains(c.Message, "TaintToleration") {
		t.Fatalf("condition message %q does not say that %s was ruled out by its taint", c.Message, other)
	}
	if f.work(rb, failing) == nil {
		t.Fatal("the last copy was deleted although no cluster can take the workload")
	}
	out, code := f.explainCommand(f.ns + "/web")
	t.Logf("fleetover-explain:\n%s", out)
	line, held := stepLine(out, controllers.StepPlacement)
	if code != explainapp.ExitHeld || !held || !strings.Contains(line, controllers.ReasonNoFeasibleCluster) || !strings.Contains(line, "dedicated") {
		t.Fatalf("fleetover-explain (exit %d) does not hold the binding at the placement:\n%s", code, out)
	}
	// The placement's only other cluster is ruled out for good: the
	// policy can never fail over, and the command says so.
	if !strings.Contains(out, "warning: spec.placement: ") || !strings.Contains(out, "(NoClusterToMoveTo)") {
		t.Fatalf("fleetover-explain does not warn that the placement leaves no cluster to move to:\n%s", out)
	}
	f.stopControllers()
	got := events.of(f.ns+"/web", controllers.FailoverChangedAction)
	if len(got) != 1 || got[0].Reason != controllers.ReasonNoFeasibleCluster || got[0].Type != corev1.EventTypeWarning {
		t.Fatalf("Failover events %+v, want one Warning %s", got, controllers.ReasonNoFeasibleCluster)
	}
}

// Story 9, cluster failover off (Karmada's Failover gate off: the taint
// manager does not run) and Karmada's own scheduler in place of the
// failover scheduler: a ClusterResourceBinding on a cluster with an
// untolerated NoExecute taint stays there. The condition, written by the
// controller of its own that runs without the failover scheduler, says
// why, with one Warning event however often it looks again, and
// fleetover-explain given the same flags says the same.
func TestStory9GateOffIsExplained(t *testing.T) {
	t.Parallel()
	events := &eventLog{}
	f := newFixture(t, func(c *controllers.Config) {
		c.Prober = newProbes()
		c.EventRecorder = events
		c.Controllers = []string{"-taintManager", "-failoverScheduler", "*"}
	})
	f.start()
	cluster := f.clusterName("a")
	f.readyClusters(clusterv1alpha1.Push, cluster)
	role := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "rbac.authorization.k8s.io/v1",
		"kind":       "ClusterRole",
		"metadata":   map[string]any{"name": f.ns + "-viewer"},
	}}
	f.createClusterTemplate(role)
	name := f.ns + "-viewer"
	f.createClusterBinding(&workv1alpha2.ClusterResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: workv1alpha2.ResourceBindingSpec{
			Resource: workv1alpha2.ObjectReference{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole", Name: role.GetName()},
			Clusters: []workv1alpha2.TargetCluster{{Name: cluster}},
		},
	})
	f.waitWork(f.clusterBinding(name), cluster, true)
	if f.ctrls.ClusterScoped.FailoverCondition == nil || f.ctrls.ClusterScoped.Scheduler.Conditions != nil {
		t.Fatal("without the failover scheduler the Failover condition must have a controller of its own")
	}

	f.taint(cluster, "maintenance", corev1.TaintEffectNoExecute)
	var c *metav1.Condition
	f.eventually("Failover condition ClusterFailoverDisabled", func() (bool, string) {
		c = meta.FindStatusCondition(f.clusterBinding(name).Status.Conditions, controllers.FailoverConditionType)
		return c != nil && c.Status == metav1.ConditionTrue && c.Reason == controllers.ReasonClusterFailoverOff, failoverString(c)
	})
	if !strings.Contains(c.Message, "Failover gate") {
		t.Fatalf("condition message %q does not name the gate", c.Message)
	}
	// Looks that change nothing: a label, and a later moment.
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		b := f.clusterBinding(name)
		b.Labels = map[string]string{"touched": "yes"}
		return f.c.Update(f.ctx, b)
	}); err != nil {
		t.Fatal(err)
	}
	f.stepTo(f.clock.Now().Add(time.Hour))
	f.eventually("label seen", func() (bool, string) { return f.clusterBinding(name).Labels["touched"] == "yes", "" })
	f.stopControllers()
	got := events.of("/"+name, controllers.FailoverChangedAction)
	if len(got) != 1 || got[0].Reason != controllers.ReasonClusterFailoverOff || got[0].Type != corev1.EventTypeWarning {
		t.Fatalf("Failover events %+v, want one Warning %s", got, controllers.ReasonClusterFailoverOff)
	}
	if f.clusterBinding(name).Spec.Clusters[0].Name != cluster {
		t.Fatal("the binding moved with cluster failover off")
	}

	// fleetover-explain, cluster-scoped form, with the controller
	// manager's flags (Failover gate off by default): the same answer.
	out, code := f.explainCommand(name)
	t.Logf("fleetover-explain:\n%s", out)
	line, held := stepLine(out, controllers.StepToleration)
	if code != explainapp.ExitHeld || !held || !strings.Contains(line, controllers.ReasonClusterFailoverOff) || !strings.HasPrefix(out, "ClusterResourceBinding "+name+" ") {
		t.Fatalf("fleetover-explain %s (exit %d) does not say that cluster failover is off:\n%s", name, code, out)
	}
	// With the gate on, the taint is untolerated and the eviction is due.
	out, code = f.explainCommand(name, "--feature-gates=Failover=true", "--enable-no-execute-taint-eviction=true")
	if line, held := stepLine(out, controllers.StepEviction); code != explainapp.ExitHeld || !held || !strings.Contains(line, controllers.ReasonEvictionDue) {
		t.Fatalf("fleetover-explain with the Failover gate (exit %d) does not say the eviction is due:\n%s", code, out)
	}
}

// The command's arguments: a missing or malformed binding is a usage
// error, an absent one a read error, each with a message naming it.
func TestExplainCommandExitCodes(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	for _, tc := range []struct {
		args []string
		code int
		says string
	}{
		{nil, explainapp.ExitUsage, "usage: fleetover-explain"},
		{[]string{"a/b/c"}, explainapp.ExitUsage, `binding "a/b/c"`},
		{[]string{"/web"}, explainapp.ExitUsage, `binding "/web"`},
		{[]string{"a", "b"}, explainapp.ExitUsage, "usage: fleetover-explain"},
		{[]string{f.ns + "/absent"}, explainapp.ExitError, "ResourceBinding " + f.ns + "/absent not found"},
		{[]string{f.ns + "-absent"}, explainapp.ExitError, "ClusterResourceBinding " + f.ns + "-absent not found"},
	} {
		var stdout, stderr bytes.Buffer
		o := explainapp.NewOptions()
		o.Clock = f.clock
		if code := explainapp.Run(f.ctx, restConfig, o, tc.args, &stdout, &stderr); code != tc.code || !strings.Contains(stderr.String(), tc.says) {
			t.Errorf("fleetover-explain %q: exit %d, stderr %q; want exit %d saying %q", tc.args, code, stderr.String(), tc.code, tc.says)
		}
	}
	o := explainapp.NewOptions()
	o.Manager.Karmada.Controllers = karmadaflags.Selection{"nonsense"}
	var stdout, stderr bytes.Buffer
	if code := explainapp.Run(f.ctx, restConfig, o, []string{f.ns + "/web"}, &stdout, &stderr); code != explainapp.ExitUsage || !strings.Contains(stderr.String(), "controllers") {
		t.Errorf("fleetover-explain --controllers=nonsense: exit %d, stderr %q; want exit %d naming the flag", code, stderr.String(), explainapp.ExitUsage)
	}
}

// Story 9, application failover: the workload turns unhealthy on its
// cluster; the condition says until when its toleration runs, with the
// countdown's start, and once it ran out the workload is moved.
func TestStory9ApplicationTolerationIsExplained(t *testing.T) {
	t.Parallel()
	const toleration = 30
	events := &eventLog{}
	f := newFixture(t, func(c *controllers.Config) {
		c.Prober = newProbes()
		c.EventRecorder = events
	})
	f.start()
	first, second := f.clusterName("a"), f.clusterName("b")
	f.readyClusters(clusterv1alpha1.Push, first, second)
	f.createTemplate(deployment("api", 1))
	rb := deploymentBinding(f.ns, "api", 1, workv1alpha2.TargetCluster{Name: first})
	rb.Spec.Failover = &policyv1alpha1.FailoverBehavior{Application: &policyv1alpha1.ApplicationFailoverBehavior{
		DecisionConditions: policyv1alpha1.DecisionConditions{TolerationSeconds: ptr.To[int32](toleration)},
		PurgeMode:          policyv1alpha1.PurgeModeGracefully,
		GracePeriodSeconds: ptr.To[int32](600),
	}}
	f.createBinding(rb)
	rb = f.binding("api")
	f.waitWork(rb, first, true)
	f.setHealth("api", healthItem(first, "Healthy", nil))
	f.eventually("settled on the first cluster", func() (bool, string) {
		a := f.binding("api").Annotations[controllers.ApplicationHealthRecordsAnnotation]
		return strings.Contains(a, `"settled":true`), a
	})

	failingSince := f.clock.Now()
	f.setHealth("api", healthItem(first, "Unhealthy", nil))
	until := failingSince.Add(toleration * time.Second)
	c := f.waitCondition("api", metav1.ConditionTrue, controllers.ReasonApplicationTolerationNotExpired)
	if !strings.Contains(c.Message, first) || !strings.Contains(c.Message, until.UTC().Format(time.RFC3339)) {
		t.Fatalf("condition message %q does not name the cluster and the end of the toleration (%s)", c.Message, until.UTC().Format(time.RFC3339))
	}
	out, code := f.explainCommand(f.ns + "/api")
	t.Logf("fleetover-explain:\n%s", out)
	line, held := stepLine(out, controllers.StepApplication)
	if code != explainapp.ExitHeld || !held || !strings.Contains(line, failingSince.UTC().Format(time.RFC3339)) || !strings.Contains(line, until.UTC().Format(time.RFC3339)) {
		t.Fatalf("fleetover-explain (exit %d) does not hold the binding at the application's toleration, since %s until %s:\n%s", code, failingSince.UTC().Format(time.RFC3339), until.UTC().Format(time.RFC3339), out)
	}

	f.stepTo(until)
	f.waitBinding("api", "moved to the second cluster", func(rb *workv1alpha2.ResourceBinding) bool {
		return slices.Equal(clusterNames(rb), []string{second})
	})
	f.waitCondition("api", metav1.ConditionTrue, controllers.ReasonWaitingForReplacement)
	f.stopWithFailoverEvents(events, "api", []string{controllers.ReasonApplicationTolerationNotExpired, controllers.ReasonWaitingForReplacement})
}
