package controllers_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	clusterv1 "open-cluster-management.io/api/cluster/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/fleetover/fleetover/examples/ocm/controllers"
)

// errProcessDied is what every write of a controller process that crashed
// returns: nothing it tries after its crash point reaches the API server.
var errProcessDied = errors.New("crash injector: the controller process is dead")

// crashInjector kills the controller process between two of its writes.
// It counts the writes the controllers make through the manager's client
// (the test's own client is not counted) and, at crash point at, either
// fails that write (before) or lets it land (after); from then on every
// write of that process fails, as if it had died there, and the fixture
// stops the dead manager and starts a new one (eventually and advance do),
// as a new process would start: nothing in memory survives, only what is
// in the API server. A run crashes at most once.
//
// Writes are serialised through the injector, so that "after write k" is
// exact with several workers: write k lands and the process is dead before
// write k+1 is sent.
//
// A crash point is a write that changes what the controllers decided. The
// cluster health controller also stores each cluster's tracker state at
// every lease renewal, where only the time it last heard the cluster
// changes (a heartbeat): heartbeats are counted, and are crash points only
// with everyWrite.
type crashInjector struct {
	scheme     *runtime.Scheme
	at         int  // the crash point the process dies at; 0: never
	before     bool // die before that write is sent (it fails), not after it lands
	everyWrite bool // every write is a crash point, heartbeats included

	mu         sync.Mutex
	writes     int
	heartbeats int
	health     map[string]string // per cluster, the taints and tracker state last written, without the last-heard time
	log        []string
	fired      bool
	deaths     int
	frozen     bool // the run ended: writes pass, uncounted
	late       bool // the run ended before its crash point: killed after its last write
	current    *crashProcess
	crashed    chan struct{}
}

func newCrashInjector(scheme *runtime.Scheme, at int, before bool) *crashInjector {
	return &crashInjector{scheme: scheme, at: at, before: before, health: map[string]string{}, crashed: make(chan struct{})}
}

type crashProcess struct {
	inj  *crashInjector
	dead bool // guarded by inj.mu
}

// wrap returns the client of a new controller process.
func (inj *crashInjector) wrap(c client.WithWatch) client.Client {
	p := &crashProcess{inj: inj}
	inj.mu.Lock()
	inj.current = p
	inj.mu.Unlock()
	return interceptor.NewClient(c, interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			return p.send("create", obj, "", func() error { return c.Create(ctx, obj, opts...) })
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			return p.send("update", obj, healthOnly(obj), func() error { return c.Update(ctx, obj, opts...) })
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			return p.send("patch", obj, "", func() error { return c.Patch(ctx, obj, patch, opts...) })
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			return p.send("delete", obj, "", func() error { return c.Delete(ctx, obj, opts...) })
		},
		DeleteAllOf: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteAllOfOption) error {
			return p.send("deleteAllOf", obj, "", func() error { return c.DeleteAllOf(ctx, obj, opts...) })
		},
		Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			return p.send("apply", nil, "", func() error { return c.Apply(ctx, obj, opts...) })
		},
		SubResourceCreate: func(ctx context.Context, c client.Client, sub string, obj, subObj client.Object, opts ...client.SubResourceCreateOption) error {
			return p.send("create/"+sub, obj, "", func() error { return c.SubResource(sub).Create(ctx, obj, subObj, opts...) })
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			return p.send("update/"+sub, obj, "", func() error { return c.SubResource(sub).Update(ctx, obj, opts...) })
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			return p.send("patch/"+sub, obj, "", func() error { return c.SubResource(sub).Patch(ctx, obj, patch, opts...) })
		},
		SubResourceApply: func(ctx context.Context, c client.Client, sub string, obj runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
			return p.send("apply/"+sub, nil, "", func() error { return c.SubResource(sub).Apply(ctx, obj, opts...) })
		},
	})
}

// healthOnly returns, for a ManagedCluster, its taints and its tracker
// state without the last-heard time: a write that changes nothing else is
// a heartbeat.
func healthOnly(obj client.Object) string {
	mc, ok := obj.(*clusterv1.ManagedCluster)
	if !ok {
		return ""
	}
	var st map[string]any
	if json.Unmarshal([]byte(mc.Annotations[controllers.ClusterHealthStateAnnotation]), &st) != nil {
		return ""
	}
	delete(st, "lastHeard")
	out, err := json.Marshal(map[string]any{"taints": mc.Spec.Taints, "state": st})
	if err != nil {
		return ""
	}
	return string(out)
}

func (p *crashProcess) send(verb string, obj client.Object, health string, send func() error) error {
	inj := p.inj
	inj.mu.Lock()
	defer inj.mu.Unlock()
	if p.dead {
		return errProcessDied
	}
	if inj.frozen {
		return send()
	}
	heartbeat := health != "" && inj.health[obj.GetName()] == health
	point := !heartbeat || inj.everyWrite
	n := inj.points() + 1
	if point && !inj.fired && n == inj.at && inj.before {
		inj.die(p)
		return errProcessDied
	}
	inj.writes++
	desc := verb
	if obj != nil {
		kind := fmt.Sprintf("%T", obj)
		if gvk, err := apiutil.GVKForObject(obj, inj.scheme); err == nil {
			kind = gvk.Kind
		}
		desc = fmt.Sprintf("%s %s %s", verb, kind, client.ObjectKeyFromObject(obj))
	}
	if heartbeat {
		inj.heartbeats++
		desc += " (heartbeat)"
	}
	inj.log = append(inj.log, desc)
	err := send()
	if err == nil && health != "" {
		inj.health[obj.GetName()] = health
	}
	if point && !inj.fired && n == inj.at {
		inj.die(p)
	}
	return err
}

// freeze ends the run's count: later writes (the test's clean-up) pass
// uncounted and crash nothing.
func (inj *crashInjector) freeze() {
	inj.mu.Lock()
	defer inj.mu.Unlock()
	inj.frozen = true
}

// kill kills the running process now, between its writes.
func (inj *crashInjector) kill() {
	inj.mu.Lock()
	defer inj.mu.Unlock()
	if !inj.fired && inj.current != nil {
		inj.die(inj.current)
	}
}

// killNow kills the running process after its last write, when the run
// ended before reaching its crash point: the writes a run makes vary a
// little from run to run (a conflict retried, two looks merged into one).
func (inj *crashInjector) killNow() bool {
	inj.mu.Lock()
	defer inj.mu.Unlock()
	if inj.fired || inj.at == 0 || inj.current == nil {
		return false
	}
	inj.late = true
	inj.die(inj.current)
	return true
}

func (inj *crashInjector) die(p *crashProcess) {
	p.dead = true
	inj.fired = true
	inj.deaths++
	close(inj.crashed)
}

// dying returns the channel closed when the running process dies.
func (inj *crashInjector) dying() <-chan struct{} {
	inj.mu.Lock()
	defer inj.mu.Unlock()
	return inj.crashed
}

// killed returns the processes killed so far.
func (inj *crashInjector) killed() int {
	inj.mu.Lock()
	defer inj.mu.Unlock()
	return inj.deaths
}

func (inj *crashInjector) points() int {
	if inj.everyWrite {
		return inj.writes
	}
	return inj.writes - inj.heartbeats
}

// count returns the crash points passed so far.
func (inj *crashInjector) count() int {
	inj.mu.Lock()
	defer inj.mu.Unlock()
	return inj.points()
}

// counts returns the writes sent so far and, of them, the heartbeats.
func (inj *crashInjector) counts() (writes, heartbeats int) {
	inj.mu.Lock()
	defer inj.mu.Unlock()
	return inj.writes, inj.heartbeats
}

// pointLog returns what each crash point was.
func (inj *crashInjector) pointLog() []string {
	inj.mu.Lock()
	defer inj.mu.Unlock()
	var out []string
	for _, w := range inj.log {
		if inj.everyWrite || !strings.HasSuffix(w, " (heartbeat)") {
			out = append(out, w)
		}
	}
	return out
}

func (inj *crashInjector) hasFired() bool {
	inj.mu.Lock()
	defer inj.mu.Unlock()
	return inj.fired
}

// storyCrash is a crash planned for the fixture a test makes: the crash
// campaign runs the stories unchanged, and newFixture finds the plan by
// the test it is given.
type storyCrash struct {
	inj *crashInjector
	mu  sync.Mutex
	f   *fixture
}

var crashPlans sync.Map // *testing.T -> *storyCrash

// planCrash makes the fixture that t's story creates crash as inj says.
func planCrash(t *testing.T, inj *crashInjector) *storyCrash {
	p := &storyCrash{inj: inj}
	crashPlans.Store(t, p)
	t.Cleanup(func() { crashPlans.Delete(t) })
	return p
}

func (p *storyCrash) fixture() *fixture {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.f
}

// plannedCrash wires the crash planned for f's test, if any.
func plannedCrash(f *fixture) {
	v, ok := crashPlans.Load(f.t)
	if !ok {
		return
	}
	p := v.(*storyCrash)
	p.mu.Lock()
	p.f = f
	p.mu.Unlock()
	wrap := f.newClient
	f.newClient = func(c client.WithWatch) client.Client {
		if wrap != nil {
			c = wrap(c).(client.WithWatch)
		}
		return p.inj.wrap(c)
	}
	f.crash = p.inj
}

// crashPending reports whether the running process died and was not
// replaced yet.
func (f *fixture) crashPending() bool {
	if f.crash == nil || f.crashHandled {
		return false
	}
	select {
	case <-f.crash.dying():
		return true
	default:
		return false
	}
}

// recoverCrash stops the dead process's manager and starts a new process
// in its place, at the same fake time.
func (f *fixture) recoverCrash() {
	f.t.Helper()
	if !f.crashLogged {
		// Registered after the clusters' own clean-up, so it runs first.
		f.crashLogged = true
		f.t.Cleanup(func() {
			if f.t.Failed() {
				f.logClusters()
			}
		})
	}
	f.crashHandled = true
	f.restart()
}

// logClusters logs the test's clusters as the controllers left them, for
// a failed run.
func (f *fixture) logClusters() {
	clusters := &clusterv1.ManagedClusterList{}
	if err := f.c.List(context.Background(), clusters, client.MatchingLabels{scopeLabel: f.ns}); err != nil {
		return
	}
	for _, mc := range clusters.Items {
		f.t.Logf("at %s cluster %s: taints %v, health %s", f.clock.Now().Format(time.RFC3339), mc.Name, mc.Spec.Taints, mc.Annotations[controllers.ClusterHealthStateAnnotation])
	}
}
