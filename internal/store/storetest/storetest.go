// Package storetest gives tests a fresh, real database: a SQLite file in a
// temporary directory, or a new schema in the Postgres named by
// $ARENA_TEST_POSTGRES (scripts/postgres.sh starts one and sets it).
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/arenabots/arena/internal/store"
)

// PostgresURL returns the URL of a new, empty schema for this test, dropped
// when it ends. Without $ARENA_TEST_POSTGRES the test fails, because the
// test command always provides it; a developer without Postgres may set
// ARENA_SKIP_POSTGRES=1 to skip instead.
func PostgresURL(t testing.TB) string {
	t.Helper()
	base := os.Getenv("ARENA_TEST_POSTGRES")
	if base == "" {
		if os.Getenv("ARENA_SKIP_POSTGRES") == "1" {
			t.Skip("ARENA_SKIP_POSTGRES=1: skipping the Postgres half")
		}
		t.Fatal("ARENA_TEST_POSTGRES is not set: run scripts/postgres.sh (or scripts/test.sh), or set ARENA_SKIP_POSTGRES=1")
	}
	var b [6]byte
	rand.Read(b[:])
	schema := "t_" + hex.EncodeToString(b[:])
	db, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`CREATE SCHEMA ` + schema); err != nil {
		db.Close()
		t.Fatalf("Postgres at $ARENA_TEST_POSTGRES: %v", err)
	}
	t.Cleanup(func() {
		db.Exec(`DROP SCHEMA ` + schema + ` CASCADE`)
		db.Close()
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// Open opens a fresh store of the dialect (store.SQLite or store.Postgres),
// closed when the test ends.
func Open(t testing.TB, dialect string) *store.Store {
	t.Helper()
	u := ""
	if dialect == store.Postgres {
		u = PostgresURL(t)
	}
	s, err := store.Open(context.Background(), u, t.TempDir(), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// FillFinished stores n finished challenge matches of game between the
// given seats straight into the database at dsn (a SQLite file path, or a
// postgres:// URL), many to a transaction: a benchmark's 100,000 stored
// matches in seconds rather than the half hour RecordMatch takes for them
// one transaction each. The rows are what RecordMatch leaves.
func FillFinished(tb testing.TB, dsn, game string, seats []store.SeatRef, n int) {
	tb.Helper()
	driver, dialect := "sqlite", store.SQLite
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		driver, dialect = "pgx", store.Postgres
	} else {
		dsn = "file:" + dsn + "?_pragma=busy_timeout(10000)&_txlock=immediate"
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	q := func(s string) string {
		if dialect != store.Postgres {
			return s
		}
		for i := 1; strings.Contains(s, "?"); i++ {
			s = strings.Replace(s, "?", "$"+strconv.Itoa(i), 1)
		}
		return s
	}
	replay := []byte(`{"turns":[]}`)
	const batch = 2000
	for done := 0; done < n; {
		tx, err := db.Begin()
		if err != nil {
			tb.Fatal(err)
		}
		insM, err := tx.Prepare(q(`INSERT INTO matches (game, params, seed, kind, state, turns, replay, created_at, finished_at) VALUES (?, '{}', ?, 'challenge', 'finished', 100, ?, ?, ?) RETURNING id`))
		if err != nil {
			tb.Fatal(err)
		}
		insS, err := tx.Prepare(q(`INSERT INTO match_seats (match_id, seat, bot_id, version_id, score, place, statuses, fuel) VALUES (?, ?, ?, ?, ?, ?, '{"ok":50}', 1000)`))
		if err != nil {
			tb.Fatal(err)
		}
		t := time.Now().UnixMilli()
		for i := 0; i < batch && done < n; i, done = i+1, done+1 {
			var id int64
			if err := insM.QueryRow(game, done, replay, t, t).Scan(&id); err != nil {
				tb.Fatal(err)
			}
			for k, s := range seats {
				if _, err := insS.Exec(id, k, s.BotID, s.VersionID, k, k+1); err != nil {
					tb.Fatal(err)
				}
			}
		}
		insM.Close()
		insS.Close()
		if err := tx.Commit(); err != nil {
			tb.Fatal(err)
		}
	}
}

// FillRated stores n finished, applied rated matches of game straight into
// the SQLite database at path, many to a transaction, each between four of
// the bots in turn (places 1 to 4, every fifth match with the first place
// shared), with a rating history row for every seat: what the store's own
// recording leaves for a leaderboard to read, with the records the
// database's trigger keeps.
func FillRated(tb testing.TB, path, game string, bots []store.SeatRef, n int) {
	tb.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_txlock=immediate")
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	const batch = 2000
	t := time.Now().UnixMilli()
	for done := 0; done < n; {
		tx, err := db.Begin()
		if err != nil {
			tb.Fatal(err)
		}
		insM, err := tx.Prepare(`INSERT INTO matches (game, params, seed, kind, state, turns, replay, created_at, finished_at, applied) VALUES (?, '{}', ?, 'rated', 'finished', 100, '{"turns":[]}', ?, ?, 1) RETURNING id`)
		if err != nil {
			tb.Fatal(err)
		}
		insS, err := tx.Prepare(`INSERT INTO match_seats (match_id, seat, bot_id, version_id, score, place, statuses, fuel) VALUES (?, ?, ?, ?, ?, ?, '{"ok":50}', 1000)`)
		if err != nil {
			tb.Fatal(err)
		}
		insH, err := tx.Prepare(`INSERT INTO rating_history (bot_id, match_id, mu, sigma, score, at) VALUES (?, ?, ?, ?, ?, ?)`)
		if err != nil {
			tb.Fatal(err)
		}
		for i := 0; i < batch && done < n; i, done = i+1, done+1 {
			var id int64
			if err := insM.QueryRow(game, done, t, t).Scan(&id); err != nil {
				tb.Fatal(err)
			}
			for k := range 4 {
				bot := bots[(done*4+k)%len(bots)]
				place := k + 1
				if done%5 == 0 && k == 1 {
					place = 1
				}
				if _, err := insS.Exec(id, k, bot.BotID, bot.VersionID, 4-k, place); err != nil {
					tb.Fatal(err)
				}
				if _, err := insH.Exec(bot.BotID, id, 25.0, 5.0, 10.0, t); err != nil {
					tb.Fatal(err)
				}
			}
		}
		insM.Close()
		insS.Close()
		insH.Close()
		if err := tx.Commit(); err != nil {
			tb.Fatal(err)
		}
	}
}

// Analyze has Postgres gather the statistics its planner uses, as its
// autovacuum would after a while; on SQLite it does nothing, since the
// store never runs ANALYZE there and its plans must not need it.
func Analyze(tb testing.TB, dsn string) {
	tb.Helper()
	if !strings.HasPrefix(dsn, "postgres://") && !strings.HasPrefix(dsn, "postgresql://") {
		return
	}
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`ANALYZE`); err != nil {
		tb.Fatal(err)
	}
}
