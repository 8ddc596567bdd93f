package server_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/arenabots/arena/internal/hashing"
	"github.com/arenabots/arena/internal/server"
	"github.com/arenabots/arena/internal/store"
)

// startPurgeClock starts a server whose purge runs on the returned ticks, by
// a clock offset from the real one by the returned amount.
func startPurgeClock(t *testing.T) (*running, *atomic.Int64, chan time.Time) {
	offset := new(atomic.Int64)
	tick := make(chan time.Time)
	r := start(t, store.SQLite, func(o *server.Options) {
		o.NoMatchmaker = true
		o.Now = func() time.Time { return time.Now().Add(time.Duration(offset.Load())) }
		o.PurgeTick = tick
	})
	return r, offset, tick
}

// TestPurgeExpiredTokens moves the purge's clock (no sleeping) past the
// sessions' lifetime (30 days), then past the API tokens' (365 days), and
// sees each purged in turn: the database rows are gone, so the server
// refuses what the real clock would still accept.
func TestPurgeExpiredTokens(t *testing.T) {
	r, offset, tick := startPurgeClock(t)
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

// TestReplacedModulesArePruned: a version replaced by a newer one keeps its
// module for a day, then the purge deletes it (the API says so); the active
// version's module stays.
func TestReplacedModulesArePruned(t *testing.T) {
	r, offset, tick := startPurgeClock(t)
	ctx := context.Background()
	st := r.Srv.Store()
	tok := signup(t, r.URL, "jo")
	v1 := starterKit(t)
	// The same bot with a custom section appended: other bytes, the same play.
	v2 := append(slices.Clip(v1), 0, 5, 4, 'n', 'o', 't', 'e')
	var bot struct{ Bot struct{ ID int64 } }
	for _, mod := range [][]byte{v1, v2} {
		if code := call(t, "POST", r.URL+"/api/v1/games/dots-and-boxes/bots/kit", tok, bytes.NewReader(mod), "application/wasm", &bot); code != http.StatusCreated {
			t.Fatalf("upload: %d", code)
		}
	}
	sha1, sha2 := hashing.SHA256Hex(v1), hashing.SHA256Hex(v2)
	tickOnce := func() {
		t.Helper()
		select {
		case tick <- time.Now():
		case <-time.After(30 * time.Second):
			t.Fatal("the purge takes no tick")
		}
	}
	// Twice: the second tick is taken once the first purge has run.
	offset.Store(int64(23 * time.Hour))
	tickOnce()
	tickOnce()
	if _, err := st.Wasm(ctx, sha1); err != nil {
		t.Fatalf("the replaced version's module 23 hours on: %v; want kept for a day", err)
	}
	offset.Store(int64(25 * time.Hour))
	tickOnce()
	tickOnce()
	if _, err := st.Wasm(ctx, sha1); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("the replaced version's module 25 hours on: %v; want deleted", err)
	}
	if _, err := st.Wasm(ctx, sha2); err != nil {
		t.Errorf("the active version's module: %v", err)
	}
	var got struct {
		Versions []struct {
			Number        int64
			State         string
			ModuleDeleted bool `json:"module_deleted"`
		}
	}
	call(t, "GET", fmt.Sprintf("%s/api/v1/bots/%d", r.URL, bot.Bot.ID), tok, nil, "", &got)
	if len(got.Versions) != 2 || !got.Versions[1].ModuleDeleted || got.Versions[1].State != "replaced" || got.Versions[0].ModuleDeleted {
		t.Errorf("the bot's versions: %+v; want version 1 replaced with module_deleted, version 2 not", got.Versions)
	}
}
