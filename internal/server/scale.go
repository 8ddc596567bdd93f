package server

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/arenabots/arena/internal/jobs"
	"github.com/arenabots/arena/internal/store"
)

// NATSOptions say where the job queue lives and who may join it
// (docs/deploy.md).
type NATSOptions struct {
	// Listen, when set (HOST:PORT), exposes the embedded NATS server to
	// workers on other machines, with a worker password kept in
	// DATA/worker.creds, and TLS when TLSCert and TLSKey are given.
	Listen          string
	TLSCert, TLSKey string
	// URL, when set, uses an external NATS server or cluster (comma-separated
	// URLs) instead of the embedded one; Creds is a creds file to log in
	// with (jobs.Creds), Replicas the streams' replication there.
	URL      string
	Creds    string
	Replicas int
	// NoWorkers runs no matches in this process: only joined workers do.
	NoWorkers bool
	// CheckEvery runs one finished match in CheckEvery again, on another
	// worker where there is one, and compares the replays byte for byte;
	// 0 never does.
	CheckEvery int
}

// connectNATS starts or reaches the NATS server, sets up the queue and
// listens to the workers' announcements.
func (s *Server) connectNATS(ctx context.Context) error {
	o := s.opt.NATS
	var err error
	switch {
	case o.URL != "" && o.Listen != "":
		return fmt.Errorf("--nats and --nats-listen exclude each other: an external NATS has its own listeners")
	case o.URL != "":
		var c jobs.Creds
		if o.Creds != "" {
			if c, err = jobs.ReadCreds(o.Creds); err != nil {
				return err
			}
		}
		if s.nc, err = jobs.Dial(o.URL, c, "arena-server"); err != nil {
			return err
		}
	case o.Listen != "":
		l := jobs.Listen{Addr: o.Listen, TLSCert: o.TLSCert, TLSKey: o.TLSKey}
		if l.WorkerPassword, err = jobs.WorkerPasswordFor(s.opt.DataDir); err != nil {
			return err
		}
		if l.ServerPassword, err = jobs.NewPassword(); err != nil {
			return err
		}
		opt, err := l.Apply()
		if err != nil {
			return err
		}
		if s.ns, err = jobs.StartServer(filepath.Join(s.opt.DataDir, "nats"), opt); err != nil {
			return err
		}
		if s.nc, err = jobs.Connect(s.ns, jobs.ServerUser, l.ServerPassword); err != nil {
			return err
		}
		c, err := l.WorkerCreds()
		if err != nil {
			return err
		}
		path := filepath.Join(s.opt.DataDir, jobs.CredsFile)
		if err := jobs.WriteCreds(path, c); err != nil {
			return fmt.Errorf("write %s: %w", path, err)
		}
		s.log.Info("NATS open to workers", "url", c.URL, "creds", path)
	default:
		if s.ns, err = jobs.StartServer(filepath.Join(s.opt.DataDir, "nats")); err != nil {
			return err
		}
		if s.nc, err = jobs.Connect(s.ns); err != nil {
			return err
		}
	}
	// A NATS cluster that has just started elects its leaders for a few
	// seconds before it accepts streams.
	deadline := time.Now().Add(30 * time.Second)
	for {
		// An embedded NATS server open to no worker elsewhere keeps its
		// queues in memory: it stops with this process, whose start
		// publishes again every match not recorded (requeue). One open to
		// joined workers (--nats-listen), or an external one, keeps them
		// in files: with joined workers the memory queues played fewer
		// matches in TestTwoWorkersSIGKILL (not yet understood).
		s.q, err = jobs.Setup(ctx, s.nc, jobs.Config{AckWait: s.opt.AckWait, Replicas: o.Replicas, Memory: s.ns != nil && o.Listen == ""})
		if err == nil || ctx.Err() != nil || time.Now().After(deadline) {
			break
		}
		s.log.Warn("NATS not ready; retrying", "err", err)
		time.Sleep(time.Second)
	}
	if err != nil {
		return err
	}
	key, err := jobs.LeaseKeyFor(s.opt.DataDir)
	if err != nil {
		return err
	}
	s.leases = jobs.NewLeases(key, s.q.AckWait, leaseBackend{s})
	s.roster = jobs.NewRoster()
	_, err = s.nc.Subscribe(jobs.AnnounceSubject, func(m *nats.Msg) {
		if err := s.roster.Note(m.Data); err != nil {
			s.log.Warn("worker announcement dropped", "err", err)
		}
	})
	if err != nil {
		return err
	}
	s.started = make(chan int64, 256)
	s.live = newLiveHub(func(id int64) {
		select {
		case s.started <- id:
		default: // a display state only: dropped rather than wait
		}
	})
	s.live.accept = s.leases.AcceptLive
	s.live.refused = func(id int64, le *jobs.Lease, err error) {
		worker := ""
		if le != nil {
			worker = le.Worker
		}
		s.log.Warn("worker live turns refused", "match", id, "worker", worker, "err", err)
	}
	return s.live.listen(s.nc)
}

// capacity is how many matches the workers, here and joined, run at once.
func (s *Server) capacity() int {
	n := s.roster.Capacity()
	if s.pool != nil {
		n += s.pool.Size()
	}
	return n
}

// Workers is the matches this process runs at once and the workers that
// joined (core.Platform; GET /api/v1/workers).
func (s *Server) Workers() (local int, joined []jobs.WorkerInfo) {
	if s.pool != nil {
		local = s.pool.Size()
	}
	return local, s.roster.List()
}

// scaleMetrics adds the workers' series to /metrics.
func (s *Server) scaleMetrics() {
	s.metrics.reg.MustRegister(rosterCollector{s.roster})
	s.checks = prometheus.NewCounterVec(prometheus.CounterOpts{Name: "arena_determinism_checks_total",
		Help: "Finished matches run a second time and compared byte for byte, by outcome (same, mismatch) and by where the second run was (other worker, same worker)."},
		[]string{"outcome", "where"})
	s.metrics.reg.MustRegister(s.checks, s.live.refusals)
}

var (
	workersDesc = prometheus.NewDesc("arena_workers", "Joined worker processes that announced themselves lately.", nil, nil)
	slotsDesc   = prometheus.NewDesc("arena_worker_slots", "Matches the joined workers can run at once.", nil, nil)
	busyDesc    = prometheus.NewDesc("arena_worker_busy", "Matches a joined worker is running.", []string{"worker", "id"}, nil)
	runDesc     = prometheus.NewDesc("arena_worker_matches_run", "Matches a joined worker has finished since it started.", []string{"worker", "id"}, nil)
	refusedDesc = prometheus.NewDesc("arena_worker_jobs_refused", "Jobs a joined worker refused because its build differs.", []string{"worker", "id"}, nil)
)

// rosterCollector reads the roster at each scrape.
type rosterCollector struct{ r *jobs.Roster }

func (c rosterCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- workersDesc
	ch <- slotsDesc
	ch <- busyDesc
	ch <- runDesc
	ch <- refusedDesc
}

func (c rosterCollector) Collect(ch chan<- prometheus.Metric) {
	ws := c.r.List()
	slots := 0
	for _, w := range ws {
		slots += w.Parallel
		ch <- prometheus.MustNewConstMetric(busyDesc, prometheus.GaugeValue, float64(len(w.Current)), w.Name, w.ID)
		ch <- prometheus.MustNewConstMetric(runDesc, prometheus.CounterValue, float64(w.MatchesRun), w.Name, w.ID)
		ch <- prometheus.MustNewConstMetric(refusedDesc, prometheus.CounterValue, float64(w.Refused), w.Name, w.ID)
	}
	ch <- prometheus.MustNewConstMetric(workersDesc, prometheus.GaugeValue, float64(len(ws)))
	ch <- prometheus.MustNewConstMetric(slotsDesc, prometheus.GaugeValue, float64(slots))
}

// maybeCheck queues a second run of a sampled finished match.
func (s *Server) maybeCheck(ctx context.Context, m store.Match, r jobs.Result) {
	every := int64(s.opt.NATS.CheckEvery)
	// Not a smoke match: a refused upload's module is deleted
	// (dropRefusedModule), and a check could not fetch it.
	if every <= 0 || m.ID%every != 0 || m.Kind == store.KindSmoke {
		return
	}
	j, err := s.job(ctx, m)
	if err != nil {
		s.log.Warn("determinism check not queued", "match", m.ID, "err", err)
		return
	}
	j.Check, j.NotWorker, j.Rerun = true, r.Worker, s.leases.Gen(m.ID, true)
	s.leases.Sign(&j)
	if err := s.q.Publish(ctx, j); err != nil {
		s.log.Warn("determinism check not queued", "match", m.ID, "err", err)
	}
}

// compareCheck compares a second run with the recorded replay and marks
// the match with the outcome. A mismatch is logged as an error and counted:
// some worker plays differently.
func (s *Server) compareCheck(ctx context.Context, m store.Match, r jobs.Result) error {
	if m.State != store.Finished {
		return nil
	}
	rec, err := s.store.Replay(ctx, m.ID)
	if err != nil {
		return err
	}
	if d, ok := s.rota.dispute(m.ID); ok {
		if r.Lease != nil && r.Lease.ID == d.secondLease {
			return nil // the second run's result again
		}
		return s.vote(ctx, m, r, rec, d)
	}
	where := "other"
	if r.Worker == "" || r.Worker == r.Original {
		where = "same"
	}
	outcome := store.DeterminismChecked
	if r.Error != "" || !bytes.Equal(rec, r.Replay) {
		outcome = store.DeterminismMismatch
	}
	if r.Error != "" && s.moduleGone(ctx, m) {
		// A version replaced a day before had its module deleted
		// (pruneModules) while the check waited: nothing was compared.
		s.log.Info("determinism check skipped: a module was deleted meanwhile", "match", m.ID, "rerun_error", r.Error)
		return nil
	}
	// Marked before counted: a failed write is retried (the result is
	// handed back), and the count must not run ahead of the marks.
	if err := s.store.MarkDeterminism(ctx, m.ID, outcome); err != nil {
		return err
	}
	if outcome == store.DeterminismChecked {
		s.checks.WithLabelValues("same", where).Inc()
		s.log.Info("determinism checked", "match", m.ID, "where", where)
		return nil
	}
	s.checks.WithLabelValues("mismatch", where).Inc()
	s.log.Error("DETERMINISM: a second run of a match differs from the recorded one", "match", m.ID, "game", m.Game,
		"recorded_bytes", len(rec), "rerun_bytes", len(r.Replay), "first_difference", firstDifference(rec, r.Replay),
		"recorded_worker", r.Original, "rerun_worker", r.Worker, "rerun_error", r.Error)
	s.runThird(ctx, m, r)
	return nil
}

// moduleGone reports whether a module one of m's seats played is no longer
// stored.
func (s *Server) moduleGone(ctx context.Context, m store.Match) bool {
	for _, seat := range m.Seats {
		v, err := s.store.Version(ctx, seat.VersionID)
		if err != nil || v.SHA256 == "" {
			continue // a native house bot has no module
		}
		if has, err := s.store.HasWasm(ctx, v.SHA256); err == nil && !has {
			return true
		}
	}
	return false
}

// firstDifference is the offset of the first byte where a and b differ (the
// shorter one's length when one is a prefix of the other).
func firstDifference(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// publishLater notes a match whose job could not be published (NATS
// unreachable, a stream electing its leader) for republish.
func (s *Server) publishLater(id int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.retry == nil {
		s.retry = map[int64]bool{}
	}
	s.retry[id] = true
}

// republish publishes again, every second, the jobs that could not be
// published, while their matches are still queued: otherwise they would
// wait for the next start.
func (s *Server) republish(ctx context.Context) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		s.mu.Lock()
		ids := make([]int64, 0, len(s.retry))
		for id := range s.retry {
			ids = append(ids, id)
		}
		s.retry = nil
		s.mu.Unlock()
		slices.Sort(ids)
		for _, id := range ids {
			m, err := s.store.Match(ctx, id)
			if err != nil {
				if ctx.Err() == nil && !errors.Is(err, store.ErrNotFound) {
					s.publishLater(id)
				}
				continue
			}
			if m.State != store.Queued {
				continue
			}
			if err := s.publish(ctx, m); err == nil {
				s.log.Info("job published after a failure", "match", id)
			}
		}
	}
}
