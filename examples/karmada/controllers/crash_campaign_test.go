package controllers_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"
	workv1alpha1 "github.com/karmada-io/api/work/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/examples/fleetsim/replay"

	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// The crash campaign's flags. The bounded campaign (no flag) is part of
// every `go test` of this package; the long one is
//
//	go test -race -run TestCrashCampaign ./controllers/ -crash.all -timeout 6h
var (
	crashAll = flag.Bool("crash.all", false,
		"crash campaign: every replay scenario, at every crash point, each crashed run played to the scenario's end")
	crashScenario   = flag.String("crash.scenario", "", "crash campaign: only this replay scenario")
	crashAt         = flag.Int("crash.at", 0, "crash campaign: only this crash point (the write the process dies after)")
	crashSeed       = flag.Int64("crash.seed", 0, "TestCrashLeaderKilledAtRandomWrites: the seed of the crash points (0: a new one, logged)")
	crashHeartbeats = flag.Bool("crash.heartbeats", false,
		"crash campaign: the cluster health controller's heartbeat writes are crash points too (about 20 times as many runs)")
)

// crashScenarios are the scenarios of the bounded campaign: a Directly
// stateful purge from a cluster that stays reachable (not-ready), a
// workload moving within its later affinity group (observed-group), and
// evictions held by a suspended scheduling (suspended-scheduling). They
// are the shortest replays with those failovers.
var crashScenarios = []string{"not-ready", "observed-group", "suspended-scheduling"}

// TestCrashCampaign kills the controller process between two writes of
// replayed simulator scenarios and starts a new process in place of the
// dead one, at the same fake time: nothing of the dead process survives but
// what it wrote. For each scenario, one run without a crash counts the
// controllers' writes (the crash points, see crashInjector) and must agree
// with the simulator (TestReplaySimulatorScenarios' check). Then:
//
//   - chain: one run where every process dies right after its first write
//     that lands, so that the run passes every crash point, each followed
//     by a new process (part of the bounded campaign);
//   - after-write-k, with -crash.all: N runs, run k dying after write k
//     only (k = 1..N), each played to the scenario's end and also held to
//     the simulator.
//
// Every crashed run must end as the uncrashed run ended: the same
// placements, eviction tasks with their preserved state, eviction
// history, clusters' Ready conditions and taints (the stamps of all of
// these within three steps), the same evictions (once each: no return to
// a blocked cluster), the same copies started with the same preserved
// state, Works created and deleted on the same clusters, and never two
// copies of a single-writer workload.
//
// The bounded campaign's chain run plays only until the uncrashed run's
// last crash point and three steps more: after that the controllers write
// nothing but heartbeats, so their state is final.
func TestCrashCampaign(t *testing.T) {
	t.Parallel()
	names := crashScenarios
	if *crashAll {
		files, err := filepath.Glob(filepath.Join(replayDir, "*.golden.json"))
		if err != nil {
			t.Fatal(err)
		}
		names = nil
		for _, file := range files {
			names = append(names, strings.TrimSuffix(filepath.Base(file), ".golden.json"))
		}
	}
	if *crashScenario != "" {
		names = []string{*crashScenario}
	}
	for _, name := range names {
		fx := readReplayFixture(t, name)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			var base *crashRun
			t.Run("uncrashed", func(t *testing.T) {
				base = playCrashRun(t, fx, crashPlan{}, fx.Duration.Duration)
				base.replay.compare()
			})
			if base == nil || t.Failed() {
				t.Fatal("the uncrashed run does not agree with the simulator: no campaign on it")
			}
			n := base.inj.count()
			// Whole steps, three after the last crash point.
			last := base.inj.lastPoint().Sub(epoch)
			horizon := min(fx.Duration.Duration, (last/fx.Step.Duration+3)*fx.Step.Duration)
			writes, heartbeats := base.inj.counts()
			t.Logf("scenario %s: %d writes, %d of them heartbeats; %d crash points, the last at +%s",
				name, writes, heartbeats, n, last)
			if testing.Verbose() {
				for i, w := range base.inj.pointLog() {
					t.Logf("  crash point %d: %s", i+1, w)
				}
			}
			if *crashAt == 0 {
				t.Run("chain", func(t *testing.T) {
					t.Parallel()
					run := playCrashRun(t, fx, crashPlan{chain: true}, horizon)
					t.Logf("%d processes killed, one after each write that landed", run.inj.killed())
					if problems := base.outcome.diff(run.outcome); len(problems) > 0 {
						t.Errorf("every process killed after its first write: the run ends otherwise than the uncrashed one:\n  %s",
							strings.Join(problems, "\n  "))
					}
				})
			}
			if !*crashAll && *crashAt == 0 {
				return
			}
			for k := 1; k <= n; k++ {
				if *crashAt != 0 && k != *crashAt {
					continue
				}
				t.Run(fmt.Sprintf("after-write-%d", k), func(t *testing.T) {
					t.Parallel()
					run := playCrashRun(t, fx, crashPlan{at: k}, fx.Duration.Duration)
					run.replay.compare()
					what := fmt.Sprintf("after write %d", k)
					if k <= len(run.points) {
						what += " (" + run.points[k-1] + ")"
					}
					if run.late {
						what = fmt.Sprintf("after the run's last write, %d (it made fewer than %d)", run.inj.count(), k)
					}
					if problems := base.outcome.diff(run.outcome); len(problems) > 0 {
						t.Errorf("crash %s: the run ends otherwise than the uncrashed one:\n  %s", what, strings.Join(problems, "\n  "))
					}
				})
			}
		})
	}
}

// crashPlan says where a run's process dies: after crash point at, or
// after every crash point (chain); neither: never.
type crashPlan struct {
	at    int
	chain bool
}

// readReplayFixture reads the replay fixture of scenario name.
func readReplayFixture(t *testing.T, name string) *replay.Fixture {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(replayDir, name+".golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	fx, err := replay.Read(strings.NewReader(string(data)))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return fx
}

// crashRun is one replayed run of a crash campaign.
type crashRun struct {
	replay  *replayRun
	inj     *crashInjector
	outcome crashOutcome
	points  []string // what each crash point was
	late    bool     // the run ended before its crash point: its process died after its last write
}

// playCrashRun replays fx up to horizon with the controllers' processes
// dying as plan says, and returns how the run ended.
func playCrashRun(t *testing.T, fx *replay.Fixture, plan crashPlan, horizon time.Duration) *crashRun {
	t.Helper()
	played := *fx
	played.Duration.Duration = horizon
	r := newReplayRun(t, &played)
	inj := newCrashInjector(testScheme, r.clock, plan.at, false)
	inj.everyWrite = *crashHeartbeats
	inj.chain = plan.chain
	r.injectCrashes(inj)
	works := r.recordWorks()
	r.run()
	run := &crashRun{replay: r, inj: inj}
	if inj.killNow() {
		run.late = true
		r.settle()
	}
	inj.freeze()
	run.points = inj.pointLog()
	run.outcome = r.crashOutcome(works)
	return run
}

// workRecord is what happened to the Works of the runs' bindings, by
// binding UID: each creation with its cluster and the manifest's labels,
// and each deletion's start.
type workRecord struct {
	mu     sync.Mutex
	events map[string][]string
	seen   map[string]bool // Works seen, and Works seen going
}

// recordWorks watches every Work of a binding from now on.
func (r *replayRun) recordWorks() *workRecord {
	rec := &workRecord{events: map[string][]string{}, seen: map[string]bool{}}
	r.watchEach(&workv1alpha1.WorkList{}, func(ev watch.Event) {
		work, ok := ev.Object.(*workv1alpha1.Work)
		if !ok {
			return
		}
		uid := work.Labels[workv1alpha2.ResourceBindingPermanentIDLabel]
		key := string(work.UID)
		cluster := r.simName(strings.TrimPrefix(work.Namespace, controllers.ExecutionNamespacePrefix))
		rec.mu.Lock()
		defer rec.mu.Unlock()
		if !rec.seen[key] {
			rec.seen[key] = true
			var labels []string
			if m := manifest(work); m != nil {
				for _, k := range slices.Sorted(maps.Keys(m.GetLabels())) {
					labels = append(labels, k+"="+m.GetLabels()[k])
				}
			}
			rec.events[uid] = append(rec.events[uid], fmt.Sprintf("create on %s {%s}", cluster, strings.Join(labels, ",")))
		}
		if (ev.Type == watch.Deleted || work.DeletionTimestamp != nil) && !rec.seen[key+"/deleted"] {
			rec.seen[key+"/deleted"] = true
			rec.events[uid] = append(rec.events[uid], "delete on "+cluster)
		}
	}, client.HasLabels{workv1alpha2.ResourceBindingPermanentIDLabel})
	return rec
}

// crashOutcome is what a run leaves behind that the controllers decide:
// per workload and per cluster, one line each, and the run's story.
type crashOutcome struct {
	state map[string]string
	// times are the stamps the controllers wrote (tasks, history, Ready
	// transitions, taints), since the start.
	times      map[string]time.Duration
	evictions  []replay.Eviction
	injections []string
	twoCopies  []string
	step       time.Duration
}

// crashOutcome reads how the run ended.
func (r *replayRun) crashOutcome(works *workRecord) crashOutcome {
	r.t.Helper()
	out := crashOutcome{state: map[string]string{}, times: map[string]time.Duration{}, step: r.fx.Step.Duration}
	for _, w := range r.fx.Workloads {
		rb := r.binding(w.Name)
		out.state[w.Name+" placement"] = placementString(r.finalPlacement(w), w.Divided)
		var tasks []string
		for _, task := range rb.Spec.GracefulEvictionTasks {
			from := r.simName(task.FromCluster)
			if task.CreationTimestamp != nil {
				out.times[w.Name+" task from "+from+" created"] = task.CreationTimestamp.Sub(epoch)
			}
			state, _ := json.Marshal(task.PreservedLabelState)
			var before []string
			for _, c := range task.ClustersBeforeFailover {
				before = append(before, r.simName(c))
			}
			tasks = append(tasks, fmt.Sprintf("%s %s %s state %s before %v", from, task.Reason, task.PurgeMode, state, before))
		}
		out.state[w.Name+" tasks"] = strings.Join(tasks, "; ")
		out.state[w.Name+" history"] = r.historyString(rb, w.Name, out.times)
		works.mu.Lock()
		events := slices.Clone(works.events[string(rb.UID)])
		works.mu.Unlock()
		slices.Sort(events)
		out.state[w.Name+" works"] = strings.Join(events, "; ")
	}
	for _, c := range r.fx.Clusters {
		cl := r.cluster(r.real(c.Name))
		ready := "none"
		if cond := meta.FindStatusCondition(cl.Status.Conditions, clusterv1alpha1.ClusterConditionReady); cond != nil {
			ready = fmt.Sprintf("%s/%s", cond.Status, cond.Reason)
			out.times["cluster "+c.Name+" Ready since"] = cond.LastTransitionTime.Sub(epoch)
		}
		var taints []string
		for _, tn := range cl.Spec.Taints {
			taint := fmt.Sprintf("%s:%s", tn.Key, tn.Effect)
			if tn.TimeAdded != nil {
				out.times["cluster "+c.Name+" taint "+taint+" added"] = tn.TimeAdded.Sub(epoch)
			}
			taints = append(taints, taint)
		}
		slices.Sort(taints)
		out.state["cluster "+c.Name] = fmt.Sprintf("Ready %s, taints %v", ready, taints)
	}
	out.evictions = r.evictions.list()
	out.injections = injectionSet(r.injections)
	out.twoCopies = r.twoCopies.list()
	return out
}

// historyString is the binding's eviction history, in the simulator's
// cluster names; the entries' stamps go to times.
func (r *replayRun) historyString(rb *workv1alpha2.ResourceBinding, workload string, times map[string]time.Duration) string {
	raw, ok := rb.Annotations[controllers.EvictionHistoryAnnotation]
	if !ok {
		return ""
	}
	var doc struct {
		Entries []struct {
			ClusterName       string    `json:"clusterName"`
			CreationTimestamp time.Time `json:"creationTimestamp"`
		} `json:"entries"`
	}
	if err := json.Unmarshal([]byte(raw), &doc); err != nil {
		return "unreadable: " + raw
	}
	var parts []string
	for _, e := range doc.Entries {
		cluster := r.simName(e.ClusterName)
		times[fmt.Sprintf("%s history entry %d (%s)", workload, len(parts)+1, cluster)] = e.CreationTimestamp.Sub(epoch)
		parts = append(parts, cluster)
	}
	return strings.Join(parts, ", ")
}

// diff lists how got differs from the uncrashed run's outcome o. What the
// controllers persisted must be equal; the times they stamped, and those
// of evictions and state injections, may differ by up to three steps, as
// in the replay: the test steps the clock before it plays the step's
// faults, and a look the step triggers may run before or after them, in
// an uncrashed run as in a crashed one.
func (o crashOutcome) diff(got crashOutcome) []string {
	var problems []string
	for _, k := range slices.Sorted(maps.Keys(o.state)) {
		if got.state[k] != o.state[k] {
			problems = append(problems, fmt.Sprintf("%s: %q, uncrashed %q", k, got.state[k], o.state[k]))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(o.times)) {
		if at, ok := got.times[k]; ok && (at-o.times[k]).Abs() > 3*o.step {
			problems = append(problems, fmt.Sprintf("%s at +%s, uncrashed +%s", k, at, o.times[k]))
		}
	}
	problems = append(problems, compareEvictions(o.evictions, got.evictions, 3*o.step)...)
	if !slices.Equal(o.injections, got.injections) {
		problems = append(problems, fmt.Sprintf("new copies started with state %v, uncrashed %v", got.injections, o.injections))
	}
	problems = append(problems, got.twoCopies...)
	return problems
}
