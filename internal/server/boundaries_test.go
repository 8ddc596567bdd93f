package server_test

// The boundaries with site visitors and uploaders (docs/security.md).

import (
	"bufio"
	"bytes"
	"database/sql"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/arenabots/arena/internal/server"
	"github.com/arenabots/arena/internal/store"
	"github.com/arenabots/arena/sandbox/wasmtest"
)

// rawPost sends a POST whose header declares length bytes of body but
// sends only the first KiB, and returns the status the server answers
// with: a server that waited for the body would not answer within the
// deadline.
func rawPost(t *testing.T, base, path, token, ctype string, length int64) int {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n",
		path, strings.TrimPrefix(base, "http://"), token, ctype, length)
	conn.Write(bytes.Repeat([]byte("x"), 1<<10))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("POST %s with a %d-byte body declared: no answer without the body: %v", path, length, err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// TestStrictBodies: an endpoint that takes no body refuses one, and changes
// nothing; a JSON body is held to 64 KiB, refused by its length before it
// is read, and to its known fields; the same on every route.
func TestStrictBodies(t *testing.T) {
	r := start(t, store.SQLite, func(o *server.Options) { o.NoMatchmaker = true })
	base := r.URL
	tok := signup(t, base, "alice")
	var up struct{ Bot struct{ ID int64 } }
	if st := call(t, "POST", base+"/api/v1/games/dots-and-boxes/bots/kit", tok, bytes.NewReader(starterKit(t)), "application/wasm", &up); st != 201 {
		t.Fatalf("upload: %d", st)
	}
	retire := fmt.Sprintf("/api/v1/bots/%d/retire", up.Bot.ID)
	A := "Bearer " + tok
	junk := bytes.Repeat([]byte("junk"), 25<<10) // 100 KiB
	// A reader of unknown length: the client sends it chunked.
	chunked := func(b []byte) io.Reader { return io.MultiReader(bytes.NewReader(b)) }
	for _, tc := range []struct {
		name string
		req  req
		want int
	}{
		{"token with a bearer and a body", req{method: "POST", path: "/api/v1/tokens", token: A, ctype: "application/json", body: []byte(`{"handle":"alice","password":"correct horse"}`)}, 400},
		{"retire with junk", req{method: "POST", path: retire, token: A, body: junk}, 400},
		{"retire with an empty object", req{method: "POST", path: retire, token: A, ctype: "application/json", body: []byte(`{}`)}, 400},
		{"logout with a body", req{method: "DELETE", path: "/api/v1/sessions", token: A, body: []byte("x")}, 400},
		{"a list with a body", req{method: "GET", path: "/api/v1/games", body: []byte("x")}, 400},
		{"challenge with an unknown field", req{method: "POST", path: "/api/v1/challenges", token: A, ctype: "application/json", body: []byte(`{"game":"dots-and-boxes","bots":[1,2],"rated":true}`)}, 400},
		{"challenge over 64 KiB", req{method: "POST", path: "/api/v1/challenges", token: A, ctype: "application/json", body: junk}, 413},
		{"log-in form with an unknown field", req{method: "POST", path: "/api/v1/sessions", ctype: "application/x-www-form-urlencoded", body: []byte("handle=alice&password=correct+horse&admin=1")}, 400},
		{"token by password with an unknown field", req{method: "POST", path: "/api/v1/tokens", ctype: "application/json", body: []byte(`{"handle":"alice","password":"correct horse","scope":"all"}`)}, 400},
	} {
		if code, body := tc.req.do(t, base); code != tc.want || !bytes.Contains(body, []byte(`"error"`)) {
			t.Errorf("%s: %d %s; want %d with an error", tc.name, code, body, tc.want)
		}
	}
	// Sent chunked, with no length to refuse it by.
	if code := call(t, "POST", base+retire, tok, chunked(junk), "", nil); code != 400 {
		t.Errorf("retire with a chunked body: %d; want 400", code)
	}
	var bot struct{ Retired bool }
	call(t, "GET", fmt.Sprintf("%s/api/v1/bots/%d", base, up.Bot.ID), "", nil, "", &bot)
	if bot.Retired {
		t.Fatal("a retire request with a body retired the bot")
	}
	// 40 MiB declared: refused from the header, before the body arrives.
	for _, tc := range []struct {
		path, ctype string
		want        int
	}{
		{"/api/v1/tokens", "application/json", 400},
		{retire, "application/octet-stream", 400},
		{"/api/v1/challenges", "application/json", 413},
		{"/api/v1/sessions", "application/json", 413},
		{"/api/v1/sessions", "application/x-www-form-urlencoded", 413},
	} {
		if code := rawPost(t, base, tc.path, tok, tc.ctype, 40<<20); code != tc.want {
			t.Errorf("POST %s (%s) declaring 40 MiB: %d; want %d", tc.path, tc.ctype, code, tc.want)
		}
	}
	call(t, "GET", fmt.Sprintf("%s/api/v1/bots/%d", base, up.Bot.ID), "", nil, "", &bot)
	if bot.Retired {
		t.Fatal("a retire request with a body retired the bot")
	}
	// Without a body, each works.
	if code := call(t, "POST", base+retire, tok, nil, "", nil); code != 200 {
		t.Errorf("retire: %d", code)
	}
	if code := call(t, "POST", base+"/api/v1/tokens", tok, nil, "", nil); code != 201 {
		t.Errorf("token: %d", code)
	}
}

// TestCrashedUploadIsToldItCrashed: a module that traps on every turn is
// retired after its restarts, and its refusal says it crashed, not that it
// ran out of fuel.
func TestCrashedUploadIsToldItCrashed(t *testing.T) {
	r := start(t, store.SQLite, func(o *server.Options) { o.NoMatchmaker = true })
	tok := signup(t, r.URL, "alice")
	crasher := wasmtest.Echo{FaultOnRead: 1, Fault: "unreachable"}.Module()
	var up struct {
		Error   string
		Version struct{ State string }
	}
	st := call(t, "POST", r.URL+"/api/v1/games/dots-and-boxes/bots/crasher", tok, bytes.NewReader(crasher), "application/wasm", &up)
	if st != 422 || up.Version.State != "refused" || !strings.Contains(up.Error, "retired") {
		t.Fatalf("a crashing bot: %d %+v; want refused, with crashes and then retired turns", st, up)
	}
	if !strings.Contains(up.Error, "It crashed (trap") || strings.Contains(up.Error, "ran out of fuel") {
		t.Fatalf("a crashing bot's refusal: %q; want the crash hint and no fuel hint", up.Error)
	}
}

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
