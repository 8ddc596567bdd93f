package gridroyale

import (
	"testing"

	"github.com/arenabots/arena/game/gametest"
)

// TestConformance runs the contract every game passes (game/gametest).
func TestConformance(t *testing.T) {
	gametest.Run(t, Game{}, gametest.Options{Seeds: 3})
}
