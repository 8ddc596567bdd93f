package server

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/arenabots/arena/internal/jobs"
)

// metrics are the server's Prometheus series, on a registry of its own so
// that several servers in one test process do not collide.
type metrics struct {
	reg      *prometheus.Registry
	matches  *prometheus.CounterVec
	queued   prometheus.Counter
	depth    prometheus.Gauge
	duration *prometheus.HistogramVec
	fuel     *prometheus.HistogramVec
	statuses *prometheus.CounterVec
	refused  *prometheus.CounterVec
}

func newMetrics() *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.matches = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "arena_matches_total", Help: "Matches ended, by game and final state."}, []string{"game", "state"})
	m.queued = prometheus.NewCounter(prometheus.CounterOpts{Name: "arena_matches_queued_total", Help: "Matches published to the work queue."})
	m.depth = prometheus.NewGauge(prometheus.GaugeOpts{Name: "arena_queue_depth", Help: "Matches queued or running."})
	m.duration = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "arena_match_duration_seconds", Help: "Wall-clock time a worker spent on a match.",
		Buckets: prometheus.ExponentialBuckets(0.01, 2, 14)}, []string{"game"})
	m.fuel = prometheus.NewHistogramVec(prometheus.HistogramOpts{Name: "arena_fuel_per_answer", Help: "Average fuel per answer of a wasm seat in a match.",
		Buckets: prometheus.ExponentialBuckets(1000, 4, 10)}, []string{"game"})
	m.statuses = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "arena_answers_total", Help: "Answers by status."}, []string{"game", "status"})
	m.refused = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "arena_results_refused_total",
		Help: "Worker results not recorded, by reason: lease (not the match's current lease: forged, late or foreign), unknown (no such match), replay (not the match asked for, or not by the rules)."}, []string{"reason"})
	m.reg.MustRegister(m.matches, m.queued, m.depth, m.duration, m.fuel, m.statuses, m.refused,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

func (m *metrics) observe(game string, r jobs.Result) {
	m.matches.WithLabelValues(game, "finished").Inc()
	m.duration.WithLabelValues(game).Observe(r.Elapsed)
	for _, s := range r.Seats {
		for st, n := range s.Statuses {
			m.statuses.WithLabelValues(game, st).Add(float64(n))
		}
		if s.Fuel > 0 && s.Answers > 0 {
			m.fuel.WithLabelValues(game).Observe(float64(s.Fuel) / float64(s.Answers))
		}
	}
}
