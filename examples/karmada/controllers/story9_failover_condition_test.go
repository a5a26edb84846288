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
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	policyv1alpha1 "github.com/karmada-io/api/policy/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

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

// Story 9: the binding says where its failover stands. A cluster gets a
// NoExecute taint the workload tolerates for a minute: the Failover
// condition says the toleration runs until then (and fleetover-explain
// prints the chain, held at the toleration); when it ends the workload is
// evicted and placed on the healthy cluster, and the condition says the
// old copy waits for the new one to be healthy; once it is, the condition
// turns False. Each change of reason is announced by exactly one event,
// whatever the number of reconciles in between.
func TestStory9FailoverConditionFollowsAnOutage(t *testing.T) {
	events := &eventLog{}
	f := newFixture(t, func(c *controllers.Config) {
		c.Prober = newProbes()
		c.EventRecorder = events
	})
	f.start()
	failing, healthy := f.clusterName("a"), f.clusterName("b")
	f.createCluster(failing, clusterv1alpha1.Push)
	f.createCluster(healthy, clusterv1alpha1.Push)
	f.waitReady(failing, metav1.ConditionTrue)
	f.waitReady(healthy, metav1.ConditionTrue)
	f.createTemplate(deployment("web", 2))
	f.createBinding(&workv1alpha2.ResourceBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: workv1alpha2.ResourceBindingSpec{
			Resource: workv1alpha2.ObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Namespace: f.ns, Name: "web"},
			Replicas: 2,
			Clusters: []workv1alpha2.TargetCluster{{Name: failing}},
			Placement: &policyv1alpha1.Placement{ClusterTolerations: []corev1.Toleration{{
				Key: "maintenance", Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](60),
			}}},
		},
	})
	rb := f.binding("web")
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
	f.stopControllers() // waits for every reconcile in flight
	want := []string{controllers.ReasonTolerationNotExpired, controllers.ReasonWaitingForReplacement, controllers.ReasonSettled}
	if got := f.failoverEvents(events, "web"); !slices.Equal(got, want) {
		t.Fatalf("Failover events %v, want exactly one per change of reason: %v", got, want)
	}
	out, code = f.explainCommand(target)
	if code != explainapp.ExitSettled {
		t.Fatalf("fleetover-explain exited %d after the failover, want %d:\n%s", code, explainapp.ExitSettled, out)
	}
	if !strings.Contains(out, "condition Failover=False reason "+controllers.ReasonSettled) {
		t.Fatalf("fleetover-explain does not show the condition the controllers wrote:\n%s", out)
	}
}
