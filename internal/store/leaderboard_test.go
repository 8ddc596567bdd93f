package store_test

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/arenabots/arena/internal/store"
	"github.com/arenabots/arena/internal/store/storetest"
)

// rated plays one rated match of game between bots, with these places, and
// applies it.
func rated(t testing.TB, s *store.Store, game string, bots []store.Bot, places ...int) int64 {
	t.Helper()
	ctx := context.Background()
	var seats []store.SeatRef
	for _, b := range bots {
		seats = append(seats, store.SeatRef{BotID: b.ID, VersionID: b.ActiveVersion})
	}
	id, err := s.CreateMatch(ctx, store.NewMatch{Game: game, Kind: store.KindRated, Seats: seats})
	if err != nil {
		t.Fatal(err)
	}
	if ok, err := s.RecordMatch(ctx, result(id, places...), plus); !ok || err != nil {
		t.Fatal(ok, err)
	}
	return id
}

// TestLeaderboardRecords: wins, draws and losses are counted from each
// rated match's places (a first place alone, shared, any other), by number
// of players; the players filter keeps the bots that played that many and
// counts those matches alone; unrated matches count nothing; the last two
// ratings come with each line.
func TestLeaderboardRecords(t *testing.T) {
	each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		a, _ := s.CreateAccount(ctx, "house", "x")
		var g []store.Bot
		for _, n := range []string{"a", "b", "c", "d"} {
			b, err := s.EnsureHouseBot(ctx, a.ID, "grid-royale", n, "builtin:"+n, 25, 25.0/3)
			if err != nil {
				t.Fatal(err)
			}
			g = append(g, b)
		}
		rated(t, s, "grid-royale", g[:2], 1, 2)           // a wins, b loses
		rated(t, s, "grid-royale", g[:2], 1, 1)           // a draw
		rated(t, s, "grid-royale", g, 2, 1, 1, 3)         // b and c share first: draws; a and d lose
		last := rated(t, s, "grid-royale", g, 1, 2, 3, 4) // a wins
		id, _ := s.CreateMatch(ctx, store.NewMatch{Game: "grid-royale", Kind: store.KindChallenge, Seats: []store.SeatRef{{BotID: g[0].ID}, {BotID: g[1].ID}}})
		s.RecordMatch(ctx, result(id, 2, 1), plus) // unrated: counts nothing

		want := map[string]map[int]store.Record{
			"a": {0: {2, 1, 1}, 2: {1, 1, 0}, 4: {1, 0, 1}},
			"b": {0: {0, 2, 2}, 2: {0, 1, 1}, 4: {0, 1, 1}},
			"c": {0: {0, 1, 1}, 4: {0, 1, 1}},
			"d": {0: {0, 0, 2}, 4: {0, 0, 2}},
		}
		for _, players := range []int{0, 2, 4} {
			lines, err := s.LeaderboardOf(ctx, "grid-royale", store.LeaderFilter{Players: players}, nil, 10)
			if err != nil {
				t.Fatal(err)
			}
			for i, l := range lines {
				w, ok := want[l.Bot.Name][players]
				if !ok {
					t.Fatalf("players %d: %s listed, which played no such match", players, l.Bot.Name)
				}
				if l.Record != w || l.Rank != int64(i+1) {
					t.Errorf("players %d: %s rank %d record %+v, want rank %d %+v", players, l.Bot.Name, l.Rank, l.Record, i+1, w)
				}
			}
			n := 0
			for _, byPlayers := range want {
				if _, ok := byPlayers[players]; ok {
					n++
				}
			}
			if len(lines) != n {
				t.Errorf("players %d: %d lines, want %d, one per bot that played", players, len(lines), n)
			}
		}
		lines, _ := s.LeaderboardOf(ctx, "grid-royale", store.LeaderFilter{}, nil, 10)
		for _, l := range lines {
			if l.Bot.Name == "a" && (l.Last == nil || l.Previous == nil || l.Last.MatchID != last || l.Last.Mu != l.Previous.Mu+1) {
				t.Fatalf("a's last ratings: %+v %+v, want match %d one above the one before", l.Last, l.Previous, last)
			}
		}
		recs, err := s.Records(ctx, g[0].ID)
		if err != nil || recs[2] != want["a"][2] || recs[4] != want["a"][4] || len(recs) != 2 {
			t.Fatalf("a's records %v, %v", recs, err)
		}
	})
}

// TestLeaderboardSearch: a search keeps the bots whose name or handle
// contains it, ignoring case, with each bot's rank on the whole board; the
// LIKE wildcards match themselves alone; the active filter reads the last
// rated match's time; pages of a search follow its cursor.
func TestLeaderboardSearch(t *testing.T) {
	each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		house, _ := s.CreateAccount(ctx, "house", "x")
		eve, _ := s.CreateAccount(ctx, "eve_x", "x")
		var bots []store.Bot
		for i, n := range []string{"Alpha_1", "alphax1", "beta", "gamma"} {
			acc := house
			if n == "beta" {
				acc = eve
			}
			b, err := s.EnsureHouseBot(ctx, acc.ID, "dots-and-boxes", n, "builtin:x", float64(40-i), 1)
			if err != nil {
				t.Fatal(err)
			}
			bots = append(bots, b)
		}
		names := func(f store.LeaderFilter, after *store.Cursor, limit int) string {
			t.Helper()
			lines, err := s.LeaderboardOf(ctx, "dots-and-boxes", f, after, limit)
			if err != nil {
				t.Fatal(err)
			}
			out := ""
			for _, l := range lines {
				out += fmt.Sprintf("%d:%s ", l.Rank, l.Bot.Name)
			}
			return out
		}
		for q, want := range map[string]string{
			"":        "1:Alpha_1 2:alphax1 3:beta 4:gamma ",
			"ALPHA":   "1:Alpha_1 2:alphax1 ",
			"a_1":     "1:Alpha_1 ",
			"%":       "",
			"eve":     "3:beta ",
			"e_x":     "3:beta ",
			"mm":      "4:gamma ",
			"nothing": "",
		} {
			if got := names(store.LeaderFilter{Search: q}, nil, 10); got != want {
				t.Errorf("search %q: %q, want %q", q, got, want)
			}
		}
		if got := names(store.LeaderFilter{Search: "a"}, &store.Cursor{Rank: 2}, 1); got != "3:beta " {
			t.Errorf("the second page of a search: %q", got)
		}
		if _, err := s.LeaderboardOf(ctx, "dots-and-boxes", store.LeaderFilter{Search: string(make([]byte, store.MaxSearch+1))}, nil, 10); err == nil {
			t.Error("a search longer than MaxSearch was run")
		}
		rated(t, s, "dots-and-boxes", bots[2:4], 1, 2)
		if got := names(store.LeaderFilter{ActiveSince: time.Now().Add(-time.Hour)}, nil, 10); got != "1:beta 2:gamma " && got != "1:gamma 2:beta " {
			t.Errorf("active in the last hour: %q", got)
		}
		if got := names(store.LeaderFilter{ActiveSince: time.Now().Add(time.Hour)}, nil, 10); got != "" {
			t.Errorf("active after now: %q", got)
		}
	})
}

// BenchmarkLeaderboard reads the first page (50 lines) of a leaderboard of
// 200 bots with 100,000 rated 4-player matches recorded (docs/performance.md):
// the ratings alone (Leaderboard), and with records and last changes
// unfiltered, with the players and active filters, and searched.
func BenchmarkLeaderboard(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	s, err := store.Open(ctx, "", dir, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	a, _ := s.CreateAccount(ctx, "house", "x")
	var seats []store.SeatRef
	var bots []store.Bot
	for i := range 200 {
		bot, err := s.EnsureHouseBot(ctx, a.ID, "grid-royale", fmt.Sprintf("bot%03d", i), "builtin:x", 25+float64(i%17), 25.0/3)
		if err != nil {
			b.Fatal(err)
		}
		bots = append(bots, bot)
		seats = append(seats, store.SeatRef{BotID: bot.ID, VersionID: bot.ActiveVersion})
	}
	const matches = 100_000
	storetest.FillRated(b, filepath.Join(dir, "arena.db"), "grid-royale", seats, matches)
	// The leaderboard of ratings alone, for the cost of the rest.
	b.Run("ratings-only", func(b *testing.B) {
		for b.Loop() {
			if rows, err := s.Leaderboard(ctx, "grid-royale", nil, 50); err != nil || len(rows) == 0 {
				b.Fatal(len(rows), err)
			}
		}
	})
	for _, c := range []struct {
		name string
		f    store.LeaderFilter
	}{
		{"all", store.LeaderFilter{}},
		{"players-4", store.LeaderFilter{Players: 4}},
		{"active", store.LeaderFilter{ActiveSince: time.Now().Add(-7 * 24 * time.Hour)}},
		{"search", store.LeaderFilter{Search: "t1"}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				lines, err := s.LeaderboardOf(ctx, "grid-royale", c.f, nil, 50)
				if err != nil || len(lines) == 0 {
					b.Fatal(len(lines), err)
				}
			}
		})
	}
}
