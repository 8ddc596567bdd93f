package server_test

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arenabots/arena/internal/server"
	"github.com/arenabots/arena/internal/store"
)

// TestSecretsAreStoredHashed: the database holds no password, API token or
// session secret a visitor was given, only hashes of them (bcrypt for the
// password), so a copy of the database signs no one in.
func TestSecretsAreStoredHashed(t *testing.T) {
	r := start(t, store.SQLite, func(o *server.Options) { o.NoMatchmaker = true })
	tok := signup(t, r.URL, "alice")
	cookie, _ := login(t, r.URL, "alice")
	db, err := sql.Open("sqlite", "file:"+filepath.Join(r.dir, "arena.db")+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var pw string
	if err := db.QueryRow(`SELECT password_hash FROM accounts WHERE handle = 'alice'`).Scan(&pw); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(pw, "$2") || strings.Contains(pw, "correct horse") {
		t.Errorf("alice's password is stored as %q; want a bcrypt hash", pw)
	}
	rows, err := db.Query(`SELECT hash FROM tokens`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			t.Fatal(err)
		}
		n++
		if strings.Contains(h, tok) || strings.Contains(tok, h) || strings.Contains(h, cookie) || strings.Contains(cookie, h) {
			t.Errorf("a token is stored as given: %q", h)
		}
	}
	if n < 3 { // the API token and the sessions of sign-up and log-in
		t.Fatalf("%d tokens stored; want 3", n)
	}
}
