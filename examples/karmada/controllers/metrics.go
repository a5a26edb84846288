package controllers

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/fleetover/fleetover/eviction"
)

// Metrics exposes the eviction pacer (eviction.PacerObserver) as Prometheus
// metrics; controller-runtime exposes each controller's queue itself.
type Metrics struct {
	disruption *prometheus.GaugeVec
	evictions  *prometheus.CounterVec
}

// NewMetrics registers the metrics with reg (controller-runtime's
// metrics.Registry in a controller manager).
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		disruption: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "fleetover_eviction_disruption_mode",
			Help: "1 for the disruption mode each zone is in.",
		}, []string{"zone", "mode"}),
		evictions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fleetover_evictions_accepted_total",
			Help: "Evictions the pacer let through, per zone.",
		}, []string{"zone"}),
	}
	var err error
	if m.disruption, err = register(reg, m.disruption); err != nil {
		return nil, err
	}
	if m.evictions, err = register(reg, m.evictions); err != nil {
		return nil, err
	}
	return m, nil
}

// register registers c with reg, or returns the collector registered
// before under the same description: a manager started again in the same
// process (a test restarting it in place) counts on where it left off.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) (C, error) {
	err := reg.Register(c)
	if err == nil {
		return c, nil
	}
	var already prometheus.AlreadyRegisteredError
	if errors.As(err, &already) {
		if existing, ok := already.ExistingCollector.(C); ok {
			return existing, nil
		}
	}
	return c, err
}

// Pacer returns the pacer observer; a nil *Metrics gives nil.
func (m *Metrics) Pacer() eviction.PacerObserver {
	if m == nil {
		return nil
	}
	return pacerMetrics{m}
}

type pacerMetrics struct{ m *Metrics }

func (p pacerMetrics) DisruptionChanged(st eviction.DisruptionState) {
	for _, mode := range []eviction.DisruptionMode{eviction.DisruptionNormal, eviction.DisruptionPartial, eviction.DisruptionFull} {
		v := 0.0
		if mode == st.Mode {
			v = 1
		}
		p.m.disruption.WithLabelValues(st.Zone, string(mode)).Set(v)
	}
}

func (p pacerMetrics) Accepted(zone string) { p.m.evictions.WithLabelValues(zone).Inc() }
