// Package server is `arena serve`: it opens the store, starts the embedded
// NATS server and the in-process workers, seeds the house bots, keeps the
// matchmaker filling the work queue, records results and ratings, and serves
// the JSON API (package internal/api), /healthz and /metrics, with room for
// the site's pages beside them (Options.Site).
package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/api"
	"github.com/arenabots/arena/internal/core"
	"github.com/arenabots/arena/internal/jobs"
	"github.com/arenabots/arena/internal/nice"
	"github.com/arenabots/arena/internal/store"
	"github.com/arenabots/arena/internal/visitors"
	"github.com/arenabots/arena/rating"
	"github.com/arenabots/arena/worker"
)

// Options configures a server.
type Options struct {
	Addr    string // default 127.0.0.1:8080
	DataDir string // default ./arena-data
	DB      string // database URL; empty: SQLite under DataDir
	// Workers is the number of in-process workers; 0 means one per core.
	Workers int
	// MatchNice, when above 0, runs the in-process workers' matches that
	// many nice levels below the server (worker.Options.Nice), so that
	// requests get a core ahead of them. `arena serve` leaves it 0: a
	// lowered match keeps a tenth of a core beside a busy process at 10
	// (docs/performance.md, "--match-nice").
	MatchNice int
	// MatchBatch runs the in-process workers' matches on batch threads
	// (nice.Batch): at MatchNice's levels, 0 included, the same share of
	// a core beside other processes, but the server's threads take the
	// core from them when they wake. Each match then has threads of its
	// own, which every question and answer hands off between (the threaded
	// hand-off, sandbox/handoff.go), at a cost in matches a minute
	// (docs/performance.md, "--match-nice").
	MatchBatch bool
	// AckWait is the job heartbeat window (jobs.Config); 0 for the default.
	AckWait time.Duration
	// Site, when set, makes the handler of every path outside /api/,
	// /healthz and /metrics, given the core the API serves (the site
	// calls it directly).
	Site func(*core.Core) (http.Handler, error)
	Log  *slog.Logger
	// Rest is the least time between two rated matches of a bot outside a
	// new version's burst of matches; 0 means none. `arena serve` uses 10 s.
	Rest time.Duration
	// Games, when set, limits rated matches to these games (by id).
	Games []string
	// NoMatchmaker turns off the rated matches (for tests of other parts).
	NoMatchmaker bool
	// TrustedProxies is the number of reverse proxies in front of the
	// server that append to X-Forwarded-For (visitors.Addr); zero takes
	// the connection's address.
	TrustedProxies int
	// ChallengesPerMinute limits each account's challenges (core.Options);
	// zero for the default.
	ChallengesPerMinute int
	// UploadsPerDay and BotsPerGame are the per-account upload limits
	// (core.Options); zero for the defaults.
	UploadsPerDay, BotsPerGame int
	// Admins are the handles of the accounts that see the site's operator
	// page (/admin: the workers' standing, clearing one); each must exist
	// when the server starts. `arena serve --admin`.
	Admins []string
	// NATS is where workers on other machines join (scale.go).
	NATS NATSOptions
	// Now is the clock expired tokens and sessions, and replaced
	// versions' modules, are purged by; nil means time.Now. PurgeTick,
	// when set, replaces the hourly ticker of the purge. Both are for
	// tests.
	Now       func() time.Time
	PurgeTick <-chan time.Time
}

// Server is a running platform.
type Server struct {
	opt     Options
	log     *slog.Logger
	store   *store.Store
	ns      *natsserver.Server
	nc      *nats.Conn
	q       *jobs.Queue
	pool    *worker.Pool
	roster  *jobs.Roster
	leases  *jobs.Leases           // who runs which match (lease.go)
	live    *liveHub               // the turns of running matches (live.go)
	started chan int64             // matches whose first turn arrived (markRunning)
	checks  *prometheus.CounterVec // determinism checks (scale.go)
	votes   *prometheus.CounterVec // their third runs (majority.go)
	rota    *rotation              // workers' lost votes (majority.go)
	metrics *metrics
	handler http.Handler
	core    *core.Core
	api     http.Handler
	ready   atomic.Bool
	house   store.Account

	kick    chan struct{} // wakes the matchmaker
	mu      sync.Mutex
	waiters map[int64][]chan struct{} // version id -> waiting uploads
	retry   map[int64]bool            // matches whose job could not be published (scale.go)
	seed    atomic.Uint64

	seatBots seatBots // what each seat's bot plays (work.go)
	created  created  // matches scheduled by this process (work.go)
}

// New opens everything the server needs; Run serves.
func New(ctx context.Context, opt Options) (*Server, error) {
	if opt.Addr == "" {
		opt.Addr = "127.0.0.1:8080"
	}
	if opt.DataDir == "" {
		opt.DataDir = "arena-data"
	}
	if opt.Workers <= 0 {
		opt.Workers = runtime.NumCPU()
	}
	if opt.Log == nil {
		opt.Log = slog.New(slog.NewTextHandler(os.Stderr, nil))
	}
	if err := os.MkdirAll(opt.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	s := &Server{opt: opt, log: opt.Log, kick: make(chan struct{}, 1), waiters: map[int64][]chan struct{}{}}
	var err error
	s.store, err = openStore(ctx, opt.DB, opt.DataDir)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*Server, error) {
		s.close()
		return nil, err
	}
	if err := s.connectNATS(ctx); err != nil {
		return fail(err)
	}
	if !opt.NATS.NoWorkers {
		setServingProcs(opt.Workers)
		if s.pool, err = worker.New(s.q, worker.Options{Workers: opt.Workers, CacheDir: filepath.Join(opt.DataDir, "modules"), Log: opt.Log, Nice: matchLowering(opt.MatchNice, opt.MatchBatch)}); err != nil {
			return fail(err)
		}
	}
	if err := s.seedHouse(ctx); err != nil {
		return fail(err)
	}
	s.metrics = newMetrics()
	if err := s.startRotation(); err != nil {
		return fail(err)
	}
	s.seed.Store(uint64(time.Now().UnixNano()))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		if !s.ready.Load() {
			http.Error(w, "starting", http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ok\n"))
	})
	mux.Handle("GET /metrics", s.metrics.handler())
	s.scaleMetrics()
	if err := s.adminRoutes(mux); err != nil {
		return fail(err)
	}
	admins, err := s.resolveAdmins(ctx)
	if err != nil {
		return fail(err)
	}
	s.core = core.New(s.store, s, core.Options{Log: opt.Log, Games: games.All(), ChallengesPerMinute: opt.ChallengesPerMinute,
		UploadsPerDay: opt.UploadsPerDay, BotsPerGame: opt.BotsPerGame, Admins: admins})
	s.api = api.New(s.core, api.Options{Log: opt.Log, TrustedProxies: opt.TrustedProxies})
	mux.Handle("/api/", s.api)
	if opt.Site != nil {
		site, err := opt.Site(s.core)
		if err != nil {
			return fail(fmt.Errorf("site: %w", err))
		}
		mux.Handle("/", site)
	}
	s.handler = visitors.WriteDeadline(mux, responseWriteWait)
	if opt.TrustedProxies == 0 {
		s.handler = s.warnOfProxy(s.handler)
	}
	return s, nil
}

// openStore opens the server's store, which ranks bots by their ratings'
// ordinal.
func openStore(ctx context.Context, db, dir string) (*store.Store, error) {
	return store.Open(ctx, db, dir, store.Options{
		Score: func(mu, sigma float64) float64 { return rating.Rating{Mu: mu, Sigma: sigma}.Ordinal() },
	})
}

// Handler is the server's whole HTTP handler.
func (s *Server) Handler() http.Handler { return s.handler }

// API is the JSON API's handler alone.
func (s *Server) API() http.Handler { return s.api }

// Core is what the API and the site call.
func (s *Server) Core() *core.Core { return s.core }

// Store is the server's store (for tests and tools).
func (s *Server) Store() *store.Store { return s.store }

// SetMatchNice changes Options.MatchNice and MatchBatch for the matches
// the in-process workers start from now on (benchmarks compare the
// settings in one run).
func (s *Server) SetMatchNice(n int, batch bool) {
	if s.pool != nil {
		s.pool.SetNice(matchLowering(n, batch))
	}
}

// matchLowering is the worker's Options.Nice for MatchNice and MatchBatch.
func matchLowering(levels int, batch bool) int {
	if batch {
		return max(levels, 0) + nice.Batch
	}
	return levels
}

// seedHouse makes the @house account and its ladder entries (seedLadder):
// they are on every game's leaderboard from the first start.
func (s *Server) seedHouse(ctx context.Context) error {
	a, err := s.store.AccountByHandle(ctx, core.HouseHandle)
	if errors.Is(err, store.ErrNotFound) {
		// "!" is no bcrypt hash: nobody can log in as the house.
		a, err = s.store.CreateAccount(ctx, core.HouseHandle, "!")
		if errors.Is(err, store.ErrExists) {
			a, err = s.store.AccountByHandle(ctx, core.HouseHandle)
		}
	}
	if err != nil {
		return fmt.Errorf("house account: %w", err)
	}
	s.house = a
	return s.seedLadder(ctx, a)
}

// Run serves until ctx is done, then stops within 10 s: it stops taking
// requests and jobs, hands running matches back to the queue (they run
// again, on a joined worker or after the next start; a hand-back does not
// count toward a match's attempts), and closes everything.
func (s *Server) Run(ctx context.Context) error {
	ln, err := net.Listen("tcp", s.opt.Addr)
	if err != nil {
		s.close()
		return err
	}
	return s.Serve(ctx, ln)
}

// Serve is Run on a listener.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	defer s.close()
	work, stopWork := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	start := func(f func(context.Context)) {
		wg.Add(1)
		go func() { defer wg.Done(); f(work) }()
	}
	// The lease service outlives the workers here, which give their
	// leases back as they stop.
	leaseCtx, stopLeases := context.WithCancel(context.Background())
	defer stopLeases()
	if err := s.leases.Serve(leaseCtx, s.nc); err != nil {
		stopWork()
		return err
	}
	if err := s.serveModules(leaseCtx); err != nil {
		stopWork()
		return err
	}
	if s.pool != nil {
		start(s.pool.Run)
	}
	start(s.record)
	start(s.markRunning)
	start(s.republish)
	start(s.purge)
	if err := s.requeue(ctx); err != nil {
		s.log.Error("requeue", "err", err)
	}
	if !s.opt.NoMatchmaker {
		start(s.matchmake)
	}
	hs := &http.Server{Handler: s.handler, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	s.ready.Store(true)
	s.log.Info("arena serve: ready", "addr", ln.Addr().String(), "data", s.opt.DataDir, "db", s.store.Dialect(), "workers", s.capacity())
	var serveErr error
	select {
	case <-ctx.Done():
	case serveErr = <-errc:
	}
	s.ready.Store(false)
	s.log.Info("arena serve: stopping")
	shutCtx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
	hs.Shutdown(shutCtx) // SSE streams end with the context below
	cancel()
	hs.Close()
	stopWork()
	wg.Wait()
	s.log.Info("arena serve: stopped")
	if errors.Is(serveErr, http.ErrServerClosed) {
		serveErr = nil
	}
	return serveErr
}

// warnOfProxy logs once when requests come through a reverse proxy while
// --trust-proxy is 0 (X-Forwarded-For from a local address): every visitor
// then shares the proxy's address, and its limits.
func (s *Server) warnOfProxy(h http.Handler) http.Handler {
	var once sync.Once
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Forwarded-For") != "" {
			if ap, err := netip.ParseAddrPort(r.RemoteAddr); err == nil && (ap.Addr().IsLoopback() || ap.Addr().IsPrivate()) {
				once.Do(func() {
					s.log.Warn("requests come through a reverse proxy (X-Forwarded-For from " + ap.Addr().String() + ") but --trust-proxy is 0: every visitor shares the proxy's address and its limits (log-ins, uploads, streams); start with --trust-proxy 1 (docs/deploy.md)")
				})
			}
		}
		h.ServeHTTP(w, r)
	})
}

// responseWriteWait bounds the time to write a response (a client that
// stops reading must not pin it in memory): 3 minutes carry a replay of
// 16 MB at 90 KB/s. Event streams renew theirs at every write.
const responseWriteWait = 3 * time.Minute

func (s *Server) close() {
	if s.nc != nil {
		s.nc.Drain()
		s.nc.Close()
	}
	if s.ns != nil {
		s.ns.Shutdown()
		s.ns.WaitForShutdown()
	}
	if s.store != nil {
		s.store.Close()
	}
}

// requeue publishes every match that is queued or running in the store: the
// ones a crash interrupted, and any whose job was never published. Jobs
// still in the stream are deduplicated by match id within the stream's
// window; beyond it a match may run twice, but is recorded once.
func (s *Server) requeue(ctx context.Context) error {
	ms, err := s.store.Unfinished(ctx)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if err := s.publish(ctx, m); err != nil {
			s.log.Warn("requeue: will try again", "match", m.ID, "err", err)
		}
	}
	if len(ms) > 0 {
		s.log.Info("requeued unfinished matches", "count", len(ms))
	}
	if err := s.store.ApplyPending(ctx, rate); err != nil {
		return err
	}
	// Uploads whose smoke match ended while the server was down.
	vs, err := s.store.Checking(ctx)
	if err != nil {
		return err
	}
	for _, v := range vs {
		if v.SmokeMatch != 0 {
			s.finishSmoke(ctx, v.SmokeMatch)
		}
	}
	return nil
}

// purgeEvery is how often expired tokens and sessions are deleted, and the
// modules of versions replaced long enough ago.
const purgeEvery = time.Hour

// keepReplaced is how long a replaced version keeps its module: matches
// queued before the replacement, and determinism checks of its last
// matches, still fetch it.
const keepReplaced = 24 * time.Hour

// purge deletes expired API tokens and sessions, and the modules of
// versions replaced more than keepReplaced ago, at start and then every
// purgeEvery: the tokens table holds only live ones however many log-ins
// there were, and the disk only the modules that may still play, however
// many versions were uploaded.
func (s *Server) purge(ctx context.Context) {
	now, tick := s.opt.Now, s.opt.PurgeTick
	if now == nil {
		now = time.Now
	}
	if tick == nil {
		t := time.NewTicker(purgeEvery)
		defer t.Stop()
		tick = t.C
	}
	for {
		if n, err := s.store.PurgeTokens(ctx, now()); err != nil && ctx.Err() == nil {
			s.log.Error("purge expired tokens", "err", err)
		} else if n > 0 {
			s.log.Info("purged expired tokens and sessions", "count", n)
		}
		s.pruneModules(ctx, now().Add(-keepReplaced))
		select {
		case <-ctx.Done():
			return
		case <-tick:
		}
	}
}

// pruneModules deletes the modules of versions replaced before t from the
// store (see store.PruneModules).
func (s *Server) pruneModules(ctx context.Context, t time.Time) {
	shas, err := s.store.PruneModules(ctx, t)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Error("prune old modules", "err", err)
		}
		return
	}
	if len(shas) > 0 {
		s.log.Info("deleted the modules of versions replaced a day ago", "count", len(shas))
	}
}

func (s *Server) wake() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}
