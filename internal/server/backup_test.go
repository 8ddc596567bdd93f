package server_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/arenabots/arena/internal/server"
	"github.com/arenabots/arena/internal/store"
)

// ended lists every ended match of a store by id, with its state.
func ended(t *testing.T, s *store.Store) map[int64]string {
	out := map[int64]string{}
	f := store.MatchFilter{Limit: 200}
	for {
		ms, err := s.Matches(context.Background(), f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			out[m.ID] = m.State
		}
		if len(ms) < f.Limit {
			return out
		}
		f.Before = ms[len(ms)-1].ID
	}
}

// TestBackupWhileRunning backs up the database while house-bot matches are
// being recorded back to back, restores the copy into a new data directory,
// starts a server on it, and finds every match that had ended before the
// backup began, with its replay; the matches the copy holds as queued or
// running are run again there and recorded.
func TestBackupWhileRunning(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	r := start(t, store.SQLite, func(o *server.Options) { o.DataDir = dir; o.Rest = 0; o.Games = []string{"dots-and-boxes"} })
	st := r.Srv.Store()
	waitFor := func(what string, limit time.Duration, cond func() bool) {
		t.Helper()
		deadline := time.Now().Add(limit)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not within %v", what, limit)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	waitFor("5 finished rated matches", 3*time.Minute, func() bool { return finishedRated(t, st) >= 5 })
	before := ended(t, st)
	out := filepath.Join(t.TempDir(), "arena-backup.db")
	if err := store.BackupSQLite(ctx, filepath.Join(dir, "arena.db"), out); err != nil {
		t.Fatal(err)
	}
	if err := store.BackupSQLite(ctx, filepath.Join(dir, "arena.db"), out); err == nil {
		t.Fatal("a second backup overwrote the first")
	}
	// The matches went on meanwhile (the backup did not stop the server).
	n := len(before)
	waitFor("a match ended after the backup", 3*time.Minute, func() bool { return len(ended(t, st)) > n })
	r.stop()

	restored := t.TempDir()
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(restored, "arena.db"), data, 0o600); err != nil {
		t.Fatal(err)
	}
	r2 := start(t, store.SQLite, func(o *server.Options) { o.DataDir = restored; o.NoMatchmaker = true })
	st2 := r2.Srv.Store()
	after := ended(t, st2)
	for id, state := range before {
		if after[id] != state {
			t.Errorf("match %d was %s before the backup; the restored copy has %q", id, state, after[id])
			continue
		}
		if state == store.Finished {
			if rep, err := st2.Replay(ctx, id); err != nil || len(rep) == 0 {
				t.Errorf("match %d: no replay in the restored copy: %v", id, err)
			}
		}
		if code := call(t, "GET", fmt.Sprintf("%s/api/v1/matches/%d?replay=0", r2.URL, id), "", nil, "", nil); code != 200 {
			t.Errorf("GET match %d from the restored server: %d", id, code)
		}
	}
	// What the copy holds as queued or running runs again after the restore.
	waitFor("the copy's unfinished matches recorded", 3*time.Minute, func() bool {
		ms, err := st2.Unfinished(ctx)
		return err == nil && len(ms) == 0
	})
	t.Logf("%d ended matches before the backup, %d in the restored server", len(before), len(ended(t, st2)))
}
