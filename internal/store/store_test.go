package store_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/arenabots/arena/internal/store"
	"github.com/arenabots/arena/internal/store/storetest"
)

// each runs a test against SQLite and against Postgres.
func each(t *testing.T, f func(t *testing.T, s *store.Store)) {
	for _, d := range []string{store.SQLite, store.Postgres} {
		t.Run(d, func(t *testing.T) {
			f(t, storetest.Open(t, d))
		})
	}
}

// plus is a stand-in rating rule with a visible effect: winners gain one.
func plus(before []store.Rating, places []int) []store.Rating {
	out := make([]store.Rating, len(before))
	for i, r := range before {
		out[i] = r
		if places[i] == 1 {
			out[i].Mu++
		}
		out[i].Sigma /= 2
	}
	return out
}

func setup(t *testing.T, s *store.Store) (store.Account, store.Bot, store.Bot) {
	ctx := context.Background()
	a, err := s.CreateAccount(ctx, "house", "x")
	if err != nil {
		t.Fatal(err)
	}
	b1, err := s.EnsureHouseBot(ctx, a.ID, "dots-and-boxes", "greedy", "builtin:greedy", 25, 25.0/3)
	if err != nil {
		t.Fatal(err)
	}
	b2, err := s.EnsureHouseBot(ctx, a.ID, "dots-and-boxes", "random", "builtin:random", 25, 25.0/3)
	if err != nil {
		t.Fatal(err)
	}
	return a, b1, b2
}

func TestAccountsAndTokens(t *testing.T) {
	each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		a, err := s.CreateAccount(ctx, "alice", "hash")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.CreateAccount(ctx, "alice", "other"); !errors.Is(err, store.ErrExists) {
			t.Fatalf("second alice: %v, want ErrExists", err)
		}
		got, err := s.AccountByHandle(ctx, "alice")
		if err != nil || got.ID != a.ID || got.PasswordHash != "hash" {
			t.Fatalf("AccountByHandle = %+v, %v", got, err)
		}
		if _, err := s.AccountByHandle(ctx, "bob"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("bob: %v", err)
		}
		if err := s.CreateToken(ctx, a.ID, store.TokenSession, "h1", "csrf", time.Now().Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateToken(ctx, a.ID, store.TokenAPI, "h2", "", time.Now().Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
		acc, csrf, err := s.TokenAccount(ctx, "h1", store.TokenSession)
		if err != nil || acc.Handle != "alice" || csrf != "csrf" {
			t.Fatalf("session = %+v %q %v", acc, csrf, err)
		}
		if _, _, err := s.TokenAccount(ctx, "h1", store.TokenAPI); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("session used as API token: %v", err)
		}
		if _, _, err := s.TokenAccount(ctx, "h2", store.TokenAPI); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("expired token: %v", err)
		}
		if err := s.DeleteToken(ctx, "h1"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.TokenAccount(ctx, "h1", store.TokenSession); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("deleted token: %v", err)
		}
	})
}

func TestVersionsKeepMeanResetSigma(t *testing.T) {
	each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		a, _ := s.CreateAccount(ctx, "alice", "h")
		b, v1, err := s.AddVersion(ctx, a.ID, "dots-and-boxes", "mybot", "sha1", []byte("wasm1"), 25, 8)
		if err != nil {
			t.Fatal(err)
		}
		if v1.Number != 1 || b.ActiveVersion != 0 {
			t.Fatalf("first version %+v, bot %+v", v1, b)
		}
		if err := s.FinishCheck(ctx, v1.ID, true, "", 0, 8); err != nil {
			t.Fatal(err)
		}
		b, _ = s.Bot(ctx, b.ID)
		if b.ActiveVersion != v1.ID {
			t.Fatalf("active %d, want %d", b.ActiveVersion, v1.ID)
		}
		data, err := s.Wasm(ctx, "sha1")
		if err != nil || string(data) != "wasm1" {
			t.Fatalf("wasm = %q %v", data, err)
		}
		// Pretend it played: mean moved, sigma shrank.
		_, b2, _ := setup(t, s)
		id, err := s.CreateMatch(ctx, store.NewMatch{Game: "dots-and-boxes", Seed: 1, Kind: store.KindRated,
			Seats: []store.SeatRef{{b.ID, v1.ID}, {b2.ID, b2.ActiveVersion}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.RecordMatch(ctx, result(id, 1, 2), plus); err != nil {
			t.Fatal(err)
		}
		b, _ = s.Bot(ctx, b.ID)
		if b.Mu != 26 || b.Sigma != 4 || b.Matches != 1 {
			t.Fatalf("after a win: %+v", b)
		}
		_, v2, err := s.AddVersion(ctx, a.ID, "dots-and-boxes", "mybot", "sha2", []byte("wasm2"), 25, 8)
		if err != nil || v2.Number != 2 {
			t.Fatalf("v2 %+v %v", v2, err)
		}
		if err := s.FinishCheck(ctx, v2.ID, true, "", 0, 8); err != nil {
			t.Fatal(err)
		}
		b, _ = s.Bot(ctx, b.ID)
		if b.Mu != 26 || b.Sigma != 8 || b.ActiveVersion != v2.ID || b.Score != 26-24 {
			t.Fatalf("new version: %+v", b)
		}
		_, v3, _ := s.AddVersion(ctx, a.ID, "dots-and-boxes", "mybot", "sha3", []byte("wasm3"), 25, 8)
		if err := s.FinishCheck(ctx, v3.ID, false, "loops forever", 0, 8); err != nil {
			t.Fatal(err)
		}
		b, _ = s.Bot(ctx, b.ID)
		if b.ActiveVersion != v2.ID {
			t.Fatal("a refused version became active")
		}
		vs, _ := s.Versions(ctx, b.ID)
		if len(vs) != 3 || vs[0].State != store.VersionRefused || vs[0].Message != "loops forever" || vs[1].State != store.VersionActive || vs[2].State != store.VersionOld {
			t.Fatalf("versions %+v", vs)
		}
	})
}

func result(id int64, places ...int) store.Result {
	r := store.Result{MatchID: id, Turns: 10, Replay: []byte(fmt.Sprintf(`{"match":%d}`, id))}
	for i, p := range places {
		r.Seats = append(r.Seats, store.SeatResult{Score: int64(10 - p), Place: p, Statuses: map[string]int{"ok": 5}, Fuel: int64(100 * (i + 1)), Stderr: []byte(fmt.Sprintf("log %d", i))})
	}
	return r
}

func TestRecordMatchExactlyOnce(t *testing.T) {
	each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		_, b1, b2 := setup(t, s)
		id, err := s.CreateMatch(ctx, store.NewMatch{Game: "dots-and-boxes", Seed: 7, Kind: store.KindRated,
			Params: map[string]string{"k": "v"}, Seats: []store.SeatRef{{b1.ID, b1.ActiveVersion}, {b2.ID, b2.ActiveVersion}}})
		if err != nil {
			t.Fatal(err)
		}
		busy, _ := s.BusyBots(ctx)
		if !busy[b1.ID] || !busy[b2.ID] {
			t.Fatalf("busy %v", busy)
		}
		if err := s.MarkRunning(ctx, id); err != nil {
			t.Fatal(err)
		}
		// The same result delivered by several workers at once counts once.
		var wg sync.WaitGroup
		var mu sync.Mutex
		recorded := 0
		for range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ok, err := s.RecordMatch(ctx, result(id, 2, 1), plus)
				if err != nil {
					t.Error(err)
				}
				if ok {
					mu.Lock()
					recorded++
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if recorded != 1 {
			t.Fatalf("recorded %d times", recorded)
		}
		b1, _ = s.Bot(ctx, b1.ID)
		b2, _ = s.Bot(ctx, b2.ID)
		if b1.Matches != 1 || b2.Matches != 1 || b2.Mu != 26 || b1.Mu != 25 {
			t.Fatalf("ratings after one match: %+v %+v", b1, b2)
		}
		m, err := s.Match(ctx, id)
		if err != nil || m.State != store.Finished || m.Turns != 10 || m.Seed != 7 || m.Params["k"] != "v" || len(m.Seats) != 2 || m.Seats[1].Place != 1 || m.Seats[0].Statuses["ok"] != 5 {
			t.Fatalf("match %+v %v", m, err)
		}
		rep, err := s.Replay(ctx, id)
		if err != nil || string(rep) != fmt.Sprintf(`{"match":%d}`, id) {
			t.Fatalf("replay %q %v", rep, err)
		}
		lg, err := s.SeatLog(ctx, id, 1)
		if err != nil || string(lg.Stderr) != "log 1" || lg.Fuel != 200 {
			t.Fatalf("seat log %+v %v", lg, err)
		}
		if ok, _ := s.FailMatch(ctx, id, "late"); ok {
			t.Fatal("failed a finished match")
		}
		h, _ := s.RatingHistory(ctx, b2.ID, 0, 10)
		if len(h) != 1 || h[0].MatchID != id || h[0].Mu != 26 {
			t.Fatalf("history %+v", h)
		}
		busy, _ = s.BusyBots(ctx)
		if len(busy) != 0 {
			t.Fatalf("busy after the match: %v", busy)
		}
	})
}

func TestDiscardedWhenVersionChanges(t *testing.T) {
	each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		a, _, b2 := setup(t, s)
		b, v1, _ := s.AddVersion(ctx, a.ID, "dots-and-boxes", "up", "s1", []byte("1"), 25, 8)
		s.FinishCheck(ctx, v1.ID, true, "", 0, 8)
		id, _ := s.CreateMatch(ctx, store.NewMatch{Game: "dots-and-boxes", Kind: store.KindRated,
			Seats: []store.SeatRef{{b.ID, v1.ID}, {b2.ID, b2.ActiveVersion}}})
		_, v2, _ := s.AddVersion(ctx, a.ID, "dots-and-boxes", "up", "s2", []byte("2"), 25, 8)
		s.FinishCheck(ctx, v2.ID, true, "", 0, 8)
		ok, err := s.RecordMatch(ctx, result(id, 1, 2), plus)
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		m, _ := s.Match(ctx, id)
		if m.State != store.Discarded || m.Reason == "" {
			t.Fatalf("match %+v", m)
		}
		b, _ = s.Bot(ctx, b.ID)
		if b.Matches != 0 || b.Mu != 25 {
			t.Fatalf("a discarded match changed the rating: %+v", b)
		}
	})
}

func TestFailAndUnfinished(t *testing.T) {
	each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		_, b1, b2 := setup(t, s)
		seats := []store.SeatRef{{b1.ID, b1.ActiveVersion}, {b2.ID, b2.ActiveVersion}}
		var ids []int64
		for i := range 3 {
			id, err := s.CreateMatch(ctx, store.NewMatch{Game: "dots-and-boxes", Seed: uint64(i), Kind: store.KindChallenge, Seats: seats})
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		s.MarkRunning(ctx, ids[1])
		ok, err := s.FailMatch(ctx, ids[0], "poison: bad job")
		if err != nil || !ok {
			t.Fatal(ok, err)
		}
		if ok, _ := s.RecordMatch(ctx, result(ids[0], 1, 2), plus); ok {
			t.Fatal("recorded a failed match")
		}
		un, _ := s.Unfinished(ctx)
		if len(un) != 2 || un[0].ID != ids[1] || un[0].State != store.Running || un[1].ID != ids[2] {
			t.Fatalf("unfinished %+v", un)
		}
		live, _ := s.Matches(ctx, store.MatchFilter{Live: true})
		if len(live) != 2 || live[0].ID != ids[2] {
			t.Fatalf("live %+v", live)
		}
		done, _ := s.Matches(ctx, store.MatchFilter{BotID: b1.ID})
		if len(done) != 1 || done[0].State != store.Failed || done[0].Reason != "poison: bad job" || len(done[0].Seats) != 2 {
			t.Fatalf("ended %+v", done)
		}
		if none, _ := s.Matches(ctx, store.MatchFilter{Game: "grid-royale"}); len(none) != 0 {
			t.Fatalf("game filter: %+v", none)
		}
	})
}

func TestLeaderboardKeyset(t *testing.T) {
	each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		a, _ := s.CreateAccount(ctx, "house", "x")
		// Scores 0, 1, 1, 2, ... with ties, to exercise the id tie-break.
		for i := range 25 {
			_, err := s.EnsureHouseBot(ctx, a.ID, "g", fmt.Sprintf("b%02d", i), "builtin:x", float64(i/2)+3, 1)
			if err != nil {
				t.Fatal(err)
			}
		}
		other, _ := s.EnsureHouseBot(ctx, a.ID, "other", "z", "builtin:z", 100, 1)
		var all []store.LeaderRow
		var cur *store.Cursor
		for {
			page, err := s.Leaderboard(ctx, "g", cur, 7)
			if err != nil {
				t.Fatal(err)
			}
			all = append(all, page...)
			if len(page) < 7 {
				break
			}
			last := page[len(page)-1]
			cur = &store.Cursor{Score: last.Bot.Score, ID: last.Bot.ID, Rank: last.Rank}
		}
		if len(all) != 25 {
			t.Fatalf("%d rows", len(all))
		}
		for i, r := range all {
			if r.Rank != int64(i+1) || r.Bot.ID == other.ID {
				t.Fatalf("row %d: %+v", i, r)
			}
			if i > 0 {
				p := all[i-1].Bot
				if p.Score < r.Bot.Score || (p.Score == r.Bot.Score && p.ID > r.Bot.ID) {
					t.Fatalf("rows %d and %d out of order", i-1, i)
				}
			}
		}
		s.Retire(ctx, all[0].Bot.ID)
		top, _ := s.Leaderboard(ctx, "g", nil, 1)
		if top[0].Bot.ID != all[1].Bot.ID {
			t.Fatal("a retired bot is still on the leaderboard")
		}
	})
}

func TestReopenKeepsData(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s, err := store.Open(ctx, "", dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateAccount(ctx, "alice", "h"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = store.Open(ctx, "", dir, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.AccountByHandle(ctx, "alice"); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Open(ctx, "mysql://x", dir, store.Options{}); err == nil {
		t.Fatal("opened a mysql URL")
	}
}

// TestRatingsInCreationOrder finishes a bot's later match first: its rating
// waits for the earlier one, so every bot's ratings change in the order its
// matches were created; a failed earlier match stops blocking.
func TestRatingsInCreationOrder(t *testing.T) {
	each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		a, b1, b2 := setup(t, s)
		b3, _ := s.EnsureHouseBot(ctx, a.ID, "dots-and-boxes", "chains", "builtin:chains", 25, 25.0/3)
		seats := func(x, y store.Bot) []store.SeatRef {
			return []store.SeatRef{{x.ID, x.ActiveVersion}, {y.ID, y.ActiveVersion}}
		}
		m1, _ := s.CreateMatch(ctx, store.NewMatch{Game: "dots-and-boxes", Kind: store.KindRated, Seats: seats(b1, b2)})
		m2, _ := s.CreateMatch(ctx, store.NewMatch{Game: "dots-and-boxes", Kind: store.KindRated, Seats: seats(b1, b3)})
		m3, _ := s.CreateMatch(ctx, store.NewMatch{Game: "dots-and-boxes", Kind: store.KindRated, Seats: seats(b2, b3)})
		if ok, err := s.RecordMatch(ctx, result(m2, 1, 2), plus); !ok || err != nil {
			t.Fatal(ok, err)
		}
		if got, _ := s.Bot(ctx, b3.ID); got.Matches != 0 {
			t.Fatal("match 2 applied before match 1, which shares a bot")
		}
		if m, _ := s.Match(ctx, m2); m.Applied || m.State != store.Finished {
			t.Fatalf("match 2: %+v", m)
		}
		s.RecordMatch(ctx, result(m1, 2, 1), plus)
		h, _ := s.RatingHistory(ctx, b1.ID, 0, 10)
		if len(h) != 2 || h[0].MatchID != m2 || h[1].MatchID != m1 {
			t.Fatalf("b1's history, newest first: %+v", h)
		}
		// b1 lost match 1 (mu 25) then won match 2 (mu 26).
		if h[0].Mu != 26 || h[1].Mu != 25 {
			t.Fatalf("applied out of order: %+v", h)
		}
		// A failed earlier match unblocks the later one.
		m4, _ := s.CreateMatch(ctx, store.NewMatch{Game: "dots-and-boxes", Kind: store.KindRated, Seats: seats(b2, b3)})
		s.RecordMatch(ctx, result(m4, 1, 2), plus)
		if m, _ := s.Match(ctx, m4); m.Applied {
			t.Fatal("match 4 applied while match 3 runs")
		}
		s.FailMatch(ctx, m3, "worker lost")
		if err := s.ApplyPending(ctx, plus); err != nil {
			t.Fatal(err)
		}
		if m, _ := s.Match(ctx, m4); !m.Applied {
			t.Fatal("match 4 still waits for a failed match")
		}
	})
}

// TestListGeneration: a write moves the list generation of the games it
// touches and of the lists that span games, never another game's; a write
// no list shows (a token) and a write that changed nothing move none; a
// write that cannot name its games (retiring a bot) moves all.
func TestListGeneration(t *testing.T) {
	each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		a, b1, b2 := setup(t, s)
		type gens struct{ dnb, gr, all, any uint64 }
		read := func() gens {
			return gens{s.ListGeneration("dots-and-boxes"), s.ListGeneration("grid-royale"), s.ListGeneration(""), s.Generation()}
		}
		step := func(what string, write func() error, dnb, gr, all bool) {
			t.Helper()
			before := read()
			if err := write(); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			after := read()
			if after.any == before.any {
				t.Errorf("%s: Generation did not move", what)
			}
			for _, c := range []struct {
				name       string
				was, is    uint64
				shouldMove bool
			}{{"dots-and-boxes", before.dnb, after.dnb, dnb}, {"grid-royale", before.gr, after.gr, gr}, {"all games", before.all, after.all, all}} {
				if moved := c.is != c.was; moved != c.shouldMove {
					t.Errorf("%s: the list generation of %s moved: %v, want %v", what, c.name, moved, c.shouldMove)
				}
				if c.is < c.was {
					t.Errorf("%s: the list generation of %s went back", what, c.name)
				}
			}
		}
		step("a token", func() error {
			return s.CreateToken(ctx, a.ID, store.TokenSession, "h", "c", time.Now().Add(time.Hour))
		}, false, false, false)
		var id int64
		step("a match created", func() (err error) {
			id, err = s.CreateMatch(ctx, store.NewMatch{Game: "dots-and-boxes", Seed: 1, Kind: store.KindRated,
				Seats: []store.SeatRef{{b1.ID, b1.ActiveVersion}, {b2.ID, b2.ActiveVersion}}})
			return err
		}, true, false, true)
		step("marked running", func() error { return s.MarkRunning(ctx, id) }, true, false, true)
		step("marked running again", func() error { return s.MarkRunning(ctx, id) }, false, false, false)
		step("recorded", func() error {
			ok, err := s.RecordMatch(ctx, result(id, 1, 2), plus)
			if !ok && err == nil {
				err = errors.New("not recorded")
			}
			return err
		}, true, false, true)
		step("failed after it ended", func() error {
			if ok, err := s.FailMatch(ctx, id, "late"); ok || err != nil {
				return fmt.Errorf("FailMatch = %v, %v", ok, err)
			}
			return nil
		}, false, false, false)
		step("a bot retired", func() error { return s.Retire(ctx, b2.ID) }, true, true, true)
	})
}

// TestDropRefusedModule: a module goes only when every version with its
// bytes is refused.
func TestDropRefusedModule(t *testing.T) {
	each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		a, _ := s.CreateAccount(ctx, "alice", "h")
		_, v1, err := s.AddVersion(ctx, a.ID, "dots-and-boxes", "one", "shaX", []byte("wasmX"), 25, 8)
		if err != nil {
			t.Fatal(err)
		}
		_, v2, err := s.AddVersion(ctx, a.ID, "dots-and-boxes", "two", "shaX", []byte("wasmX"), 25, 8)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.FinishCheck(ctx, v1.ID, false, "refused", 0, 8); err != nil {
			t.Fatal(err)
		}
		if dropped, err := s.DropRefusedModule(ctx, "shaX"); err != nil || dropped {
			t.Fatalf("one of two versions refused: dropped %v, %v; want kept for the other (checking)", dropped, err)
		}
		if err := s.FinishCheck(ctx, v2.ID, false, "refused", 0, 8); err != nil {
			t.Fatal(err)
		}
		if dropped, err := s.DropRefusedModule(ctx, "shaX"); err != nil || !dropped {
			t.Fatalf("both refused: dropped %v, %v; want dropped", dropped, err)
		}
		if _, err := s.Wasm(ctx, "shaX"); !errors.Is(err, store.ErrNotFound) {
			t.Fatalf("after the drop: %v; want ErrNotFound", err)
		}
		if v, err := s.Version(ctx, v2.ID); err != nil || v.SHA256 != "shaX" || v.State != store.VersionRefused {
			t.Fatalf("the version after the drop: %+v %v; want its hash and state kept", v, err)
		}
	})
}

// TestPruneModules: a replaced version's module goes once the version was
// replaced before the cutoff and no live match seats it, and only when no
// other version may still play the same bytes; the record stays.
func TestPruneModules(t *testing.T) {
	each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		a, _ := s.CreateAccount(ctx, "alice", "h")
		b, _ := s.CreateAccount(ctx, "bob", "h")
		accept := func(acc int64, name, sha string) store.Version {
			t.Helper()
			_, v, err := s.AddVersion(ctx, acc, "dots-and-boxes", name, sha, []byte("wasm"+sha), 25, 8)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.FinishCheck(ctx, v.ID, true, "accepted", 0, 8); err != nil {
				t.Fatal(err)
			}
			return v
		}
		v1 := accept(a.ID, "one", "shaA")
		v2 := accept(a.ID, "one", "shaB")
		v3 := accept(a.ID, "one", "shaC")
		accept(b.ID, "same", "shaA") // bob's active version has v1's bytes
		bot, _ := s.BotByName(ctx, a.ID, "dots-and-boxes", "one")
		live, err := s.CreateMatch(ctx, store.NewMatch{Game: "dots-and-boxes", Seed: 1, Kind: store.KindRated,
			Seats: []store.SeatRef{{BotID: bot.ID, VersionID: v2.ID}, {BotID: bot.ID, VersionID: v3.ID}}})
		if err != nil {
			t.Fatal(err)
		}

		if got, err := s.PruneModules(ctx, time.Now().Add(-time.Hour)); err != nil || len(got) != 0 {
			t.Fatalf("cutoff before every replacement: deleted %v, %v; want none", got, err)
		}
		got, err := s.PruneModules(ctx, time.Now().Add(time.Hour))
		if err != nil || len(got) != 0 {
			t.Fatalf("v1 (bytes shared with bob's active version) and v2 (in a queued match): deleted %v, %v; want none", got, err)
		}
		if v, _ := s.Version(ctx, v1.ID); !v.Pruned || v.State != store.VersionOld || v.SHA256 != "shaA" {
			t.Errorf("v1 after the prune: %+v; want pruned, still replaced, hash kept", v)
		}
		if _, err := s.Wasm(ctx, "shaA"); err != nil {
			t.Errorf("shaA, which bob's active version plays: %v", err)
		}
		if v, _ := s.Version(ctx, v2.ID); v.Pruned {
			t.Errorf("v2 pruned while a queued match seats it")
		}

		if _, err := s.FailMatch(ctx, live, "test"); err != nil {
			t.Fatal(err)
		}
		got, err = s.PruneModules(ctx, time.Now().Add(time.Hour))
		if err != nil || len(got) != 1 || got[0] != "shaB" {
			t.Fatalf("after the match ended: deleted %v, %v; want [shaB]", got, err)
		}
		if _, err := s.Wasm(ctx, "shaB"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("shaB after the prune: %v; want ErrNotFound", err)
		}
		if _, err := s.Wasm(ctx, "shaC"); err != nil {
			t.Errorf("the active version's module: %v", err)
		}
		if hasB, err1 := s.HasWasm(ctx, "shaB"); err1 != nil || hasB {
			t.Errorf("HasWasm(shaB) after its deletion: %v %v; want false", hasB, err1)
		}
		if hasC, err1 := s.HasWasm(ctx, "shaC"); err1 != nil || !hasC {
			t.Errorf("HasWasm(shaC): %v %v; want true", hasC, err1)
		}
		if got, err := s.PruneModules(ctx, time.Now().Add(time.Hour)); err != nil || len(got) != 0 {
			t.Errorf("a second prune: deleted %v, %v; want none", got, err)
		}
		// The same bytes uploaded again come back.
		_, v4, err := s.AddVersion(ctx, a.ID, "dots-and-boxes", "one", "shaB", []byte("wasmshaB"), 25, 8)
		if err != nil {
			t.Fatal(err)
		}
		if data, err := s.Wasm(ctx, "shaB"); err != nil || string(data) != "wasmshaB" {
			t.Errorf("shaB uploaded again: %q %v", data, err)
		}
		// A refused upload of a pruned version's bytes: nothing plays them.
		if err := s.FinishCheck(ctx, v4.ID, false, "refused", 0, 8); err != nil {
			t.Fatal(err)
		}
		if dropped, err := s.DropRefusedModule(ctx, "shaB"); err != nil || !dropped {
			t.Errorf("refused, and pruned elsewhere: dropped %v, %v; want dropped", dropped, err)
		}
	})
}

// TestUploadLimits: versions a day (refused ones and every game's count)
// and bots a game (a new version of an existing bot is always let in), as
// checked before an upload and as AddUpload enforces them, uploads sent at
// once included.
func TestUploadLimits(t *testing.T) {
	each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		a, _ := s.CreateAccount(ctx, "alice", "h")
		b, _ := s.CreateAccount(ctx, "bob", "h")
		start := time.Now()
		for i, name := range []string{"one", "one", "two"} {
			_, v, err := s.AddVersion(ctx, a.ID, "dots-and-boxes", name, fmt.Sprint("sha", i), []byte("w"), 25, 8)
			if err != nil {
				t.Fatal(err)
			}
			if i == 0 {
				if err := s.FinishCheck(ctx, v.ID, false, "refused", 0, 8); err != nil {
					t.Fatal(err)
				}
			}
		}
		s.AddVersion(ctx, a.ID, "grid-royale", "one", "shaG", []byte("w"), 25, 8)
		s.AddVersion(ctx, b.ID, "dots-and-boxes", "one", "shaB", []byte("w"), 25, 8)

		var le *store.LimitError
		err := s.CheckUploadLimits(ctx, a.ID, "dots-and-boxes", "one", store.UploadLimits{PerDay: 4, Now: time.Now()})
		if !errors.As(err, &le) || le.Bots || le.Have != 4 || le.Limit != 4 || le.Next.Before(start.Add(24*time.Hour-time.Second)) || le.Next.After(time.Now().Add(24*time.Hour)) {
			t.Errorf("alice's 5th version in a day with 4 allowed: %v (%+v); want a LimitError, 4 had, next in a day", err, le)
		}
		if err := s.CheckUploadLimits(ctx, a.ID, "dots-and-boxes", "one", store.UploadLimits{PerDay: 4, Now: time.Now().Add(25 * time.Hour)}); err != nil {
			t.Errorf("a day later: %v; want allowed", err)
		}
		err = s.CheckUploadLimits(ctx, a.ID, "dots-and-boxes", "three", store.UploadLimits{BotsPerGame: 2, Now: time.Now()})
		if !errors.As(err, &le) || !le.Bots || le.Have != 2 || le.Game != "dots-and-boxes" || !slices.Equal(le.Names, []string{"one", "two"}) {
			t.Errorf("a third dots-and-boxes bot with 2 allowed: %v (%+v); want a LimitError for bots one and two", err, le)
		}
		// A bot whose only version was refused takes no place.
		c, _ := s.CreateAccount(ctx, "carol", "h")
		_, v, _ := s.AddVersion(ctx, c.ID, "dots-and-boxes", "bad", "shaD", []byte("w"), 25, 8)
		if err := s.CheckUploadLimits(ctx, c.ID, "dots-and-boxes", "good", store.UploadLimits{BotsPerGame: 1, Now: time.Now()}); !errors.As(err, &le) {
			t.Errorf("a second bot while the first is being checked, 1 allowed: %v; want refused", err)
		}
		s.FinishCheck(ctx, v.ID, false, "refused", 0, 8)
		if err := s.CheckUploadLimits(ctx, c.ID, "dots-and-boxes", "good", store.UploadLimits{BotsPerGame: 1, Now: time.Now()}); err != nil {
			t.Errorf("a new bot beside one never accepted, 1 allowed: %v; want allowed", err)
		}
		for _, name := range []string{"one", "two"} {
			if err := s.CheckUploadLimits(ctx, a.ID, "dots-and-boxes", name, store.UploadLimits{BotsPerGame: 2, Now: time.Now()}); err != nil {
				t.Errorf("a new version of %s: %v; want allowed", name, err)
			}
		}
		if err := s.CheckUploadLimits(ctx, a.ID, "grid-royale", "new", store.UploadLimits{BotsPerGame: 2, Now: time.Now()}); err != nil {
			t.Errorf("a second grid-royale bot: %v; want allowed (the bound is per game)", err)
		}

		// Six at once, three a day: bob has one.
		var mu sync.Mutex
		var wg sync.WaitGroup
		added, refused := 0, 0
		for i := range 6 {
			wg.Go(func() {
				_, _, err := s.AddUpload(ctx, b.ID, "dots-and-boxes", "one", fmt.Sprint("shaC", i), []byte("w"), 25, 8, store.UploadLimits{PerDay: 3, Now: time.Now()})
				mu.Lock()
				defer mu.Unlock()
				var le *store.LimitError
				switch {
				case err == nil:
					added++
				case errors.As(err, &le):
					refused++
				default:
					t.Error(err)
				}
			})
		}
		wg.Wait()
		if added != 2 || refused != 4 {
			t.Errorf("6 uploads at once with 1 of 3 used: %d added, %d refused; want 2 and 4", added, refused)
		}
		if vs, _ := s.Versions(ctx, mustBot(t, s, b.ID, "one").ID); len(vs) != 3 {
			t.Errorf("bob's versions: %d; want 3", len(vs))
		}
	})
}

func mustBot(t *testing.T, s *store.Store, account int64, name string) store.Bot {
	t.Helper()
	b, err := s.BotByName(context.Background(), account, "dots-and-boxes", name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFinishCheckTakesAnyMessage: a message quoting bytes a bot sent that
// are not UTF-8 is stored (made valid), not refused by Postgres with the
// version left "checking".
func TestFinishCheckTakesAnyMessage(t *testing.T) {
	each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		a, _ := s.CreateAccount(ctx, "alice", "h")
		_, v, err := s.AddVersion(ctx, a.ID, "dots-and-boxes", "one", "sha", []byte("w"), 25, 8)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.FinishCheck(ctx, v.ID, false, "refused: it read \"\xc3\" and \xff", 0, 8); err != nil {
			t.Fatalf("a message with bytes that are not UTF-8: %v", err)
		}
		if got, _ := s.Version(ctx, v.ID); got.State != store.VersionRefused || got.Message != "refused: it read \"\uFFFD\" and \uFFFD" {
			t.Errorf("the version: %q %q", got.State, got.Message)
		}
	})
}
