package main

import (
	"encoding/json"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"

	"github.com/fleetover/fleetover/failover"
	"github.com/fleetover/fleetover/failover/health"
)

// SEAM(application failover detector): failover's detector had not landed
// when this simulator was written. appDetector is a minimal stand-in with
// the documented rules (DelaySeconds after first collection, HealthyState
// Healthy = only once-healthy workloads, TolerationSeconds of continuous
// failing, Unknown does not reset the countdown); newLibrary switches to
// the library's detector once it exists.
type appDetector struct {
	clock clock.PassiveClock
	state map[string]*detectorState
}

type detectorState struct {
	FirstCollected metav1.Time  `json:"firstCollected"`
	EverHealthy    bool         `json:"everHealthy,omitempty"`
	FailingSince   *metav1.Time `json:"failingSince,omitempty"`
}

func newAppDetector(e *Engine) appDetectorSeam {
	return &appDetector{clock: e.clock, state: map[string]*detectorState{}}
}

func (d *appDetector) Observe(workload, cluster string, b *failover.ApplicationFailoverBehavior, h health.Status) bool {
	now := d.clock.Now()
	key := workload + "/" + cluster
	s, ok := d.state[key]
	if !ok {
		s = &detectorState{FirstCollected: metav1.NewTime(now)}
		d.state[key] = s
	}
	if h == health.Healthy {
		s.EverHealthy, s.FailingSince = true, nil
		return false
	}
	failing := b.DecisionConditions.HealthyState
	if len(failing) == 0 {
		failing = failover.DefaultDecisionHealthyStates()
	}
	if !slices.Contains(failing, h) {
		if h != health.Unknown {
			s.FailingSince = nil
		}
		return false
	}
	if pc := b.PreConditions; pc != nil {
		if pc.DelaySeconds != nil && now.Before(s.FirstCollected.Add(time.Duration(*pc.DelaySeconds)*time.Second)) {
			return false
		}
		if pc.HealthyState == health.Healthy && !s.EverHealthy {
			return false
		}
	}
	if s.FailingSince == nil {
		t := metav1.NewTime(now)
		s.FailingSince = &t
	}
	tol := time.Duration(failover.DefaultApplicationTolerationSeconds) * time.Second
	if b.DecisionConditions.TolerationSeconds != nil {
		tol = time.Duration(*b.DecisionConditions.TolerationSeconds) * time.Second
	}
	return !now.Before(s.FailingSince.Add(tol))
}

func (d *appDetector) Forget(workload, cluster string) { delete(d.state, workload+"/"+cluster) }

func (d *appDetector) Export() ([]byte, error) { return json.Marshal(d.state) }

func (d *appDetector) Import(data []byte) error {
	st := map[string]*detectorState{}
	if err := json.Unmarshal(data, &st); err != nil {
		return err
	}
	d.state = st
	return nil
}
