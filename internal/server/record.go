package server

import (
	"context"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/arenabots/arena/internal/jobs"
	"github.com/arenabots/arena/internal/store"
)

// The recording path, in batches: results are pulled with a prefetch
// (one request to the stream for many results, not one per result), and
// the finished matches among those that have arrived together are recorded
// in one transaction (store.RecordMatches), their ratings applied once.
// Failures, determinism checks and anything the batch cannot record go one
// at a time through recordOne, as before. docs/performance.md has what this
// saves.

// recordBatch bounds the results recorded in one transaction, and
// recordBytes the bytes of results prefetched from the stream: more than
// one result's largest size (jobs.MaxPayload), so that no result is too
// large to be delivered.
const (
	recordBatch = 64
	recordBytes = 2 * jobs.MaxPayload
)

// record takes results off the result stream and records them, until ctx
// ends. A result is acknowledged only once it is committed, so a crash
// between the two records it again at the next start, which is a no-op.
func (s *Server) record(ctx context.Context) {
	it, err := s.q.Results.Messages(jetstream.PullMaxMessagesWithBytesLimit(recordBatch, recordBytes))
	if err != nil {
		s.log.Error("results: cannot pull; recording stops", "err", err)
		return
	}
	msgs := make(chan jetstream.Msg, recordBatch)
	go func() {
		defer close(msgs)
		for {
			msg, err := it.Next()
			if err != nil {
				if ctx.Err() != nil || err == jetstream.ErrMsgIteratorClosed {
					return
				}
				time.Sleep(100 * time.Millisecond)
				continue
			}
			msgs <- msg
		}
	}()
	defer func() {
		it.Drain()
		// Pulled but not recorded: delivered again now, not after the
		// acknowledgement window, to this server's next start.
		for msg := range msgs {
			msg.Nak()
		}
	}()
	for {
		var batch []jetstream.Msg
		select {
		case <-ctx.Done():
			return
		case msg, ok := <-msgs:
			if !ok {
				return
			}
			batch = append(batch, msg)
		}
		for len(batch) < recordBatch {
			select {
			case msg, ok := <-msgs:
				if ok {
					batch = append(batch, msg)
					continue
				}
			default:
			}
			break
		}
		s.recordMsgs(ctx, batch)
	}
}

// recordMsgs records a batch of result messages and acknowledges them.
// Each finished match's result is admitted first (lease, state, replay:
// admit), as one recorded alone is; the admitted ones are written in one
// transaction.
func (s *Server) recordMsgs(ctx context.Context, batch []jetstream.Msg) {
	var plain []jobs.Result
	var plainMsgs []jetstream.Msg
	var matches []store.Match
	var res []store.Result
	for _, msg := range batch {
		r, err := jobs.DecodeResult(msg.Data())
		if err != nil {
			s.log.Error("undecodable result dropped", "err", err)
			msg.Term()
			continue
		}
		if r.Check || r.Error != "" {
			s.recordMsg(ctx, msg, r)
			continue
		}
		m, one, ok, err := s.admit(ctx, r, readNothing)
		switch {
		case err != nil:
			s.recordMsg(ctx, msg, r) // on its own, with its retries
			continue
		case !ok:
			msg.Ack() // refused: nothing to record, ever
			continue
		}
		plain, plainMsgs = append(plain, r), append(plainMsgs, msg)
		matches, res = append(matches, m), append(res, one)
	}
	if len(plain) == 0 {
		return
	}
	recs, err := s.store.RecordMatches(ctx, res, rate)
	if err != nil {
		// One of them, or the database: each on its own, as ever.
		for i, msg := range plainMsgs {
			s.recordMsg(ctx, msg, plain[i])
		}
		return
	}
	for i, r := range plain {
		if !recs[i].Recorded {
			// Ended before (a second delivery), or unknown: recordOne
			// finishes what the first delivery may not have.
			s.recordMsg(ctx, plainMsgs[i], r)
			continue
		}
		s.recorded(ctx, matches[i], r, res[i], true)
		plainMsgs[i].Ack()
	}
	s.wake()
}

// recordMsg records one result message with recordOne and acknowledges it,
// or has it delivered again.
func (s *Server) recordMsg(ctx context.Context, msg jetstream.Msg, r jobs.Result) {
	if err := s.recordOne(ctx, r); err != nil {
		s.log.Error("record", "match", r.MatchID, "err", err)
		// A result that cannot be recorded after a few tries ends its
		// match as failed rather than loop.
		if md, merr := msg.Metadata(); merr == nil && md.NumDelivered >= 5 && ctx.Err() == nil {
			if _, ferr := s.store.FailMatch(ctx, r.MatchID, "its result could not be recorded: "+err.Error()); ferr == nil {
				msg.Term()
				return
			}
		}
		msg.NakWithDelay(time.Second)
		return
	}
	msg.Ack()
	s.wake()
}

// storeResult is a worker's result as the store records it.
func storeResult(r jobs.Result) store.Result {
	res := store.Result{MatchID: r.MatchID, Turns: r.Turns, Replay: r.Replay}
	for _, sr := range r.Seats {
		res.Seats = append(res.Seats, store.SeatResult{Score: sr.Score, Place: sr.Place, Statuses: sr.Statuses, Fuel: sr.Fuel, Stderr: sr.Stderr})
	}
	return res
}

// createdMatch is the match store.CreateMatch made of nm, as far as its job
// needs (job): the store need not be read again for each match published.
func createdMatch(id int64, nm store.NewMatch) store.Match {
	m := store.Match{ID: id, Game: nm.Game, Params: nm.Params, Seed: nm.Seed, Kind: nm.Kind, State: store.Queued}
	for i, seat := range nm.Seats {
		m.Seats = append(m.Seats, store.Seat{Seat: i, BotID: seat.BotID, VersionID: seat.VersionID})
	}
	return m
}
