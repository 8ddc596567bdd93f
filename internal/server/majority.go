package server

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/arenabots/arena/internal/core"
	"github.com/arenabots/arena/internal/jobs"
	"github.com/arenabots/arena/internal/store"
)

// A determinism check decides by majority. When the second run of a
// finished match differs from the recorded one, the match is run a third
// time on a worker that ran neither; the run the third agrees with is the
// majority: the recorded result stays, or the second run's replaces it
// (store.ReplaceResult), and the worker of the odd run out takes a strike.
// A worker with StrikesOut strikes is out of rotation: it is refused new
// leases until an operator clears it (admin.go). Workers are known by
// their announced name (the host name unless --name says otherwise), so a
// restart does not clear them; the strikes are kept in DATA/workers.json.

// StrikesOut is how many lost votes take a worker out of rotation.
const StrikesOut = core.StrikesOut

// rotationFile, in the data directory, keeps the workers' strikes.
const rotationFile = "workers.json"

// maxDisputes bounds the third runs waiting at once.
const maxDisputes = 1000

// WorkerStanding is a worker's record of lost votes.
type WorkerStanding = core.WorkerStanding

// dispute is a second run that differed, waiting for the third.
type dispute struct {
	original, second string // worker ids
	secondLease      string
	replay           []byte
	failed           string // the second run's error
}

type rotation struct {
	path     string
	mu       sync.Mutex
	disputes map[int64]dispute
	workers  map[string]*WorkerStanding
}

func openRotation(dir string) (*rotation, error) {
	r := &rotation{path: filepath.Join(dir, rotationFile), disputes: map[int64]dispute{}, workers: map[string]*WorkerStanding{}}
	data, err := os.ReadFile(r.path)
	if errors.Is(err, os.ErrNotExist) {
		return r, nil
	}
	if err != nil {
		return nil, fmt.Errorf("workers' strikes: %w", err)
	}
	var list []WorkerStanding
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("workers' strikes: %s: %w", r.path, err)
	}
	for _, w := range list {
		r.workers[w.Name] = &w
	}
	return r, nil
}

// save writes the strikes (with r.mu held).
func (r *rotation) save() error {
	data, err := json.MarshalIndent(r.listLocked(), "", "  ")
	if err != nil {
		return err
	}
	tmp := r.path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, r.path)
}

func (r *rotation) listLocked() []WorkerStanding {
	out := make([]WorkerStanding, 0, len(r.workers))
	for _, w := range r.workers {
		out = append(out, *w)
	}
	slices.SortFunc(out, func(a, b WorkerStanding) int { return cmp.Compare(a.Name, b.Name) })
	return out
}

func (r *rotation) list() []WorkerStanding {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.listLocked()
}

func (r *rotation) held(name string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.workers[name]
	return w != nil && w.Held
}

// strike notes a lost vote and reports whether it took the worker out.
func (r *rotation) strike(name string, match int64) (out bool, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.workers[name]
	if w == nil {
		w = &WorkerStanding{Name: name}
		r.workers[name] = w
	}
	w.Strikes++
	w.Disagreed = append(w.Disagreed, match)
	if len(w.Disagreed) > 20 {
		w.Disagreed = w.Disagreed[len(w.Disagreed)-20:]
	}
	if w.Strikes >= StrikesOut && !w.Held {
		now := time.Now().UTC()
		w.Held, w.HeldSince, out = true, &now, true
	}
	return out, r.save()
}

// clear puts a worker back in rotation with no strikes.
func (r *rotation) clear(name string) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.workers[name]; !ok {
		return false, nil
	}
	delete(r.workers, name)
	return true, r.save()
}

func (r *rotation) open(match int64, d dispute) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.disputes) >= maxDisputes {
		return false
	}
	r.disputes[match] = d
	return true
}

func (r *rotation) dispute(match int64) (dispute, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	d, ok := r.disputes[match]
	return d, ok
}

func (r *rotation) drop(match int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.disputes, match)
}

// startRotation opens the workers' strikes and has the lease service refuse
// the workers out of rotation.
func (s *Server) startRotation() error {
	var err error
	if s.rota, err = openRotation(s.opt.DataDir); err != nil {
		return err
	}
	s.leases.OutOfRotation = func(worker string) string {
		if name := s.workerName(worker); s.rota.held(name) {
			return fmt.Sprintf("worker %q is out of rotation: its runs lost %d determinism votes; an operator clears it (arena workers clear)", name, StrikesOut)
		}
		return ""
	}
	s.votes = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "arena_determinism_votes_total",
		Help: "Third runs of matches whose second run differed, by outcome: recorded (the recorded run had the majority), replaced (the second run had it and replaced the recorded result), none (three different runs)."},
		[]string{"outcome"})
	for _, o := range []string{"recorded", "replaced", "none"} {
		s.votes.WithLabelValues(o)
	}
	held := prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "arena_workers_out_of_rotation", Help: "Workers refused new leases until an operator clears them."},
		func() float64 {
			n := 0
			for _, w := range s.rota.list() {
				if w.Held {
					n++
				}
			}
			return float64(n)
		})
	if err := s.metrics.reg.Register(s.votes); err != nil {
		return err
	}
	return s.metrics.reg.Register(held)
}

// workerName is the announced name of a worker id; the id itself for a
// worker that does not announce (the server's own).
func (s *Server) workerName(id string) string {
	if name := s.roster.Name(id); name != "" {
		return name
	}
	return id
}

// runThird queues the third run of a match whose second run (r) differed
// from the recorded one, on a worker that ran neither.
func (s *Server) runThird(ctx context.Context, m store.Match, r jobs.Result) {
	d := dispute{original: r.Original, second: r.Worker, replay: r.Replay, failed: r.Error}
	if r.Lease != nil {
		d.secondLease = r.Lease.ID
	}
	s.queueThird(ctx, m, d)
}

// queueThird publishes the third run of a dispute.
func (s *Server) queueThird(ctx context.Context, m store.Match, d dispute) {
	if !s.rota.open(m.ID, d) {
		s.log.Warn("determinism: no third run (too many wait)", "match", m.ID)
		return
	}
	j, err := s.job(ctx, m)
	if err == nil {
		j.Check, j.NotWorker, j.Avoid = true, d.original, []string{d.original, d.second}
		j.Rerun = s.leases.Reopen(m.ID, true)
		s.leases.Sign(&j)
		err = s.q.Publish(ctx, j)
	}
	if err != nil {
		s.rota.drop(m.ID)
		s.log.Warn("determinism: third run not queued", "match", m.ID, "err", err)
		return
	}
	s.log.Info("determinism: third run queued", "match", m.ID, "recorded_worker", s.workerName(d.original), "second_worker", s.workerName(d.second))
}

// vote takes the third run (r) of a disputed match: the majority's result
// is recorded, and the odd run's worker takes a strike.
func (s *Server) vote(ctx context.Context, m store.Match, r jobs.Result, recorded []byte, d dispute) error {
	if r.Worker == d.original || r.Worker == d.second {
		// Not a third opinion: run it again, elsewhere.
		s.log.Warn("determinism: the third run came from a worker of the first two; queued again", "match", m.ID, "worker", s.workerName(r.Worker))
		s.queueThird(ctx, m, d)
		return nil
	}
	third := r.Error == ""
	outcome := "none"
	loser := ""
	switch {
	case third && bytes.Equal(recorded, r.Replay):
		outcome, loser = "recorded", d.second
	case third && d.failed == "" && bytes.Equal(d.replay, r.Replay):
		res, err := s.verified(ctx, m, jobs.Result{MatchID: m.ID, Replay: r.Replay})
		if err != nil {
			s.log.Error("determinism: the majority's replay does not check out; the recorded result stays", "match", m.ID, "err", err)
			break
		}
		changed, err := s.store.ReplaceResult(ctx, res)
		if err != nil {
			return err
		}
		outcome, loser = "replaced", d.original
		s.log.Warn("determinism: the recorded run lost the vote; the majority's result replaces it", "match", m.ID, "places_changed", changed,
			"ratings", "as applied from the recorded run")
	}
	s.rota.drop(m.ID)
	s.votes.WithLabelValues(outcome).Inc()
	if loser == "" {
		s.log.Error("determinism: three runs, no majority; the recorded result stays", "match", m.ID, "game", m.Game,
			"recorded_worker", s.workerName(d.original), "second_worker", s.workerName(d.second), "third_worker", s.workerName(r.Worker), "third_error", r.Error)
		return nil
	}
	name := s.workerName(loser)
	out, err := s.rota.strike(name, m.ID)
	if err != nil {
		s.log.Error("determinism: strike not saved", "worker", name, "err", err)
	}
	s.log.Warn("determinism: a worker's run lost the vote", "match", m.ID, "worker", name, "outcome", outcome, "third_worker", s.workerName(r.Worker))
	if out {
		s.log.Error("worker out of rotation: its runs lost the determinism vote repeatedly; refused new leases until an operator clears it",
			"worker", name, "strikes", StrikesOut)
	}
	return nil
}
