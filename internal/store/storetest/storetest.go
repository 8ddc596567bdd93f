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
	"testing"

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
