package snake

import (
	"testing"

	"github.com/arenabots/arena/game/gametest"
)

// TestConformance runs the contract every game passes (game/gametest).
func TestConformance(t *testing.T) {
	gametest.Run(t, Game{}, gametest.Options{Seeds: 4})
}

// TestConformanceSmallBoard plays the contract on the smallest board, where
// snakes meet and die early.
func TestConformanceSmallBoard(t *testing.T) {
	gametest.Run(t, Game{}, gametest.Options{Seeds: 4, Params: map[string]string{"width": "7", "height": "7", "max_turns": "60"}})
}
