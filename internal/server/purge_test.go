package server_test

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/arenabots/arena/internal/server"
	"github.com/arenabots/arena/internal/store"
)

// TestPurgeExpiredTokens moves the purge's clock (no sleeping) past the
// sessions' lifetime (30 days), then past the API tokens' (365 days), and
// sees each purged in turn: the database rows are gone, so the server
// refuses what the real clock would still accept.
func TestPurgeExpiredTokens(t *testing.T) {
	var offset atomic.Int64
	tick := make(chan time.Time)
	r := start(t, store.SQLite, func(o *server.Options) {
		o.NoMatchmaker = true
		o.Now = func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
		o.PurgeTick = tick
	})
	token := signup(t, r.URL, "alice")
	cookie, _ := login(t, r.URL, "alice")
	me := func(auth func(*http.Request)) int {
		req, _ := http.NewRequest("GET", r.URL+"/api/v1/me", nil)
		auth(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	bySession := func(req *http.Request) { req.AddCookie(&http.Cookie{Name: "arena_session", Value: cookie}) }
	byToken := func(req *http.Request) { req.Header.Set("Authorization", "Bearer "+token) }
	// advance moves the clock, ticks, and waits (a generous deadline, no
	// fixed sleep) until want holds.
	advance := func(by time.Duration, what string, want func() bool) {
		t.Helper()
		offset.Store(int64(by))
		deadline := time.Now().Add(30 * time.Second)
		for !want() {
			if time.Now().After(deadline) {
				t.Fatalf("%s: not so 30 s after the purge's tick", what)
			}
			select {
			case tick <- time.Now():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	if me(bySession) != 200 || me(byToken) != 200 {
		t.Fatal("fresh session or token refused")
	}
	// Two ticks at +29 days: the second is taken only once the purge of
	// the first has run.
	offset.Store(int64(29 * 24 * time.Hour))
	for range 2 {
		select {
		case tick <- time.Now():
		case <-time.After(30 * time.Second):
			t.Fatal("the purge takes no tick")
		}
	}
	if me(bySession) != 200 || me(byToken) != 200 {
		t.Fatal("a purge 29 days on removed a session or a token")
	}
	advance(31*24*time.Hour, "the session purged after 31 days", func() bool { return me(bySession) == 401 })
	if me(byToken) != 200 {
		t.Fatal("the API token was purged with the session")
	}
	advance(366*24*time.Hour, "the API token purged after 366 days", func() bool { return me(byToken) == 401 })
}
