package controllers

import (
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
	for _, c := range []prometheus.Collector{m.disruption, m.evictions} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
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
