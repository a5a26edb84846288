package beside_test

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	policyv1alpha1 "github.com/karmada-io/api/policy/v1alpha1"
	workv1alpha1 "github.com/karmada-io/api/work/v1alpha1"

	"github.com/fleetover/fleetover/examples/karmada/beside"
	"github.com/fleetover/fleetover/examples/karmada/controllers"
)

var benchBindings = flag.String("beside.bench-bindings", "1,100", "comma-separated numbers of bindings on the failed member for BenchmarkClusterFailover")

// BenchmarkClusterFailover measures, in K and in F on the same members,
// the time from a member's failure (its API endpoint made unreachable;
// the ClusterTaintPolicy of Karmada's docs taints it NoExecute once it is
// not Ready) to every workload it ran being ready on the backup member,
// and the API writes the control plane's components sent for it, per
// moved binding. To karmada-apiserver: every successful write of a
// component to an object of the failover's own (its namespace's bindings,
// templates and events, its clusters' Works and their events), counted
// from karmada-apiserver's audit log (Options.AuditWrites) from the
// failure until every Work on the failed member is deleted and no such
// write has come for a while after (stageWrites); "work-"
// is the part of it that went to Works. To the members: the components'
// client metrics, less what they write when idle (their steady rate just
// before, see steadyWrites). In F the writes are karmada-controller-
// manager's and karmada-scheduler's plus fleetover-controller-manager's;
// in K Karmada's alone.
//
//	go test ./beside/ -run '^$' -bench ClusterFailover -benchtime 1x [-beside.bench-bindings 1,100,1000] [-beside.eviction-rate 100]
func BenchmarkClusterFailover(b *testing.B) {
	var sizes []int
	for _, f := range strings.Split(*benchBindings, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			b.Fatalf("-beside.bench-bindings: %q is not a positive number", f)
		}
		sizes = append(sizes, n)
	}
	for _, n := range sizes {
		for _, c := range []beside.Configuration{beside.KarmadaAlone, beside.FleetoverBeside} {
			b.Run(fmt.Sprintf("bindings=%d/%s", n, c), func(b *testing.B) {
				for range b.N {
					benchClusterFailover(b, c, n)
				}
			})
		}
	}
}

func benchClusterFailover(b *testing.B, conf beside.Configuration, n int) {
	b.StopTimer()
	s := newStage(b, planes[conf], conf)
	s.notReadyTaintPolicy()
	primary, backup := s.clusters[0], s.clusters[1]
	for i := range n {
		d := s.template(fmt.Sprintf("app-%04d", i), "nginx:1.19.0")
		d.Labels = map[string]string{"fleetover.test/bench": "failover"}
		if err := s.c.Create(s.ctx, d); err != nil {
			b.Fatal(err)
		}
	}
	p := &policyv1alpha1.PropagationPolicy{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: "apps"},
		Spec: policyv1alpha1.PropagationSpec{
			ResourceSelectors: []policyv1alpha1.ResourceSelector{{
				APIVersion: "apps/v1", Kind: "Deployment",
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"fleetover.test/bench": "failover"}},
			}},
			Placement: policyv1alpha1.Placement{ClusterAffinities: []policyv1alpha1.ClusterAffinityTerm{
				{AffinityName: "primary", ClusterAffinity: policyv1alpha1.ClusterAffinity{ClusterNames: []string{primary}}},
				{AffinityName: "backup", ClusterAffinity: policyv1alpha1.ClusterAffinity{ClusterNames: []string{backup}}},
			}},
		},
	}
	if err := s.c.Create(s.ctx, p); err != nil {
		b.Fatal(err)
	}
	s.eventuallyWithin(deadline+time.Duration(n)*time.Second, fmt.Sprintf("%d workloads ready on %s", n, primary), func() (bool, string) {
		ready := s.readyOn(primary)
		return ready == n, fmt.Sprintf("%d ready", ready)
	})
	// The components write all the time (cluster status, leases, events):
	// their steady rate is taken off the failover's writes to the members.
	// To karmada-apiserver, only the failover's objects count, from the
	// moment the propagation's writes to them have ended.
	settled, windowStart, idle := s.steadyWrites()
	background := settled.Sub(windowStart)
	before := s.stageWrites(0)

	b.StartTimer()
	start := time.Now()
	s.unreachable(primary)
	// Evictions are paced (--resource-eviction-rate, 0.5 per second by
	// default): the wait grows with the bindings.
	s.eventuallyWithin(deadline+time.Duration(n)*3*time.Second, fmt.Sprintf("%d workloads ready on %s", n, backup), func() (bool, string) {
		ready := s.readyOn(backup)
		return ready == n, fmt.Sprintf("%d ready", ready)
	})
	took := time.Since(start)
	b.StopTimer()
	// The member writes end here, where the background taken off them
	// (scaled to took) ends.
	scale := took.Seconds() / idle.Seconds()
	end := s.sample()
	w := end.Sub(settled).Sub(background.Scale(scale))
	// The writes to karmada-apiserver are counted once every old copy is
	// let go of: each Work on the failed cluster deleted (it keeps
	// Karmada's finalizer while the cluster cannot be reached), and no
	// write come for a while after.
	s.eventuallyWithin(deadline+time.Duration(n)*time.Second, fmt.Sprintf("every Work on %s deleted", primary), func() (bool, string) {
		live := s.liveWorks(primary)
		return live == 0, fmt.Sprintf("%d Works not deleted", live)
	})
	audited := s.stageWrites(before.records)
	b.ReportMetric(took.Seconds(), "s/failover")
	b.ReportMetric(float64(audited.total)/float64(n), "writes/binding")
	b.ReportMetric(float64(audited.works)/float64(n), "work-writes/binding")
	b.ReportMetric(w.Members/float64(n), "member-writes/binding")
	var lines []string
	for _, kind := range slices.Sorted(maps.Keys(audited.byRequest)) {
		if per := float64(audited.byRequest[kind]) / float64(n); per >= 0.005 {
			lines = append(lines, fmt.Sprintf("  %-72s %6.2f", kind, per))
		}
	}
	b.Logf("writes to karmada-apiserver per binding, by component and request (audit log):\n%s", strings.Join(lines, "\n"))
	// Removed before the next benchmark starts, not beside it: Karmada's
	// deletion of N Works and their copies would be measured with it.
	s.removeNow(cleanupTimeout + time.Duration(n)*time.Second/2)
}

// template is a Deployment template of the stage's namespace, not yet
// created.
func (s *stage) template(name, image string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.ns, Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "nginx", Image: image}}},
			},
		},
	}
}

// liveWorks counts the Works in a stage cluster's execution namespace
// that are not being deleted (their metadata only: a Work holds its
// manifest).
func (s *stage) liveWorks(cluster string) int {
	s.t.Helper()
	list := &metav1.PartialObjectMetadataList{}
	list.SetGroupVersionKind(workv1alpha1.SchemeGroupVersion.WithKind("WorkList"))
	if err := s.c.List(s.ctx, list, client.InNamespace(controllers.ExecutionNamespace(cluster))); err != nil {
		s.t.Fatal(err)
	}
	live := 0
	for _, w := range list.Items {
		if w.DeletionTimestamp == nil {
			live++
		}
	}
	return live
}

// readyOn counts the stage's Deployments with every replica ready on a
// stage cluster's member.
func (s *stage) readyOn(cluster string) int {
	s.t.Helper()
	list := &appsv1.DeploymentList{}
	if err := s.member(cluster).Client.List(s.ctx, list, client.InNamespace(s.ns)); err != nil {
		s.t.Fatal(err)
	}
	ready := 0
	for _, d := range list.Items {
		if d.DeletionTimestamp == nil && d.Status.ReadyReplicas == ptr.Deref(d.Spec.Replicas, 1) && d.Status.ObservedGeneration == d.Generation {
			ready++
		}
	}
	return ready
}

// writeSample is the writes counted at one moment, or between two: those
// of every component doing the stage's configuration's work.
type writeSample struct {
	beside.Writes
}

// Sub returns the writes between o and w.
func (w writeSample) Sub(o writeSample) writeSample {
	return writeSample{Writes: w.Writes.Sub(o.Writes)}
}

// Scale returns the totals of w times f.
func (w writeSample) Scale(f float64) writeSample {
	w.ControlPlane *= f
	w.Members *= f
	return w
}

// sample reads the writes so far.
func (s *stage) sample() writeSample {
	s.t.Helper()
	w, err := s.cp.KarmadaWrites(s.ctx)
	if err != nil {
		s.t.Fatal(err)
	}
	out := writeSample{Writes: w}
	if s.conf == beside.FleetoverBeside {
		out.Writes = out.Add(fleetoverWrites.Writes())
	}
	return out
}

// auditedWrites is what the components wrote to one stage's objects in
// karmada-apiserver, from its audit log.
type auditedWrites struct {
	// records is how many records the audit log held when these were
	// counted: where the next count starts.
	records int
	// total counts the successful writes, works those to Works.
	total, works int
	// byRequest counts them by "<component> <verb> <resource>".
	byRequest map[string]int
}

// stageWrites waits until no component has written to an object of the
// stage for quietFor (after two minutes it counts what has come), then
// counts the writes in the audit log after its first from records: those
// to objects in the stage's namespace and in its clusters' execution
// namespaces (karmada-es-<cluster>: their Works and events). A cluster's
// own status and lease writes are left out: they go on whether or not
// anything fails. The test's own writes are left out too (its client has
// the test binary's User-Agent and the administrator's user; in F,
// fleetover-controller-manager runs in the test process but as its
// ServiceAccount).
func (s *stage) stageWrites(from int) auditedWrites {
	s.t.Helper()
	const quietFor = 10 * time.Second
	namespaces := map[string]bool{s.ns: true}
	for _, c := range s.clusters {
		namespaces[controllers.ExecutionNamespace(c)] = true
	}
	testAgent := filepath.Base(os.Args[0]) + "/"
	count := func() auditedWrites {
		records, err := s.cp.Audit()
		if err != nil {
			s.t.Fatal(err)
		}
		out := auditedWrites{records: len(records), byRequest: map[string]int{}}
		for _, r := range records[min(from, len(records)):] {
			if !r.Write() || !namespaces[r.Namespace] {
				continue
			}
			component, serviceAccount := strings.CutPrefix(r.User, "system:serviceaccount:")
			if serviceAccount {
				component = component[strings.LastIndex(component, ":")+1:]
			} else if strings.HasPrefix(r.UserAgent, testAgent) {
				continue
			} else {
				component, _, _ = strings.Cut(r.UserAgent, "/")
			}
			out.total++
			if r.Resource == "works" {
				out.works++
			}
			res := r.Resource
			if r.Subresource != "" {
				res += "/" + r.Subresource
			}
			out.byRequest[component+" "+r.Verb+" "+res]++
		}
		return out
	}
	last := count()
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end); {
		time.Sleep(quietFor)
		cur := count()
		if cur.total == last.total {
			return cur
		}
		last = cur
	}
	return last
}

// steadyWrites waits until the components' writes come at a steady rate
// (two 5 s windows within 10 %, or 3 writes, of each other; after many
// bindings the status and event writes go on for a while after every copy
// is ready) and returns the writes so far, those at the start of the last
// window, and the window's length. After two minutes it takes the last
// window as it is.
func (s *stage) steadyWrites() (now, windowStart writeSample, length time.Duration) {
	s.t.Helper()
	const step = 5 * time.Second
	steady := func(a, b float64) bool {
		d := a - b
		if d < 0 {
			d = -d
		}
		return d <= 3 || d <= 0.1*a
	}
	prev := s.sample()
	time.Sleep(step)
	cur := s.sample()
	last := cur.Sub(prev)
	for end := time.Now().Add(2 * time.Minute); time.Now().Before(end); {
		prev = cur
		time.Sleep(step)
		cur = s.sample()
		w := cur.Sub(prev)
		if steady(w.ControlPlane, last.ControlPlane) && steady(w.Members, last.Members) {
			return cur, prev, step
		}
		last = w
	}
	return cur, prev, step
}
