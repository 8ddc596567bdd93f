package worker

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"log/slog"
	"os"
	"runtime"
	"sort"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/arenabots/arena/internal/jobs"
	"github.com/arenabots/arena/sandbox/meter"
)

// stats is what a pool announces about itself.
type stats struct {
	mu      sync.Mutex
	id      string
	started time.Time
	run     int64
	failed  int64
	refused int64
	current map[int64]int // match id -> workers running it
	changed chan struct{}
}

func newStats() *stats {
	b := make([]byte, 8)
	rand.Read(b)
	return &stats{id: hex.EncodeToString(b), started: time.Now().UTC(), current: map[int64]int{}, changed: make(chan struct{}, 1)}
}

func (s *stats) poke() {
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

func (s *stats) begin(id int64) {
	s.mu.Lock()
	s.current[id]++
	s.mu.Unlock()
	s.poke()
}

func (s *stats) end(id int64) {
	s.mu.Lock()
	if s.current[id]--; s.current[id] <= 0 {
		delete(s.current, id)
	}
	s.mu.Unlock()
	s.poke()
}

func (s *stats) count(field *int64) {
	s.mu.Lock()
	*field++
	s.mu.Unlock()
}

// Announcement is the pool's state now.
func (p *Pool) Announcement() jobs.Announcement {
	s := p.stats
	s.mu.Lock()
	defer s.mu.Unlock()
	a := jobs.Announcement{ID: s.id, Name: p.opt.Name, Version: jobs.Version(), CostModel: meter.CostModel,
		Cores: runtime.NumCPU(), Parallel: p.opt.Workers, MatchesRun: s.run, Failed: s.failed, Refused: s.refused,
		Current: []int64{}, Started: s.started, Interval: p.opt.Announce.Seconds()}
	for id := range s.current {
		a.Current = append(a.Current, id)
	}
	sort.Slice(a.Current, func(i, j int) bool { return a.Current[i] < a.Current[j] })
	return a
}

// announce publishes the pool's state every Options.Announce and at once
// when a match starts or ends, until ctx ends; then says it leaves.
func (p *Pool) announce(ctx context.Context) {
	nc := p.q.JS.Conn()
	send := func(leaving bool) {
		a := p.Announcement()
		a.Leaving = leaving
		if data, err := json.Marshal(a); err == nil {
			nc.Publish(jobs.AnnounceSubject, data)
		}
	}
	t := time.NewTicker(p.opt.Announce)
	defer t.Stop()
	for {
		send(false)
		select {
		case <-ctx.Done():
			send(true)
			nc.Flush()
			return
		case <-t.C:
		case <-p.stats.changed:
		}
	}
}

func defaultName() string {
	if h, err := os.Hostname(); err == nil && h != "" {
		return h
	}
	return "worker"
}

// reportFor bounds how long a worker keeps trying to publish a result.
const reportFor = 2 * time.Minute

// report publishes a result, trying again while the stream cannot take it
// (a NATS node lost, its stream electing a new leader, the server's NATS
// restarting) and keeping the job's heartbeat meanwhile: the match is
// played, and running it again would count a platform fault as one of
// the job's attempts. A stopping worker tries for a few seconds only.
func (p *Pool) report(ctx context.Context, msg jetstream.Msg, r jobs.Result, log *slog.Logger) error {
	limit := reportFor
	if ctx.Err() != nil {
		limit = 5 * time.Second
	}
	deadline := time.Now().Add(limit)
	for wait := 250 * time.Millisecond; ; wait = min(2*wait, 2*time.Second) {
		pubCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		dup, err := p.q.PublishResult(pubCtx, r)
		cancel()
		if dup {
			// Results are told apart by lease: this one reached the stream
			// before, and only its answer was lost.
			log.Info("worker: result already in the stream (its first answer was lost)")
		}
		if err == nil || time.Now().After(deadline) {
			return err
		}
		log.Warn("worker: result not published; trying again", "err", err)
		msg.InProgress()
		if ctx.Err() != nil && time.Now().Add(wait).After(deadline) {
			return err
		}
		time.Sleep(wait)
	}
}
