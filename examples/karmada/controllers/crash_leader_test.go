package controllers_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

// Leader election as the binary runs it, with short durations: a killed
// leader does not release its Lease (a dead process cannot), so the
// follower takes over once the Lease expires.
const (
	testLeaseDuration = 2 * time.Second
	testRenewDeadline = time.Second
	testRetryPeriod   = 200 * time.Millisecond
)

// TestCrashLeaderKilledAtRandomWrites runs a replayed scenario with two
// controller processes electing a leader on the API server's Lease. The
// leader dies at three crash points drawn at random (the seed is logged;
// -crash.seed replays one); each
// time, the follower, which ran all along with its caches warm but its
// controllers stopped, takes the Lease over once it expires, and a new
// follower starts. The run must agree with the simulator as an uninterrupted
// one does: the same placements, evictions, state carried, and never two
// copies of a single-writer workload.
func TestCrashLeaderKilledAtRandomWrites(t *testing.T) {
	t.Parallel()
	fx := readReplayFixture(t, "observed-group")
	r := newReplayRun(t, fx)
	seed := *crashSeed
	if seed == 0 {
		seed = time.Now().UnixNano()
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0))
	var kills []int
	for len(kills) < 3 {
		// The scenario has some 35 crash points.
		if k := 1 + rng.IntN(30); !slices.Contains(kills, k) {
			kills = append(kills, k)
		}
	}
	slices.Sort(kills)
	t.Logf("seed %d: the leader dies after crash points %v", seed, kills)

	inj := newCrashInjector(testScheme, r.clock, 0, false)
	inj.killAt = kills
	r.injectCrashes(inj)
	e := &election{f: r.fixture, id: "fleetover-" + r.ns}
	r.startWith = e.start
	inj.onDeath = e.takeOver
	t.Cleanup(e.stopAll)
	r.run()
	r.compare()
	if got := inj.killed(); got != len(kills) {
		t.Errorf("%d leaders killed, want %d (the run made %d crash points)", got, len(kills), inj.count())
	}
	if e.leaders < len(kills)+1 {
		t.Errorf("%d processes led, want %d", e.leaders, len(kills)+1)
	}
}

// election runs a leader and a follower for a fixture.
type election struct {
	f       *fixture
	id      string
	leader  *candidate
	standby *candidate
	leaders int
	n       int
}

// candidate is one controller process taking part in the election.
type candidate struct {
	name       string
	mgr        manager.Manager
	ctrls      *controllers.Controllers
	activity   *controllers.Activity
	deliveries *deliveries
	cancel     func()
	wg         sync.WaitGroup
}

// start starts the first leader and its follower.
func (e *election) start() {
	e.f.t.Helper()
	first := e.candidate()
	e.install(first)
	e.standby = e.candidate()
}

// takeOver stops the dead leader without releasing its Lease, waits for
// the follower to win it, makes it the fixture's process and starts a new
// follower.
func (e *election) takeOver() {
	e.f.t.Helper()
	dead := e.leader
	dead.cancel()
	dead.wg.Wait()
	next := e.standby
	select {
	case <-next.mgr.Elected():
	case <-time.After(30 * time.Second):
		e.f.t.Fatalf("the follower %s did not take over within 30 s (Lease %s)", next.name, testLeaseDuration)
	case <-e.f.ctx.Done():
		e.f.t.Fatal("test ended")
	}
	e.install(next)
	e.standby = e.candidate()
}

// install makes c, once elected, the fixture's running process.
func (e *election) install(c *candidate) {
	e.f.t.Helper()
	select {
	case <-c.mgr.Elected():
	case <-time.After(30 * time.Second):
		e.f.t.Fatalf("%s was not elected within 30 s", c.name)
	}
	e.leader = c
	e.leaders++
	f := e.f
	f.activity = c.activity
	f.mu.Lock()
	f.deliveries = c.deliveries
	f.mu.Unlock()
	f.ctrls = c.ctrls
	f.cache = c.mgr.GetCache()
	f.stop = func() { c.cancel(); c.wg.Wait() }
}

func (e *election) stopAll() {
	for _, c := range []*candidate{e.leader, e.standby} {
		if c != nil {
			c.cancel()
			c.wg.Wait()
		}
	}
}

// candidate starts a controller process with leader election, as
// fixture.start starts one without: fresh in-memory state, the same API
// server and clock, the manager's client counted by the crash injector.
func (e *election) candidate() *candidate {
	f := e.f
	f.t.Helper()
	e.n++
	c := &candidate{name: fmt.Sprintf("%s-%d", e.id, e.n)}
	cfg := f.cfg
	cfg.Registerer = prometheus.NewRegistry()
	cfg.NamePrefix = fmt.Sprintf("%s-le%d-", f.ns, e.n)
	c.activity = controllers.NewActivity(f.clock)
	cfg.Activity = c.activity
	c.deliveries = newDeliveries(testScheme)
	wrap := f.newClient
	opts := manager.Options{
		Scheme:                        testScheme,
		Cache:                         scopedCache(f.ns),
		Metrics:                       metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:        "0",
		Controller:                    config.Controller{SkipNameValidation: ptr.To(true)},
		LeaderElection:                true,
		LeaderElectionID:              e.id,
		LeaderElectionNamespace:       f.ns,
		LeaderElectionReleaseOnCancel: false,
		LeaseDuration:                 ptr.To(testLeaseDuration),
		RenewDeadline:                 ptr.To(testRenewDeadline),
		RetryPeriod:                   ptr.To(testRetryPeriod),
		NewClient: func(rc *rest.Config, o client.Options) (client.Client, error) {
			cl, err := client.NewWithWatch(rc, o)
			if err != nil {
				return nil, err
			}
			cl = f.recordingClient(cl, "")
			if wrap != nil {
				return wrap(cl), nil
			}
			return cl, nil
		},
	}
	mgr, err := ctrl.NewManager(f.rest, opts)
	if err != nil {
		f.t.Fatal(err)
	}
	c.mgr = mgr
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel = cancel
	if c.ctrls, err = controllers.Setup(ctx, mgr, cfg); err != nil {
		cancel()
		f.t.Fatal(err)
	}
	if err := c.deliveries.watch(ctx, mgr.GetCache()); err != nil {
		cancel()
		f.t.Fatal(err)
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		if err := mgr.Start(ctx); err != nil {
			f.t.Errorf("manager %s: %v", c.name, err)
		}
	}()
	return c
}
