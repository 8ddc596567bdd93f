package tournament

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/bot/local"
	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games/dotsandboxes"
	"github.com/arenabots/arena/games/linesandboxes"
	"github.com/arenabots/arena/match"
	"github.com/arenabots/arena/replay"
)

// specRunner opens entries from their SPECs and counts the games it plays.
type specRunner struct{ played *atomic.Int64 }

func (specRunner) Check(ctx context.Context, g game.Game, s spec.Spec) error {
	b, err := local.Opener{}.Open(ctx, s, bot.Match{Game: g})
	if err != nil {
		return err
	}
	b.Close()
	return nil
}

func (r specRunner) Play(ctx context.Context, g game.Game, seed uint64, params game.Params, specs []spec.Spec) (*replay.Replay, error) {
	if r.played != nil {
		r.played.Add(1)
	}
	return match.Runner{}.Play(ctx, g, game.Config{Seed: seed, Players: len(specs), Params: params}, local.Seats(specs))
}

var dnbBots = spec.MustParseAll("builtin:random", "builtin:greedy", "builtin:chains")

func TestDotsAndBoxesRanksChainsFirst(t *testing.T) {
	res, err := Run(context.Background(), Config{Game: dotsandboxes.Game{}, Runner: specRunner{}, Bots: dnbBots, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := []string{res.Standings[0].Bot, res.Standings[1].Bot, res.Standings[2].Bot}
	if strings.Join(got, ",") != "builtin:chains,builtin:greedy,builtin:random" {
		t.Fatalf("standings %+v", res.Standings)
	}
	for _, s := range res.Standings {
		// Two opponents, 4 boards, both seat orders.
		if s.Games != 16 {
			t.Fatalf("%s played %d games", s.Bot, s.Games)
		}
	}
	// Points are 2 per game won: in all, 2 per game played.
	if sum := res.Standings[0].Points + res.Standings[1].Points + res.Standings[2].Points; sum != 2*24 {
		t.Fatalf("points sum to %d", sum)
	}
}

func TestSameResultWhateverTheParallelism(t *testing.T) {
	var out []string
	for _, parallel := range []int{1, 2, 5} {
		res, err := Run(context.Background(), Config{Game: dotsandboxes.Game{}, Runner: specRunner{}, Bots: dnbBots, Seed: 9, Boards: 2, Finals: 2, Parallel: parallel})
		if err != nil {
			t.Fatal(err)
		}
		data, _ := json.Marshal(res)
		out = append(out, string(data))
	}
	if out[0] != out[1] || out[0] != out[2] {
		t.Fatalf("results differ with parallelism:\n%s\n%s\n%s", out[0], out[1], out[2])
	}
}

func TestFinalsDecideTheTop(t *testing.T) {
	res, err := Run(context.Background(), Config{Game: dotsandboxes.Game{}, Runner: specRunner{}, Bots: dnbBots, Seed: 2, Boards: 1, Finals: 2, FinalBoards: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Finals) != 2 || res.Finals[0].Games != 6 || len(res.Standings) != 3 || res.Standings[2].Bot != "builtin:random" {
		t.Fatalf("finals %+v standings %+v", res.Finals, res.Standings)
	}
	if res.Standings[0] != res.Finals[0] {
		t.Fatal("the finals winner does not lead the standings")
	}
}

// fakeGame only describes itself: standings needs no match to be played.
type fakeGame struct {
	game.Game
	ties bool
}

func (f fakeGame) Info() game.Info {
	return game.Info{ID: "fake", Players: []int{2, 4}, Ties: f.ties}
}

func TestPoints(t *testing.T) {
	bots := spec.MustParseAll("builtin:a", "builtin:b", "builtin:c", "builtin:d")
	jobs := []job{
		// a beats b.
		{seats: []int{0, 1}, result: replay.Result{Scores: []int64{5, 3}, Placement: []int{0, 1}}},
		// c and d tie on score: 1 point each where the game has ties.
		{seats: []int{2, 3}, result: replay.Result{Scores: []int64{4, 4}, Placement: []int{0, 1}}},
		// Four players: d first, c, b, a last.
		{seats: []int{0, 1, 2, 3}, result: replay.Result{Scores: []int64{1, 2, 3, 9}, Placement: []int{3, 2, 1, 0}}},
	}
	for _, tc := range []struct {
		ties bool
		want map[string]int
	}{
		{true, map[string]int{"builtin:a": 2, "builtin:b": 2, "builtin:c": 1 + 4, "builtin:d": 1 + 6}},
		{false, map[string]int{"builtin:a": 2, "builtin:b": 2, "builtin:c": 2 + 4, "builtin:d": 6}},
	} {
		cfg := Config{Game: fakeGame{ties: tc.ties}, Bots: bots}
		for _, s := range standings(cfg, []int{0, 1, 2, 3}, jobs) {
			if s.Points != tc.want[s.Bot] {
				t.Errorf("ties=%v: %s has %d points, want %d", tc.ties, s.Bot, s.Points, tc.want[s.Bot])
			}
		}
	}
}

func TestScheduleCoversEverySeatOrder(t *testing.T) {
	cfg := Config{Game: fakeGame{}, Bots: spec.MustParseAll("builtin:a", "builtin:b", "builtin:c", "builtin:d", "builtin:e"), Players: 4, Boards: 2}
	jobs := schedule(cfg, []int{0, 1, 2, 3, 4}, 2, 0)
	if len(jobs) != countGames(5, 4, 2) || len(jobs) != 5*2*4 {
		t.Fatalf("%d games", len(jobs))
	}
	seatsOf := map[int][4]int{} // entry -> games per seat
	for _, j := range jobs {
		for seat, e := range j.seats {
			c := seatsOf[e]
			c[seat]++
			seatsOf[e] = c
		}
	}
	for e := 0; e < 5; e++ {
		// In 4 of the 5 groups, on 2 boards, once in every seat each time.
		if seatsOf[e] != [4]int{8, 8, 8, 8} {
			t.Errorf("entry %d sat %v times in seats 0..3", e, seatsOf[e])
		}
	}
}

func TestBadConfigs(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Game: dotsandboxes.Game{}, Runner: specRunner{}, Bots: spec.MustParseAll("builtin:random")}, "at least 2 bots"},
		{Config{Game: dotsandboxes.Game{}, Runner: specRunner{}, Bots: spec.MustParseAll("builtin:random", "builtin:random")}, "entered twice"},
		{Config{Game: dotsandboxes.Game{}, Runner: specRunner{}, Bots: dnbBots, Players: 4}, "not 4"},
		{Config{Game: dotsandboxes.Game{}, Bots: dnbBots, Boards: -1}, "boards -1"},
		{Config{Game: dotsandboxes.Game{}, Bots: dnbBots, Finals: 1}, "finals 1"},
		{Config{Game: dotsandboxes.Game{}, Bots: dnbBots, Finals: 4}, "only 3 entries"},
		{Config{Game: dotsandboxes.Game{}, Bots: dnbBots, Finals: 2, FinalBoards: -2}, "final boards -2"},
		{Config{Game: dotsandboxes.Game{}, Bots: dnbBots, Parallel: -1}, "parallel -1"},
		{Config{Game: dotsandboxes.Game{}, Bots: dnbBots, Params: game.Params{"rows": "3"}}, `unknown parameter "rows"`},
		{Config{Game: linesandboxes.Game{}, Bots: spec.MustParseAll("builtin:greedy", "builtin:random"), Params: game.Params{"rows": "9"}}, "round 1, board 1"},
		// The bad entry comes last: it must fail before any game is played.
		{Config{Game: dotsandboxes.Game{}, Bots: spec.MustParseAll("builtin:random", "builtin:greedy", "builtin:nobody")}, `no house bot "nobody"`},
	} {
		var played atomic.Int64
		if tc.cfg.Runner == nil {
			tc.cfg.Runner = specRunner{&played}
		}
		if _, err := Run(context.Background(), tc.cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want %q", tc.cfg.Bots, err, tc.want)
		}
		if n := played.Load(); n != 0 {
			t.Errorf("%v: %d games played before the error %q", tc.cfg.Bots, n, tc.want)
		}
	}
}

// TestEveryGameIsReported checks that OnGame sees every game once, with the
// record the result lists, and that the list does not depend on the order
// the games finished in.
func TestEveryGameIsReported(t *testing.T) {
	var lists []string
	for _, parallel := range []int{1, 3} {
		var seen []GameRecord
		cfg := Config{Game: dotsandboxes.Game{}, Runner: specRunner{}, Bots: dnbBots, Seed: 5, Boards: 1, Finals: 2, Parallel: parallel,
			OnGame: func(g GameRecord, r *replay.Replay) error {
				if r.Result.Turns != g.Turns || r.Seed != g.Seed {
					t.Errorf("game %d/%d: record %+v, replay result %+v", g.Round, g.Index, g, r.Result)
				}
				seen = append(seen, g)
				return nil
			}}
		res, err := Run(context.Background(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		// 3 pairs x 1 board x 2 seat orders, then 1 pair x 2 boards x 2.
		if len(res.Games) != 6+4 || len(seen) != len(res.Games) {
			t.Fatalf("%d games listed, %d reported", len(res.Games), len(seen))
		}
		slices.SortFunc(seen, func(a, b GameRecord) int { return cmp.Or(a.Round-b.Round, a.Index-b.Index) })
		for i, g := range seen {
			a, _ := json.Marshal(g)
			b, _ := json.Marshal(res.Games[i])
			if string(a) != string(b) {
				t.Fatalf("reported %s, listed %s", a, b)
			}
		}
		data, _ := json.Marshal(res.Games)
		lists = append(lists, string(data))
	}
	if lists[0] != lists[1] {
		t.Fatal("the games listed depend on the parallelism")
	}
}

// TestOnGameErrorStops checks that a failing OnGame (a full disk under
// --results) ends the tournament with its error.
func TestOnGameErrorStops(t *testing.T) {
	cfg := Config{Game: dotsandboxes.Game{}, Runner: specRunner{}, Bots: dnbBots, Boards: 1, Parallel: 1,
		OnGame: func(GameRecord, *replay.Replay) error { return fmt.Errorf("disk full") }}
	if _, err := Run(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("error %v", err)
	}
}
