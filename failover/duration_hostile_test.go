package failover_test

import (
	"math"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fleetover/fleetover/eviction"
	"github.com/fleetover/fleetover/failover"
)

// TestHostileClusterTaintConfigDurations: EvictionTimeout follows the one
// rule for durations (eviction.ValidateDuration): a NoExecute taint due in
// the year 2318 is a configuration error, not a timeout.
func TestHostileClusterTaintConfigDurations(t *testing.T) {
	for name, d := range map[string]time.Duration{
		"MaxInt64":         math.MaxInt64,
		"past the ceiling": eviction.MaxDuration + time.Second,
		"negative":         -time.Second,
	} {
		t.Run(name, func(t *testing.T) {
			errs := failover.ValidateClusterTaintConfig(failover.ClusterTaintConfig{NoExecuteAfterTimeout: true, EvictionTimeout: d}, field.NewPath("taints"))
			if len(errs) != 1 || errs[0].Field != "taints.evictionTimeout" || errs[0].Type != field.ErrorTypeInvalid {
				t.Fatalf("errors %v, want one Invalid on taints.evictionTimeout", errs)
			}
		})
	}
	if errs := failover.ValidateClusterTaintConfig(failover.ClusterTaintConfig{EvictionTimeout: eviction.MaxDuration}, nil); len(errs) != 0 {
		t.Fatalf("the ceiling itself refused: %v", errs)
	}
}

// TestHostileDurationCeilingsAgree: the cluster health ceiling is the
// library's one ceiling.
func TestHostileDurationCeilingsAgree(t *testing.T) {
	if failover.MaxClusterHealthPeriod != eviction.MaxDuration {
		t.Fatalf("MaxClusterHealthPeriod %s, eviction.MaxDuration %s", failover.MaxClusterHealthPeriod, eviction.MaxDuration)
	}
	cfg := failover.ClusterHealthConfig{MonitorGracePeriod: eviction.MaxDuration + 1}
	if errs := failover.ValidateClusterHealthConfig(cfg, field.NewPath("health")); len(errs) != 1 || errs[0].Field != "health.monitorGracePeriod" {
		t.Fatalf("errors %v", errs)
	}
}
