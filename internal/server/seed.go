package server

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"

	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/store"
	"github.com/arenabots/arena/match"
	"github.com/arenabots/arena/worker"
)

// SeedOptions configures Seed.
type SeedOptions struct {
	DataDir string // default ./arena-data
	DB      string // database URL; empty: SQLite under DataDir
	Game    string // default dots-and-boxes
	Matches int
	// Distinct is how many matches are really played (default 24): the
	// rest are copies of them under new match ids.
	Distinct int
	// Progress, when set, is called after each batch with the matches
	// recorded so far.
	Progress func(done int)
}

// seedBatch is how many matches Seed creates and records per transaction.
const seedBatch = 500

// Seed fills a data directory with finished matches (challenges, unrated:
// 100,000 rating updates would take minutes more) of the house's ladder bots, through the store's own code (store.CreateMatches and
// store.RecordMatches, ratings included), as if a server had played them:
// arena seed, for measuring the API with a large history
// (docs/performance.md). Playing 100,000 real matches would take hours, so
// it plays Distinct matches between the native builds of the first three
// bots of the game's house ladder (every pairing in both seat orders, seeds
// 1, 2, ...) and records each many
// times under new match ids, with the seed and the replay of the match
// played: every replay verifies. The seats name the ladder's versions (the
// house's wasm builds of the same bots), as matchmade matches do.
func Seed(ctx context.Context, o SeedOptions) (int, error) {
	if o.DataDir == "" {
		o.DataDir = "arena-data"
	}
	if o.Game == "" {
		o.Game = "dots-and-boxes"
	}
	if o.Distinct <= 0 {
		o.Distinct = 24
	}
	g, err := games.Lookup(o.Game)
	if err != nil {
		return 0, err
	}
	if err := os.MkdirAll(o.DataDir, 0o700); err != nil {
		return 0, fmt.Errorf("data directory: %w", err)
	}
	st, err := openStore(ctx, o.DB, o.DataDir)
	if err != nil {
		return 0, err
	}
	defer st.Close()
	s := &Server{store: st, log: slog.New(slog.DiscardHandler)}
	if err := s.seedHouse(ctx); err != nil {
		return 0, err
	}
	bots, err := st.BotsOf(ctx, s.house.ID)
	if err != nil {
		return 0, err
	}
	var ladder []store.Bot
	for _, b := range bots {
		if b.Game == o.Game && !b.Retired && b.ActiveVersion != 0 && b.Spec != "" {
			ladder = append(ladder, b)
		}
	}
	// The first three of the ladder play: the ladders start with their
	// quickest bots, and the search bots would take minutes.
	slices.SortFunc(ladder, func(a, b store.Bot) int { return cmp.Compare(a.ID, b.ID) })
	ladder = ladder[:min(3, len(ladder))]
	if len(ladder) < 2 {
		return 0, fmt.Errorf("seed: the house has %d ladder bots for %s; 2 are needed", len(ladder), o.Game)
	}
	played, err := seedPlay(ctx, g, ladder, o.Distinct)
	if err != nil {
		return 0, err
	}
	done := 0
	for done < o.Matches {
		n := min(seedBatch, o.Matches-done)
		nms := make([]store.NewMatch, n)
		for i := range nms {
			p := played[(done+i)%len(played)]
			nms[i] = store.NewMatch{Game: o.Game, Seed: p.seed, Kind: store.KindChallenge, Seats: p.seats}
		}
		ids, err := st.CreateMatches(ctx, nms)
		if err != nil {
			return done, err
		}
		res := make([]store.Result, n)
		for i, id := range ids {
			res[i] = played[(done+i)%len(played)].result
			res[i].MatchID = id
		}
		if _, err := st.RecordMatches(ctx, res, rate); err != nil {
			return done, err
		}
		done += n
		if o.Progress != nil {
			o.Progress(done)
		}
	}
	return done, nil
}

// seedMatch is a match Seed played, to be recorded many times.
type seedMatch struct {
	seed   uint64
	seats  []store.SeatRef
	result store.Result
}

// seedPlay plays n matches between the ladder bots' native builds.
func seedPlay(ctx context.Context, g game.Game, ladder []store.Bot, n int) ([]seedMatch, error) {
	var pairs [][2]store.Bot
	for _, a := range ladder {
		for _, b := range ladder {
			if a.ID != b.ID {
				pairs = append(pairs, [2]store.Bot{a, b})
			}
		}
	}
	out := make([]seedMatch, 0, n)
	for i := range n {
		p := pairs[i%len(pairs)]
		seed := uint64(i + 1)
		specs, err := spec.ParseAll([]string{p[0].Spec, p[1].Spec})
		if err != nil {
			return nil, fmt.Errorf("seed: %w", err)
		}
		// The worker's opener: a stored row opens a house bot or a
		// module, never a program of the server's machine.
		rep, err := match.Runner{}.Play(ctx, g, game.Config{Seed: seed, Players: 2}, spec.Seats(specs, worker.Modules{}))
		if err != nil {
			return nil, fmt.Errorf("seed: playing %s against %s: %w", p[0].Spec, p[1].Spec, err)
		}
		data, err := rep.Marshal()
		if err != nil {
			return nil, err
		}
		out = append(out, seedMatch{
			seed:   seed,
			seats:  []store.SeatRef{{BotID: p[0].ID, VersionID: p[0].ActiveVersion}, {BotID: p[1].ID, VersionID: p[1].ActiveVersion}},
			result: storeResult(*worker.Summarize(0, g, rep, data, nil, 0)),
		})
	}
	return out, nil
}
