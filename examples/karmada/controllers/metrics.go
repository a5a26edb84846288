package controllers

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/fleetover/fleetover/eviction"
)

// Metrics exposes the library's observer interfaces as Prometheus metrics:
// each controller's recheck queue (eviction.DeadlineQueueMetrics) and the
// eviction pacer (eviction.PacerObserver).
type Metrics struct {
	queueDepth    *prometheus.GaugeVec
	queueLateness *prometheus.HistogramVec
	disruption    *prometheus.GaugeVec
	evictions     *prometheus.CounterVec
}

// NewMetrics registers the metrics with reg (controller-runtime's
// metrics.Registry in a controller manager).
func NewMetrics(reg prometheus.Registerer) (*Metrics, error) {
	m := &Metrics{
		queueDepth: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "fleetover_recheck_queue_depth",
			Help: "Objects waiting for a scheduled look, per controller.",
		}, []string{"controller"}),
		queueLateness: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "fleetover_recheck_lateness_seconds",
			Help:    "How late a scheduled look was handed out against its deadline.",
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 10),
		}, []string{"controller"}),
		disruption: prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "fleetover_eviction_disruption_mode",
			Help: "1 for the disruption mode each zone is in.",
		}, []string{"zone", "mode"}),
		evictions: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "fleetover_evictions_accepted_total",
			Help: "Evictions the pacer let through, per zone.",
		}, []string{"zone"}),
	}
	for _, c := range []prometheus.Collector{m.queueDepth, m.queueLateness, m.disruption, m.evictions} {
		if err := reg.Register(c); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Queue returns the deadline-queue metrics of one controller; a nil
// *Metrics gives nil (no metrics).
func (m *Metrics) Queue(controller string) eviction.DeadlineQueueMetrics {
	if m == nil {
		return nil
	}
	return queueMetrics{depth: m.queueDepth.WithLabelValues(controller), lateness: m.queueLateness.WithLabelValues(controller)}
}

type queueMetrics struct {
	depth    prometheus.Gauge
	lateness prometheus.Observer
}

func (q queueMetrics) Depth(n int)                   { q.depth.Set(float64(n)) }
func (q queueMetrics) Handed(lateness time.Duration) { q.lateness.Observe(lateness.Seconds()) }

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
