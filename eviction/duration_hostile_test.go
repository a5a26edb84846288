package eviction

import (
	"math"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fleetover/fleetover/failover/health"
)

// TestHostileAssessOptionsValidation: every duration of AssessOptions
// follows the one rule, and the field is named.
func TestHostileAssessOptionsValidation(t *testing.T) {
	for name, tc := range map[string]struct {
		opts  AssessOptions
		field string
	}{
		"negative timeout":     {AssessOptions{Timeout: -1}, "assess.timeout"},
		"huge timeout":         {AssessOptions{Timeout: math.MaxInt64}, "assess.timeout"},
		"timeout past ceiling": {AssessOptions{Timeout: MaxDuration + 1}, "assess.timeout"},
		"huge escape":          {AssessOptions{DirectlyEscapeTimeout: math.MaxInt64}, "assess.directlyEscapeTimeout"},
	} {
		t.Run(name, func(t *testing.T) {
			errs := ValidateAssessOptions(tc.opts, field.NewPath("assess"))
			if len(errs) != 1 || errs[0].Field != tc.field {
				t.Fatalf("errors %v, want one on %s", errs, tc.field)
			}
		})
	}
	for _, ok := range []AssessOptions{{}, {Timeout: MaxDuration, DirectlyEscapeTimeout: MaxDuration}, {DirectlyEscapeTimeout: -1}} {
		if errs := ValidateAssessOptions(ok, field.NewPath("assess")); len(errs) != 0 {
			t.Errorf("%+v refused: %v", ok, errs)
		}
	}
}

// TestHostileAssessTimeoutBounded: Assess has no error to return, so an
// invalid Timeout is read in the bounded way its documentation states: a
// huge one as MaxDuration, a negative one as the default.
func TestHostileAssessTimeoutBounded(t *testing.T) {
	in := AssessInput{Tasks: []GracefulEvictionTask{stampedTask("old", t0)}, Targets: []TargetCluster{{Name: "new"}},
		Health: HealthLookupFunc(func(string) health.Status { return health.Unhealthy })}
	for name, tc := range map[string]struct {
		timeout time.Duration
		expiry  time.Duration
	}{
		"huge":     {math.MaxInt64, MaxDuration},
		"negative": {-time.Hour, time.Duration(DefaultGracePeriodSeconds) * time.Second},
	} {
		t.Run(name, func(t *testing.T) {
			opts := AssessOptions{Timeout: tc.timeout}
			in.Now = t0.Add(tc.expiry - time.Second)
			if a := Assess(in, opts); len(a.Kept) != 1 || !a.NextAssessment.Equal(t0.Add(tc.expiry)) {
				t.Fatalf("before %s: kept %v, next %v; want kept until then", tc.expiry, keptNames(a), a.NextAssessment)
			}
			in.Now = t0.Add(tc.expiry)
			if a := Assess(in, opts); reasons(a)["old"] != RemovedGracePeriodExpired {
				t.Fatalf("at %s: removed %v, kept %v; want the grace period over", tc.expiry, reasons(a), keptNames(a))
			}
		})
	}
}

func TestValidateDuration(t *testing.T) {
	p := field.NewPath("d")
	for d, want := range map[time.Duration]string{
		0: "", 1: "", MaxDuration: "", -1: "must not be negative", MaxDuration + 1: "must be at most 24h0m0s",
		math.MinInt64: "must not be negative", math.MaxInt64: "must be at most",
	} {
		errs := ValidateDuration(d, p)
		if (want == "") != (len(errs) == 0) || (want != "" && !strings.Contains(errs.ToAggregate().Error(), "d: Invalid value")) ||
			(want != "" && !strings.Contains(errs[0].Detail, want)) {
			t.Errorf("ValidateDuration(%v) = %v, want %q", d, errs, want)
		}
	}
}
