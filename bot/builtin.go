package bot

import (
	"context"
	"fmt"
	"strings"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/internal/rng"
)

// house adapts a game's HouseBot to a Bot.
type house struct {
	hb   game.HouseBot
	seat int
}

// OpenBuiltin opens the house bot called name for m's game.
func OpenBuiltin(name string, m Match) (Bot, error) {
	var names []string
	for _, info := range m.Game.HouseBots() {
		if info.Name == name {
			seed := rng.Mix(m.Seed, uint64(m.Seat), 0xb07)
			return &house{hb: info.New(seed, m.Seat), seat: m.Seat}, nil
		}
		names = append(names, info.Name)
	}
	return nil, fmt.Errorf("%s has no house bot %q (it has: %s)", m.Game.Info().ID, name, strings.Join(names, ", "))
}

func (h *house) Act(_ context.Context, req Request) Reply {
	return Reply{Line: h.hb.Act(req.State, h.seat), Status: game.OK}
}

func (h *house) Close() []byte { return nil }

// StateOnly tells the runner that this bot reads Request.State, not the
// observation, so the JSON need not be written for it.
func (h *house) StateOnly() bool { return true }
