package web

import (
	"strconv"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/replay"
)

// TestBrowserEveryGame: every registered game's board draws a replay in the
// viewer, with a card per seat, and its Play page starts a game against
// the house that asks the person for a move with the game's own controls.
// A new game is checked here without a line of this file naming it.
func TestBrowserEveryGame(t *testing.T) {
	ctx := browser(t)
	for _, g := range games.All() {
		info := g.Info()
		t.Run(info.ID, func(t *testing.T) {
			bots := g.HouseBots()
			players := info.Players[0]
			specs := make([]string, players)
			for i := range specs {
				specs[i] = "builtin:" + bots[min(i, len(bots)-1)].Name
			}
			r, err := replay.Load(writeReplay(t, info.ID, specs...))
			if err != nil {
				t.Fatal(err)
			}
			srv := newTestSite(t, Options{Games: games.All(), Local: r})
			turn := min(3, len(r.Turns))
			steps(t, ctx, "opening the replay at turn "+strconv.Itoa(turn), chromedp.Navigate(srv.URL+"/local?turn="+strconv.Itoa(turn)))
			waitJS(t, ctx, "the board at turn "+strconv.Itoa(turn), "Arena.viewer && Arena.viewer.index === "+strconv.Itoa(turn)+
				" && document.querySelector('#board').childElementCount > 0 && document.querySelectorAll('#seats li').length === "+strconv.Itoa(players), 20*time.Second)
			shot(t, ctx, "every-game-replay-"+info.ID)

			play := newTestSite(t, Options{Games: games.All()})
			startGame(t, ctx, play.URL, info.ID, bots[0].Name, nil)
			waitJS(t, ctx, "the person's first move asked", "Arena.viewer && Arena.viewer.prompt >= 0 && !document.querySelector('#prompt').hidden && document.querySelector('#prompt').textContent.length > 0"+
				" && document.querySelector('#controls-play').childElementCount > 0 && document.querySelector('#board').childElementCount > 0", 20*time.Second)
			shot(t, ctx, "every-game-play-"+info.ID)
		})
	}
}
