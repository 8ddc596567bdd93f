package games_test

import (
	"testing"

	"github.com/arenabots/arena/game/gametest"
	"github.com/arenabots/arena/games"
)

// TestEveryGameHasItsSite: every registered game brings its board script
// and rules page (docs/site.md, "A game's board").
func TestEveryGameHasItsSite(t *testing.T) {
	for _, g := range games.All() {
		if err := gametest.CheckSite(g); err != nil {
			t.Error(err)
		}
	}
}
