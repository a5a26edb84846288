package beside_test

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/utils/ptr"

	policyv1alpha1 "github.com/karmada-io/api/policy/v1alpha1"
	workv1alpha2 "github.com/karmada-io/api/work/v1alpha2"
)

// The application failover scenarios of Karmada v1.18.1's e2e suite
// (failover_test.go, "application failover testing"): a Deployment on one
// of two clusters turns unhealthy there (an image that does not exist,
// which the member stand-in reports as never ready) and moves.

// appPlacement is the e2e's placement: the first two clusters, one at a
// time.
func appPlacement(s *stage) policyv1alpha1.Placement {
	return policyv1alpha1.Placement{
		ClusterAffinity: &policyv1alpha1.ClusterAffinity{ClusterNames: s.clusters[:2]},
		SpreadConstraints: []policyv1alpha1.SpreadConstraint{{
			SpreadByField: policyv1alpha1.SpreadByFieldCluster, MaxGroups: 1, MinGroups: 1,
		}},
	}
}

// makeUnhealthy overrides the Deployment's image registry with "fake" on
// clusters, as the e2e does.
func (s *stage) makeUnhealthy(name string, clusters []string) {
	s.t.Helper()
	op := &policyv1alpha1.OverridePolicy{}
	op.Namespace, op.Name = s.ns, name
	op.Spec.ResourceSelectors = []policyv1alpha1.ResourceSelector{{APIVersion: "apps/v1", Kind: "Deployment", Name: name}}
	op.Spec.OverrideRules = []policyv1alpha1.RuleWithCluster{{
		TargetCluster: &policyv1alpha1.ClusterAffinity{ClusterNames: clusters},
		Overriders: policyv1alpha1.Overriders{ImageOverrider: []policyv1alpha1.ImageOverrider{{
			Component: policyv1alpha1.Registry, Operator: policyv1alpha1.OverriderOpReplace, Value: "fake",
		}}},
	}}
	if err := s.c.Create(s.ctx, op); err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { _ = s.c.Delete(s.ctx, op) })
}

func (s *stage) waitImage(cluster, name, image string) {
	s.t.Helper()
	s.eventually(fmt.Sprintf("%s on %s runs %s", name, cluster, image), func() (bool, string) {
		d := s.onMember(cluster, name)
		if d == nil {
			return false, "no copy"
		}
		got := d.Spec.Template.Spec.Containers[0].Image
		return got == image, got
	})
}

// "Application failover testing with purgeMode gracefully", the
// application coming back healthy on the new cluster: the copy left
// behind is gone and the Deployment runs on the other cluster.
func TestE2EApplicationFailoverGracefullyHealthyAgain(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, s *stage) {
		s.deployment("web", 1, "nginx:1.19.0")
		s.policy("web", appPlacement(s), &policyv1alpha1.FailoverBehavior{Application: &policyv1alpha1.ApplicationFailoverBehavior{
			DecisionConditions: policyv1alpha1.DecisionConditions{TolerationSeconds: ptr.To[int32](30)},
			PurgeMode:          policyv1alpha1.PurgeModeGracefully,
			GracePeriodSeconds: ptr.To[int32](30),
		}})
		from := s.waitScheduled("web", 1)
		s.waitOnMember(from[0], "web", true)
		s.makeUnhealthy("web", from)
		s.waitImage(from[0], "web", "fake/nginx:1.19.0")
		s.waitOnMember(from[0], "web", false)
		s.eventually("web rescheduled off "+from[0], func() (bool, string) {
			now := s.targets("web")
			return len(now) == 1 && outside(now, from), fmt.Sprint(now)
		})
	})
}

// "Application failover testing with purgeMode gracefully" when the grace
// period runs out: the application is unhealthy everywhere, and the copy
// left behind goes no earlier than the toleration and the grace period
// after the application turned unhealthy.
func TestE2EApplicationFailoverGracePeriodRunsOut(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, s *stage) {
		s.deployment("web", 1, "nginx:1.19.0")
		s.policy("web", appPlacement(s), &policyv1alpha1.FailoverBehavior{Application: &policyv1alpha1.ApplicationFailoverBehavior{
			DecisionConditions: policyv1alpha1.DecisionConditions{TolerationSeconds: ptr.To[int32](30)},
			PurgeMode:          policyv1alpha1.PurgeModeGracefully,
			GracePeriodSeconds: ptr.To[int32](10),
		}})
		from := s.waitScheduled("web", 1)
		s.waitOnMember(from[0], "web", true)
		s.waitReady(from[0], "web")
		// The countdown starts when the controllers see the workload
		// unhealthy: only once they have seen it healthy is a countdown
		// from its start, while it was not ready yet, ruled out.
		s.waitHealth("web", from[0], workv1alpha2.ResourceHealthy)
		begin := time.Now()
		s.makeUnhealthy("web", s.clusters)
		s.waitImage(from[0], "web", "fake/nginx:1.19.0")
		s.waitOnMember(from[0], "web", false)
		// Both sides keep the task's creation at the second
		// (metav1.Time), and fleetover its unhealthy-since too: the copy
		// may go up to a second early for each.
		if took, want := time.Since(begin), 40*time.Second-2*time.Second; took < want {
			t.Errorf("the copy on %s went %s after the application turned unhealthy, before the toleration and grace period (40s, less the timestamps' truncation to the second)", from[0], took)
		}
	})
}

// "Application failover testing with purgeMode never": the application
// never becomes healthy; it is rescheduled, and the copy left behind
// stays.
func TestE2EApplicationFailoverNever(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, s *stage) {
		s.deployment("web", 1, "fake/nginx:1.19.0")
		s.policy("web", appPlacement(s), &policyv1alpha1.FailoverBehavior{Application: &policyv1alpha1.ApplicationFailoverBehavior{
			DecisionConditions: policyv1alpha1.DecisionConditions{TolerationSeconds: ptr.To[int32](30)},
			PurgeMode:          policyv1alpha1.Never,
		}})
		from := s.waitScheduled("web", 1)
		s.waitImage(from[0], "web", "fake/nginx:1.19.0")
		s.eventually("web rescheduled off "+from[0], func() (bool, string) {
			now := s.targets("web")
			return len(now) == 1 && outside(now, from), fmt.Sprint(now)
		})
		if s.onMember(from[0], "web") == nil {
			t.Errorf("the copy on %s is gone; purge mode Never keeps it", from[0])
		}
	})
}

// "Application failover testing with purgeMode directly": the old copy is
// deleted first, then the new one created with the preserved state.
func TestE2EApplicationFailoverDirectly(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, s *stage) {
		s.deployment("web", 1, "fake/nginx:1.19.0")
		s.policy("web", appPlacement(s), &policyv1alpha1.FailoverBehavior{Application: &policyv1alpha1.ApplicationFailoverBehavior{
			DecisionConditions: policyv1alpha1.DecisionConditions{TolerationSeconds: ptr.To[int32](30)},
			PurgeMode:          policyv1alpha1.PurgeModeDirectly,
			StatePreservation: &policyv1alpha1.StatePreservation{Rules: []policyv1alpha1.StatePreservationRule{
				{AliasLabelName: "test-alias", JSONPath: "{.replicas}"},
			}},
		}})
		from := s.waitScheduled("web", 1)
		s.waitImage(from[0], "web", "fake/nginx:1.19.0")
		var to []string
		s.eventually("web rescheduled off "+from[0], func() (bool, string) {
			to = s.targets("web")
			return len(to) == 1 && outside(to, from), fmt.Sprint(to)
		})
		s.eventually("the new copy with the preserved state", func() (bool, string) {
			d := s.onMember(to[0], "web")
			if d == nil {
				return false, "no copy on " + to[0]
			}
			_, ok := d.Labels["test-alias"]
			return ok, fmt.Sprint(d.Labels)
		})
		if d := s.onMember(from[0], "web"); d != nil {
			t.Errorf("the old copy on %s is still there beside the new one", from[0])
		}
	})
}
