package controllers_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	clusterv1alpha1 "github.com/karmada-io/api/cluster/v1alpha1"

	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// errProcessDied is what every write of a controller process that crashed
// returns: nothing it tries after its crash point reaches the API server.
var errProcessDied = errors.New("crash injector: the controller process is dead")

// crashInjector kills the controller process between two of its writes.
// It counts the writes the controllers make through the manager's client
// (create, update, patch, delete, on objects and their subresources; the
// test's own client is not counted) and, at write number at, either fails
// that write (before) or lets it land (after); from then on every write of
// that process fails, as if it had died there, and the test is told
// (crashed) so that it stops the dead manager and starts a new one, as a
// new process would start: nothing in memory survives, only what is in
// the API server. One run crashes at most once; the processes started
// after the crash write freely, and their writes are counted too.
//
// Writes are serialised through the injector, so that "after write k" is
// exact even with several workers: write k lands and the process is dead
// before write k+1 is sent.
//
// A crash point is a write that changes what the controllers decided.
// The cluster health controller also refreshes each cluster's persisted
// tracker state at every probe, where only the time the cluster was last
// heard from changes (a heartbeat, one write per cluster and probe
// interval): a crash after one of those leaves the API server as the last
// crash point left it, a probe interval later. Heartbeats are counted and
// are crash points only with everyWrite.
type crashInjector struct {
	scheme *runtime.Scheme
	clock  clock.PassiveClock // the controllers' clock, to tell when each write was
	at     int                // the crash point the process dies at; 0: never
	before bool               // die before that write is sent (it fails), not after it lands
	// everyWrite makes every write a crash point, heartbeats included.
	everyWrite bool
	// chain kills every process after its first crash point that lands:
	// one run passes every crash point, each followed by a new process.
	chain bool
	// after, when set, kills the process after the first write whose
	// description (see describe) it accepts, instead of at a number.
	after func(write string) bool
	// killAt kills the running process after each of these crash points
	// (several deaths, as chain).
	killAt []int
	// onDeath, when set, replaces the fixture's restart after a death (a
	// standby taking over by leader election).
	onDeath func()

	mu         sync.Mutex
	writes     int               // writes sent, by every process of the run
	heartbeats int               // of which heartbeats
	health     map[string]string // per cluster, the last tracker state written, without its last-heard time
	log        []string          // what each write was, for reports
	times      []time.Time       // when each write was, on the controllers' clock
	fired      bool
	deaths     int           // processes killed
	frozen     bool          // the run ended: writes pass, uncounted
	current    *crashProcess // the running process
	crashed    chan struct{} // closed when the running process dies
}

func newCrashInjector(scheme *runtime.Scheme, clk clock.PassiveClock, at int, before bool) *crashInjector {
	return &crashInjector{scheme: scheme, clock: clk, at: at, before: before, health: map[string]string{}, crashed: make(chan struct{})}
}

// process is one controller process's view of the injector: the writes of
// a process that died fail.
type crashProcess struct {
	inj  *crashInjector
	dead bool // guarded by inj.mu
}

// wrap returns the client of a new controller process: c, with its writes
// counted and, at the crash point, the process killed.
func (inj *crashInjector) wrap(c client.WithWatch) client.Client {
	p := &crashProcess{inj: inj}
	inj.mu.Lock()
	inj.current = p
	inj.mu.Unlock()
	return interceptor.NewClient(c, interceptor.Funcs{
		Create: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.CreateOption) error {
			return p.write("create", obj, func() error { return c.Create(ctx, obj, opts...) })
		},
		Update: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.UpdateOption) error {
			return p.write("update", obj, func() error { return c.Update(ctx, obj, opts...) })
		},
		Patch: func(ctx context.Context, c client.WithWatch, obj client.Object, patch client.Patch, opts ...client.PatchOption) error {
			return p.writePatch(obj, patch, func() error { return c.Patch(ctx, obj, patch, opts...) })
		},
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			return p.write("delete", obj, func() error { return c.Delete(ctx, obj, opts...) })
		},
		DeleteAllOf: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteAllOfOption) error {
			return p.write("deleteAllOf", obj, func() error { return c.DeleteAllOf(ctx, obj, opts...) })
		},
		Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			return p.write("apply", nil, func() error { return c.Apply(ctx, obj, opts...) })
		},
		SubResourceCreate: func(ctx context.Context, c client.Client, sub string, obj, subObj client.Object, opts ...client.SubResourceCreateOption) error {
			return p.write("create/"+sub, obj, func() error { return c.SubResource(sub).Create(ctx, obj, subObj, opts...) })
		},
		SubResourceUpdate: func(ctx context.Context, c client.Client, sub string, obj client.Object, opts ...client.SubResourceUpdateOption) error {
			return p.write("update/"+sub, obj, func() error { return c.SubResource(sub).Update(ctx, obj, opts...) })
		},
		SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, patch client.Patch, opts ...client.SubResourcePatchOption) error {
			return p.write("patch/"+sub, obj, func() error { return c.SubResource(sub).Patch(ctx, obj, patch, opts...) })
		},
		SubResourceApply: func(ctx context.Context, c client.Client, sub string, obj runtime.ApplyConfiguration, opts ...client.SubResourceApplyOption) error {
			return p.write("apply/"+sub, nil, func() error { return c.SubResource(sub).Apply(ctx, obj, opts...) })
		},
	})
}

// write sends one write of the process, unless the process is dead or
// dies at it.
func (p *crashProcess) write(verb string, obj client.Object, send func() error) error {
	return p.send(verb, obj, "", send)
}

// writePatch is write for a patch of the object itself, which may be a
// heartbeat.
func (p *crashProcess) writePatch(obj client.Object, patch client.Patch, send func() error) error {
	var state string
	if _, ok := obj.(*clusterv1alpha1.Cluster); ok {
		if data, err := patch.Data(obj); err == nil {
			state = healthStateOnly(data)
		}
	}
	return p.send("patch", obj, state, send)
}

// send sends one write. health is, for a patch of a cluster's tracker
// state and nothing else, that state without its last-heard time.
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
	desc := inj.describe(verb, obj)
	if heartbeat {
		inj.heartbeats++
		desc += " (heartbeat)"
	}
	inj.log = append(inj.log, desc)
	inj.times = append(inj.times, inj.clock.Now())
	err := send()
	if err == nil && health != "" {
		inj.health[obj.GetName()] = health
	}
	if point && !inj.fired && n == inj.at || point && (inj.chain && err == nil || slices.Contains(inj.killAt, n)) ||
		!inj.fired && inj.after != nil && err == nil && inj.after(desc) {
		inj.die(p)
	}
	return err
}

// points is the number of crash points passed.
func (inj *crashInjector) points() int {
	if inj.everyWrite {
		return inj.writes
	}
	return inj.writes - inj.heartbeats
}

// healthStateOnly returns, when the merge patch data changes a cluster's
// health tracker annotation and nothing else, the state it writes without
// its last-heard time; "" otherwise.
func healthStateOnly(data []byte) string {
	var top map[string]json.RawMessage
	var metadata map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil || len(top) != 1 || json.Unmarshal(top["metadata"], &metadata) != nil {
		return ""
	}
	var annotations map[string]*string
	for k, v := range metadata {
		switch k {
		case "resourceVersion":
		case "annotations":
			if json.Unmarshal(v, &annotations) != nil {
				return ""
			}
		default:
			return ""
		}
	}
	raw := annotations[controllers.ClusterHealthStateAnnotation]
	if len(annotations) != 1 || raw == nil {
		return ""
	}
	var doc map[string]any
	if json.Unmarshal([]byte(*raw), &doc) != nil {
		return ""
	}
	if st, ok := doc["state"].(map[string]any); ok {
		delete(st, "lastHeard")
	}
	out, err := json.Marshal(doc)
	if err != nil {
		return ""
	}
	return string(out)
}

// die kills p: its later writes fail and the test is told.
func (inj *crashInjector) die(p *crashProcess) {
	p.dead = true
	inj.fired = true
	inj.deaths++
	close(inj.crashed)
}

// killNow kills the running process after its last write, when the run
// ended before reaching its crash point (a run's writes vary a little
// from run to run: a conflict retried, two looks merged into one). It
// reports whether it killed it.
func (inj *crashInjector) killNow() bool {
	inj.mu.Lock()
	defer inj.mu.Unlock()
	if inj.fired || inj.at == 0 && inj.after == nil || inj.current == nil {
		return false
	}
	inj.die(inj.current)
	return true
}

// dying returns the channel closed when the running process dies.
func (inj *crashInjector) dying() <-chan struct{} {
	inj.mu.Lock()
	defer inj.mu.Unlock()
	return inj.crashed
}

// buried is told that the dead process was replaced: in a chain, the new
// process may die in turn.
func (inj *crashInjector) buried() {
	inj.mu.Lock()
	defer inj.mu.Unlock()
	if inj.rearms() {
		inj.crashed = make(chan struct{})
	}
}

// rearms reports whether a run may kill more than one process.
func (inj *crashInjector) rearms() bool { return inj.chain || len(inj.killAt) > 0 }

// freeze ends the run's count: later writes (the test's clean-up making
// the controllers let go of its objects) pass uncounted and kill nothing.
func (inj *crashInjector) freeze() {
	inj.mu.Lock()
	defer inj.mu.Unlock()
	inj.frozen = true
}

// killed returns the processes killed so far.
func (inj *crashInjector) killed() int {
	inj.mu.Lock()
	defer inj.mu.Unlock()
	return inj.deaths
}

func (inj *crashInjector) describe(verb string, obj client.Object) string {
	if obj == nil {
		return verb
	}
	kind := fmt.Sprintf("%T", obj)
	if gvk, err := apiutil.GVKForObject(obj, inj.scheme); err == nil {
		kind = gvk.Kind
	}
	return fmt.Sprintf("%s %s %s", verb, kind, client.ObjectKeyFromObject(obj))
}

// count returns the crash points passed so far: the writes sent, without
// the heartbeats unless they count.
func (inj *crashInjector) count() int {
	inj.mu.Lock()
	defer inj.mu.Unlock()
	return inj.points()
}

// hasFired reports whether the process died.
func (inj *crashInjector) hasFired() bool {
	inj.mu.Lock()
	defer inj.mu.Unlock()
	return inj.fired
}

// counts returns the writes sent so far and, of them, the heartbeats.
func (inj *crashInjector) counts() (writes, heartbeats int) {
	inj.mu.Lock()
	defer inj.mu.Unlock()
	return inj.writes, inj.heartbeats
}

// lastPoint returns when the last crash point was passed; zero when none
// was.
func (inj *crashInjector) lastPoint() time.Time {
	inj.mu.Lock()
	defer inj.mu.Unlock()
	for i := len(inj.log) - 1; i >= 0; i-- {
		if inj.everyWrite || !strings.HasSuffix(inj.log[i], " (heartbeat)") {
			return inj.times[i]
		}
	}
	return time.Time{}
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

// injectCrashes makes the fixture's controller processes write through inj
// and start afresh when one of them dies. Call it before the first start.
func (f *fixture) injectCrashes(inj *crashInjector) {
	wrap := f.newClient
	f.newClient = func(c client.WithWatch) client.Client {
		if wrap != nil {
			c = asWithWatch(wrap(c))
		}
		return inj.wrap(c)
	}
	f.crash = inj
}

// asWithWatch lets a wrapped client be wrapped again.
func asWithWatch(c client.Client) client.WithWatch {
	if w, ok := c.(client.WithWatch); ok {
		return w
	}
	panic(fmt.Sprintf("client %T has no Watch", c))
}

// crashed is closed when the running controller process died; nil (never
// ready) when the fixture injects no crash or the crash was handled.
func (f *fixture) crashed() <-chan struct{} {
	if f.crash == nil || f.crashHandled {
		return nil
	}
	return f.crash.dying()
}

// recoverCrash stops the dead process's manager and starts a new process
// in its place, at the same fake time: what the first one wrote is all the
// second one has.
func (f *fixture) recoverCrash() {
	f.t.Helper()
	if f.crash.onDeath == nil {
		f.stopControllers()
	}
	// Re-armed before another process runs: it may die in turn.
	if f.crash.rearms() {
		f.crash.buried()
	} else {
		f.crashHandled = true
	}
	if f.crash.onDeath != nil {
		f.crash.onDeath()
		return
	}
	f.start()
}

// crashPending reports whether the running process died and was not
// replaced yet.
func (f *fixture) crashPending() bool {
	select {
	case <-f.crashed():
		return true
	default:
		return false
	}
}
