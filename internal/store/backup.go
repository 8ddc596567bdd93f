package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// BackupSQLite writes a consistent snapshot of the SQLite database at path
// to the new file out, while a server may be using the database: VACUUM
// INTO reads it in one read transaction, which in WAL mode neither waits
// for the server's writes nor holds them up, and writes a compact copy.
// The copy is checked (PRAGMA quick_check) and only then renamed to out, so
// out is either absent or a whole, sound database. It refuses to overwrite.
//
// The database is all of the platform's state: accounts, tokens, bots and
// their modules, matches with replays and logs, ratings. What else lives in
// the data directory is rebuilt at start (docs/api.md, "Backups").
func BackupSQLite(ctx context.Context, path, out string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("backup: no database at %s: %w", path, err)
	}
	if _, err := os.Lstat(out); err == nil {
		return fmt.Errorf("backup: %s exists; name a new file", out)
	} else if !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("backup: %w", err)
	}
	// VACUUM INTO wants a new or empty file: an empty temporary file beside
	// out, so that the rename below stays on one file system.
	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".partial-*")
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	tmp.Close()
	done := false
	defer func() {
		if !done {
			os.Remove(tmp.Name())
		}
	}()
	src, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	defer src.Close()
	if _, err := src.ExecContext(ctx, `VACUUM INTO ?`, tmp.Name()); err != nil {
		return fmt.Errorf("backup: copy %s: %w", path, err)
	}
	if err := checkSQLite(ctx, tmp.Name()); err != nil {
		return err
	}
	f, err := os.Open(tmp.Name())
	if err == nil {
		err = f.Sync()
		f.Close()
	}
	if err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	done = true
	return nil
}

// checkSQLite runs SQLite's quick check on the file at path.
func checkSQLite(ctx context.Context, path string) error {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return fmt.Errorf("backup: check: %w", err)
	}
	defer db.Close()
	var res string
	if err := db.QueryRowContext(ctx, `PRAGMA quick_check`).Scan(&res); err != nil {
		return fmt.Errorf("backup: check: %w", err)
	}
	if res != "ok" {
		return fmt.Errorf("backup: the copy fails SQLite's check: %s", res)
	}
	return nil
}
