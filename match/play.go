package match

import (
	"context"
	"fmt"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/replay"
)

// Played is a finished match with the logs its bots wrote.
type Played struct {
	Replay *replay.Replay
	Logs   [][]byte // per seat: the kept part of the bot's stderr
}

// Play opens the bots named by specs (one per seat, in seat order), plays the
// match and closes them.
func (rn Runner) Play(ctx context.Context, g game.Game, seed uint64, params game.Params, specs []string) (*Played, error) {
	cfg := game.Config{Seed: seed, Players: len(specs), Params: params}
	if !g.Info().AllowsPlayers(cfg.Players) {
		return nil, fmt.Errorf("%s is for %v players, not %d", g.Info().ID, g.Info().Players, cfg.Players)
	}
	bots := make([]bot.Bot, 0, len(specs))
	ids := make([]bot.Identity, 0, len(specs))
	closeAll := func() [][]byte {
		logs := make([][]byte, len(bots))
		for i, b := range bots {
			logs[i] = b.Close()
		}
		return logs
	}
	for seat, s := range specs {
		b, err := spec.Open(ctx, s, bot.Match{Game: g, Seed: seed, Seat: seat, Params: params})
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("seat %d: %w", seat, err)
		}
		bots = append(bots, b)
		id := bot.Identity{Spec: s}
		if withID, ok := b.(bot.Identifier); ok {
			id.SHA256 = withID.Identity().SHA256
		}
		ids = append(ids, id)
	}
	r, err := rn.Run(ctx, g, cfg, bots, ids)
	logs := closeAll()
	if err != nil {
		return nil, err
	}
	return &Played{Replay: r, Logs: logs}, nil
}
