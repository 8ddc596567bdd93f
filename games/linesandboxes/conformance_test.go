package linesandboxes

import (
	"testing"

	"github.com/arenabots/arena/game/gametest"
)

// TestConformance runs the contract every game passes (game/gametest).
func TestConformance(t *testing.T) {
	gametest.Run(t, Game{}, gametest.Options{Seeds: 20})
	// Boards of every size and starting lines, drawn from the seeds.
	gametest.Run(t, Game{}, gametest.Options{Seeds: 20, Params: Game{}.Info().Varied})
}
