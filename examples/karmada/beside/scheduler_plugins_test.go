package beside_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	policyv1alpha1 "github.com/karmada-io/api/policy/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"

	"github.com/fleetover/fleetover/examples/karmada/beside"
	"github.com/fleetover/fleetover/examples/karmada/carrier"
)

// Configuration F's scheduler is fleetover-karmada-scheduler: Karmada's
// scheduler with fleetover's filter plugins. Each scenario here is a
// placement karmada-scheduler makes (configuration K) that one of the
// plugins changes.

// waitScheduledAt waits until the scheduler has placed the binding of name
// as it now stands (its observed generation caught up, Scheduled True)
// and returns the clusters it chose.
func (s *stage) waitScheduledAt(name string) []string {
	s.t.Helper()
	var got []string
	s.eventually(name+" scheduled at its current generation", func() (bool, string) {
		rb := s.binding(name)
		if rb == nil {
			return false, "no binding"
		}
		got = targetNames(rb)
		c := meta.FindStatusCondition(rb.Status.Conditions, workv1alpha2.Scheduled)
		done := rb.Status.SchedulerObservedGeneration == rb.Generation && c != nil && c.Status == metav1.ConditionTrue
		return done, fmt.Sprintf("generation %d observed %d, Scheduled %v, clusters %v", rb.Generation, rb.Status.SchedulerObservedGeneration, c, got)
	})
	return got
}

// Karmada #6730, with FleetoverDispatchSuspension: the policy suspends
// dispatching to the second cluster (for maintenance, say) when a new
// Duplicated workload arrives. karmada-scheduler places it on all three
// clusters, and the copy on the suspended one is never made; F's
// scheduler places it on the other two.
func TestPluginDispatchSuspension(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, s *stage) {
		suspended := s.clusters[1]
		s.deployment("web", 1, "nginx:1.19.0")
		s.policy("web", policyv1alpha1.Placement{ClusterAffinity: &policyv1alpha1.ClusterAffinity{ClusterNames: s.clusters}}, nil,
			func(p *policyv1alpha1.PropagationPolicy) {
				p.Spec.Suspension = &policyv1alpha1.Suspension{DispatchingOnClusters: &policyv1alpha1.SuspendClusters{ClusterNames: []string{suspended}}}
			})
		got := s.waitScheduledAt("web")
		want := s.clusters
		if s.conf == beside.FleetoverBeside {
			want = []string{s.clusters[0], s.clusters[2]}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("scheduled to %v, want %v", got, want)
		}
		for _, c := range want {
			if c != suspended {
				s.waitOnMember(c, "web", true)
			}
		}
		seen := "kept off the suspended cluster"
		if slices.Contains(got, suspended) {
			seen = "placed on the suspended cluster too, where no copy is made"
			if s.onMember(suspended, "web") != nil {
				t.Errorf("a copy of web was dispatched to %s, whose dispatching is suspended", suspended)
			}
		}
		record("#6730", "a new Duplicated workload while dispatching to one of its clusters is suspended", s.conf, seen)
	})
}

// FleetoverTaintToleration: the first cluster has a NoExecute taint
// (maintenance, added ten minutes ago) that the policy tolerates for 60
// seconds only. karmada-scheduler ignores tolerationSeconds and places the
// workload there too, and Karmada's taint manager evicts it at once; F's
// scheduler keeps it off that cluster.
func TestPluginExpiredToleration(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, s *stage) {
		const key = "fleetover.test/maintenance"
		tainted := s.clusters[0]
		s.taint(tainted, corev1.Taint{Key: key, Effect: corev1.TaintEffectNoExecute, TimeAdded: &metav1.Time{Time: time.Now().Add(-10 * time.Minute)}}, true)
		s.deployment("web", 1, "nginx:1.19.0")
		s.policy("web", policyv1alpha1.Placement{
			ClusterAffinity: &policyv1alpha1.ClusterAffinity{ClusterNames: s.clusters},
			ClusterTolerations: []corev1.Toleration{{
				Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](60),
			}},
		}, nil)
		if s.conf == beside.KarmadaAlone {
			// The taint manager may evict within a look of the placement:
			// its eviction task shows the placement too.
			s.eventually("web placed on "+tainted, func() (bool, string) {
				rb := s.binding("web")
				if rb == nil {
					return false, "no binding"
				}
				return rb.Spec.TargetContains(tainted) || rb.Spec.ClusterInGracefulEvictionTasks(tainted), fmt.Sprintf("clusters %v, tasks %v", rb.Spec.Clusters, rb.Spec.GracefulEvictionTasks)
			})
			return
		}
		got := s.waitScheduledAt("web")
		if want := s.clusters[1:]; !slices.Equal(got, want) {
			t.Fatalf("scheduled to %v, want %v", got, want)
		}
		if rb := s.binding("web"); len(rb.Spec.GracefulEvictionTasks) > 0 {
			t.Errorf("eviction tasks %v: nothing was placed to evict", rb.Spec.GracefulEvictionTasks)
		}
	})
}

// FleetoverEvictionHistory: a Duplicated workload on two clusters turns
// unhealthy on the first and the application failover evicts it from
// there. Once the eviction task is gone, karmada-scheduler places the
// workload on the first cluster again (Duplicated workloads are
// rescheduled on every change, and ClusterEviction keeps a cluster out
// only while its task exists), where it is still unhealthy; F's scheduler
// keeps it off for the eviction history's block window (600 s by
// default).
func TestPluginEvictionHistory(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, s *stage) {
		s.deployment("web", 1, "nginx:1.19.0")
		s.policy("web", policyv1alpha1.Placement{ClusterAffinity: &policyv1alpha1.ClusterAffinity{ClusterNames: s.clusters[:2]}},
			&policyv1alpha1.FailoverBehavior{Application: &policyv1alpha1.ApplicationFailoverBehavior{
				DecisionConditions: policyv1alpha1.DecisionConditions{TolerationSeconds: ptr.To[int32](5)},
				PurgeMode:          policyv1alpha1.PurgeModeGracefully,
				GracePeriodSeconds: ptr.To[int32](20),
			}})
		s.waitScheduled("web", 2)
		left := s.clusters[0]
		s.waitReady(left, "web")
		s.makeUnhealthy("web", []string{left})
		// Both sides record Karmada's eviction event; the task itself may
		// come and go between two looks (the workload is healthy on the
		// other cluster already).
		evicted := "Evict from cluster " + left + " succeed."
		s.waitEvent("ResourceBinding", "web-deployment", "EvictWorkloadFromClusterSucceed", func(msg string) bool { return msg == evicted })
		s.eventually("the eviction task from "+left+" gone", func() (bool, string) {
			rb := s.binding("web")
			return !rb.Spec.ClusterInGracefulEvictionTasks(left), fmt.Sprint(rb.Spec.GracefulEvictionTasks)
		})
		if s.conf == beside.KarmadaAlone {
			s.eventually("web placed on "+left+" again", func() (bool, string) {
				got := s.targets("web")
				return slices.Contains(got, left), fmt.Sprint(got)
			})
			return
		}
		if got := s.waitScheduledAt("web"); slices.Contains(got, left) {
			t.Fatalf("scheduled to %v: back on %s, which the workload left a moment ago", got, left)
		}
		history := s.binding("web").Annotations[carrier.EvictionHistoryKey]
		if history == "" {
			t.Errorf("no eviction history on the binding: the block came from elsewhere")
		}
	})
}
