package games_test

import (
	"testing"

	"github.com/arenabots/arena/game/gametest"
	"github.com/arenabots/arena/games"
)

// TestEveryGameConforms runs the shared contract over every registered
// game, so a game added to the registry cannot skip it.
func TestEveryGameConforms(t *testing.T) {
	for _, g := range games.All() {
		gametest.Run(t, g, gametest.Options{Seeds: 2})
	}
}
