package failover_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
	"github.com/fleetover/fleetover/preservation"
)

func TestSetDefaultsFailoverBehavior(t *testing.T) {
	cases := []struct {
		name string
		in   *failover.FailoverBehavior
		want *failover.FailoverBehavior
	}{
		{name: "nil stays nil"},
		{name: "empty block stays empty", in: &failover.FailoverBehavior{}, want: &failover.FailoverBehavior{}},
		{
			name: "empty application block gets every default",
			in:   &failover.FailoverBehavior{Application: &failover.ApplicationFailoverBehavior{}},
			want: &failover.FailoverBehavior{Application: &failover.ApplicationFailoverBehavior{
				DecisionConditions:      failover.DecisionConditions{TolerationSeconds: ptr.To[int32](300), HealthyState: []health.Status{health.Unhealthy}},
				PurgeMode:               eviction.PurgeGracefully,
				GracePeriodSeconds:      ptr.To[int32](600),
				BlockPredecessorSeconds: ptr.To[int32](600),
			}},
		},
		{
			name: "legacy Immediately becomes Directly and gets no grace period",
			in:   &failover.FailoverBehavior{Application: &failover.ApplicationFailoverBehavior{PurgeMode: eviction.LegacyPurgeImmediately}},
			want: &failover.FailoverBehavior{Application: &failover.ApplicationFailoverBehavior{
				DecisionConditions:      failover.DecisionConditions{TolerationSeconds: ptr.To[int32](300), HealthyState: []health.Status{health.Unhealthy}},
				PurgeMode:               eviction.PurgeDirectly,
				BlockPredecessorSeconds: ptr.To[int32](600),
			}},
		},
		{
			name: "explicit values, including zeros, are kept",
			in: &failover.FailoverBehavior{Application: &failover.ApplicationFailoverBehavior{
				DecisionConditions:      failover.DecisionConditions{TolerationSeconds: ptr.To[int32](0), HealthyState: []health.Status{health.Unknown}},
				PurgeMode:               eviction.PurgeNever,
				BlockPredecessorSeconds: ptr.To[int32](0),
			}},
			want: &failover.FailoverBehavior{Application: &failover.ApplicationFailoverBehavior{
				DecisionConditions:      failover.DecisionConditions{TolerationSeconds: ptr.To[int32](0), HealthyState: []health.Status{health.Unknown}},
				PurgeMode:               eviction.PurgeNever,
				BlockPredecessorSeconds: ptr.To[int32](0),
			}},
		},
		{
			name: "cluster block: legacy Graciously normalised, empty mode deferred to the controller",
			in:   &failover.FailoverBehavior{Cluster: &failover.ClusterFailoverBehavior{PurgeMode: eviction.LegacyPurgeGraciously}},
			want: &failover.FailoverBehavior{Cluster: &failover.ClusterFailoverBehavior{PurgeMode: eviction.PurgeGracefully}},
		},
		{
			name: "cluster block: empty stays empty",
			in:   &failover.FailoverBehavior{Cluster: &failover.ClusterFailoverBehavior{}},
			want: &failover.FailoverBehavior{Cluster: &failover.ClusterFailoverBehavior{}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			failover.SetDefaultsFailoverBehavior(tc.in)
			if diff := cmp.Diff(tc.want, tc.in); diff != "" {
				t.Fatalf("(-want +got):\n%s", diff)
			}
			again := tc.in.DeepCopy()
			failover.SetDefaultsFailoverBehavior(again)
			if diff := cmp.Diff(tc.in, again); diff != "" {
				t.Fatalf("defaulting is not idempotent (-once +twice):\n%s", diff)
			}
		})
	}
}

func TestValidateFailoverBehavior(t *testing.T) {
	app := func(mut func(a *failover.ApplicationFailoverBehavior)) *failover.FailoverBehavior {
		a := &failover.ApplicationFailoverBehavior{}
		mut(a)
		return &failover.FailoverBehavior{Application: a}
	}
	cluster := func(mut func(c *failover.ClusterFailoverBehavior)) *failover.FailoverBehavior {
		c := &failover.ClusterFailoverBehavior{}
		mut(c)
		return &failover.FailoverBehavior{Cluster: c}
	}
	cases := []struct {
		name string
		fb   *failover.FailoverBehavior
		// want lists "type field" of every expected error, in order.
		want []string
	}{
		{name: "nil is valid", fb: nil},
		{name: "empty application is valid", fb: app(func(*failover.ApplicationFailoverBehavior) {})},
		{name: "negative delay", fb: app(func(a *failover.ApplicationFailoverBehavior) {
			a.PreConditions = &failover.PreConditions{DelaySeconds: ptr.To[int32](-1)}
		}), want: []string{"FieldValueInvalid spec.failover.application.preConditions.delaySeconds"}},
		{name: "preconditions healthyState Unhealthy", fb: app(func(a *failover.ApplicationFailoverBehavior) {
			a.PreConditions = &failover.PreConditions{HealthyState: health.Unhealthy}
		}), want: []string{"FieldValueNotSupported spec.failover.application.preConditions.healthyState"}},
		{name: "preconditions healthyState Healthy", fb: app(func(a *failover.ApplicationFailoverBehavior) {
			a.PreConditions = &failover.PreConditions{HealthyState: health.Healthy, DelaySeconds: ptr.To[int32](0)}
		})},
		{name: "negative toleration", fb: app(func(a *failover.ApplicationFailoverBehavior) {
			a.DecisionConditions.TolerationSeconds = ptr.To[int32](-5)
		}), want: []string{"FieldValueInvalid spec.failover.application.decisionConditions.tolerationSeconds"}},
		{name: "zero toleration", fb: app(func(a *failover.ApplicationFailoverBehavior) {
			a.DecisionConditions.TolerationSeconds = ptr.To[int32](0)
		})},
		{name: "decision healthyState Healthy and duplicate Unknown", fb: app(func(a *failover.ApplicationFailoverBehavior) {
			a.DecisionConditions.HealthyState = []health.Status{health.Unknown, health.Healthy, health.Unhealthy, health.Unknown}
		}), want: []string{
			"FieldValueNotSupported spec.failover.application.decisionConditions.healthyState[1]",
			"FieldValueDuplicate spec.failover.application.decisionConditions.healthyState[3]",
		}},
		{name: "unknown purge mode", fb: app(func(a *failover.ApplicationFailoverBehavior) {
			a.PurgeMode = "Eventually"
		}), want: []string{"FieldValueNotSupported spec.failover.application.purgeMode"}},
		{name: "grace period zero", fb: app(func(a *failover.ApplicationFailoverBehavior) {
			a.GracePeriodSeconds = ptr.To[int32](0)
		}), want: []string{"FieldValueInvalid spec.failover.application.gracePeriodSeconds"}},
		{name: "grace period with Directly", fb: app(func(a *failover.ApplicationFailoverBehavior) {
			a.PurgeMode, a.GracePeriodSeconds = eviction.PurgeDirectly, ptr.To[int32](60)
		}), want: []string{"FieldValueForbidden spec.failover.application.gracePeriodSeconds"}},
		{name: "grace period with legacy Immediately", fb: app(func(a *failover.ApplicationFailoverBehavior) {
			a.PurgeMode, a.GracePeriodSeconds = eviction.LegacyPurgeImmediately, ptr.To[int32](60)
		}), want: []string{"FieldValueForbidden spec.failover.application.gracePeriodSeconds"}},
		{name: "grace period with Never", fb: app(func(a *failover.ApplicationFailoverBehavior) {
			a.PurgeMode, a.GracePeriodSeconds = eviction.PurgeNever, ptr.To[int32](60)
		}), want: []string{"FieldValueForbidden spec.failover.application.gracePeriodSeconds"}},
		{name: "grace period with legacy Graciously", fb: app(func(a *failover.ApplicationFailoverBehavior) {
			a.PurgeMode, a.GracePeriodSeconds = eviction.LegacyPurgeGraciously, ptr.To[int32](60)
		})},
		{name: "negative block", fb: app(func(a *failover.ApplicationFailoverBehavior) {
			a.BlockPredecessorSeconds = ptr.To[int32](-1)
		}), want: []string{"FieldValueInvalid spec.failover.application.blockPredecessorSeconds"}},
		{name: "zero block (never schedulable again)", fb: app(func(a *failover.ApplicationFailoverBehavior) {
			a.BlockPredecessorSeconds = ptr.To[int32](0)
		})},
		{name: "application state preservation goes through preservation", fb: app(func(a *failover.ApplicationFailoverBehavior) {
			a.StatePreservation = &preservation.StatePreservation{Rules: []preservation.StatePreservationRule{{AliasLabelName: "", JSONPath: ".jobId"}}}
		}), want: []string{
			"FieldValueRequired spec.failover.application.statePreservation.rules[0].aliasLabelName",
			"FieldValueInvalid spec.failover.application.statePreservation.rules[0].jsonPath",
		}},
		{name: "cluster: empty is valid", fb: cluster(func(*failover.ClusterFailoverBehavior) {})},
		{name: "cluster: grace period with empty mode is deferred, valid", fb: cluster(func(c *failover.ClusterFailoverBehavior) {
			c.GracePeriodSeconds = ptr.To[int32](100)
		})},
		{name: "cluster: negative grace period", fb: cluster(func(c *failover.ClusterFailoverBehavior) {
			c.GracePeriodSeconds = ptr.To[int32](-100)
		}), want: []string{"FieldValueInvalid spec.failover.cluster.gracePeriodSeconds"}},
		{name: "cluster: grace period with Directly", fb: cluster(func(c *failover.ClusterFailoverBehavior) {
			c.PurgeMode, c.GracePeriodSeconds = eviction.PurgeDirectly, ptr.To[int32](100)
		}), want: []string{"FieldValueForbidden spec.failover.cluster.gracePeriodSeconds"}},
		{name: "cluster: bad purge mode and bad rule", fb: cluster(func(c *failover.ClusterFailoverBehavior) {
			c.PurgeMode = "gracefully"
			c.StatePreservation = &preservation.StatePreservation{Rules: []preservation.StatePreservationRule{{AliasLabelName: "a/b/c", JSONPath: "{ .jobStatus.jobID }"}}}
		}), want: []string{
			"FieldValueNotSupported spec.failover.cluster.purgeMode",
			"FieldValueInvalid spec.failover.cluster.statePreservation.rules[0].aliasLabelName",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			errs := failover.ValidateFailoverBehavior(tc.fb, field.NewPath("spec", "failover"))
			var got []string
			for _, e := range errs {
				got = append(got, string(e.Type)+" "+e.Field)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("errors (-want +got):\n%s\nall: %v", diff, errs)
			}
		})
	}
}

func TestStrictDecodingRefusesMisspeltFields(t *testing.T) {
	for _, doc := range []string{
		"cluster:\n  purgeModes: Directly\n", // unknown field
		"cluster:\n  purgemode: Directly\n",  // wrong case, accepted by encoding/json
		"application:\n  decisionConditions:\n    tolerationseconds: 5\n",
	} {
		if _, err := decodeFailoverBlockStrictly([]byte(doc)); err == nil {
			t.Errorf("%q decoded without error", doc)
		}
	}
	if _, err := decodeFailoverBlockStrictly([]byte("cluster:\n  purgeMode: Directly\n")); err != nil {
		t.Errorf("a correct block was refused: %v", err)
	}
}

func TestWarningsForStatePreservation(t *testing.T) {
	rules := &preservation.StatePreservation{Rules: []preservation.StatePreservationRule{{AliasLabelName: "a", JSONPath: "{.a}"}}}
	withRules := func(mode eviction.PurgeMode) *failover.FailoverBehavior {
		return &failover.FailoverBehavior{
			Application: &failover.ApplicationFailoverBehavior{PurgeMode: mode, StatePreservation: rules},
			Cluster:     &failover.ClusterFailoverBehavior{PurgeMode: mode, StatePreservation: rules},
		}
	}
	path := field.NewPath("spec", "failover")
	none := preservation.InjectionPolicy{}
	if w := failover.WarningsForStatePreservation(withRules(eviction.PurgeDirectly), 1, none, path); len(w) != 0 {
		t.Fatalf("Directly with maxGroups 1 is a single writer and must not warn: %q", w)
	}
	if w := failover.WarningsForStatePreservation(withRules(eviction.LegacyPurgeImmediately), 1, none, path); len(w) != 0 {
		t.Fatalf("legacy Immediately is Directly: %q", w)
	}
	if w := failover.WarningsForStatePreservation(&failover.FailoverBehavior{Application: &failover.ApplicationFailoverBehavior{}}, 0, none, path); len(w) != 0 {
		t.Fatalf("no state preservation must not warn: %q", w)
	}
	cases := []struct {
		name      string
		mode      eviction.PurgeMode
		maxGroups int32
		policy    preservation.InjectionPolicy
		says      string
	}{
		{"Gracefully: not injected", eviction.PurgeGracefully, 1, none, "is not injected"},
		{"unset mode: the controller's default", "", 1, none, "the controller's default"},
		{"Never opted in: two writers", eviction.PurgeNever, 1, preservation.InjectionPolicy{WhileOldCopyRuns: true}, "two copies may resume"},
		{"wide spread: injected into none", eviction.PurgeDirectly, 0, none, "injected into none of them"},
		{"spread 2: injected into none", eviction.PurgeDirectly, 2, none, "maxGroups 2"},
		{"wide spread opted in: same state twice", eviction.PurgeDirectly, 3, preservation.InjectionPolicy{IntoSeveralTargets: true}, "each new copy resumes from the same state"},
	}
	for _, tc := range cases {
		w := failover.WarningsForStatePreservation(withRules(tc.mode), tc.maxGroups, tc.policy, path)
		if len(w) != 2 || !strings.HasPrefix(w[0], "spec.failover.application.statePreservation:") || !strings.HasPrefix(w[1], "spec.failover.cluster.statePreservation:") {
			t.Fatalf("%s: want one warning per block naming its field, got %q", tc.name, w)
		}
		if !strings.Contains(w[0], tc.says) {
			t.Errorf("%s: %q does not say %q", tc.name, w[0], tc.says)
		}
	}
}

func TestResolveClusterPurgeModeAndGracePeriod(t *testing.T) {
	cases := []struct {
		name       string
		cluster    *failover.ClusterFailoverBehavior
		defaults   failover.ClusterFailoverDefaults
		wantMode   eviction.PurgeMode
		wantGrace  int32
		wantGrace2 int32 // ResolveClusterGracePeriodSeconds regardless of mode
	}{
		{name: "nothing set", wantMode: eviction.PurgeGracefully, wantGrace: 600, wantGrace2: 600},
		{name: "global default", defaults: failover.ClusterFailoverDefaults{PurgeMode: eviction.PurgeDirectly, GracePeriodSeconds: 120},
			wantMode: eviction.PurgeDirectly, wantGrace: 0, wantGrace2: 120},
		{name: "legacy global default", defaults: failover.ClusterFailoverDefaults{PurgeMode: eviction.LegacyPurgeGraciously, GracePeriodSeconds: 120},
			wantMode: eviction.PurgeGracefully, wantGrace: 120, wantGrace2: 120},
		{name: "invalid global default falls through", defaults: failover.ClusterFailoverDefaults{PurgeMode: "Soon"},
			wantMode: eviction.PurgeGracefully, wantGrace: 600, wantGrace2: 600},
		{name: "policy wins", cluster: &failover.ClusterFailoverBehavior{PurgeMode: eviction.PurgeGracefully, GracePeriodSeconds: ptr.To[int32](30)},
			defaults: failover.ClusterFailoverDefaults{PurgeMode: eviction.PurgeDirectly, GracePeriodSeconds: 120},
			wantMode: eviction.PurgeGracefully, wantGrace: 30, wantGrace2: 30},
		{name: "policy without mode uses global mode, own grace", cluster: &failover.ClusterFailoverBehavior{GracePeriodSeconds: ptr.To[int32](30)},
			defaults: failover.ClusterFailoverDefaults{PurgeMode: eviction.PurgeNever},
			wantMode: eviction.PurgeNever, wantGrace: 0, wantGrace2: 30},
		{name: "policy legacy Immediately", cluster: &failover.ClusterFailoverBehavior{PurgeMode: eviction.LegacyPurgeImmediately},
			wantMode: eviction.PurgeDirectly, wantGrace: 0, wantGrace2: 600},
		{name: "non-positive policy grace skipped", cluster: &failover.ClusterFailoverBehavior{GracePeriodSeconds: ptr.To[int32](0)},
			defaults: failover.ClusterFailoverDefaults{GracePeriodSeconds: 45},
			wantMode: eviction.PurgeGracefully, wantGrace: 45, wantGrace2: 45},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := failover.ResolveClusterPurgeMode(tc.cluster, tc.defaults.PurgeMode); got != tc.wantMode {
				t.Errorf("ResolveClusterPurgeMode = %q, want %q", got, tc.wantMode)
			}
			if got := failover.ResolveClusterGracePeriodSeconds(tc.cluster, tc.defaults.GracePeriodSeconds); got != tc.wantGrace2 {
				t.Errorf("ResolveClusterGracePeriodSeconds = %d, want %d", got, tc.wantGrace2)
			}
			got := tc.defaults.Resolve(tc.cluster)
			if got.PurgeMode != tc.wantMode || got.GracePeriodSeconds != tc.wantGrace {
				t.Errorf("Resolve = %+v, want {%s %d}", got, tc.wantMode, tc.wantGrace)
			}
		})
	}
}
