package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/housebots"
	"github.com/arenabots/arena/internal/server"
	"github.com/arenabots/arena/internal/store"
	"github.com/arenabots/arena/internal/store/storetest"
	"github.com/arenabots/arena/rating"
)

// TestHouseLadder: @house's rated entries are the wasm modules of
// internal/housebots on a fresh data directory; a restart adds nothing; a
// data directory seeded with native house bots (as before) gets each
// entry's module as a new active version that keeps the rating's mean and
// resets its uncertainty, and its other native bots leave the ladder.
func TestHouseLadder(t *testing.T) {
	entries, err := housebots.Ladder()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, d := range []string{store.SQLite, store.Postgres} {
		t.Run(d, func(t *testing.T) {
			t.Run("fresh", func(t *testing.T) {
				dir, url := t.TempDir(), ""
				if d == store.Postgres {
					url = storetest.PostgresURL(t)
				}
				opts := func(o *server.Options) { o.DataDir, o.DB, o.NoMatchmaker = dir, url, true }
				r := start(t, d, opts)
				first := houseState(t, r.Srv.Store(), entries, rating.Default().Mu)
				if d == store.SQLite {
					housePlaysWasm(t, r)
				}
				r.stop()
				r = start(t, d, opts)
				again := houseState(t, r.Srv.Store(), entries, rating.Default().Mu)
				for k, v := range first {
					if again[k] != v {
						t.Errorf("%s: after a restart the active version is %+v, was %+v", k, again[k], v)
					}
				}
				r.stop()
			})
			t.Run("upgrade", func(t *testing.T) {
				dir, url := t.TempDir(), ""
				if d == store.Postgres {
					url = storetest.PostgresURL(t)
				}
				// The seeding before wasm entries: every house bot native.
				st, err := store.Open(ctx, url, dir, store.Options{})
				if err != nil {
					t.Fatal(err)
				}
				a, err := st.CreateAccount(ctx, "house", "!")
				if err != nil {
					t.Fatal(err)
				}
				const mu, sigma = 31.5, 2.0
				native := 0
				for _, g := range games.All() {
					for _, hb := range g.HouseBots() {
						if _, err := st.EnsureHouseBot(ctx, a.ID, g.Info().ID, hb.Name, "builtin:"+hb.Name, mu, sigma); err != nil {
							t.Fatal(err)
						}
						native++
					}
				}
				st.Close()
				opts := func(o *server.Options) { o.DataDir, o.DB, o.NoMatchmaker = dir, url, true }
				r := start(t, d, opts)
				first := houseState(t, r.Srv.Store(), entries, mu)
				for _, v := range first {
					if v.Number != 2 {
						t.Errorf("the wasm version is number %d, want 2 (after the native one)", v.Number)
					}
				}
				bots, err := r.Srv.Store().BotsOf(ctx, a.ID)
				if err != nil {
					t.Fatal(err)
				}
				if len(bots) != native {
					t.Errorf("@house has %d bots, want the %d it had", len(bots), native)
				}
				r.stop()
				r = start(t, d, opts)
				again := houseState(t, r.Srv.Store(), entries, mu)
				for k, v := range first {
					if again[k] != v {
						t.Errorf("%s: after a restart the active version is %+v, was %+v", k, again[k], v)
					}
				}
				r.stop()
			})
		})
	}
}

// houseState checks @house's bots against the ladder entries and returns
// each entry's active version. Every entry is active, with its module, one
// wasm version, the builtin spec, mean mu and the default uncertainty; every
// other house bot is retired.
func houseState(t *testing.T, st *store.Store, entries []housebots.Bot, mu float64) map[string]store.Version {
	t.Helper()
	ctx := context.Background()
	a, err := st.AccountByHandle(ctx, "house")
	if err != nil {
		t.Fatal(err)
	}
	bots, err := st.BotsOf(ctx, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]housebots.Bot{}
	for _, e := range entries {
		want[e.Game+"/"+e.Name] = e
	}
	out := map[string]store.Version{}
	for _, b := range bots {
		k := b.Game + "/" + b.Name
		e, ok := want[k]
		if !ok {
			if !b.Retired {
				t.Errorf("%s: a native house bot is still on the ladder", k)
			}
			continue
		}
		if b.Retired || b.Spec != "builtin:"+b.Name || b.Mu != mu || b.Sigma != rating.Default().Sigma {
			t.Errorf("%s: retired %v, spec %q, rating %v/%v; want on the ladder, builtin:%s, %v/%v", k, b.Retired, b.Spec, b.Mu, b.Sigma, b.Name, mu, rating.Default().Sigma)
		}
		vs, err := st.Versions(ctx, b.ID)
		if err != nil {
			t.Fatal(err)
		}
		wasm := 0
		for _, v := range vs {
			if v.SHA256 != "" {
				wasm++
			}
			if v.ID == b.ActiveVersion {
				out[k] = v
			}
		}
		if v := out[k]; v.SHA256 != e.SHA256 || v.State != store.VersionActive || wasm != 1 {
			t.Errorf("%s: active version %+v with %d wasm versions; want the entry's module %s, once", k, v, wasm, e.SHA256)
		}
		if m, err := st.Wasm(ctx, e.SHA256); err != nil || len(m) != len(e.Wasm) {
			t.Errorf("%s: the module is not stored: %d bytes, %v", k, len(m), err)
		}
		delete(want, k)
	}
	for k := range want {
		t.Errorf("%s: no such @house bot", k)
	}
	return out
}

// ladderSize is the number of @house's ladder entries for game.
func ladderSize(t *testing.T, game string) int {
	entries, err := housebots.Ladder()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range entries {
		if e.Game == game {
			n++
		}
	}
	return n
}

// housePlaysWasm challenges two @house ladder entries and checks that the
// match ran their wasm modules, not the native bots.
func housePlaysWasm(t *testing.T, r *running) {
	t.Helper()
	bots := map[string]int64{}
	for _, row := range leaderboard(t, r.URL, "dots-and-boxes") {
		if row.Player == "@house" {
			bots[row.Bot] = row.BotID
		}
	}
	tok := signup(t, r.URL, "hana")
	var ch struct{ Match int64 }
	body := fmt.Sprintf(`{"game":"dots-and-boxes","bots":[%d,%d],"seed":5}`, bots["greedy"], bots["random"])
	if st := call(t, "POST", r.URL+"/api/v1/challenges", tok, strings.NewReader(body), "application/json", &ch); st != 201 {
		t.Fatalf("challenge: %d", st)
	}
	resp, err := http.Get(fmt.Sprintf("%s/api/v1/matches/%d/live", r.URL, ch.Match))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body) // the stream ends with the match
	resp.Body.Close()
	var rep struct {
		Bots []struct{ Spec, SHA256 string }
	}
	if st := call(t, "GET", fmt.Sprintf("%s/api/v1/matches/%d/replay", r.URL, ch.Match), tok, nil, "", &rep); st != 200 {
		t.Fatalf("replay: %d", st)
	}
	want := map[string]bool{}
	ladder, _ := housebots.Ladder()
	for _, e := range ladder {
		if e.Game == "dots-and-boxes" && (e.Name == "greedy" || e.Name == "random") {
			want["wasm:"+e.SHA256] = true
		}
	}
	for _, b := range rep.Bots {
		if !want[b.Spec] {
			js, _ := json.Marshal(rep.Bots)
			t.Fatalf("the challenge between house entries played %s, want their wasm modules", js)
		}
	}
}
