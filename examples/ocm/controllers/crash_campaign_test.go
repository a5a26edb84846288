package controllers_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	clusterv1 "open-cluster-management.io/api/cluster/v1"
	clusterv1beta1 "open-cluster-management.io/api/cluster/v1beta1"
	workv1 "open-cluster-management.io/api/work/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/fleetover/fleetover/examples/ocm/controllers"
)

// The crash campaign's flags. The bounded campaign (no flag) is part of
// every `go test` of this package; the long one is
//
//	go test -race -run TestCrashCampaign ./controllers/ -crash.all -timeout 3h
var (
	crashAll = flag.Bool("crash.all", false,
		"crash campaign: every story, not only the bounded campaign's three")
	crashHeartbeats = flag.Bool("crash.heartbeats", false,
		"crash campaign: the cluster health controller's heartbeat writes are crash points too")
	crashStory = flag.String("crash.story", "", "crash campaign: only this story")
	crashAt    = flag.Int("crash.at", 0, "crash campaign: only this crash point (the write the process dies after)")
)

// crashStory is a story of the crash campaign: a story test, run as it
// is, whose fixture the campaign's plan crashes.
type crashStoryCase struct {
	name    string
	run     func(*testing.T)
	bounded bool // part of the bounded campaign
}

var crashStories = []crashStoryCase{
	{"story1-cluster-outage", TestStory1ClusterOutageMovesPlacement, true},
	{"story2-stateful-directly", TestStory2StatefulFailoverCarriesJobID, true},
	{"story3-application-failover", TestStory3ApplicationFailover, true},
	{"story3-stateful-waits-for-state", TestStory3StatefulApplicationFailoverWaitsForItsState, false},
	{"story4-restart", TestStory4RestartKeepsCountdown, false},
	{"story6-second-predicate", TestStory6SecondPredicateTakesTheWorkload, false},
	{"story7-state-read-later", TestStory7StateReadLaterResumesEviction, false},
}

// TestCrashCampaign kills the controller process between two writes of
// the stories and starts a new process in place of the dead one: nothing
// of the dead process survives but what it wrote. For each story, one run
// without a crash counts the controllers' writes N (the crash points, see
// crashInjector), then N runs each die after write k (k = 1..N). Each
// crashed run must pass the story's own checks (the move, its timing, the
// single writer, the state carried), and end as the uncrashed run ended:
// the same decisions, eviction tasks with the same preserved state,
// eviction history, ManifestWorks with the same state labels, and cluster
// taints.
func TestCrashCampaign(t *testing.T) {
	for _, story := range crashStories {
		if (*crashStory != "" && story.name != *crashStory) || (*crashStory == "" && !story.bounded && !*crashAll) {
			continue
		}
		t.Run(story.name, func(t *testing.T) {
			t.Parallel()
			var base *storyRun
			t.Run("uncrashed", func(t *testing.T) { base = playStory(t, story.run, 0) })
			if base == nil || t.Failed() {
				t.Fatal("the story fails without a crash: no campaign on it")
			}
			n := base.plan.inj.count()
			writes, heartbeats := base.plan.inj.counts()
			t.Logf("story %s: %d writes, %d of them heartbeats; %d crash points", story.name, writes, heartbeats, n)
			if testing.Verbose() {
				for i, w := range base.plan.inj.pointLog() {
					t.Logf("  crash point %d: %s", i+1, w)
				}
			}
			for k := 1; k <= n; k++ {
				if *crashAt != 0 && k != *crashAt {
					continue
				}
				t.Run(fmt.Sprintf("after-write-%d", k), func(t *testing.T) {
					t.Parallel()
					run := playStory(t, story.run, k)
					if run == nil {
						return // the story failed, and said why
					}
					f := run.plan.fixture()
					what := fmt.Sprintf("crash after write %d (%s)", k, run.plan.inj.pointLog()[min(k, run.plan.inj.count())-1])
					if run.plan.inj.killNow() {
						what = fmt.Sprintf("crash after the run's last write, %d (it made fewer than %d)", run.plan.inj.count(), k)
						f.recoverCrash()
					}
					var last []string
					f.eventually("the run ends as the uncrashed one", func() (bool, string) {
						last = base.outcome.diff(f.crashOutcome())
						return len(last) == 0, what + ": " + strings.Join(last, "; ")
					})
					run.plan.inj.freeze()
				})
			}
		})
	}
}

// storyRun is one run of a story under a crash plan.
type storyRun struct {
	plan    *storyCrash
	outcome crashOutcome
}

// playStory runs story with the process dying after crash point at (0:
// never). It returns nil when the story failed.
func playStory(t *testing.T, story func(*testing.T), at int) *storyRun {
	t.Helper()
	inj := newCrashInjector(testScheme, at, false)
	inj.everyWrite = *crashHeartbeats
	plan := planCrash(t, inj)
	t.Cleanup(func() {
		if t.Failed() && at > 0 {
			t.Logf("the run's crash points (%d processes killed):\n  %s", inj.killed(), strings.Join(inj.pointLog(), "\n  "))
		}
	})
	story(t)
	if t.Failed() {
		return nil
	}
	f := plan.fixture()
	if f == nil {
		t.Fatal("the story made no fixture")
	}
	if f.crashPending() {
		// The process died after the story's last check: the new one
		// finishes what it left.
		f.recoverCrash()
	}
	run := &storyRun{plan: plan}
	if at == 0 {
		inj.freeze()
		run.outcome = f.crashOutcome()
	}
	return run
}

// crashOutcome is what the controllers decided, one line per
// PlacementDecision and per cluster.
type crashOutcome map[string]string

func (f *fixture) crashOutcome() crashOutcome {
	f.t.Helper()
	out := crashOutcome{}
	short := func(cluster string) string { return strings.TrimPrefix(cluster, f.ns+"-") }
	decisions := &clusterv1beta1.PlacementDecisionList{}
	if err := f.c.List(f.ctx, decisions, client.InNamespace(f.ns)); err != nil {
		f.t.Fatal(err)
	}
	for _, pd := range decisions.Items {
		var clusters []string
		for _, d := range pd.Status.Decisions {
			clusters = append(clusters, short(d.ClusterName))
		}
		out[pd.Name+" decisions"] = strings.Join(clusters, ",")
		var st controllers.FailoverState
		if raw, ok := pd.Annotations[controllers.FailoverStateAnnotation]; ok {
			if err := json.Unmarshal([]byte(raw), &st); err != nil {
				out[pd.Name+" state"] = "unreadable: " + raw
				continue
			}
		}
		var tasks []string
		for _, task := range st.Tasks {
			state, _ := json.Marshal(task.PreservedLabelState)
			tasks = append(tasks, fmt.Sprintf("%s %s %s state %s", short(task.FromCluster), task.Reason, task.PurgeMode, state))
		}
		out[pd.Name+" tasks"] = strings.Join(tasks, "; ")
		var history []string
		for _, h := range st.History {
			history = append(history, short(h.ClusterName))
		}
		out[pd.Name+" history"] = strings.Join(history, ",")
	}
	works := &workv1.ManifestWorkList{}
	if err := f.c.List(f.ctx, works, client.HasLabels{controllers.ReplicaSetUIDLabel}); err != nil {
		f.t.Fatal(err)
	}
	for _, mw := range works.Items {
		if mw.Annotations[controllers.ReplicaSetNamespaceAnnotation] != f.ns {
			continue
		}
		m := workManifest(&mw)
		labels := m.GetLabels()
		var parts []string
		for _, k := range slices.Sorted(maps.Keys(labels)) {
			parts = append(parts, k+"="+labels[k])
		}
		state := "live"
		if mw.DeletionTimestamp != nil {
			state = "deleting"
		}
		out["work "+mw.Annotations[controllers.ReplicaSetNameAnnotation]+" on "+short(mw.Namespace)] = fmt.Sprintf("%s {%s}", state, strings.Join(parts, ","))
	}
	clusters := &clusterv1.ManagedClusterList{}
	if err := f.c.List(f.ctx, clusters, client.MatchingLabels{scopeLabel: f.ns}); err != nil {
		f.t.Fatal(err)
	}
	for _, mc := range clusters.Items {
		var taints []string
		for _, tn := range mc.Spec.Taints {
			taints = append(taints, fmt.Sprintf("%s:%s", tn.Key, tn.Effect))
		}
		slices.Sort(taints)
		out["cluster "+short(mc.Name)] = strings.Join(taints, ",")
	}
	return out
}

// diff lists how got differs from the uncrashed outcome o.
func (o crashOutcome) diff(got crashOutcome) []string {
	var problems []string
	for _, k := range slices.Sorted(maps.Keys(o)) {
		if got[k] != o[k] {
			problems = append(problems, fmt.Sprintf("%s: %q, uncrashed %q", k, got[k], o[k]))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(got)) {
		if _, ok := o[k]; !ok {
			problems = append(problems, fmt.Sprintf("%s: %q, not in the uncrashed run", k, got[k]))
		}
	}
	return problems
}
