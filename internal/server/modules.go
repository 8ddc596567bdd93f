package server

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/arenabots/arena/internal/jobs"
)

// serveModules answers the workers' module requests (jobs.ServeModules):
// the bytes of a module, read from the store, to the holder of a current
// lease whose job names it; every other request is refused, logged and
// counted in arena_module_requests_refused_total.
func (s *Server) serveModules(ctx context.Context) error {
	refused := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "arena_module_requests_refused_total",
		Help: "Module requests of workers refused, by reason: lease (no current lease of this server), module (not a module of the lease's job), missing (not in the store), request (undecodable or out of bounds)."},
		[]string{"reason"})
	for _, r := range []string{jobs.RefusedLease, jobs.RefusedModule, jobs.RefusedMissing, jobs.RefusedRequest} {
		refused.WithLabelValues(r)
	}
	if err := s.metrics.reg.Register(refused); err != nil {
		return err
	}
	return s.leases.ServeModules(ctx, s.nc, s.store.Wasm, 0, func(reason string, req jobs.ModuleRequest, err error) {
		refused.WithLabelValues(reason).Inc()
		match := int64(0)
		if req.Lease != nil {
			match = req.Lease.MatchID
		}
		s.log.Warn("worker module request refused", "reason", reason, "worker", req.Worker, "match", match, "err", err)
	})
}
