package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/arenabots/arena/internal/jobs"
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
		s.q, err = jobs.Setup(ctx, s.nc, jobs.Config{AckWait: s.opt.AckWait, Replicas: o.Replicas})
		if err == nil || ctx.Err() != nil || time.Now().After(deadline) {
			break
		}
		s.log.Warn("NATS not ready; retrying", "err", err)
		time.Sleep(time.Second)
	}
	if err != nil {
		return err
	}
	s.roster = jobs.NewRoster()
	_, err = s.nc.Subscribe(jobs.AnnounceSubject, func(m *nats.Msg) {
		if err := s.roster.Note(m.Data); err != nil {
			s.log.Warn("worker announcement dropped", "err", err)
		}
	})
	return err
}

// capacity is how many matches the workers, here and joined, run at once.
func (s *Server) capacity() int {
	n := s.roster.Capacity()
	if s.pool != nil {
		n += s.pool.Size()
	}
	return n
}

// scaleRoutes adds the workers' list to the API and their series to
// /metrics.
func (s *Server) scaleRoutes(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/v1/workers", func(w http.ResponseWriter, r *http.Request) {
		local := 0
		if s.pool != nil {
			local = s.pool.Size()
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		json.NewEncoder(w).Encode(struct {
			Local   int               `json:"local_workers"`
			Workers []jobs.WorkerInfo `json:"workers"`
		}{local, s.roster.List()})
	})
	s.metrics.reg.MustRegister(rosterCollector{s.roster})
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

// ensureWasm puts a module back in the object store when the store lacks
// it: a new or rebuilt NATS cluster starts empty, and workers can fetch
// modules only from there.
func (s *Server) ensureWasm(ctx context.Context, sha string) error {
	if _, err := s.q.Wasm.GetInfo(ctx, sha); err == nil {
		return nil
	}
	data, err := s.store.Wasm(ctx, sha)
	if err != nil {
		return fmt.Errorf("module %s: %w", sha, err)
	}
	return s.q.PutWasm(ctx, sha, data)
}
