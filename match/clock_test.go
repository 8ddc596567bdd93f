package match_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games/linesandboxes"
	"github.com/arenabots/arena/match"
)

// metered plays the default move and reports spending a tenth of the game's
// tank per answer, like a wasm bot; it keeps the clocks it is shown.
type metered struct{ seen [][]float64 }

func (m *metered) Act(_ context.Context, req bot.Request) bot.Reply {
	m.seen = append(m.seen, slices.Clone(req.Clocks))
	seg := req.State.(*linesandboxes.State).DefaultMove()
	return bot.Reply{Status: game.OK, Line: linesandboxes.ActionJSON(seg), Fuel: linesandboxes.FuelPerGame / 10}
}

func (m *metered) Close() []byte { return nil }

type clocked struct {
	metered
	left float64
}

func (c *clocked) ClockLeft() float64 { return c.left }

// TestClocksShowEverySeatsTime: with a game-long tank, the runner tells
// every bot each seat's share of its clock: a Clocked bot's own figure, a
// metered bot's fuel left.
func TestClocksShowEverySeatsTime(t *testing.T) {
	m, c := &metered{}, &clocked{left: 0.25}
	params := game.Params{"rows": "3", "cols": "3"}
	if _, err := match.Run(context.Background(), linesandboxes.Game{}, game.Config{Seed: 1, Players: 2, Params: params},
		[]bot.Bot{m, c}, []bot.Identity{{Spec: "m"}, {Spec: "c"}}); err != nil {
		t.Fatal(err)
	}
	// Seat 0 moves on turns 1, 3, 5...: before its k-th answer it has spent
	// k-1 tenths of its tank.
	for k, clocks := range m.seen[:5] {
		want := []float64{1 - float64(k)/10, 0.25}
		for i := range want {
			if diff := clocks[i] - want[i]; diff > 1e-9 || diff < -1e-9 {
				t.Fatalf("seat 0's answer %d saw clocks %v, want %v", k+1, clocks, want)
			}
		}
	}
	if got := m.seen[len(m.seen)-1][0]; got < 0 {
		t.Fatalf("a clock below zero: %v", got)
	}
}

// TestRerunRefusesAnotherCostModel: fuel figures recorded under one cost
// model cannot match another's; the re-run says so first.
func TestRerunRefusesAnotherCostModel(t *testing.T) {
	open := func(model int) bot.Opener {
		return func(ctx context.Context, m bot.Match) (bot.Bot, bot.Identity, error) {
			b, err := bot.OpenBuiltin("greedy", m)
			return b, bot.Identity{Spec: "builtin:greedy", CostModel: model}, err
		}
	}
	g := linesandboxes.Game{}
	cfg := game.Config{Seed: 1, Players: 2, Params: game.Params{"rows": "3", "cols": "3"}}
	r, err := match.Runner{}.Play(context.Background(), g, cfg, open(1))
	if err != nil {
		t.Fatal(err)
	}
	if err := (match.Runner{}).Rerun(context.Background(), r, g, open(1)); err != nil {
		t.Fatal(err)
	}
	err = (match.Runner{}).Rerun(context.Background(), r, g, open(2))
	if err == nil || !strings.Contains(err.Error(), "seat 0 was recorded under fuel cost model 1 and re-runs under 2") {
		t.Fatalf("re-run under another model: %v", err)
	}
}
