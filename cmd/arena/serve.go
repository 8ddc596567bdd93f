package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/core"
	"github.com/arenabots/arena/internal/server"
	"github.com/arenabots/arena/internal/web"
)

type serveCmd struct {
	Addr       string        `default:"127.0.0.1:8080" help:"Address to listen on (HOST:PORT)."`
	Data       string        `default:"./arena-data" type:"path" help:"Directory for the database, the job queue and the module cache."`
	DB         string        `name:"db" env:"ARENA_DB" help:"Database URL: postgres://... for Postgres; empty for SQLite under --data. From the environment or --db-file, a password stays out of ps and the shell's history."`
	DBFile     string        `name:"db-file" env:"ARENA_DB_FILE" type:"path" help:"Read the database URL from this file (its first line) instead of --db."`
	Workers    int           `default:"0" help:"Matches run at once in this process (0: one per core). GOMAXPROCS becomes this plus the number of cores, unless set in the environment, so that requests never wait for a match."`
	MatchNice  int           `name:"match-nice" default:"0" help:"Run matches this many nice levels below the server's requests (0 to 19), so that requests get a core first; 0 (the default): the same priority, which keeps matches at their share when other processes want the CPU (docs/deploy.md)."`
	MatchBatch bool          `name:"match-batch" help:"Run matches on batch threads of their own (Linux SCHED_BATCH, with a long time slice): at --match-nice's level, their share of a core stays, but a waking request takes the core from them; every bot answer then hands off between threads, which costs matches a minute (docs/performance.md)."`
	AckWait    time.Duration `default:"30s" hidden:"" help:"How long a job may go without a worker's heartbeat before it is handed out again."`
	Rest       time.Duration `default:"10s" help:"Least time between two rated matches of a bot (new versions get a burst regardless); 0 runs matches back to back."`

	NATSListen    string   `name:"nats-listen" placeholder:"HOST:PORT" help:"Open the embedded NATS server to workers on other machines (arena worker); writes DATA/worker.creds for them (docs/deploy.md)."`
	NATSTLSCert   string   `name:"nats-tls-cert" type:"path" help:"PEM certificate for --nats-listen: workers then connect over TLS."`
	NATSTLSKey    string   `name:"nats-tls-key" type:"path" help:"PEM key of --nats-tls-cert."`
	NATS          string   `name:"nats" placeholder:"URL" help:"Use this external NATS server or cluster (nats://host:4222, comma-separated) instead of the embedded one."`
	NATSCreds     string   `name:"nats-creds" type:"path" help:"Creds file (JSON: url, user, password, ca) to log in to --nats."`
	NATSReplicas  int      `name:"nats-replicas" default:"1" help:"Replicas of the job streams in an external NATS cluster (3 for a three-node cluster)."`
	NoWorkers     bool     `name:"no-workers" help:"Run no matches in this process: only joined workers (arena worker) do."`
	Games         []string `name:"games" help:"Only these games get rated matches (default: all)."`
	CheckEvery    int      `name:"check-every" default:"100" help:"Run one finished match in N again on another worker and compare the replays byte for byte (0: never)."`
	Challenges    int      `name:"challenges-per-minute" default:"10" hidden:"" help:"Challenges one account may ask for in a minute (scripts/scaling.sh raises it)."`
	UploadsPerDay int      `name:"uploads-per-day" default:"50" help:"Versions one account may upload in 24 hours (refused ones count: each is compiled and tried)."`
	BotsPerGame   int      `name:"bots-per-game" default:"10" help:"Bots one account may have for each game (a bot counts once a version of it is accepted or being checked, retired ones too)."`
	Admins        []string `name:"admin" placeholder:"HANDLE" help:"Accounts (handles, comma-separated or repeated) that see the site's operator page, /admin: the workers' strikes and clearing one. Each must have signed up already (docs/security.md)."`
	TrustProxy    int      `name:"trust-proxy" default:"0" placeholder:"N" help:"Behind N reverse proxies that append the caller's address to X-Forwarded-For, count rate limits by the address the outermost one saw (docs/deploy.md). 0: the connection's address."`
}

func (c *serveCmd) Run() error {
	if c.MatchNice < 0 || c.MatchNice > 19 {
		return fmt.Errorf("serve: --match-nice %d: want 0 to 19", c.MatchNice)
	}
	if c.Challenges < 1 {
		return fmt.Errorf("serve: --challenges-per-minute %d: want at least 1", c.Challenges)
	}
	if c.UploadsPerDay < 1 || c.BotsPerGame < 1 {
		return fmt.Errorf("serve: --uploads-per-day %d, --bots-per-game %d: want at least 1 each", c.UploadsPerDay, c.BotsPerGame)
	}
	if c.TrustProxy < 0 || c.TrustProxy > 10 {
		return fmt.Errorf("serve: --trust-proxy %d: want 0 to 10", c.TrustProxy)
	}
	db, err := databaseURL(c.DB, c.DBFile)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	// The site (internal/web) serves every page outside the API; it reads
	// the platform through the core the API serves, which the server makes.
	var site *web.Site
	defer func() {
		if site != nil {
			site.Close()
		}
	}()
	newSite := func(pc *core.Core) (http.Handler, error) {
		var err error
		site, err = web.New(web.Options{Games: games.All(), Service: true, Platform: pc, ReplayDir: filepath.Join(c.Data, "browser-games"), Logger: log, TrustedProxies: c.TrustProxy})
		return site, err
	}
	srv, err := server.New(ctx, server.Options{Addr: c.Addr, DataDir: c.Data, DB: db, Workers: c.Workers, MatchNice: c.MatchNice, MatchBatch: c.MatchBatch, Rest: c.Rest, AckWait: c.AckWait, Log: log, Site: newSite, Games: c.Games, TrustedProxies: c.TrustProxy, ChallengesPerMinute: c.Challenges,
		UploadsPerDay: c.UploadsPerDay, BotsPerGame: c.BotsPerGame, Admins: c.Admins,
		NATS: server.NATSOptions{Listen: c.NATSListen, TLSCert: c.NATSTLSCert, TLSKey: c.NATSTLSKey, URL: c.NATS, Creds: c.NATSCreds, Replicas: c.NATSReplicas, NoWorkers: c.NoWorkers, CheckEvery: c.CheckEvery}})
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	return srv.Run(ctx)
}
