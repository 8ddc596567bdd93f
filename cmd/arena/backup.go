package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/arenabots/arena/internal/store"
)

type backupCmd struct {
	Data   string `default:"./arena-data" type:"path" help:"The server's data directory (its --data)."`
	DB     string `name:"db" env:"ARENA_DB" help:"The server's --db, when it has one: a sqlite:PATH database is copied; a Postgres one is pg_dump's to back up."`
	DBFile string `name:"db-file" env:"ARENA_DB_FILE" type:"path" help:"Read the database URL from this file (its first line) instead of --db."`
	Out    string `required:"" type:"path" help:"The backup file to write (a SQLite database; it must not exist yet)."`
}

// Run copies the SQLite database, which holds everything the platform must
// keep, while the server may be running (docs/api.md, "Backups").
func (c *backupCmd) Run() error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	db, err := databaseURL(c.DB, c.DBFile)
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	path := filepath.Join(c.Data, "arena.db")
	switch {
	case strings.HasPrefix(db, "postgres://"), strings.HasPrefix(db, "postgresql://"):
		return fmt.Errorf("backup: the database is Postgres: back it up with pg_dump, e.g. pg_dump --format=custom --file %s 'URL' (docs/api.md, \"Backups\")", c.Out)
	case strings.HasPrefix(db, "sqlite:"):
		path = strings.TrimPrefix(db, "sqlite:")
	case db != "":
		return fmt.Errorf("backup: database URL %s: want postgres://..., sqlite:PATH or nothing", store.RedactURL(db))
	}
	if err := store.BackupSQLite(ctx, path, c.Out); err != nil {
		return err
	}
	fmt.Printf("backed up %s to %s; to restore, copy it to NEWDIR/arena.db and run arena serve --data NEWDIR\n", path, c.Out)
	return nil
}
