package server

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/arenabots/arena/internal/jobs"
)

// The workers publish the turns of a running match on its live subject, in
// batches under the match's lease (jobs.DecodeTurns), and core NATS keeps
// nothing: someone who opens a match after its first turn would see no
// board until it ends. So the server listens to every live subject, takes
// the batches sent under the match's current lease only (accept), and keeps
// the turns of the matches running now, bounded; a live view starts from
// them (Live).
const (
	liveMatchBytes = 4 << 20 // history kept for one match; past it, none
	liveMatchTurns = 20000   // the site rebuilds at most this many turns
	liveTotalBytes = 64 << 20
	liveMatches    = 256 // matches followed at once
)

type liveHub struct {
	// started is told of a match's first turn (again after an eviction or
	// a restart of the match; it must not block: it runs under mu).
	started func(id int64)
	// accept checks a batch's lease (jobs.Leases.AcceptLive); refused is
	// told of each batch not taken, and refusals count them.
	accept   func(le *jobs.Lease, id int64) error
	refused  func(id int64, le *jobs.Lease, err error)
	refusals prometheus.Counter

	mu      sync.Mutex
	matches map[int64]*liveMatch
	bytes   int    // history kept, all matches
	clock   uint64 // orders matches by their latest turn, for eviction
	nextSub int
}

type liveMatch struct {
	turns   [][]byte
	bytes   int
	last    int  // the latest turn's number
	dropped bool // history too long or evicted: a late view gets none
	started bool // a turn of it was seen (liveHub.started told)
	touched uint64
	subs    map[int]func([][]byte)
}

func newLiveHub(started func(id int64)) *liveHub {
	return &liveHub{started: started, matches: map[int64]*liveMatch{},
		refusals: prometheus.NewCounter(prometheus.CounterOpts{Name: "arena_live_batches_refused_total",
			Help: "Batches of live turns of workers not shown: undecodable, over the bounds, or not under the match's current lease."})}
}

// listen subscribes to every match's live subject.
func (h *liveHub) listen(nc *nats.Conn) error {
	all := strings.TrimSuffix(jobs.LiveSubject(0), "0") + "*"
	_, err := nc.Subscribe(all, func(m *nats.Msg) {
		id, err := strconv.ParseInt(m.Subject[len(all)-1:], 10, 64)
		if err != nil {
			return
		}
		le, turns, err := jobs.DecodeTurns(m.Data)
		if err == nil && h.accept != nil {
			err = h.accept(le, id)
		}
		if err != nil {
			h.refusals.Inc()
			if h.refused != nil {
				h.refused(id, le, err)
			}
			return
		}
		h.batch(id, turns)
	})
	return err
}

// get returns a match's entry, making room for a new one. Holds h.mu.
func (h *liveHub) get(id int64) *liveMatch {
	if lm := h.matches[id]; lm != nil {
		return lm
	}
	if len(h.matches) >= liveMatches {
		// Forget the match idle longest that no one watches (a match whose
		// end this server did not record, say).
		var oldest int64
		var found *liveMatch
		for mid, lm := range h.matches {
			if len(lm.subs) == 0 && (found == nil || lm.touched < found.touched) {
				oldest, found = mid, lm
			}
		}
		if found != nil {
			h.bytes -= found.bytes
			delete(h.matches, oldest)
		}
	}
	lm := &liveMatch{subs: map[int]func([][]byte){}}
	h.matches[id] = lm
	return lm
}

// batch keeps the turns of one batch and hands them to the match's live
// views, in one call each.
func (h *liveHub) batch(id int64, turns []jobs.LiveTurn) {
	if len(turns) == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	lm := h.get(id)
	h.clock++
	lm.touched = h.clock
	if !lm.started {
		lm.started = true
		if h.started != nil {
			h.started(id)
		}
	}
	relay := make([][]byte, len(turns))
	for i, t := range turns {
		relay[i] = t.JSON
		h.keep(lm, t.N, t.JSON)
	}
	for h.bytes > liveTotalBytes {
		h.evict()
	}
	for _, fn := range lm.subs {
		fn(relay)
	}
}

// keep adds a turn to a match's history. Holds h.mu.
func (h *liveHub) keep(lm *liveMatch, n int, data []byte) {
	if n <= lm.last {
		// The match started again (its worker died and another took the
		// job): the earlier turns are no longer its history.
		h.drop(lm)
		lm.dropped = n != 1
	}
	lm.last = n
	if lm.dropped {
		return
	}
	// A copy: the history must not hold on to a whole message for the few
	// bytes of one turn (a batch whose other turns were dropped).
	lm.turns = append(lm.turns, bytes.Clone(data))
	lm.bytes += len(data)
	h.bytes += len(data)
	if lm.bytes > liveMatchBytes || len(lm.turns) > liveMatchTurns || n != len(lm.turns) {
		h.drop(lm)
		lm.dropped = true
	}
}

// drop forgets a match's history. Holds h.mu.
func (h *liveHub) drop(lm *liveMatch) {
	h.bytes -= lm.bytes
	lm.turns, lm.bytes = nil, 0
}

// evict drops the history of the match idle longest. Holds h.mu.
func (h *liveHub) evict() {
	var found *liveMatch
	for _, lm := range h.matches {
		if lm.bytes > 0 && (found == nil || lm.touched < found.touched) {
			found = lm
		}
	}
	if found == nil {
		h.bytes = 0
		return
	}
	h.drop(found)
	found.dropped = true
}

// subscribe returns the turns so far (nil if they were not all kept) and
// calls fn with each later batch of turns until stop. fn must not block
// (it runs under the hub's lock) nor change the batch, which every view
// of the match is given.
func (h *liveHub) subscribe(id int64, fn func([][]byte)) (past [][]byte, stop func()) {
	h.mu.Lock()
	defer h.mu.Unlock()
	lm := h.get(id)
	if !lm.dropped {
		past = append([][]byte(nil), lm.turns...)
	}
	h.nextSub++
	n := h.nextSub
	lm.subs[n] = fn
	return past, func() {
		h.mu.Lock()
		defer h.mu.Unlock()
		delete(lm.subs, n)
		if h.matches[id] == lm && len(lm.subs) == 0 && lm.last == 0 {
			delete(h.matches, id) // a view of a match that never started
		}
	}
}

// end forgets a match that ended (its views stay until they stop).
func (h *liveHub) end(id int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	lm := h.matches[id]
	if lm == nil {
		return
	}
	h.drop(lm)
	lm.dropped = true
	if len(lm.subs) == 0 {
		delete(h.matches, id)
	}
}

// markRunning shows the matches whose first turn arrived as running (the
// state the match lists call live, with queued) until ctx ends. A match
// recorded meanwhile stays finished: MarkRunning changes only a queued one.
//
// The matches that started together are marked in one transaction: a
// first start waits markBatch for others, so that a busy server writes a
// few times a second for this, not once a match.
func (s *Server) markRunning(ctx context.Context) {
	for {
		var ids []int64
		select {
		case <-ctx.Done():
			return
		case id := <-s.started:
			ids = append(ids, id)
		}
		wait := time.NewTimer(markBatch)
	collect:
		for len(ids) < cap(s.started) {
			select {
			case <-ctx.Done():
				wait.Stop()
				return
			case id := <-s.started:
				ids = append(ids, id)
			case <-wait.C:
				break collect
			}
		}
		wait.Stop()
		if err := s.store.MarkRunning(ctx, ids...); err != nil && ctx.Err() == nil {
			s.log.Warn("mark running", "matches", ids, "err", err)
		}
	}
}

// markBatch is how long markRunning waits for more matches to mark with
// the first: a match shows as running at most this much later.
const markBatch = 100 * time.Millisecond
