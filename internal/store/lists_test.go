package store_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/arenabots/arena/internal/store"
	"github.com/arenabots/arena/internal/store/storetest"
)

// TestMatchListFilters checks every combination of the match list's
// filters against the same selection made in Go over all matches, page by
// page: games, bots, live and ended, keyset pages.
func TestMatchListFilters(t *testing.T) {
	each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		a, b1, b2 := setup(t, s)
		b3, err := s.EnsureHouseBot(ctx, a.ID, "grid-royale", "idle", "builtin:idle", 25, 25.0/3)
		if err != nil {
			t.Fatal(err)
		}
		type made struct {
			id    int64
			game  string
			bots  []int64
			ended bool
		}
		var all []made
		// A fixed pattern of games, seats and outcomes (no randomness).
		for i := range 60 {
			game, seats := "dots-and-boxes", []store.SeatRef{{BotID: b1.ID}, {BotID: b2.ID}}
			if i%3 == 0 {
				game, seats = "grid-royale", []store.SeatRef{{BotID: b3.ID}, {BotID: b3.ID}}
			}
			if i%5 == 1 {
				seats[0], seats[1] = seats[1], seats[0]
			}
			id, err := s.CreateMatch(ctx, store.NewMatch{Game: game, Kind: store.KindChallenge, Seats: seats})
			if err != nil {
				t.Fatal(err)
			}
			m := made{id: id, game: game, bots: []int64{seats[0].BotID, seats[1].BotID}}
			switch i % 4 {
			case 0, 1:
				res := store.Result{MatchID: id, Seats: []store.SeatResult{{Place: 1}, {Place: 2}}}
				if _, err := s.RecordMatch(ctx, res, plus); err != nil {
					t.Fatal(err)
				}
				m.ended = true
			case 2:
				if _, err := s.FailMatch(ctx, id, "test"); err != nil {
					t.Fatal(err)
				}
				m.ended = true
			case 3:
				if i%8 == 3 {
					s.MarkRunning(ctx, id)
				}
			}
			all = append(all, m)
		}
		for _, game := range []string{"", "dots-and-boxes", "grid-royale"} {
			for _, bot := range []int64{0, b1.ID, b3.ID} {
				for _, live := range []bool{false, true} {
					var want []int64
					for _, m := range slices.Backward(all) {
						if m.ended != live && (game == "" || m.game == game) && (bot == 0 || slices.Contains(m.bots, bot)) {
							want = append(want, m.id)
						}
					}
					var got []int64
					f := store.MatchFilter{Game: game, BotID: bot, Live: live, Limit: 4}
					for {
						ms, err := s.Matches(ctx, f)
						if err != nil {
							t.Fatal(err)
						}
						for _, m := range ms {
							got = append(got, m.ID)
							if len(m.Seats) != 2 {
								t.Fatalf("match %d has %d seats", m.ID, len(m.Seats))
							}
						}
						if len(ms) < f.Limit {
							break
						}
						f.Before = ms[len(ms)-1].ID
					}
					if !slices.Equal(got, want) {
						t.Errorf("game %q bot %d live %v: got %v, want %v", game, bot, live, got, want)
					}
				}
			}
		}
	})
}

// TestMatchListPlans pins SQLite's plans for the match lists: every ended
// list walks an index in id order and stops after its page (no full scan,
// no sort of all matches); live lists start from the state index. The
// plans do not depend on the row count (SQLite plans without statistics
// unless ANALYZE ran, which the store never runs), but the store is filled
// anyway so a regression shows as a plan over real rows. Postgres plans by
// its statistics; its plans are logged.
func TestMatchListPlans(t *testing.T) {
	for _, d := range []string{store.SQLite, store.Postgres} {
		t.Run(d, func(t *testing.T) {
			ctx := context.Background()
			dir := t.TempDir()
			url, dsn := "", filepath.Join(dir, "arena.db")
			if d == store.Postgres {
				url = storetest.PostgresURL(t)
				dsn = url
			}
			s, err := store.Open(ctx, url, dir, store.Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			_, b1, b2 := setup(t, s)
			storetest.FillFinished(t, dsn, "dots-and-boxes", []store.SeatRef{{BotID: b1.ID, VersionID: b1.ActiveVersion}, {BotID: b2.ID, VersionID: b2.ActiveVersion}}, 3000)
			storetest.Analyze(t, dsn)
			for _, c := range []struct {
				f    store.MatchFilter
				want string // the index the plan must use (SQLite)
			}{
				{store.MatchFilter{}, "SCAN m"}, // the table in rowid order, newest first
				{store.MatchFilter{Before: 100}, "INTEGER PRIMARY KEY"},
				{store.MatchFilter{Game: "dots-and-boxes"}, "matches_game "},
				{store.MatchFilter{Game: "dots-and-boxes", Before: 100}, "matches_game "},
				{store.MatchFilter{BotID: b1.ID}, "match_seats_bot"},
				{store.MatchFilter{BotID: b1.ID, Game: "dots-and-boxes", Before: 100}, "match_seats_bot"},
				{store.MatchFilter{Live: true}, "matches_state"},
				{store.MatchFilter{Live: true, Game: "dots-and-boxes"}, "matches_state"},
				{store.MatchFilter{Live: true, BotID: b1.ID}, "matches_state"},
			} {
				plan, err := s.ExplainMatches(ctx, c.f)
				if err != nil {
					t.Fatal(err)
				}
				text := strings.Join(plan, "\n")
				t.Logf("%+v:\n%s", c.f, text)
				if d != store.SQLite {
					// With statistics, Postgres walks the same indexes
					// backwards and stops at the page's end.
					if !c.f.Live && strings.Contains(text, "Sort") {
						t.Errorf("%+v: an ended list must not sort every match:\n%s", c.f, text)
					}
					continue
				}
				if !strings.Contains(text, c.want) {
					t.Errorf("%+v: the plan does not use %s:\n%s", c.f, c.want, text)
				}
				if !c.f.Live && (strings.Contains(text, "TEMP B-TREE") || (c.f != store.MatchFilter{} && strings.Contains(text, "SCAN "))) {
					t.Errorf("%+v: an ended list must not scan or sort every match:\n%s", c.f, text)
				}
			}
		})
	}
}

// TestVersionPlayed checks the count of rated matches scheduled per active
// version, which CreateMatch keeps: challenges and smoke matches do not
// count, matches of every state do.
func TestVersionPlayed(t *testing.T) {
	each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		_, b1, b2 := setup(t, s)
		seats := []store.SeatRef{{BotID: b1.ID, VersionID: b1.ActiveVersion}, {BotID: b2.ID, VersionID: b2.ActiveVersion}}
		for i, kind := range []string{store.KindRated, store.KindChallenge, store.KindRated, store.KindSmoke, store.KindRated} {
			id, err := s.CreateMatch(ctx, store.NewMatch{Game: "dots-and-boxes", Kind: kind, Seats: seats})
			if err != nil {
				t.Fatal(err)
			}
			if i == 2 {
				s.FailMatch(ctx, id, "test")
			}
		}
		got, err := s.VersionPlayed(ctx, "dots-and-boxes")
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[b1.ActiveVersion] != 3 || got[b2.ActiveVersion] != 3 {
			t.Fatalf("VersionPlayed = %v, want 3 for versions %d and %d", got, b1.ActiveVersion, b2.ActiveVersion)
		}
		if other, _ := s.VersionPlayed(ctx, "grid-royale"); len(other) != 0 {
			t.Fatalf("grid-royale: %v, want none", other)
		}
	})
}

// TestPurgeTokens deletes exactly the tokens expired at the given moment.
func TestPurgeTokens(t *testing.T) {
	each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		a, err := s.CreateAccount(ctx, "alice", "hash")
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
		for i, h := range []string{"h0", "h1", "h2"} {
			if err := s.CreateToken(ctx, a.ID, store.TokenSession, h, "c", t0.Add(time.Duration(i)*time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
		n, err := s.PurgeTokens(ctx, t0.Add(time.Hour))
		if err != nil || n != 2 {
			t.Fatalf("PurgeTokens(t0+1h) = %d, %v; want 2", n, err)
		}
		for h, want := range map[string]bool{"h0": false, "h1": false, "h2": true} {
			// TokenAccount checks expiry by the real clock, before 2030.
			_, _, err := s.TokenAccount(ctx, h, store.TokenSession)
			if (err == nil) != want {
				t.Errorf("token %s after the purge: %v, want kept %v", h, err, want)
			}
		}
		if n, err := s.PurgeTokens(ctx, t0.Add(time.Hour)); err != nil || n != 0 {
			t.Fatalf("second purge = %d, %v; want 0", n, err)
		}
	})
}
