// Package worker runs match jobs: it pulls one job at a time from the
// JetStream work queue (package internal/jobs), fetches the bots' modules by
// sha256 from the server with the job's lease, plays the match with the project's runner
// (package match) and publishes the result and the replay. It needs nothing
// but the NATS connection behind its jobs.Queue: no database, no files but a
// cache, so workers can run on any machine that reaches the NATS server.
//
// Delivery rules: a worker runs a job only under a lease the server grants
// it (lease.go), and heartbeats the job (InProgress) and renews the lease
// while it runs; a job the worker cannot run because of the platform (a
// module the server cannot serve now) is handed back and counted; a
// stopping worker hands its job back uncounted; a job that can never run
// (undecodable, unknown game, a module the sandbox refuses) ends as a
// failed match with its reason and is never tried again. The server ends a
// match whose runs were lost MaxAttempts times (jobs.Leases).
package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/jobs"
	"github.com/arenabots/arena/internal/nice"
	"github.com/arenabots/arena/match"
	"github.com/arenabots/arena/replay"
	"github.com/arenabots/arena/sandbox"
)

// Options configures a pool of workers.
type Options struct {
	// Workers is the number of matches run at once; 0 means one per core.
	Workers int
	// CacheDir keeps fetched modules, named by sha256; CacheBytes bounds it
	// (0: 1 GiB), oldest-used first out.
	CacheDir   string
	CacheBytes int64
	Log        *slog.Logger
	// Announce, when set, publishes the pool's state (jobs.Announcement)
	// this often, under Name (default: the host name).
	Announce time.Duration
	Name     string
	// Nice, when above 0, runs each match on threads that many nice
	// levels below the process (internal/nice): the match's own goroutine,
	// where the game and the house bots run, and its wasm guests' threads.
	// A server sets it so that its requests get a core ahead of matches.
	Nice int
}

// Pool is a set of workers sharing one module cache.
type Pool struct {
	q     *jobs.Queue
	opt   Options
	cache *Cache
	log   *slog.Logger
	stats *stats
	nice  atomic.Int32 // Options.Nice, or SetNice's
}

// New makes a pool over q.
func New(q *jobs.Queue, opt Options) (*Pool, error) {
	if opt.Workers <= 0 {
		opt.Workers = runtime.NumCPU()
	}
	if opt.Log == nil {
		opt.Log = slog.Default()
	}
	c, err := NewCache(opt.CacheDir, opt.CacheBytes)
	if err != nil {
		return nil, err
	}
	if opt.Name == "" {
		opt.Name = defaultName()
	}
	p := &Pool{q: q, opt: opt, cache: c, log: opt.Log, stats: newStats()}
	p.nice.Store(int32(opt.Nice))
	return p, nil
}

// SetNice changes Options.Nice for the matches started from now on (for
// benchmarks that compare the settings in one run).
func (p *Pool) SetNice(n int) { p.nice.Store(int32(n)) }

// Size is the number of workers.
func (p *Pool) Size() int { return p.opt.Workers }

// Run runs the workers until ctx is done. A match running when ctx ends is
// stopped and its job handed back at once, so that it runs again (here after
// a restart, or on another worker).
func (p *Pool) Run(ctx context.Context) {
	var wg sync.WaitGroup
	if p.opt.Announce > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.announce(ctx)
		}()
	}
	for i := range p.opt.Workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.loop(ctx, i)
		}()
	}
	wg.Wait()
}

func (p *Pool) loop(ctx context.Context, id int) {
	for ctx.Err() == nil {
		msg, err := p.q.Jobs.Next(jetstream.FetchMaxWait(time.Second))
		if err != nil {
			if !errors.Is(err, jetstream.ErrNoMessages) && !errors.Is(err, context.DeadlineExceeded) && !strings.Contains(err.Error(), "timeout") {
				p.log.Warn("worker: fetch", "worker", id, "err", err)
				select {
				case <-ctx.Done():
				case <-time.After(time.Second):
				}
			}
			continue
		}
		p.handle(ctx, msg)
	}
}

// errRetry marks a failure of the platform, worth another attempt.
type errRetry struct{ error }

func (p *Pool) handle(ctx context.Context, msg jetstream.Msg) {
	var j jobs.Job
	if err := json.Unmarshal(msg.Data(), &j); err != nil || j.MatchID <= 0 {
		// Nothing to record it against: drop it.
		p.log.Error("worker: undecodable job dropped", "err", err)
		msg.Term()
		return
	}
	log := p.log.With("match", j.MatchID)
	if j.Check {
		log = log.With("check", true) // the second run of a finished match
	}
	attempt := uint64(1)
	if md, err := msg.Metadata(); err == nil {
		attempt = md.NumDelivered
	}
	if err := checkBuild(j); err != nil {
		p.stats.count(&p.stats.refused)
		if attempt >= jobs.MaxAttempts {
			if h := p.take(ctx, msg, j, log); h != nil {
				p.fail(ctx, msg, j, h, fmt.Sprintf("no worker could run it identically (%v)", err), log)
			}
			return
		}
		// Leave it to a worker of the right build, and give them time to
		// take it before this one asks again.
		log.Warn("worker: job refused", "err", err)
		msg.NakWithDelay(2 * time.Second)
		select {
		case <-ctx.Done():
		case <-time.After(2 * time.Second):
		}
		return
	}
	if j.Check && slices.Contains(j.Avoid, p.stats.id) {
		// A third run must be another worker's, however long it waits.
		msg.NakWithDelay(time.Second)
		return
	}
	if j.Check && j.NotWorker == p.stats.id && attempt < jobs.MaxAttempts {
		// A second run proves more on another machine: leave it to one.
		msg.NakWithDelay(time.Second)
		return
	}
	h := p.take(ctx, msg, j, log)
	if h == nil {
		return
	}
	if hooks.crash(j.MatchID) {
		os.Exit(3) // a test's poison job (testhook.go)
	}
	p.stats.begin(j.MatchID)
	defer p.stats.end(j.MatchID)
	// Heartbeat while the match runs, so that the job is not handed out
	// again however long the match takes, and renew the lease with it; a
	// lease the server says is lost (the job went to another worker while
	// this one was cut off) stops the match.
	runCtx, lost := context.WithCancel(ctx)
	defer lost()
	hbCtx, stopHB := context.WithCancel(ctx)
	defer stopHB()
	go func() {
		t := time.NewTicker(p.q.AckWait / 3)
		defer t.Stop()
		var renewing atomic.Bool
		for {
			select {
			case <-hbCtx.Done():
				return
			case <-t.C:
				msg.InProgress()
				// The renewal waits for the server, the heartbeat must not:
				// a server slow to answer would have the queue hand the
				// job to another worker.
				if renewing.CompareAndSwap(false, true) {
					go func() {
						defer renewing.Store(false)
						if h.renew(hbCtx) {
							lost()
						}
					}()
				}
			}
		}
	}()
	var res *jobs.Result
	var err error
	lower := int(p.nice.Load())
	fetch := func(ctx context.Context, sha string) ([]byte, error) {
		return jobs.FetchModule(ctx, p.q.JS.Conn(), h.lease(), p.stats.id, sha)
	}
	nice.Run(lower, func() { res, err = p.run(nice.With(runCtx, lower), j, h.lease(), fetch) })
	stopHB()
	if res != nil {
		res.Worker, res.Check, res.Original = p.stats.id, j.Check, j.NotWorker
		hooks.perturb(res)
	}
	var retry errRetry
	switch {
	case ctx.Err() != nil:
		// Stopping: hand the job back for the next worker or the next
		// start. A hand-back is not a failed run of the match.
		h.release(ctx, jobs.ReleaseStop)
		msg.Nak()
		log.Info("worker: stopped mid-match; job handed back")
	case runCtx.Err() != nil:
		// The lease is lost: the job is another worker's now.
		log.Warn("worker: lease lost mid-match; the match is left to its new worker")
	case errors.As(err, &retry):
		if h.lease().Counted+1 >= jobs.MaxAttempts {
			p.fail(ctx, msg, j, h, err.Error(), log)
			return
		}
		log.Warn("worker: will retry", "attempt", attempt, "err", err)
		h.release(ctx, jobs.ReleaseRetry)
		msg.NakWithDelay(time.Duration(attempt) * time.Second)
	case err != nil:
		p.fail(ctx, msg, j, h, err.Error(), log)
	default:
		// A finished match is reported even when the worker is stopping.
		le := h.lease()
		res.Lease = &le
		if err := p.report(ctx, msg, *res, log); err != nil {
			log.Warn("worker: result not published; job handed back", "err", err)
			h.release(ctx, jobs.ReleaseRetry)
			msg.NakWithDelay(time.Second)
			return
		}
		msg.Ack()
		p.stats.count(&p.stats.run)
	}
}

// fail publishes the job's failure as its result and removes the job. A
// determinism check (the second run of a recorded match) that cannot run
// says nothing about its match: it is only removed, since a failure
// reported for it would read as the match's.
func (p *Pool) fail(ctx context.Context, msg jetstream.Msg, j jobs.Job, h *held, reason string, log *slog.Logger) {
	if j.Check {
		log.Info("worker: determinism check dropped", "reason", reason)
		h.release(ctx, jobs.ReleaseStop)
		msg.Term()
		return
	}
	log.Warn("worker: match failed", "reason", reason)
	le := h.lease()
	if err := p.report(ctx, msg, jobs.Result{MatchID: j.MatchID, Error: reason, Lease: &le}, log); err != nil {
		msg.NakWithDelay(time.Second)
		return
	}
	msg.Term()
	p.stats.count(&p.stats.failed)
}

// run plays one job held under le. Errors are the job's fault unless
// wrapped in errRetry.
func (p *Pool) run(ctx context.Context, j jobs.Job, le jobs.Lease, fetch Fetch) (res *jobs.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = nil, fmt.Errorf("internal error running the match: %v", r)
		}
	}()
	g, err := games.Lookup(j.Game)
	if err != nil {
		return nil, err
	}
	specs := make([]spec.Spec, len(j.Seats))
	paths := Modules{}
	for i, s := range j.Seats {
		if specs[i], err = seatSpec(i, s); err != nil {
			return nil, err
		}
		if s.Wasm != "" {
			path, err := p.cache.Path(ctx, s.Wasm, fetch)
			if err != nil {
				return nil, err
			}
			paths[s.Wasm] = path
		}
	}
	// The replay names each module by its sha256 (spec.Seats), and the
	// sandbox hashes the bytes it compiles: a cache file changed after
	// Cache.Path hashed it fails the seat's open (spec.MismatchError).
	open := spec.Seats(specs, paths)
	var rn match.Runner
	if !j.Check {
		live, err := newLiveBatch(p.q.JS.Conn(), jobs.LiveSubject(j.MatchID), le)
		if err != nil {
			return nil, errRetry{err}
		}
		defer func() {
			// A match stopped (handed back, or its lease lost) is no
			// one's to show: the server would refuse its last turns.
			if ctx.Err() == nil {
				live.flush()
			}
		}()
		rn.OnTurn = func(t *replay.Turn, _ game.State) {
			if data, err := json.Marshal(t); err == nil {
				live.add(t.Turn, data)
			}
		}
	}
	start := time.Now()
	cfg := game.Config{Seed: j.Seed, Players: len(specs), Params: game.Params(j.Params)}
	rep, err := rn.Play(ctx, g, cfg, open)
	for wait := time.Second; errors.Is(err, sandbox.ErrBusy) && ctx.Err() == nil; wait = min(2*wait, 30*time.Second) {
		// The machine was too busy to compile a module in time: nothing
		// the match or its bots did. The job stays here (its heartbeat
		// goes on) and the match opens again after a pause, however many
		// times it takes; a hand-back would count as an attempt.
		p.log.Warn("worker: too busy to compile a module; trying again", "match", j.MatchID, "in", wait, "err", err)
		select {
		case <-ctx.Done():
		case <-time.After(wait):
			start = time.Now()
			rep, err = rn.Play(ctx, g, cfg, open)
		}
	}
	var changed *spec.MismatchError
	if err != nil {
		if ctx.Err() != nil || errors.As(err, &changed) {
			return nil, errRetry{err}
		}
		return nil, err
	}
	// A bot's log is its owner's only: it travels beside the replay, which
	// anyone may read, not in it.
	logs := make([][]byte, len(specs))
	for _, l := range rep.Logs {
		if b, err := l.Bytes(); err == nil && l.Seat >= 0 && l.Seat < len(logs) {
			logs[l.Seat] = b
		}
	}
	rep.Logs = nil
	hooks.skew(rep)
	data, err := rep.Marshal()
	if err != nil {
		return nil, err
	}
	return Summarize(j.MatchID, g, rep, data, logs, time.Since(start)), nil
}

// Summarize turns a played match into its result: places from the
// placement (seats with equal scores share a place where the game has
// ties), status counts and fuel per seat.
func Summarize(id int64, g game.Game, r *replay.Replay, data []byte, logs [][]byte, elapsed time.Duration) *jobs.Result {
	res := &jobs.Result{MatchID: id, Turns: int64(r.Result.Turns), Replay: data, Elapsed: elapsed.Seconds()}
	n := len(r.Bots)
	res.Seats = make([]jobs.SeatResult, n)
	for i := range n {
		sr := &res.Seats[i]
		if i < len(r.Result.Scores) {
			sr.Score = r.Result.Scores[i]
		}
		sr.Statuses = map[string]int{}
		if i < len(r.Result.Statuses) {
			for st, c := range r.Result.Statuses[i] {
				sr.Statuses[string(st)] = c
			}
		}
		if i < len(logs) {
			sr.Stderr = logs[i]
		}
	}
	for _, t := range r.Turns {
		for _, s := range t.Seats {
			if s.Seat >= 0 && s.Seat < n {
				res.Seats[s.Seat].Fuel += s.Fuel
				if s.Status != game.Ignored {
					res.Seats[s.Seat].Answers++
				}
			}
		}
	}
	ties := g.Info().Ties
	place := 0
	for i, seat := range r.Result.Placement {
		if seat < 0 || seat >= n {
			continue
		}
		prev := -1
		if i > 0 {
			prev = r.Result.Placement[i-1]
		}
		if !(ties && prev >= 0 && prev < n && res.Seats[prev].Score == res.Seats[seat].Score) {
			place = i + 1
		}
		res.Seats[seat].Place = place
	}
	return res
}
