package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/arenabots/arena/internal/hashing"
	"github.com/arenabots/arena/internal/server"
	"github.com/arenabots/arena/internal/store"
	"github.com/arenabots/arena/sandbox"
	"github.com/arenabots/arena/sandbox/wasmtest"
)

type req struct {
	method, path string
	token        string // Bearer
	cookie       string // session secret
	csrf         string // X-CSRF-Token
	origin       string
	ctype        string
	body         []byte
}

func (r req) do(t *testing.T, base string) (int, []byte) {
	t.Helper()
	hr, err := http.NewRequest(r.method, base+r.path, bytes.NewReader(r.body))
	if err != nil {
		t.Fatal(err)
	}
	if r.token != "" {
		hr.Header.Set("Authorization", r.token)
	}
	if r.cookie != "" {
		hr.AddCookie(&http.Cookie{Name: "arena_session", Value: r.cookie})
	}
	if r.csrf != "" {
		hr.Header.Set("X-CSRF-Token", r.csrf)
	}
	if r.origin != "" {
		hr.Header.Set("Origin", r.origin)
	}
	if r.ctype != "" {
		hr.Header.Set("Content-Type", r.ctype)
	}
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, data
}

// login starts a session and returns its cookie and CSRF token.
func login(t *testing.T, base, handle string) (cookie, csrf string) {
	t.Helper()
	body := fmt.Sprintf(`{"handle":%q,"password":"correct horse"}`, handle)
	hr, _ := http.NewRequest("POST", base+"/api/v1/sessions", strings.NewReader(body))
	hr.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ CSRF string }
	json.NewDecoder(resp.Body).Decode(&out)
	for _, c := range resp.Cookies() {
		if c.Name == "arena_session" {
			if !c.HttpOnly || !c.Secure || c.SameSite != http.SameSiteLaxMode {
				t.Fatalf("session cookie not HttpOnly, Secure and SameSite: %+v", c)
			}
			cookie = c.Value
		}
	}
	if resp.StatusCode != 200 || cookie == "" || out.CSRF == "" {
		t.Fatalf("log-in: %d", resp.StatusCode)
	}
	return cookie, out.CSRF
}

func multipartUpload(t *testing.T, csrf string, wasm []byte) (string, []byte) {
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	if csrf != "" {
		mw.WriteField("csrf", csrf)
	}
	fw, _ := mw.CreateFormFile("file", "bot.wasm")
	fw.Write(wasm)
	mw.Close()
	return mw.FormDataContentType(), buf.Bytes()
}

// TestAbuse sends malformed, oversized, unauthenticated, cross-account and
// CSRF-less requests to every endpoint and checks each status: always the
// documented 4xx with a JSON message, never a 5xx.
func TestAbuse(t *testing.T) {
	r := start(t, store.SQLite, func(o *server.Options) { o.NoMatchmaker = true })
	base := r.URL
	alice := signup(t, base, "alice")
	bob := signup(t, base, "bob")
	kit := starterKit(t)
	var up struct{ Bot struct{ ID int64 } }
	if st := call(t, "POST", base+"/api/v1/games/dots-and-boxes/bots/kit", bob, bytes.NewReader(kit), "application/wasm", &up); st != 201 {
		t.Fatalf("bob's upload: %d", st)
	}
	bobBot := up.Bot.ID
	var smoke struct {
		Versions []struct {
			SmokeMatch int64 `json:"smoke_match"`
		}
	}
	call(t, "GET", fmt.Sprintf("%s/api/v1/bots/%d", base, bobBot), bob, nil, "", &smoke)
	smokeMatch := smoke.Versions[0].SmokeMatch
	cookie, csrf := login(t, base, "alice")
	A, B := "Bearer "+alice, "Bearer "+bob
	big := bytes.Repeat([]byte("x"), 70<<10)
	huge := append([]byte("\x00asm\x01\x00\x00\x00"), make([]byte, 32<<20)...)
	mpCT, mpBody := multipartUpload(t, "", kit)
	mpCTok, mpBodyOK := multipartUpload(t, csrf, kit)
	ids := fmt.Sprintf
	cases := []struct {
		name string
		req  req
		want int
	}{
		// Sign-up and log-in.
		{"signup malformed", req{method: "POST", path: "/api/v1/accounts", ctype: "application/json", body: []byte(`{"handle":`)}, 400},
		{"signup unknown field", req{method: "POST", path: "/api/v1/accounts", ctype: "application/json", body: []byte(`{"handle":"x1","password":"12345678","admin":true}`)}, 400},
		{"signup wrong type", req{method: "POST", path: "/api/v1/accounts", ctype: "application/json", body: []byte(`{"handle":5,"password":"12345678"}`)}, 400},
		{"signup JSON sent as a form (curl -d)", req{method: "POST", path: "/api/v1/accounts", ctype: "application/x-www-form-urlencoded", body: []byte(`{"handle":"bob5","password":"12345678"}`)}, 415},
		{"signup bad handle", req{method: "POST", path: "/api/v1/accounts", ctype: "application/json", body: []byte(`{"handle":"<script>","password":"12345678"}`)}, 400},
		{"login oversized", req{method: "POST", path: "/api/v1/sessions", ctype: "application/json", body: big}, 413},
		{"login wrong content type", req{method: "POST", path: "/api/v1/sessions", ctype: "text/xml", body: []byte(`<a/>`)}, 415},
		{"login wrong password", req{method: "POST", path: "/api/v1/sessions", ctype: "application/json", body: []byte(`{"handle":"alice","password":"wrong password"}`)}, 401},
		{"login unknown handle", req{method: "POST", path: "/api/v1/sessions", ctype: "application/json", body: []byte(`{"handle":"nobody","password":"wrong password"}`)}, 401},
		{"login short password", req{method: "POST", path: "/api/v1/sessions", ctype: "application/json", body: []byte(`{"handle":"alice","password":"x"}`)}, 400},
		{"login cross-origin form", req{method: "POST", path: "/api/v1/sessions", origin: "https://evil.example", ctype: "application/x-www-form-urlencoded", body: []byte("handle=alice&password=correct+horse")}, 403},
		{"logout unauthenticated", req{method: "DELETE", path: "/api/v1/sessions"}, 401},
		{"logout without CSRF", req{method: "DELETE", path: "/api/v1/sessions", cookie: cookie}, 403},
		{"token bad bearer", req{method: "POST", path: "/api/v1/tokens", token: "Bearer nope"}, 401},
		{"token not bearer", req{method: "POST", path: "/api/v1/tokens", token: "Basic YTpi"}, 401},
		{"token without CSRF", req{method: "POST", path: "/api/v1/tokens", cookie: cookie}, 403},
		{"token with CSRF", req{method: "POST", path: "/api/v1/tokens", cookie: cookie, csrf: csrf}, 201},
		{"token wrong CSRF", req{method: "POST", path: "/api/v1/tokens", cookie: cookie, csrf: "c_0"}, 403},
		{"token by password", req{method: "POST", path: "/api/v1/tokens", ctype: "application/json", body: []byte(`{"handle":"alice","password":"correct horse"}`)}, 201},
		{"me unauthenticated", req{method: "GET", path: "/api/v1/me"}, 401},
		{"me by session", req{method: "GET", path: "/api/v1/me", cookie: cookie}, 200},
		{"me by bad session", req{method: "GET", path: "/api/v1/me", cookie: "s_forged"}, 401},
		// Games, leaderboards, players.
		{"games", req{method: "GET", path: "/api/v1/games"}, 200},
		{"game unknown", req{method: "GET", path: "/api/v1/games/chess"}, 404},
		{"leaderboard unknown game", req{method: "GET", path: "/api/v1/games/chess/leaderboard"}, 404},
		{"leaderboard bad cursor", req{method: "GET", path: "/api/v1/games/grid-royale/leaderboard?after=1.2"}, 400},
		{"leaderboard NaN cursor", req{method: "GET", path: "/api/v1/games/grid-royale/leaderboard?after=7ff8000000000001.1.1"}, 400},
		{"leaderboard bad limit", req{method: "GET", path: "/api/v1/games/grid-royale/leaderboard?limit=100000"}, 400},
		{"leaderboard negative limit", req{method: "GET", path: "/api/v1/games/grid-royale/leaderboard?limit=-1"}, 400},
		{"player unknown", req{method: "GET", path: "/api/v1/players/@nobody"}, 404},
		{"player bad", req{method: "GET", path: "/api/v1/players/%00%ff"}, 404},
		{"player", req{method: "GET", path: "/api/v1/players/@bob"}, 200},
		// Bots.
		{"bot bad id", req{method: "GET", path: "/api/v1/bots/abc"}, 400},
		{"bot zero id", req{method: "GET", path: "/api/v1/bots/0"}, 400},
		{"bot huge id", req{method: "GET", path: "/api/v1/bots/99999999999999999999"}, 400},
		{"bot unknown", req{method: "GET", path: "/api/v1/bots/999999"}, 404},
		{"ratings bad before", req{method: "GET", path: ids("/api/v1/bots/%d/ratings?before=x", bobBot)}, 400},
		{"ratings", req{method: "GET", path: ids("/api/v1/bots/%d/ratings", bobBot)}, 200},
		{"retire unauthenticated", req{method: "POST", path: ids("/api/v1/bots/%d/retire", bobBot)}, 401},
		{"retire cross-account", req{method: "POST", path: ids("/api/v1/bots/%d/retire", bobBot), token: A}, 403},
		{"retire house bot", req{method: "POST", path: "/api/v1/bots/1/retire", token: A}, 403},
		{"retire without CSRF", req{method: "POST", path: ids("/api/v1/bots/%d/retire", bobBot), cookie: cookie}, 403},
		{"retire unknown", req{method: "POST", path: "/api/v1/bots/999999/retire", token: A}, 404},
		// Uploads.
		{"upload unauthenticated", req{method: "POST", path: "/api/v1/games/dots-and-boxes/bots/x", ctype: "application/wasm", body: kit}, 401},
		{"upload bad token", req{method: "POST", path: "/api/v1/games/dots-and-boxes/bots/x", token: "Bearer arena_00", ctype: "application/wasm", body: kit}, 401},
		{"upload unknown game", req{method: "POST", path: "/api/v1/games/chess/bots/x", token: A, ctype: "application/wasm", body: kit}, 404},
		{"upload bad name", req{method: "POST", path: "/api/v1/games/dots-and-boxes/bots/-x", token: A, ctype: "application/wasm", body: kit}, 400},
		{"upload empty", req{method: "POST", path: "/api/v1/games/dots-and-boxes/bots/x", token: A, ctype: "application/wasm"}, 400},
		{"upload not wasm", req{method: "POST", path: "/api/v1/games/dots-and-boxes/bots/x", token: A, ctype: "application/wasm", body: []byte("#!/bin/sh\nrm -rf /\n")}, 422},
		{"upload refused module", req{method: "POST", path: "/api/v1/games/dots-and-boxes/bots/x", token: A, ctype: "application/wasm", body: []byte("\x00asm\x01\x00\x00\x00\x01\xff")}, 422},
		{"upload oversized", req{method: "POST", path: "/api/v1/games/dots-and-boxes/bots/x", token: A, ctype: "application/wasm", body: huge}, 413},
		{"upload wrong content type", req{method: "POST", path: "/api/v1/games/dots-and-boxes/bots/x", token: A, ctype: "text/plain", body: kit}, 415},
		{"upload session without CSRF", req{method: "POST", path: "/api/v1/games/dots-and-boxes/bots/x", cookie: cookie, ctype: mpCT, body: mpBody}, 403},
		{"upload session form with CSRF", req{method: "POST", path: "/api/v1/games/dots-and-boxes/bots/formbot", cookie: cookie, ctype: mpCTok, body: mpBodyOK}, 201},
		{"upload bad multipart", req{method: "POST", path: "/api/v1/games/dots-and-boxes/bots/x", token: A, ctype: "multipart/form-data; boundary=zz", body: []byte("--zz\r\nbroken")}, 400},
		// Matches.
		{"matches bad state", req{method: "GET", path: "/api/v1/matches?state=won"}, 400},
		{"matches bad game", req{method: "GET", path: "/api/v1/matches?game=chess"}, 404},
		{"matches bad bot", req{method: "GET", path: "/api/v1/matches?bot=-4"}, 400},
		{"matches bad before", req{method: "GET", path: "/api/v1/matches?before=1e9"}, 400},
		{"matches", req{method: "GET", path: "/api/v1/matches?state=live"}, 200},
		{"match bad id", req{method: "GET", path: "/api/v1/matches/x"}, 400},
		{"match unknown", req{method: "GET", path: "/api/v1/matches/999999"}, 404},
		{"match", req{method: "GET", path: ids("/api/v1/matches/%d", smokeMatch)}, 200},
		{"replay unknown", req{method: "GET", path: "/api/v1/matches/999999/replay"}, 404},
		{"replay", req{method: "GET", path: ids("/api/v1/matches/%d/replay", smokeMatch)}, 200},
		{"live unknown", req{method: "GET", path: "/api/v1/matches/999999/live"}, 404},
		{"live of an ended match", req{method: "GET", path: ids("/api/v1/matches/%d/live", smokeMatch)}, 200},
		{"log unauthenticated", req{method: "GET", path: ids("/api/v1/matches/%d/seats/0/log", smokeMatch)}, 401},
		{"log cross-account", req{method: "GET", path: ids("/api/v1/matches/%d/seats/0/log", smokeMatch), token: A}, 403},
		{"log house seat", req{method: "GET", path: ids("/api/v1/matches/%d/seats/1/log", smokeMatch), token: B}, 403},
		{"log bad seat", req{method: "GET", path: ids("/api/v1/matches/%d/seats/9/log", smokeMatch), token: B}, 404},
		{"log owner", req{method: "GET", path: ids("/api/v1/matches/%d/seats/0/log", smokeMatch), token: B}, 200},
		// Challenges.
		{"challenge unauthenticated", req{method: "POST", path: "/api/v1/challenges", ctype: "application/json", body: []byte(`{"game":"dots-and-boxes","bots":[1,2]}`)}, 401},
		{"challenge without CSRF", req{method: "POST", path: "/api/v1/challenges", cookie: cookie, ctype: "application/json", body: []byte(`{"game":"dots-and-boxes","bots":[1,2]}`)}, 403},
		{"challenge malformed", req{method: "POST", path: "/api/v1/challenges", token: A, ctype: "application/json", body: []byte(`[1,2]`)}, 400},
		{"challenge oversized", req{method: "POST", path: "/api/v1/challenges", token: A, ctype: "application/json", body: big}, 413},
		{"challenge one bot", req{method: "POST", path: "/api/v1/challenges", token: A, ctype: "application/json", body: []byte(`{"game":"dots-and-boxes","bots":[1]}`)}, 400},
		{"challenge unknown game", req{method: "POST", path: "/api/v1/challenges", token: A, ctype: "application/json", body: []byte(`{"game":"chess","bots":[1,2]}`)}, 404},
		{"challenge wrong game's bots", req{method: "POST", path: "/api/v1/challenges", token: A, ctype: "application/json", body: []byte(`{"game":"dots-and-boxes","bots":[7,8]}`)}, 422},
		{"challenge three in a 2-player game", req{method: "POST", path: "/api/v1/challenges", token: A, ctype: "application/json", body: []byte(`{"game":"dots-and-boxes","bots":[1,2,3]}`)}, 422},
		{"challenge", req{method: "POST", path: "/api/v1/challenges", token: A, ctype: "application/json", body: []byte(`{"game":"dots-and-boxes","bots":[1,2],"seed":5}`)}, 201},
		{"challenge by session with CSRF", req{method: "POST", path: "/api/v1/challenges", cookie: cookie, csrf: csrf, ctype: "application/json", body: []byte(`{"game":"dots-and-boxes","bots":[2,1]}`)}, 201},
		{"challenge cross-origin", req{method: "POST", path: "/api/v1/challenges", cookie: cookie, csrf: csrf, origin: "https://evil.example", ctype: "application/json", body: []byte(`{"game":"dots-and-boxes","bots":[2,1]}`)}, 403},
		// Elsewhere.
		{"unknown endpoint", req{method: "GET", path: "/api/v1/nothing"}, 404},
		{"wrong method", req{method: "PUT", path: "/api/v1/games"}, 405},
		{"wrong method, unknown path", req{method: "PUT", path: "/api/v1/nothing"}, 404},
		{"retire own bot", req{method: "POST", path: ids("/api/v1/bots/%d/retire", bobBot), token: B}, 200},
		{"logout with CSRF", req{method: "DELETE", path: "/api/v1/sessions", cookie: cookie, csrf: csrf}, 200},
		{"session after logout", req{method: "GET", path: "/api/v1/me", cookie: cookie}, 401},
	}
	for _, c := range cases {
		st, body := c.req.do(t, base)
		if st != c.want {
			t.Errorf("%s: %s %s: status %d, want %d: %.200s", c.name, c.req.method, c.req.path, st, c.want, body)
			continue
		}
		if st >= 400 {
			var e struct{ Error string }
			if json.Unmarshal(body, &e) != nil || e.Error == "" || strings.Contains(e.Error, "goroutine") {
				t.Errorf("%s: refusal without a JSON message: %.200s", c.name, body)
			}
		}
	}
	// A known path asked with the wrong method: 405 with the methods that
	// path has in Allow, for paths with and without variables.
	for _, c := range []struct{ method, path, allow string }{
		{"PUT", "/api/v1/games", "GET, HEAD"},
		{"DELETE", "/api/v1/accounts", "POST"},
		{"GET", "/api/v1/sessions", "POST, DELETE"},
		{"PATCH", ids("/api/v1/bots/%d", bobBot), "GET, HEAD"},
		{"GET", ids("/api/v1/bots/%d/retire", bobBot), "POST"},
		{"POST", "/api/v1/games/dots-and-boxes/leaderboard", "GET, HEAD"},
		{"PUT", "/api/v1/games/dots-and-boxes/bots/x", "POST"},
		{"DELETE", ids("/api/v1/matches/%d/seats/0/log", smokeMatch), "GET, HEAD"},
	} {
		hr, _ := http.NewRequest(c.method, base+c.path, nil)
		hr.Header.Set("Authorization", A)
		resp, err := http.DefaultClient.Do(hr)
		if err != nil {
			t.Fatal(err)
		}
		var e struct{ Error string }
		json.NewDecoder(resp.Body).Decode(&e)
		resp.Body.Close()
		if resp.StatusCode != 405 || resp.Header.Get("Allow") != c.allow || e.Error == "" {
			t.Errorf("%s %s: %d, Allow %q, error %q; want 405, Allow %q and a message", c.method, c.path, resp.StatusCode, resp.Header.Get("Allow"), e.Error, c.allow)
		}
	}
	// Rate limits: sign-up attempts from one address, 10 a minute (7 so
	// far: two accounts, five refusals).
	for i := range 4 {
		st, _ := req{method: "POST", path: "/api/v1/accounts", ctype: "application/json", body: []byte(fmt.Sprintf(`{"handle":"user%d","password":"12345678"}`, i))}.do(t, base)
		want := 201
		if i == 3 {
			want = 429
		}
		if st != want {
			t.Fatalf("sign-up attempt %d in a minute: %d, want %d", 8+i, st, want)
		}
	}
}

// TestBusyCompileIsNotARefusal: a compile that the wall-clock backstop
// stops before the module has used its CPU time says the machine is
// overloaded, not that the module is bad: 503, and the same bytes are
// compiled again when offered again.
func TestBusyCompileIsNotARefusal(t *testing.T) {
	r := start(t, store.SQLite, func(o *server.Options) { o.NoMatchmaker = true })
	tok := signup(t, r.URL, "carol")
	mod := wasmtest.Echo{Globals: 27}.Module() // new to this process
	saved := sandbox.CompileWallLimit
	sandbox.CompileWallLimit = time.Nanosecond
	var up struct{ Error string }
	st := call(t, "POST", r.URL+"/api/v1/games/dots-and-boxes/bots/echo", tok, bytes.NewReader(mod), "application/wasm", &up)
	sandbox.CompileWallLimit = saved
	if st != http.StatusServiceUnavailable || !strings.Contains(up.Error, "too busy") {
		t.Fatalf("upload on an overloaded machine: %d %q; want 503 saying so", st, up.Error)
	}
	up.Error = ""
	st = call(t, "POST", r.URL+"/api/v1/games/dots-and-boxes/bots/echo", tok, bytes.NewReader(mod), "application/wasm", &up)
	// An echo bot fails its smoke match, but it gets there.
	if st == http.StatusServiceUnavailable || strings.Contains(up.Error, "the module is refused") || !strings.Contains(up.Error, "smoke match") {
		t.Fatalf("the same upload again: %d %q; want it compiled and tried, not remembered as refused", st, up.Error)
	}
}

// TestLimitsBehindAProxy: behind a reverse proxy (--trust-proxy 1) every
// request comes from the proxy's address, so limits count the address the
// proxy appended to X-Forwarded-For: one visitor's failed log-ins lock out
// that visitor, not the site, and what the visitor writes into the header
// left of the proxy's entry changes nothing.
func TestLimitsBehindAProxy(t *testing.T) {
	r := start(t, store.SQLite, func(o *server.Options) { o.NoMatchmaker = true; o.TrustedProxies = 1 })
	signup(t, r.URL, "victim")
	try := func(xff, password string) int {
		t.Helper()
		body := fmt.Sprintf(`{"handle":"victim","password":%q}`, password)
		req, _ := http.NewRequest("POST", r.URL+"/api/v1/sessions", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Forwarded-For", xff)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	locked := false
	for range 30 {
		if try("198.51.100.66", "wrong") == http.StatusTooManyRequests {
			locked = true
			break
		}
	}
	if !locked {
		t.Fatal("30 failed log-ins from one address behind the proxy: never 429")
	}
	if st := try("203.0.113.5, 198.51.100.66", "wrong"); st != http.StatusTooManyRequests {
		t.Errorf("the same visitor, naming another address left of the proxy's: %d, want 429", st)
	}
	if st := try("198.51.100.77", "correct horse"); st != http.StatusOK && st != http.StatusCreated {
		t.Errorf("another visitor behind the same proxy, right password: %d; want to log in", st)
	}
}

// TestChallengesPerAccount: an account asks for at most 10 challenges a
// minute (429 after); another account is not held by that.
func TestChallengesPerAccount(t *testing.T) {
	r := start(t, store.SQLite, func(o *server.Options) { o.NoMatchmaker = true })
	tok := signup(t, r.URL, "dave")
	body := `{"game":"dots-and-boxes","bots":[1,2]}`
	codes := map[int]int{}
	for range 12 {
		codes[call(t, "POST", r.URL+"/api/v1/challenges", tok, strings.NewReader(body), "application/json", nil)]++
	}
	if codes[http.StatusCreated]+codes[http.StatusServiceUnavailable] != 10 || codes[http.StatusTooManyRequests] != 2 {
		t.Errorf("12 challenges from one account in a minute: %v; want 10 taken (201, or 503 when the challenges' share is full) and 2 refused with 429", codes)
	}
	req, _ := http.NewRequest("POST", r.URL+"/api/v1/challenges", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "60" {
		t.Errorf("the 13th challenge: %v %v; want 429 with Retry-After: 60", resp, err)
	} else {
		resp.Body.Close()
	}
	other := signup(t, r.URL, "erin")
	if st := call(t, "POST", r.URL+"/api/v1/challenges", other, strings.NewReader(body), "application/json", nil); st == http.StatusTooManyRequests {
		t.Errorf("another account's challenge: %d; the limit is per account", st)
	}
}

// TestChallengesDoNotStopRatedMatches: challenges have their own share of
// the queue, so the matchmaker goes on making rated matches while it is
// full (it used to count them, and made none until they had drained).
func TestChallengesDoNotStopRatedMatches(t *testing.T) {
	r := start(t, store.SQLite, func(o *server.Options) { o.Workers = 1; o.Games = []string{"grid-royale"} })
	ctx := context.Background()
	st := r.Srv.Store()
	house, _ := st.AccountByHandle(ctx, "house")
	siege, err1 := st.BotByName(ctx, house.ID, "grid-royale", "siege")
	hb, err2 := st.BotByName(ctx, house.ID, "grid-royale", "house")
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	// Wait for the start's rated matches to end, then fill the queue with
	// challenges (a Grid Royale match takes a worker seconds).
	tok := signup(t, r.URL, "frank")
	body := fmt.Sprintf(`{"game":"grid-royale","bots":[%d,%d]}`, siege.ID, hb.ID)
	var last struct{ Match int64 }
	for range 8 {
		if st := call(t, "POST", r.URL+"/api/v1/challenges", tok, strings.NewReader(body), "application/json", &last); st != http.StatusCreated {
			t.Fatalf("challenge: %d", st)
		}
	}
	// A rated match made after the last challenge, while most wait.
	deadline := time.Now().Add(8 * time.Second)
	for {
		var live struct {
			Matches []struct {
				ID   int64
				Kind string
			}
		}
		call(t, "GET", r.URL+"/api/v1/matches?state=live&game=grid-royale&limit=200", "", nil, "", &live)
		challenges, newRated := 0, 0
		for _, m := range live.Matches {
			switch {
			case m.Kind == store.KindChallenge:
				challenges++
			case m.Kind == store.KindRated && m.ID > last.Match:
				newRated++
			}
		}
		if newRated > 0 && challenges >= 4 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("8 s after 8 challenges: %d challenges live, %d rated matches made since; want rated matches made beside them", challenges, newRated)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestRefusedModulesAreDeleted: a version refused by its smoke match is
// never played again, so its module leaves the store (a red team's padded
// 31 MiB modules, each refused, kept 93 MB apiece on disk); an accepted
// version's module stays.
func TestRefusedModulesAreDeleted(t *testing.T) {
	r := start(t, store.SQLite, func(o *server.Options) { o.NoMatchmaker = true })
	ctx := context.Background()
	st := r.Srv.Store()
	tok := signup(t, r.URL, "gina")
	echo := wasmtest.Echo{Globals: 31}.Module()
	var up struct{ Error string }
	if code := call(t, "POST", r.URL+"/api/v1/games/dots-and-boxes/bots/echo", tok, bytes.NewReader(echo), "application/wasm", &up); code != http.StatusUnprocessableEntity || !strings.Contains(up.Error, "smoke match") {
		t.Fatalf("an echo bot's upload: %d %q; want refused by its smoke match", code, up.Error)
	}
	if _, err := st.Wasm(ctx, hashing.SHA256Hex(echo)); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the refused module is still stored (%v)", err)
	}
	kit := starterKit(t)
	if code := call(t, "POST", r.URL+"/api/v1/games/dots-and-boxes/bots/kit", tok, bytes.NewReader(kit), "application/wasm", nil); code != http.StatusCreated {
		t.Fatalf("the starter kit's upload: %d", code)
	}
	if _, err := st.Wasm(ctx, hashing.SHA256Hex(kit)); err != nil {
		t.Errorf("the accepted module: %v; want it stored", err)
	}
	// The player's page: the refused-only bot for its owner alone.
	names := func(tok string) []string {
		var p struct{ Bots []struct{ Name string } }
		call(t, "GET", r.URL+"/api/v1/players/gina", tok, nil, "", &p)
		var out []string
		for _, b := range p.Bots {
			out = append(out, b.Name)
		}
		return out
	}
	if got := names(""); len(got) != 1 || got[0] != "kit" {
		t.Errorf("gina's bots as others see them: %v; want [kit]", got)
	}
	if got := names(tok); len(got) != 2 {
		t.Errorf("gina's bots as she sees them: %v; want echo and kit", got)
	}
}

// TestUploadsPerAccount: an account uploads at most UploadsPerDay versions
// in 24 hours (refused ones count, and 429 says when the next one can be
// made) and has at most BotsPerGame bots for a game (a new version of one
// of them is still taken); another account is not held by either.
func TestUploadsPerAccount(t *testing.T) {
	r := start(t, store.SQLite, func(o *server.Options) {
		o.NoMatchmaker = true
		o.UploadsPerDay, o.BotsPerGame = 2, 1
	})
	tok := signup(t, r.URL, "hank")
	up := func(tok, name string) (int, string, http.Header) {
		return upload(t, r.URL, tok, name, wasmtest.Echo{}.Module())
	}
	if code, msg, _ := upload(t, r.URL, tok, "one", starterKit(t)); code != http.StatusCreated {
		t.Fatalf("first upload: %d %q; want 201 (the starter kit)", code, msg)
	}
	var again struct {
		Note    string
		Version struct{ Number int64 }
	}
	if code := call(t, "POST", r.URL+"/api/v1/games/dots-and-boxes/bots/one", tok, bytes.NewReader(starterKit(t)), "application/wasm", &again); code != http.StatusOK ||
		again.Version.Number != 1 || !strings.Contains(again.Note, "already version 1") {
		t.Errorf("the same module again: %d %+v; want 200, version 1, a note (and no upload spent)", code, again)
	}
	if code, msg, _ := up(tok, "two"); code != http.StatusForbidden || !strings.Contains(msg, "may have at most 1 dots-and-boxes bot(s), and yours are one;") {
		t.Errorf("a second bot with BotsPerGame 1: %d %q; want 403 naming the limit and the bot", code, msg)
	}
	if code, msg, _ := up(tok, "one"); code != http.StatusUnprocessableEntity {
		t.Errorf("a new version of the bot: %d %q; want taken (and refused by its smoke match)", code, msg)
	}
	code, msg, h := up(tok, "one")
	if code != http.StatusTooManyRequests || !strings.Contains(msg, "2 versions in 24 hours") || !strings.Contains(msg, " UTC") {
		t.Errorf("a third upload in a day with UploadsPerDay 2: %d %q; want 429 saying when", code, msg)
	}
	if s, err := strconv.Atoi(h.Get("Retry-After")); err != nil || s < 86000 || s > 86400 {
		t.Errorf("Retry-After %q; want about a day in seconds", h.Get("Retry-After"))
	}
	other := signup(t, r.URL, "ivy")
	if code, msg, _ := up(other, "one"); code != http.StatusUnprocessableEntity {
		t.Errorf("another account's upload: %d %q; the limits are per account", code, msg)
	}
}

// upload uploads a module as the named Dots and Boxes bot and returns the
// answer's status, error and header.
func upload(t *testing.T, base, tok, name string, module []byte) (int, string, http.Header) {
	req, _ := http.NewRequest("POST", base+"/api/v1/games/dots-and-boxes/bots/"+name, bytes.NewReader(module))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/wasm")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Error(err)
		return 0, "", nil
	}
	defer resp.Body.Close()
	var out struct{ Error string }
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out.Error, resp.Header
}

// TestUploadsSentAtOnce: uploads sent together are held to the limits too
// (they all pass the check made before the module is read; the store
// counts them one after another as it adds them).
func TestUploadsSentAtOnce(t *testing.T) {
	r := start(t, store.SQLite, func(o *server.Options) {
		o.NoMatchmaker = true
		o.UploadsPerDay, o.BotsPerGame = 3, 2
	})
	// Other bytes for each echo: the same bytes as the newest version are
	// no new version (TestUploadsPerAccount).
	echo := func(i int) []byte { return wasmtest.Echo{Globals: i}.Module() }
	kit := starterKit(t)
	same := func(int) []byte { return kit }
	at := func(tok string, module func(i int) []byte, names ...string) map[int]int {
		var mu sync.Mutex
		var wg sync.WaitGroup
		codes := map[int]int{}
		for i, name := range names {
			wg.Go(func() {
				code, _, _ := upload(t, r.URL, tok, name, module(i))
				mu.Lock()
				codes[code]++
				mu.Unlock()
			})
		}
		wg.Wait()
		return codes
	}
	// 9 uploads in all: the address's 10 a minute are not what refuses.
	if codes := at(signup(t, r.URL, "kim"), echo, "a", "a", "a", "a", "a"); codes[http.StatusUnprocessableEntity] != 3 || codes[http.StatusTooManyRequests] != 2 {
		t.Errorf("5 uploads of one bot at once, 3 a day: %v; want 3 taken (422 from the smoke match) and 2 refused (429)", codes)
	}
	if codes := at(signup(t, r.URL, "lee"), same, "a", "b", "c", "d"); codes[http.StatusCreated] != 2 || codes[http.StatusForbidden] != 2 {
		t.Errorf("4 new bots at once, 2 a game: %v; want 2 taken (201) and 2 refused (403)", codes)
	}
}

// TestWrongGameBotIsTold: a Dots and Boxes bot uploaded for Grid Royale
// answers ok (the game ignores fields it does not know) and is accepted,
// but its message says the game read none of its answers' fields.
func TestWrongGameBotIsTold(t *testing.T) {
	r := start(t, store.SQLite, func(o *server.Options) { o.NoMatchmaker = true })
	tok := signup(t, r.URL, "mo")
	var up struct {
		Version struct{ State, Message string }
	}
	code := call(t, "POST", r.URL+"/api/v1/games/grid-royale/bots/dnb", tok, bytes.NewReader(starterKit(t)), "application/wasm", &up)
	if code != http.StatusCreated || !strings.Contains(up.Version.Message, `Note: The game read none of the fields of its answers ("c", "orient", "r")`) {
		t.Errorf("a Dots and Boxes kit for Grid Royale: %d %+v; want accepted with a note naming its fields", code, up.Version)
	}
}

// TestSameModuleAfterRetire: the same module pushed to a retired bot is a
// new version that brings the bot back, not "unchanged".
func TestSameModuleAfterRetire(t *testing.T) {
	r := start(t, store.SQLite, func(o *server.Options) { o.NoMatchmaker = true })
	tok := signup(t, r.URL, "nat")
	kit := starterKit(t)
	var up struct{ Bot struct{ ID int64 } }
	if code := call(t, "POST", r.URL+"/api/v1/games/dots-and-boxes/bots/k", tok, bytes.NewReader(kit), "application/wasm", &up); code != http.StatusCreated {
		t.Fatalf("upload: %d", code)
	}
	if code := call(t, "POST", fmt.Sprintf("%s/api/v1/bots/%d/retire", r.URL, up.Bot.ID), tok, nil, "", nil); code != http.StatusOK && code != http.StatusNoContent {
		t.Fatalf("retire: %d", code)
	}
	var again struct {
		Bot     struct{ Retired bool }
		Version struct{ Number int64 }
	}
	if code := call(t, "POST", r.URL+"/api/v1/games/dots-and-boxes/bots/k", tok, bytes.NewReader(kit), "application/wasm", &again); code != http.StatusCreated || again.Version.Number != 2 || again.Bot.Retired {
		t.Errorf("the same module to the retired bot: %d %+v; want 201, version 2, back on the ladder", code, again)
	}
}

// TestUploadTriesPerAccount: modules the sandbox refuses to compile make no
// version, yet each costs a compile: an account tries at most twice its
// versions a day.
func TestUploadTriesPerAccount(t *testing.T) {
	r := start(t, store.SQLite, func(o *server.Options) {
		o.NoMatchmaker = true
		o.UploadsPerDay = 1
	})
	tok := signup(t, r.URL, "olga")
	broken := []byte("\x00asm\x01\x00\x00\x00\x01\xff") // a type section cut short
	for i := range 2 {
		if code, msg, _ := upload(t, r.URL, tok, "b", broken); code != http.StatusUnprocessableEntity || !strings.Contains(msg, "refused") {
			t.Fatalf("try %d: %d %q; want 422, refused by the sandbox", i+1, code, msg)
		}
	}
	if code, msg, _ := upload(t, r.URL, tok, "b", broken); code != http.StatusTooManyRequests || !strings.Contains(msg, "may try 2 uploads a day") {
		t.Errorf("a third try with 1 version a day: %d %q; want 429", code, msg)
	}
}
