package server

import (
	"context"
	"errors"
	"fmt"
	"maps"

	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/jobs"
	"github.com/arenabots/arena/internal/store"
	"github.com/arenabots/arena/replay"
	"github.com/arenabots/arena/worker"
)

// leaseBackend answers the lease service (jobs.Leases) from the store.
type leaseBackend struct{ s *Server }

func (b leaseBackend) Live(ctx context.Context, id int64, check bool) (bool, error) {
	state, err := b.s.store.MatchState(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if check {
		return state == store.Finished, nil
	}
	return state == store.Queued || state == store.Running, nil
}

// Poison ends a match whose runs were lost MaxAttempts times while this
// server ran (a check is only dropped).
func (b leaseBackend) Poison(ctx context.Context, id int64, check bool, reason string) {
	s := b.s
	if check {
		s.log.Info("worker: determinism check dropped", "match", id, "reason", reason)
		s.rota.drop(id)
		return
	}
	s.failMatch(ctx, id, reason)
}

// failMatch ends a match as failed, unrated.
func (s *Server) failMatch(ctx context.Context, id int64, reason string) {
	m, err := s.store.Match(ctx, id)
	if err != nil {
		s.log.Error("fail match", "match", id, "err", err)
		return
	}
	ok, err := s.store.FailMatch(ctx, id, reason)
	if err != nil {
		s.log.Error("fail match", "match", id, "err", err)
		return
	}
	if !ok {
		return
	}
	s.log.Warn("match failed", "match", id, "reason", reason)
	s.metrics.matches.WithLabelValues(m.Game, store.Failed).Inc()
	// Later rated matches of its bots may have waited for it.
	if err := s.store.ApplyPending(ctx, rate); err != nil {
		s.log.Error("apply pending ratings", "err", err)
	}
	s.live.end(id)
	if m.Kind == store.KindSmoke {
		s.finishSmoke(ctx, id)
	}
	s.wake()
}

// refuse logs and counts a result the server does not record.
func (s *Server) refuse(r jobs.Result, reason string, err error) {
	s.metrics.refused.WithLabelValues(reason).Inc()
	s.log.Warn("worker result refused", "match", r.MatchID, "check", r.Check, "worker", r.Worker, "reason", reason, "err", err)
}

// verified checks that a result's replay is the match the server asked for
// (game, parameters, seed, every seat's bot) and plays by the rules
// (replay.Verify), and returns the seats' outcomes derived from the replay
// itself, not the worker's summary of it. Only the bots' logs, which the
// replay does not hold, come from the worker.
func (s *Server) verified(ctx context.Context, m store.Match, r jobs.Result) (store.Result, error) {
	res := store.Result{MatchID: m.ID, Replay: r.Replay}
	seats, err := s.seats(ctx, m)
	if err != nil {
		return res, err
	}
	g, err := games.Lookup(m.Game)
	if err != nil {
		return res, err
	}
	rep, err := replay.Parse(r.Replay)
	if err != nil {
		return res, fmt.Errorf("replay: %w", err)
	}
	// The replay holds the parameters with the game's defaults filled in.
	st, err := g.New(game.Config{Seed: m.Seed, Players: len(seats), Params: game.Params(m.Params)})
	if err != nil {
		return res, err
	}
	if rep.Game != m.Game || rep.Seed != m.Seed || rep.ResumedAfter != 0 || !sameParams(rep.Params, st.Params()) {
		return res, fmt.Errorf("the replay is of another match (game %q, seed %d, params %v)", rep.Game, rep.Seed, rep.Params)
	}
	if len(rep.Bots) != len(seats) {
		return res, fmt.Errorf("the replay has %d seats, the match %d", len(rep.Bots), len(seats))
	}
	for i, seat := range seats {
		b := rep.Bots[i]
		ok := b.Spec == seat.Builtin
		if seat.Wasm != "" {
			ok = b.Spec == (spec.Spec{Kind: spec.Wasm, SHA256: seat.Wasm}).String() && b.SHA256 == seat.Wasm
		}
		if !ok {
			return res, fmt.Errorf("seat %d played %q (%s), not the match's bot", i, b.Spec, b.SHA256)
		}
	}
	if err := replay.Verify(rep, g); err != nil {
		return res, fmt.Errorf("the replay does not check out: %w", err)
	}
	logs := make([][]byte, len(seats))
	for i := range min(len(r.Seats), len(logs)) {
		logs[i] = r.Seats[i].Stderr
	}
	sum := worker.Summarize(m.ID, g, rep, r.Replay, logs, 0)
	res.Turns = sum.Turns
	for _, sr := range sum.Seats {
		res.Seats = append(res.Seats, store.SeatResult{Score: sr.Score, Place: sr.Place, Statuses: sr.Statuses, Fuel: sr.Fuel, Stderr: sr.Stderr})
	}
	return res, nil
}

func sameParams(a, b map[string]string) bool {
	return (len(a) == 0 && len(b) == 0) || maps.Equal(a, b)
}

// badRun handles the result of the current lease's holder whose replay did
// not check out: the run counts as lost, and the match runs again, or fails
// once that has happened MaxAttempts times.
func (s *Server) badRun(ctx context.Context, m store.Match) {
	poison, n, gen := s.leases.Fault(m.ID, false)
	if poison {
		s.failMatch(ctx, m.ID, fmt.Sprintf("its workers' results did not check out %d times", n))
		return
	}
	s.reissue(ctx, m, false, gen)
}

// Reissue publishes a match's job again with the next generation's ticket
// after its lease lapsed (jobs.Leases.Sweep).
func (b leaseBackend) Reissue(ctx context.Context, id int64, check bool, gen int) {
	m, err := b.s.store.Match(ctx, id)
	if err != nil {
		b.s.log.Error("match not issued again after its lease lapsed", "match", id, "err", err)
		return
	}
	b.s.reissue(ctx, m, check, gen)
}

// reissue publishes generation gen of a match's job (or of its check).
func (s *Server) reissue(ctx context.Context, m store.Match, check bool, gen int) {
	j, err := s.job(ctx, m)
	if err == nil {
		j.Check, j.Rerun = check, gen
		s.leases.Sign(&j)
		err = s.q.Publish(ctx, j)
	}
	if err != nil && !check {
		s.log.Error("match not published again", "match", m.ID, "generation", gen, "err", err)
		s.publishLater(m.ID)
	}
}
