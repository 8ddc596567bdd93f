package worker

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/arenabots/arena/internal/jobs"
)

// outOfRotationPause is how long a worker the server refuses every lease
// waits before it takes a job again.
const outOfRotationPause = 30 * time.Second

// held is the lease of the job a worker runs.
type held struct {
	p   *Pool
	log *slog.Logger
	mu  sync.Mutex
	le  jobs.Lease
}

// take asks the server for a lease of j. Without one the job is not run: it
// is removed when the server says it is over, handed back otherwise (the
// server unreachable, or another worker holding it), and nil is returned.
func (p *Pool) take(ctx context.Context, msg jetstream.Msg, j jobs.Job, log *slog.Logger) *held {
	rep, err := jobs.RequestLease(ctx, p.q.JS.Conn(), jobs.LeaseRequest{Op: jobs.LeaseTake, MatchID: j.MatchID, Check: j.Check,
		Ticket: j.Ticket, Gen: j.Rerun, Modules: j.Modules(), Worker: p.stats.id})
	switch {
	case err == nil && rep.Lease != nil:
		return &held{p: p, log: log, le: *rep.Lease}
	case err == nil && rep.Drop:
		log.Info("worker: job dropped: the server has no run of it to give", "reason", rep.Refused)
		msg.Term()
		return nil
	case err == nil && rep.OutOfRotation:
		// The job goes back at once, for the others, and this worker
		// asks again later.
		msg.Nak()
		log.Error("worker: out of rotation; asking again in 30 s", "reason", rep.Refused)
		select {
		case <-ctx.Done():
		case <-time.After(outOfRotationPause):
		}
		return nil
	case err == nil:
		log.Warn("worker: no lease; job handed back", "reason", rep.Refused)
	default:
		log.Warn("worker: no lease (server unreachable); job handed back", "err", err)
	}
	msg.NakWithDelay(2 * time.Second)
	select {
	case <-ctx.Done():
	case <-time.After(time.Second):
	}
	return nil
}

func (h *held) lease() jobs.Lease {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.le
}

// renew extends the lease and reports whether the server says it is lost.
// A server that does not answer (restarting) is no loss.
func (h *held) renew(ctx context.Context) (lost bool) {
	le := h.lease()
	rep, err := jobs.RequestLease(ctx, h.p.q.JS.Conn(), jobs.LeaseRequest{Op: jobs.LeaseRenew, MatchID: le.MatchID, Check: le.Check, Worker: h.p.stats.id, Lease: &le})
	if err != nil {
		return false
	}
	if rep.Lease != nil {
		h.mu.Lock()
		h.le = *rep.Lease
		h.mu.Unlock()
		return false
	}
	if rep.Drop {
		h.log.Warn("worker: lease lost", "reason", rep.Refused)
	}
	return rep.Drop
}

// release gives the lease back; a stopping worker's ctx is done, so it gets
// two seconds of its own.
func (h *held) release(ctx context.Context, reason string) {
	le := h.lease()
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if _, err := jobs.RequestLease(rctx, h.p.q.JS.Conn(), jobs.LeaseRequest{Op: jobs.LeaseRelease, MatchID: le.MatchID, Check: le.Check,
		Worker: h.p.stats.id, Lease: &le, Reason: reason}); err != nil {
		h.log.Warn("worker: lease not released", "err", err)
	}
}
