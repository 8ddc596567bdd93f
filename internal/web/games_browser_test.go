package web

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

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
			moveListAndWords(t, ctx, turn)

			play := newTestSite(t, Options{Games: games.All()})
			startGame(t, ctx, play.URL, info.ID, bots[0].Name, nil)
			waitJS(t, ctx, "the person's first move asked", "Arena.viewer && Arena.viewer.prompt >= 0 && !document.querySelector('#prompt').hidden && document.querySelector('#prompt').textContent.length > 0"+
				" && document.querySelector('#controls-play').childElementCount > 0 && document.querySelector('#board').childElementCount > 0", 20*time.Second)
			shot(t, ctx, "every-game-play-"+info.ID)
			if n := eval[int](t, ctx, "document.querySelectorAll('#movelist li').length"); n != eval[int](t, ctx, "Arena.viewer.frames.length") {
				t.Fatalf("the Play page's move list has %d entries for %d frames", n, eval[int](t, ctx, "Arena.viewer.frames.length"))
			}
			if words := eval[string](t, ctx, "document.getElementById('board-words').textContent"); !strings.Contains(words, "You") {
				t.Fatalf("the board in words on the Play page does not name the person: %q", words)
			}
		})
	}
}

// moveListAndWords checks the viewer, open at turn at, of a game that
// implements the optional hooks describe and moveWords: one move-list entry
// per frame, the turn shown highlighted, every seat's move in words rather
// than the action's JSON, named by its seat; a click on an entry goes to its
// turn; the board in words is there and changes with the turn.
func moveListAndWords(t *testing.T, ctx context.Context, at int) {
	t.Helper()
	if n, frames := eval[int](t, ctx, "document.querySelectorAll('#movelist li').length"), eval[int](t, ctx, "Arena.viewer.frames.length"); n != frames {
		t.Fatalf("the move list has %d entries for %d frames", n, frames)
	}
	if cur := eval[string](t, ctx, "(document.querySelector('#movelist li.current') || {dataset: {}}).dataset.turn"); cur != strconv.Itoa(at) {
		t.Fatalf("the move list highlights turn %q, the board shows turn %d (%s)", cur, at, eval[string](t, ctx, "Arena.viewer.index + ' ' + Arena.viewer.playing + location.search"))
	}
	entry := eval[string](t, ctx, "document.querySelector('#movelist li[data-turn=\"1\"]').textContent")
	movers := eval[[]string](t, ctx, "Arena.viewer.turns[0].seats.filter(function(s){return s.status !== 'ignored'}).map(function(s){return document.querySelectorAll('#seats li .name')[s.seat].textContent})")
	for _, name := range movers {
		if !strings.Contains(entry, name+": ") {
			t.Fatalf("turn 1 in the move list, %q, does not name %q", entry, name)
		}
	}
	if len(movers) == 0 || strings.Contains(entry, "{") {
		t.Fatalf("turn 1 in the move list is %q: no mover, or the action's JSON rather than words", entry)
	}
	words := eval[string](t, ctx, "document.getElementById('board-words').textContent")
	if len(words) < 20 {
		t.Fatalf("the board in words is %q", words)
	}
	steps(t, ctx, "clicking turn 1 in the move list", chromedp.Click(chromedp.CSS(`#movelist li[data-turn="1"] button`)))
	waitJS(t, ctx, "turn 1 shown and highlighted", "Arena.viewer.index === 1 && document.querySelector('#movelist li.current').dataset.turn === '1' && location.search.indexOf('turn=1') >= 0", 5*time.Second)
	if now := eval[string](t, ctx, "document.getElementById('board-words').textContent"); now == words {
		t.Fatalf("the board in words is the same at turn 1 and turn %d: %q", at, now)
	}
	steps(t, ctx, "the next entry with the down arrow", chromedp.KeyEvent(kb.ArrowDown))
	waitJS(t, ctx, "turn 2 from the list", "Arena.viewer.index === 2 && document.activeElement.closest('#movelist li.current')", 5*time.Second)
}
