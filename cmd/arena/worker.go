package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/jobs"
	"github.com/arenabots/arena/worker"
)

// workerCmd runs matches only: it joins a server's NATS with the server's
// worker.creds and needs no database and no file of the server.
type workerCmd struct {
	NATS     string        `name:"nats" placeholder:"URL" help:"NATS URL(s), comma-separated; default: the url in --creds."`
	Creds    string        `type:"existingfile" help:"Creds file written by arena serve --nats-listen (DATA/worker.creds)."`
	Parallel int           `default:"0" help:"Matches run at once (0: one per core)."`
	Cache    string        `type:"path" help:"Directory for fetched bot modules (default: arena-worker in the user's cache directory)."`
	CacheMB  int64         `name:"cache-mb" default:"1024" help:"Bound on the module cache, in MiB."`
	Name     string        `help:"Name shown in the server's worker list (default: the host name)."`
	Announce time.Duration `default:"5s" help:"How often the worker announces itself to the server."`
}

func (c *workerCmd) Run() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	var creds jobs.Creds
	if c.Creds != "" {
		var err error
		if creds, err = jobs.ReadCreds(c.Creds); err != nil {
			return fmt.Errorf("worker: %w", err)
		}
	}
	url := c.NATS
	if url == "" {
		url = creds.URL
	}
	if url == "" {
		return errors.New("worker: give --nats URL or --creds FILE")
	}
	if c.Announce <= 0 || c.Announce > 5*time.Minute {
		return errors.New("worker: --announce must be in (0, 5m]")
	}
	if c.Cache == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return fmt.Errorf("worker: no --cache and no user cache directory: %w", err)
		}
		c.Cache = filepath.Join(dir, "arena-worker")
	}
	// The connection retries forever, except when NATS refuses the
	// credentials (twice in a row, nats.go's rule): then it closes, and the
	// worker ends with the reason rather than retry a closed connection.
	var refused atomic.Pointer[error]
	ctx, refuse := context.WithCancel(ctx)
	defer refuse()
	closed := nats.ClosedHandler(func(nc *nats.Conn) {
		if err := nc.LastError(); isAuthError(err) {
			refused.Store(&err)
			refuse()
		}
	})
	nc, err := jobs.Dial(url, creds, "arena-worker", closed)
	if err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	defer nc.Close()
	authFailed := func() error {
		if err := refused.Load(); err != nil {
			return fmt.Errorf("worker: NATS at %s refused the worker's credentials (%v): check --creds against the server's worker.creds", url, *err)
		}
		return nil
	}
	q, err := jobs.Open(ctx, nc)
	if err := authFailed(); err != nil {
		return err
	}
	if err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	pool, err := worker.New(q, worker.Options{Workers: c.Parallel, CacheDir: c.Cache, CacheBytes: c.CacheMB << 20,
		Log: log, Name: c.Name, Announce: c.Announce})
	if err != nil {
		return fmt.Errorf("worker: %w", err)
	}
	// Fingerprint every game's rules now (one short match each) rather than
	// inside the first job of each game.
	for _, g := range games.All() {
		worker.BuildFor(g.Info().ID)
	}
	a := pool.Announcement()
	log.Info("arena worker: ready", "nats", url, "name", a.Name, "id", a.ID, "parallel", pool.Size(), "ack_wait", q.AckWait)
	pool.Run(ctx)
	if err := authFailed(); err != nil {
		return err
	}
	log.Info("arena worker: stopped")
	return nil
}

// isAuthError reports whether NATS refused a connection's credentials.
func isAuthError(err error) bool {
	return errors.Is(err, nats.ErrAuthorization) || errors.Is(err, nats.ErrAuthExpired) || errors.Is(err, nats.ErrAuthRevoked) ||
		(err != nil && strings.Contains(strings.ToLower(err.Error()), "authorization violation"))
}
