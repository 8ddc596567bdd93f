// Package games lists every game on the platform. It is the one place that
// knows them all; the runner, the CLI and the server find games here by id.
package games

import (
	"fmt"
	"strings"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games/dotsandboxes"
	"github.com/arenabots/arena/games/gridroyale"
	"github.com/arenabots/arena/games/linesandboxes"
	"github.com/arenabots/arena/games/snake"
)

// All returns every game, in the order the product lists them.
func All() []game.Game {
	return []game.Game{
		dotsandboxes.Game{},
		linesandboxes.Game{},
		gridroyale.Game{},
		snake.Game{},
	}
}

// Lookup finds a game by id.
func Lookup(id string) (game.Game, error) {
	var ids []string
	for _, g := range All() {
		if g.Info().ID == id {
			return g, nil
		}
		ids = append(ids, g.Info().ID)
	}
	return nil, fmt.Errorf("unknown game %q (games: %s)", id, strings.Join(ids, ", "))
}
