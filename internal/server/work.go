package server

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/jobs"
	"github.com/arenabots/arena/internal/store"
	"github.com/arenabots/arena/matchmaker"
	"github.com/arenabots/arena/rating"
	"github.com/arenabots/arena/worker"
)

// publish sends a stored match to the work queue.
func (s *Server) publish(ctx context.Context, m store.Match) error {
	j, err := s.job(ctx, m)
	if err == nil {
		err = s.q.Publish(ctx, j)
	}
	if err != nil {
		s.publishLater(m.ID)
	}
	return err
}

// job is a stored match's job, signed (jobs.Leases.Sign: the ticket names
// its modules, which the server then serves to its lease's holder only).
func (s *Server) job(ctx context.Context, m store.Match) (jobs.Job, error) {
	j := jobs.Job{MatchID: m.ID, Game: m.Game, Params: m.Params, Seed: m.Seed, Rerun: s.leases.Gen(m.ID, false)}
	b, err := worker.BuildFor(m.Game)
	if err != nil {
		return j, err
	}
	j.Build = &b
	if j.Seats, err = s.seats(ctx, m); err != nil {
		return j, err
	}
	s.leases.Sign(&j)
	return j, nil
}

// seats names the bot of each of a stored match's seats.
func (s *Server) seats(ctx context.Context, m store.Match) ([]jobs.Seat, error) {
	var out []jobs.Seat
	for _, seat := range m.Seats {
		sb, err := s.seatBots.get(ctx, s.store, seat)
		if err != nil {
			return nil, err
		}
		// A house bot plays its wasm version (internal/housebots) where it
		// has one, except in smoke matches, which meet the native bot.
		if sb.spec != "" && (sb.sha == "" || m.Kind == store.KindSmoke) {
			out = append(out, jobs.Seat{Builtin: sb.spec})
			continue
		}
		out = append(out, jobs.Seat{Wasm: sb.sha})
	}
	return out, nil
}

// seatBots keeps what seats needs of each bot and version, which never
// change once stored (a bot's spec, a version's module): seats runs twice
// for every match (its job, and the check of its result), and reading the
// bot and the version each time was four queries a match.
type seatBots struct {
	mu sync.Mutex
	m  map[[2]int64]seatBot // by bot and version id
}

type seatBot struct{ spec, sha string }

// maxSeatBots bounds seatBots: past it, it starts again empty.
const maxSeatBots = 1 << 14

func (c *seatBots) get(ctx context.Context, st *store.Store, seat store.Seat) (seatBot, error) {
	key := [2]int64{seat.BotID, seat.VersionID}
	c.mu.Lock()
	sb, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return sb, nil
	}
	b, err := st.Bot(ctx, seat.BotID)
	if err != nil {
		return sb, err
	}
	sb.spec = b.Spec
	if seat.VersionID != 0 {
		v, err := st.Version(ctx, seat.VersionID)
		if err != nil {
			return sb, err
		}
		sb.sha = v.SHA256
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxSeatBots {
		c.m = map[[2]int64]seatBot{}
	}
	c.m[key] = sb
	return sb, nil
}

// schedule stores a match and publishes its job.
func (s *Server) schedule(ctx context.Context, nm store.NewMatch) (int64, error) {
	id, err := s.store.CreateMatch(ctx, nm)
	if err != nil {
		return 0, err
	}
	m := createdMatch(id, nm)
	s.created.put(m)
	if err := s.publish(ctx, m); err != nil {
		// The match stays queued in the store; republish tries again.
		return id, err
	}
	s.metrics.queued.Inc()
	return id, nil
}

func (s *Server) recordOne(ctx context.Context, r jobs.Result) error {
	if !r.Check && r.Error == "" {
		m, res, ok, err := s.admit(ctx, r, readState)
		if err != nil || !ok {
			return err
		}
		recorded, err := s.store.RecordMatch(ctx, res, rate)
		if err != nil {
			return err
		}
		s.recorded(ctx, m, r, res, recorded)
		return nil
	}
	m, ok, err := s.leased(ctx, r, readMatch)
	if err != nil || !ok {
		return err
	}
	if r.Check {
		// Ended first: a third run (runThird) reopens the check's leases.
		// Should the comparison fail, the result comes again under the
		// same lease, which End still accepts.
		s.leases.End(r.Lease)
		return s.compareCheck(ctx, m, r)
	}
	if m.State != store.Queued && m.State != store.Running {
		// A lease granted before a restart, its match since ended.
		s.refuse(r, "lease", fmt.Errorf("%w: match %d is %s", jobs.ErrLease, m.ID, m.State))
		return nil
	}
	ok, err = s.store.FailMatch(ctx, r.MatchID, r.Error)
	if err != nil {
		return err
	}
	s.leases.End(r.Lease)
	if ok {
		s.metrics.matches.WithLabelValues(m.Game, store.Failed).Inc()
		// Later rated matches of its bots may have waited for it.
		if err := s.store.ApplyPending(ctx, rate); err != nil {
			return err
		}
	}
	s.live.end(r.MatchID)
	if m.Kind == store.KindSmoke {
		s.finishSmoke(ctx, r.MatchID)
	}
	return nil
}

// leased looks up the match of a result that holds its current lease; ok
// is false when the result is refused (logged and counted: a forged, late
// or foreign result changes nothing). read says how much of the match is
// read from the store.
func (s *Server) leased(ctx context.Context, r jobs.Result, read matchRead) (store.Match, bool, error) {
	if err := s.leases.Accept(r.Lease, r.MatchID, r.Check); err != nil {
		s.refuse(r, "lease", err)
		return store.Match{}, false, nil
	}
	m, err := s.match(ctx, r.MatchID, read)
	if errors.Is(err, store.ErrNotFound) {
		s.refuse(r, "unknown", err)
		return store.Match{}, false, nil
	}
	if err != nil {
		return store.Match{}, false, err
	}
	return m, true, nil
}

// matchRead is how much of a match leased reads. A match this process
// scheduled is kept as created (s.created: game, parameters, seed, kind
// and seats never change once stored), so at most its state need be
// read: one column of one row instead of the match and its seats (reading
// the match was about 4% of the server's profile in scripts/bench.sh
// -only cost). The state alone was still about 2% of it, and a finished
// match's result needs not even that: store.RecordMatches records a match
// only while it is queued or running.
type matchRead int

const (
	readMatch   matchRead = iota // the match, from the store
	readState                    // a created match's state; otherwise the match
	readNothing                  // a created match as created (queued); otherwise the match
)

// match reads a match as read says.
func (s *Server) match(ctx context.Context, id int64, read matchRead) (store.Match, error) {
	m, ok := s.created.get(id)
	if read == readMatch || !ok {
		return s.store.Match(ctx, id)
	}
	if read == readNothing {
		return m, nil
	}
	var err error
	m.State, err = s.store.MatchState(ctx, id)
	return m, err
}

// created keeps the matches this process scheduled, as created, until
// their result is recorded: bounded, past maxCreated it starts again
// empty (the matches it forgot are read from the store).
type created struct {
	mu sync.Mutex
	m  map[int64]store.Match
}

const maxCreated = 1 << 14

func (c *created) put(m store.Match) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCreated {
		c.m = map[int64]store.Match{}
	}
	c.m[m.ID] = m
}

func (c *created) get(id int64) (store.Match, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	m, ok := c.m[id]
	return m, ok
}

func (c *created) drop(id int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, id)
}

// admit checks a finished match's result before it is recorded: the
// current lease, a match still to be played, and a replay that is the
// match the server asked for, from which the result is taken (verified).
// ok is false when the result is refused: there is nothing to record.
//
// With readNothing, a match this process scheduled is not read at all:
// the caller records it with store.RecordMatches, which records only a
// match still to be played, and gives one it did not record to recordOne,
// whose admit reads the state (readState). Only a replay that does not
// check out needs the state here, to tell a bad run from a late result.
func (s *Server) admit(ctx context.Context, r jobs.Result, read matchRead) (store.Match, store.Result, bool, error) {
	m, ok, err := s.leased(ctx, r, read)
	if err != nil || !ok || !s.toPlay(r, m) {
		return m, store.Result{}, false, err
	}
	res, err := s.verified(ctx, m, r)
	if err != nil {
		if read == readNothing {
			var serr error
			if m.State, serr = s.store.MatchState(ctx, m.ID); serr != nil || !s.toPlay(r, m) {
				return m, store.Result{}, false, serr
			}
		}
		s.refuse(r, "replay", err)
		s.badRun(ctx, m)
		return m, store.Result{}, false, nil
	}
	return m, res, true, nil
}

// toPlay says whether a result's match is still to be played, and refuses
// the result when not.
func (s *Server) toPlay(r jobs.Result, m store.Match) bool {
	if m.State != store.Queued && m.State != store.Running {
		// A lease granted before a restart, its match since ended.
		s.refuse(r, "lease", fmt.Errorf("%w: match %d is %s", jobs.ErrLease, m.ID, m.State))
		return false
	}
	return true
}

// recorded finishes a result once its match is recorded (ok: by this
// delivery): the lease ends, the metrics count what the replay says, a
// determinism check may be asked for, live viewers are told, a smoke
// match's version is judged.
func (s *Server) recorded(ctx context.Context, m store.Match, r jobs.Result, res store.Result, ok bool) {
	s.leases.End(r.Lease)
	s.created.drop(r.MatchID)
	if ok {
		for i := range min(len(r.Seats), len(res.Seats)) {
			r.Seats[i].Statuses, r.Seats[i].Fuel = res.Seats[i].Statuses, res.Seats[i].Fuel
		}
		s.metrics.observe(m.Game, r)
		s.maybeCheck(ctx, m, r)
	}
	s.live.end(r.MatchID)
	if m.Kind == store.KindSmoke {
		s.finishSmoke(ctx, r.MatchID)
	}
}

// rate applies Weng-Lin to a match.
func rate(before []store.Rating, places []int) []store.Rating {
	in := make([]rating.Rating, len(before))
	for i, r := range before {
		in[i] = rating.Rating{Mu: r.Mu, Sigma: r.Sigma}
	}
	out := rating.Update(in, places)
	res := make([]store.Rating, len(out))
	for i, r := range out {
		res[i] = store.Rating{Mu: r.Mu, Sigma: r.Sigma}
	}
	return res
}

// matchmake keeps the work queue as full as the workers can take, and no
// fuller: rated matches are created only while fewer than queuedPerWorker
// per worker are queued or running.
func (s *Server) matchmake(ctx context.Context) {
	t := time.NewTicker(500 * time.Millisecond)
	defer t.Stop()
	all := games.All()
	if len(s.opt.Games) > 0 {
		all = slices.DeleteFunc(slices.Clone(all), func(g game.Game) bool { return !slices.Contains(s.opt.Games, g.Info().ID) })
	}
	turn := 0
	tick := true
	for {
		// With no ladder to fill, a recorded match (a kick) changes
		// nothing here: only the ticker refreshes the queue's depth.
		if tick || len(all) > 0 {
			if err := s.fill(ctx, all, turn); err != nil && ctx.Err() == nil {
				s.log.Error("matchmaker", "err", err)
			}
		}
		turn++
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			tick = true
		case <-s.kick:
			tick = false
		}
	}
}

// queuedPerWorker bounds the queued and running matches per worker: one
// running and one waiting, so a worker that ends a match starts the next at
// once instead of idling while the result is recorded and the matchmaker
// makes a new one (with one per worker, the workers of the throughput
// benchmark idled for a quarter of the time; docs/performance.md).
const queuedPerWorker = 2

// fill makes rated matches of the games all, as many as there is room for.
func (s *Server) fill(ctx context.Context, all []game.Game, turn int) error {
	// Challenges wait in their own share (Challenge): rated matches are
	// made whatever users ask for.
	live, challenges, err := s.store.CountLive(ctx, store.KindChallenge)
	if err != nil {
		return err
	}
	s.metrics.depth.Set(float64(live))
	free := queuedPerWorker*s.capacity() - (live - challenges)
	for i := range all {
		if free <= 0 {
			return nil
		}
		g := all[(turn+i)%len(all)]
		n, err := s.fillGame(ctx, g.Info().ID, g.Info().RatedPlayers(), free)
		if err != nil {
			return err
		}
		free -= n
	}
	return nil
}

func (s *Server) fillGame(ctx context.Context, game string, players []int, free int) (int, error) {
	bots, err := s.store.ActiveBots(ctx, game)
	if err != nil {
		return 0, err
	}
	recent, err := s.store.RecentRated(ctx, game, 200)
	if err != nil {
		return 0, err
	}
	played, err := s.store.VersionPlayed(ctx, game)
	if err != nil {
		return 0, err
	}
	// Outside a new version's burst, a bot rests Options.Rest between rated
	// matches: the ladder needs a steady trickle, not every core forever.
	var resting map[int64]int
	if rest := s.opt.Rest; rest > 0 {
		burst := false
		for _, b := range bots {
			if played[b.ActiveVersion] < matchmaker.DefaultBurst && b.Spec == "" {
				burst = true
			}
		}
		if !burst {
			if resting, err = s.store.RecentMatches(ctx, game, time.Now().Add(-rest)); err != nil {
				return 0, err
			}
		}
	}
	counts := map[int64]int{}
	req := matchmaker.Request{Players: players, Free: free, Seed: s.seed.Add(1)}
	for _, p := range recent {
		req.Recent = append(req.Recent, matchmaker.Pairing(p))
		for _, id := range p {
			counts[id]++
		}
	}
	for _, b := range bots {
		if resting[b.ID] > 0 {
			continue
		}
		req.Bots = append(req.Bots, matchmaker.Bot{ID: b.ID, Version: b.ActiveVersion, Rating: rating.Rating{Mu: b.Mu, Sigma: b.Sigma},
			Recent: counts[b.ID], Played: played[b.ActiveVersion], Order: b.ActiveVersion})
	}
	n := 0
	for _, j := range matchmaker.Next(req) {
		nm := store.NewMatch{Game: game, Seed: j.Seed & (1<<63 - 1), Kind: store.KindRated}
		for _, seat := range j.Seats {
			nm.Seats = append(nm.Seats, store.SeatRef{BotID: seat.Bot, VersionID: seat.Version})
		}
		if _, err := s.schedule(ctx, nm); err != nil {
			return n, fmt.Errorf("schedule: %w", err)
		}
		n++
	}
	return n, nil
}
