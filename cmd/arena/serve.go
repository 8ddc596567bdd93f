package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/arenabots/arena/internal/server"
	"github.com/arenabots/arena/internal/web"
)

type serveCmd struct {
	Addr    string        `default:"127.0.0.1:8080" help:"Address to listen on (HOST:PORT)."`
	Data    string        `default:"./arena-data" type:"path" help:"Directory for the database, the job queue and the module cache."`
	DB      string        `name:"db" help:"Database URL: postgres://... for Postgres; empty for SQLite under --data."`
	Workers int           `default:"0" help:"Matches run at once in this process (0: one per core)."`
	AckWait time.Duration `default:"30s" hidden:"" help:"How long a job may go without a worker's heartbeat before it is handed out again."`
	Rest    time.Duration `default:"10s" help:"Least time between two rated matches of a bot (new versions get a burst regardless); 0 runs matches back to back."`
}

func (c *serveCmd) Run() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	// The site (internal/web) serves every page outside the API; it shows
	// what the API answers, so it is handed the server's handler.
	site, err := web.New(web.Options{Service: true, ReplayDir: filepath.Join(c.Data, "browser-games"), Logger: log})
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	defer site.Close()
	srv, err := server.New(ctx, server.Options{Addr: c.Addr, DataDir: c.Data, DB: c.DB, Workers: c.Workers, Rest: c.Rest, AckWait: c.AckWait, Log: log, Site: site})
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	site.SetAPI(srv.Handler())
	return srv.Run(ctx)
}
