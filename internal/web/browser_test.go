package web

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/arenabots/arena/bot/local"
	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/match"
	"github.com/arenabots/arena/replay"
)

// screenshotDir is where the browser tests leave a picture of every page they
// visit (docs/site.md names it), to be looked at by a person.
const screenshotDir = "testdata/screenshots"

var (
	browserOnce sync.Once
	browserCtx  context.Context
	browserErr  error
)

// browser starts one headless chromium for the whole test binary. Its absence
// fails the test: scripts/test.sh installs it (scripts/install-browser.sh).
func browser(t *testing.T) context.Context {
	t.Helper()
	browserOnce.Do(func() {
		path, err := exec.LookPath("chromium")
		if err != nil {
			browserErr = fmt.Errorf("chromium is not installed: run scripts/install-browser.sh (%v)", err)
			return
		}
		opts := append([]chromedp.ExecAllocatorOption{}, chromedp.DefaultExecAllocatorOptions[:]...)
		opts = append(opts, chromedp.ExecPath(path), chromedp.WindowSize(1280, 900))
		actx, _ := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, _ := chromedp.NewContext(actx)
		if err := chromedp.Do(ctx, chromedp.Navigate("about:blank")); err != nil {
			browserErr = fmt.Errorf("starting chromium: %w", err)
			return
		}
		browserCtx = ctx
	})
	if browserErr != nil {
		t.Fatal(browserErr)
	}
	tab, cancel := chromedp.NewContext(browserCtx)
	t.Cleanup(cancel)
	if err := chromedp.Do(tab, chromedp.EmulateViewport(1280, 900)); err != nil {
		t.Fatal(err)
	}
	return tab
}

// steps runs actions with a time limit, failing the test with what it was doing.
func steps(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := chromedp.Do(c, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func eval[T any](t *testing.T, ctx context.Context, js string) T {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(c, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}

// waitJS polls a JavaScript condition until it is true.
func waitJS(t *testing.T, ctx context.Context, what, js string, limit time.Duration) {
	t.Helper()
	waitJSAt(t, ctx, what, js, limit)
}

func waitJSAt(t *testing.T, ctx context.Context, what, js string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	cond := "(function(){try{return !!(" + js + ")}catch(e){return false}})()"
	for time.Now().Before(deadline) {
		// A page that navigates (a form's submit, a login's reload)
		// while it is asked answers with an error: not yet, not a failure.
		c, cancel := context.WithTimeout(ctx, 30*time.Second)
		ok, err := chromedp.Run(c, chromedp.Evaluate[bool](cond))
		cancel()
		if err == nil && ok {
			return
		}
		if err != nil && ctx.Err() != nil {
			t.Fatalf("evaluating %s: %v", cond, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	shot(t, ctx, "failed-"+strings.ReplaceAll(t.Name(), "/", "-"))
	t.Fatalf("waiting for %s (%s): not within %s", what, js, limit)
}

// shot saves a full-page screenshot named name.png.
func shot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(c, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.MkdirAll(screenshotDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(screenshotDir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

func newTestSite(t *testing.T, opts Options) *httptest.Server {
	t.Helper()
	site, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(site)
	t.Cleanup(func() {
		site.Close()
		srv.CloseClientConnections() // event streams never end by themselves
		srv.Close()
	})
	return srv
}

func TestBrowserPages(t *testing.T) {
	ctx := browser(t)
	srv := newTestSite(t, Options{Games: games.All()})
	pages := []struct{ path, name, want string }{
		{"/", "home", "Write a bot"},
		{"/rules/dots-and-boxes", "rules-dots-and-boxes", "first free edge"},
		{"/rules/lines-and-boxes", "rules-lines-and-boxes", "whether or not a box was captured"},
		{"/rules/grid-royale", "rules-grid-royale", "shrink_interval"},
		{"/play/dots-and-boxes", "play-dots-and-boxes", "You against a house bot"},
		{"/play/lines-and-boxes", "play-lines-and-boxes", "Pre-drawn lines"},
		{"/play/grid-royale", "play-grid-royale", "Watch the house bots"},
		{"/view", "view", "Open a replay file"},
		{"/leaderboard/dots-and-boxes", "leaderboard-without-service", "arena serve"},
	}
	for _, p := range pages {
		steps(t, ctx, "opening "+p.path, chromedp.Navigate(srv.URL+p.path), chromedp.WaitVisible(chromedp.CSS("main")))
		body := eval[string](t, ctx, "document.body.innerText")
		if !strings.Contains(body, p.want) {
			t.Errorf("%s does not show %q", p.path, p.want)
		}
		if p.path != "/" && p.path != "/view" {
			for _, nav := range []string{"Play built-ins", "Arena", "+ New bot", "Leaderboard", "Rules"} {
				if !strings.Contains(body, nav) {
					t.Errorf("%s lacks the navigation entry %q", p.path, nav)
				}
			}
		}
		shot(t, ctx, p.name)
	}
	// Dark theme by the toggle, kept across pages.
	steps(t, ctx, "switching to dark", chromedp.Navigate(srv.URL+"/rules/grid-royale"), chromedp.Click(chromedp.CSS("#theme-toggle")))
	if th := eval[string](t, ctx, "document.documentElement.getAttribute('data-theme')"); th != "dark" && th != "light" {
		t.Fatalf("theme after the toggle: %q", th)
	}
	steps(t, ctx, "reloading", chromedp.Navigate(srv.URL+"/rules/grid-royale"), chromedp.WaitVisible(chromedp.CSS("main")))
	shot(t, ctx, "rules-grid-royale-toggled-theme")
	eval[any](t, ctx, "localStorage.removeItem('arena-theme')")
}

// startGame fills the Play form and starts a game as the person, with the
// seed fixed: the house bots break ties by it and the games deal their
// boards by it, so a random one would make each run a different test.
func startGame(t *testing.T, ctx context.Context, url, gameID, opponent string, fill func()) {
	t.Helper()
	steps(t, ctx, "opening the play page", chromedp.Navigate(url+"/play/"+gameID), chromedp.WaitVisible(chromedp.CSS("#play-form")))
	steps(t, ctx, "choosing "+opponent, chromedp.Click(chromedp.CSS(`#play-form input[name=opponent][value="`+opponent+`"]`)),
		chromedp.SetValue(chromedp.CSS(`#play-form input[name=seed]`), playSeed))
	if fill != nil {
		fill()
	}
	steps(t, ctx, "starting", chromedp.Click(chromedp.CSS("#start-play")), chromedp.WaitVisible(chromedp.CSS("#board")))
}

// playSeed is the seed of the whole Dots and Boxes game in the browser test.
const playSeed = "1"

func TestBrowserPlayWholeDotsAndBoxesGame(t *testing.T) {
	ctx := browser(t)
	srv := newTestSite(t, Options{Games: games.All()})
	// startGame fixes the seed: with some seeds (8) this test's naive play
	// never gets a box to take.
	startGame(t, ctx, srv.URL, "dots-and-boxes", "greedy", nil)
	clicks, sawExtra := 0, false
	for i := 0; i < 200; i++ {
		waitJS(t, ctx, "my move or the end", "Arena.viewer && (Arena.viewer.done || (Arena.viewer.prompt >= 0 && document.querySelector('#board .hit')))", 20*time.Second)
		if eval[bool](t, ctx, "Arena.viewer.done") {
			break
		}
		if eval[bool](t, ctx, "!!document.querySelector('#seats li.sc0 .st-ignored')") {
			t.Fatal("the person's card shows 'ignored' for the house bot's turn")
		}
		if clicks == 3 {
			shot(t, ctx, "play-dots-and-boxes-game")
		}
		// The last free edge, so that the house bot gets boxes too.
		before := eval[int](t, ctx, "Arena.viewer.frames.length")
		if clicks == 0 {
			if n := eval[int](t, ctx, `document.querySelectorAll('a.skip[href="#board"]').length`); n != 1 {
				t.Fatalf("%d skip links to the board", n)
			}
			// The first move with the keyboard alone: focus an edge, move
			// with the arrow keys, press Enter. Edges are named in words.
			eval[any](t, ctx, "document.querySelector('#board .hit').focus()")
			if label := eval[string](t, ctx, "document.activeElement.getAttribute('aria-label')"); label != "Draw the top edge of the box in row 1, column 1" {
				t.Fatalf("the first edge is read out as %q", label)
			}
			index := eval[int](t, ctx, "Arena.viewer.index")
			steps(t, ctx, "moving right with the arrow key", chromedp.KeyEvent(kb.ArrowRight))
			steps(t, ctx, "and back and right again", chromedp.KeyEvent(kb.ArrowLeft), chromedp.KeyEvent(kb.ArrowRight))
			if now := eval[int](t, ctx, "Arena.viewer.index"); now != index {
				t.Fatalf("the arrow keys on the board moved the viewer from turn %d to %d", index, now)
			}
			if label := eval[string](t, ctx, "document.activeElement.getAttribute('aria-label') || ''"); label != "Draw the top edge of the box in row 1, column 2" {
				t.Fatalf("after ArrowRight the focus is on %q", label)
			}
			steps(t, ctx, "drawing an edge with Enter", chromedp.KeyEvent(kb.Enter))
			clicks++
			waitJS(t, ctx, "the keyboard move to be taken", fmt.Sprintf("Arena.viewer.done || Arena.viewer.frames.length > %d", before), 10*time.Second)
			continue
		}
		if !sawExtra && eval[bool](t, ctx, "document.getElementById('prompt').classList.contains('extra') && !document.getElementById('prompt').hidden") {
			sawExtra = true
			shot(t, ctx, "play-dots-and-boxes-extra-move")
		}
		// An edge that closes a box when there is one, else the last free edge.
		edge := eval[string](t, ctx, `(function(){
			var V = Arena.viewer, f = V.prepared[V.prepared.length-1];
			var hits = Array.from(document.querySelectorAll('#board .hit')).map(function(e){return e.getAttribute('data-edge')});
			function sides(r, c) { return (f.h[r][c]?1:0) + (f.h[r+1][c]?1:0) + (f.v[r][c]?1:0) + (f.v[r][c+1]?1:0); }
			for (var i = 0; i < hits.length; i++) {
				var p = hits[i].split(':'), r = +p[1], c = +p[2];
				if (p[0] === 'H' && ((r < 5 && sides(r, c) === 3) || (r > 0 && sides(r-1, c) === 3))) return hits[i];
				if (p[0] === 'V' && ((c < 5 && sides(r, c) === 3) || (c > 0 && sides(r, c-1) === 3))) return hits[i];
			}
			return hits[hits.length-1];
		})()`)
		steps(t, ctx, "clicking an edge", chromedp.Click(chromedp.CSS(`#board [data-edge="`+edge+`"]`)))
		clicks++
		waitJS(t, ctx, "the move to be taken", fmt.Sprintf("Arena.viewer.done || Arena.viewer.frames.length > %d", before), 10*time.Second)
	}
	waitJS(t, ctx, "the end of the game", "Arena.viewer.done && Arena.viewer.frames.length === 61", 20*time.Second)
	state := eval[string](t, ctx, "document.getElementById('v-state').textContent")
	if !strings.Contains(state, "Finished after 60 turns") || !strings.Contains(state, "You won") && !strings.Contains(state, "You lost") {
		t.Fatalf("state line %q, want the end and the result addressed to the person", state)
	}
	if clicks < 5 {
		t.Fatalf("only %d clicks in a whole game", clicks)
	}
	if !sawExtra {
		t.Fatal("never shown the extra move after closing a box")
	}
	if mine := eval[int](t, ctx, "Arena.viewer.result.scores[0]"); mine == 0 {
		t.Fatal("taking every box offered won no box")
	}
	shot(t, ctx, "play-dots-and-boxes-finished")
	// The game is kept as a replay: opening it again shows all 60 turns.
	loc := eval[string](t, ctx, "location.pathname")
	steps(t, ctx, "reopening the replay", chromedp.Navigate(srv.URL+loc+"?turn=30"))
	waitJS(t, ctx, "the replay at turn 30", "Arena.viewer && Arena.viewer.frames.length === 61 && Arena.viewer.index === 30", 10*time.Second)
	if !eval[bool](t, ctx, "!document.getElementById('dl').hidden") {
		t.Fatal("no download link on a finished game")
	}
	shot(t, ctx, "play-dots-and-boxes-replay-turn-30")
	// Rematch: the same game with the seats swapped.
	steps(t, ctx, "a rematch", chromedp.WaitVisible(chromedp.CSS("#rematch-go")), chromedp.Click(chromedp.CSS("#rematch-go")))
	waitJS(t, ctx, "the rematch", "location.pathname !== '"+loc+"' && Arena.viewer && Arena.viewer.mine && Arena.viewer.human === 1 && Arena.viewer.frames.length > 0", 20*time.Second)
	if bots := eval[string](t, ctx, "Arena.viewer.bots.join(' ')"); bots != "builtin:greedy human:you" {
		t.Fatalf("the rematch's seats: %q", bots)
	}
	shot(t, ctx, "play-dots-and-boxes-rematch")
}

func TestBrowserPlayLinesAndBoxesTurns(t *testing.T) {
	ctx := browser(t)
	srv := newTestSite(t, Options{Games: games.All()})
	startGame(t, ctx, srv.URL, "lines-and-boxes", "greedy", func() {
		steps(t, ctx, "choosing a 4x3 board",
			chromedp.SetValue(chromedp.CSS(`#play-form input[name=rows]`), "3"),
			chromedp.SetValue(chromedp.CSS(`#play-form input[name=cols]`), "4"))
	})
	for move := 0; move < 3; move++ {
		waitJS(t, ctx, "my move", "Arena.viewer.prompt >= 0 && document.querySelector('#board .hitdot')", 20*time.Second)
		turns := eval[int](t, ctx, "Arena.viewer.frames.length")
		// A dot with somewhere to go, and the farthest legal end from it.
		pick := eval[[]string](t, ctx, `(function(){
			var V = Arena.viewer, B = Arena.boards['lines-and-boxes'], f = V.prepared[V.prepared.length-1];
			for (var r = 0; r <= f.rows; r++) for (var c = 0; c <= f.cols; c++) {
				var ends = Object.keys(B.legalEnds(f, {r:r, c:c}));
				if (ends.length) return [B.dotName(r, c), ends[ends.length-1]];
			}
			return [];
		})()`)
		if len(pick) != 2 {
			t.Fatal("no legal line on the board")
		}
		if move == 2 {
			// The last move by dragging from one dot to the other.
			xy := eval[[]float64](t, ctx, `(function(){function c(n){var r=document.querySelector('#board [data-dot="'+n+'"]').getBoundingClientRect();return [r.left+r.width/2,r.top+r.height/2]}return c('`+pick[0]+`').concat(c('`+pick[1]+`'))})()`)
			steps(t, ctx, "dragging a line",
				chromedp.MouseEvent(input.DispatchMouseEventTypeMousePressed, xy[0], xy[1], chromedp.ButtonLeft),
				chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, (xy[0]+xy[2])/2, (xy[1]+xy[3])/2, chromedp.ButtonLeft),
				chromedp.MouseEvent(input.DispatchMouseEventTypeMouseMoved, xy[2], xy[3], chromedp.ButtonLeft),
				chromedp.MouseEvent(input.DispatchMouseEventTypeMouseReleased, xy[2], xy[3], chromedp.ButtonLeft))
		} else {
			steps(t, ctx, "clicking the first dot", chromedp.Click(chromedp.CSS(`#board [data-dot="`+pick[0]+`"]`)))
			waitJS(t, ctx, "legal ends highlighted", "document.querySelectorAll('#board .b-dot.legal').length > 0", 5*time.Second)
			if move == 0 {
				shot(t, ctx, "play-lines-and-boxes-legal-ends")
				if note := eval[string](t, ctx, "document.querySelector('.notation').textContent"); !strings.Contains(note, pick[0]) {
					t.Fatalf("the notation shows %q, want the first dot %s", note, pick[0])
				}
			}
			steps(t, ctx, "clicking the second dot", chromedp.Click(chromedp.CSS(`#board [data-dot="`+pick[1]+`"]`)))
		}
		waitJS(t, ctx, "my line and the answer", fmt.Sprintf("Arena.viewer.frames.length >= %d || Arena.viewer.done", turns+2), 20*time.Second)
		last := eval[string](t, ctx, fmt.Sprintf(`JSON.stringify(Arena.viewer.turns[%d].seats[0].action)`, turns-1))
		if !strings.Contains(last, pick[0]) || !strings.Contains(last, pick[1]) {
			t.Fatalf("move %d: the game applied %s, I drew %s %s", move, last, pick[0], pick[1])
		}
	}
	shot(t, ctx, "play-lines-and-boxes-after-3-moves")
}

func TestBrowserPlayGridRoyaleTurns(t *testing.T) {
	ctx := browser(t)
	srv := newTestSite(t, Options{Games: games.All()})
	startGame(t, ctx, srv.URL, "grid-royale", "harvester", nil)
	waitJS(t, ctx, "my turn", "Arena.viewer.prompt >= 0 && document.getElementById('end-turn')", 20*time.Second)
	// Keyboard alone: the skip link, Tab to my unit (named in words), order
	// it north, spawn, Enter on the board ends the turn.
	if n := eval[int](t, ctx, `document.querySelectorAll('a.skip[href="#board"]').length`); n != 1 {
		t.Fatalf("%d skip links to the board", n)
	}
	eval[any](t, ctx, `document.querySelector('a.skip[href="#board"]').focus()`)
	steps(t, ctx, "the skip link, then Tab", chromedp.KeyEvent(kb.Enter), chromedp.KeyEvent(kb.Tab))
	waitJS(t, ctx, "my unit focused and selected", "document.activeElement.matches('#board .unit.mine.sel')", 5*time.Second)
	label := eval[string](t, ctx, "document.activeElement.getAttribute('aria-label')")
	if !strings.HasPrefix(label, "Your unit ") || !strings.Contains(label, " at column ") || !strings.HasSuffix(label, "order: stay") {
		t.Fatalf("my unit is read out as %q", label)
	}
	words := eval[string](t, ctx, "document.getElementById('board-words').textContent")
	if !strings.Contains(words, "Turn 0 of 400") || !strings.Contains(words, "Your unit ") {
		t.Fatalf("the board in words at the start: %q", words)
	}
	steps(t, ctx, "ordering by keyboard", chromedp.KeyEvent("w"), chromedp.KeyEvent("p"))
	if label := eval[string](t, ctx, "document.activeElement.getAttribute('aria-label')"); !strings.HasSuffix(label, "order: north") {
		t.Fatalf("after w my unit is read out as %q", label)
	}
	shot(t, ctx, "play-grid-royale-orders")
	steps(t, ctx, "ending the turn with Enter on the board", chromedp.KeyEvent(kb.Enter))
	waitJS(t, ctx, "turn 1", "Arena.viewer.frames.length >= 2", 10*time.Second)
	action := eval[string](t, ctx, "JSON.stringify(Arena.viewer.turns[0].seats.filter(function(s){return s.seat===0})[0].action)")
	if !strings.Contains(action, "MOVE_N") || !strings.Contains(action, `"spawn":true`) {
		t.Fatalf("turn 1 applied %s, want my MOVE_N and a spawn", action)
	}
	if eval[bool](t, ctx, "document.getElementById('spawn').checked") {
		t.Fatal("Spawn is still ticked after the turn that spawned")
	}
	waitJS(t, ctx, "my turn again", "Arena.viewer.prompt >= 0 && Arena.viewer.index === Arena.viewer.frames.length - 1", 10*time.Second)
	if now := eval[string](t, ctx, "document.getElementById('board-words').textContent"); now == words || !strings.Contains(now, "Turn 1 of 400") {
		t.Fatalf("the board in words after turn 1: %q", now)
	}
	moved := eval[string](t, ctx, "document.querySelector('#movelist li[data-turn=\"1\"]').textContent")
	if !regexp.MustCompile(`You: unit \d+ north, spawned unit \d+`).MatchString(moved) {
		t.Fatalf("turn 1 in the move list: %q", moved)
	}
	// The unit went north and the new one is on the base below it: the
	// arrow keys on the board move between them, and do not step the replay.
	first := eval[string](t, ctx, "document.activeElement.getAttribute('data-unit')")
	steps(t, ctx, "to the unit below", chromedp.KeyEvent(kb.ArrowDown))
	waitJS(t, ctx, "the other unit focused and selected", "document.activeElement.matches('#board .unit.mine.sel') && document.activeElement.getAttribute('data-unit') !== '"+first+"'", 5*time.Second)
	steps(t, ctx, "and back up", chromedp.KeyEvent(kb.ArrowUp))
	waitJS(t, ctx, "the first unit again", "document.activeElement.getAttribute('data-unit') === '"+first+"' && Arena.viewer.index === Arena.viewer.frames.length - 1", 5*time.Second)
	// Repeat: every turn ends on its own with the last orders, and no spawn.
	steps(t, ctx, "stopping the unit", chromedp.KeyEvent("x"), chromedp.Click(chromedp.CSS("#repeat")))
	waitJS(t, ctx, "ten turns on repeat", "Arena.viewer.frames.length >= 12", 30*time.Second)
	if n := eval[int](t, ctx, "Arena.viewer.turns.filter(function(t){return t.seats.some(function(s){return s.seat===0 && s.action && s.action.spawn})}).length"); n != 1 {
		t.Fatalf("%d turns spawned, want only the one Spawn was ticked for", n)
	}
	steps(t, ctx, "stopping the repeat", chromedp.Click(chromedp.CSS("#repeat")))
	shot(t, ctx, "play-grid-royale-after-repeat")
}

// writeReplay plays a house-bot match and saves its replay.
func writeReplay(t *testing.T, gameID string, specs ...string) string {
	t.Helper()
	g, err := games.Lookup(gameID)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := match.Runner{}.Play(context.Background(), g, game.Config{Seed: 7, Players: len(specs), Params: game.Params{}}, local.Seats(spec.MustParseAll(specs...)))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), gameID+".json")
	if err := rep.Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestBrowserReplayViewer(t *testing.T) {
	ctx := browser(t)
	path := writeReplay(t, "grid-royale", "builtin:house", "builtin:harvester", "builtin:harvester", "builtin:idle")
	r, err := replay.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	srv := newTestSite(t, Options{Games: games.All(), Local: r})
	steps(t, ctx, "opening the local replay", chromedp.Navigate(srv.URL+"/local"))
	waitJS(t, ctx, "the replay", "Arena.viewer && Arena.viewer.frames.length === 401", 20*time.Second)
	// A finished match plays from its start when opened; Space pauses it.
	waitJS(t, ctx, "the replay playing by itself", "Arena.viewer.playing && Arena.viewer.index > 0", 10*time.Second)
	steps(t, ctx, "pausing the autoplay", chromedp.KeyEvent(" "))
	waitJS(t, ctx, "paused", "!Arena.viewer.playing", 5*time.Second)
	paused := eval[int](t, ctx, "Arena.viewer.index")
	time.Sleep(time.Second)
	if i := eval[int](t, ctx, "Arena.viewer.index"); i != paused {
		t.Fatalf("paused at turn %d, then at turn %d a second later", paused, i)
	}
	steps(t, ctx, "to the first turn", chromedp.KeyEvent(kb.Home))
	steps(t, ctx, "stepping with the keyboard", chromedp.KeyEvent("l"), chromedp.KeyEvent("l"), chromedp.Click(chromedp.CSS("#b-next")))
	waitJS(t, ctx, "turn 3", "Arena.viewer.index === 3", 5*time.Second)
	if !strings.Contains(eval[string](t, ctx, "location.search"), "turn=3") {
		t.Fatal("stepping does not update ?turn=")
	}
	// Scrub: drag the range input to the middle.
	steps(t, ctx, "scrubbing", chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Evaluate[any](`(function(){var s=document.getElementById('scrub'); s.value='200'; s.dispatchEvent(new Event('input')); s.dispatchEvent(new Event('change'));})()`)(ctx, tg)
		return err
	}))
	waitJS(t, ctx, "turn 200", "Arena.viewer.index === 200", 5*time.Second)
	units := eval[int](t, ctx, "document.querySelectorAll('#board .unit').length")
	want := eval[int](t, ctx, "Arena.viewer.prepared[200].units.length")
	if units != want || units == 0 {
		t.Fatalf("turn 200 draws %d units, the state has %d", units, want)
	}
	shot(t, ctx, "replay-grid-royale-turn-200")
	// Play at 10x for a moment, then pause.
	steps(t, ctx, "playing at 10x", chromedp.SetValue(chromedp.CSS("#speed"), "10"), chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Evaluate[any](`document.getElementById('speed').dispatchEvent(new Event('change'))`)(ctx, tg)
		return err
	}), chromedp.Click(chromedp.CSS("#b-play")))
	waitJS(t, ctx, "playback to advance", "Arena.viewer.index > 205", 10*time.Second)
	steps(t, ctx, "pausing", chromedp.KeyEvent(" "))
	waitJS(t, ctx, "space to pause", "!Arena.viewer.playing", 5*time.Second)
	steps(t, ctx, "the last turn", chromedp.KeyEvent(kb.End))
	waitJS(t, ctx, "the last turn", "Arena.viewer.index === 400", 5*time.Second)
	shot(t, ctx, "replay-grid-royale-end")
	steps(t, ctx, "dark", chromedp.Click(chromedp.CSS("#theme-toggle")))
	shot(t, ctx, "replay-grid-royale-end-other-theme")
	steps(t, ctx, "light again", chromedp.Click(chromedp.CSS("#theme-toggle")))
	// A link to a turn opens there.
	steps(t, ctx, "a turn link", chromedp.Navigate(srv.URL+eval[string](t, ctx, "location.pathname")+"?turn=123"))
	waitJS(t, ctx, "turn 123", "Arena.viewer && Arena.viewer.frames.length === 401 && Arena.viewer.index === 123", 20*time.Second)
	time.Sleep(time.Second)
	if i, playing := eval[int](t, ctx, "Arena.viewer.index"), eval[bool](t, ctx, "Arena.viewer.playing"); i != 123 || playing {
		t.Fatalf("a link to turn 123 is at turn %d a second later (playing %v); it opens paused", i, playing)
	}
}

// A match watched live ends on its final state: the server's final snapshot
// does not send the view back to turn 0, nor start it playing again.
func TestBrowserLiveMatchEndsOnTheFinalState(t *testing.T) {
	ctx := browser(t)
	r, data, turns := liveMatch(t)
	srv := serveWithPlatform(t, Options{Games: games.All(), Service: true}, fakeLive(t, data, turns, 10))
	steps(t, ctx, "watching the match live", chromedp.Navigate(srv.URL+"/matches/1"))
	last := len(r.Turns)
	waitJS(t, ctx, "the end", fmt.Sprintf("Arena.viewer && Arena.viewer.done && Arena.viewer.frames.length === %d", last+1), 20*time.Second)
	time.Sleep(500 * time.Millisecond)
	if i, playing := eval[int](t, ctx, "Arena.viewer.index"), eval[bool](t, ctx, "Arena.viewer.playing"); i != last || playing {
		t.Fatalf("after the end the view is at turn %d (playing %v), want the final turn %d", i, playing, last)
	}
	if label := eval[string](t, ctx, "document.getElementById('turnlabel').textContent"); label != fmt.Sprintf("turn %d of %d", last, last) {
		t.Fatalf("turn label %q", label)
	}
	shot(t, ctx, "platform-live-ended")
}

func TestBrowserOpenReplayFileAndPhone(t *testing.T) {
	ctx := browser(t)
	srv := newTestSite(t, Options{Games: games.All()})
	path := writeReplay(t, "lines-and-boxes", "builtin:search", "builtin:greedy")
	steps(t, ctx, "uploading a replay file", chromedp.Navigate(srv.URL+"/view"),
		chromedp.SetUploadFiles(chromedp.CSS(`input[type=file]`), []string{path}),
		chromedp.Click(chromedp.CSS(`form button[type=submit]`)))
	waitJS(t, ctx, "the uploaded replay", "Arena.viewer && Arena.viewer.done && Arena.viewer.frames.length > 10", 20*time.Second)
	steps(t, ctx, "to the end", chromedp.KeyEvent(kb.End))
	shot(t, ctx, "replay-lines-and-boxes-uploaded")
	loc := eval[string](t, ctx, "location.pathname")

	// A phone: 375 px wide, nothing wider than the screen.
	steps(t, ctx, "a phone viewport", chromedp.EmulateViewport(375, 740, chromedp.EmulateMobile))
	for _, p := range []struct{ path, name string }{
		{"/", "phone-home"}, {"/rules/grid-royale", "phone-rules-grid-royale"}, {"/play/lines-and-boxes", "phone-play"}, {loc + "?turn=9", "phone-replay"},
	} {
		steps(t, ctx, "opening "+p.path, chromedp.Navigate(srv.URL+p.path), chromedp.WaitVisible(chromedp.CSS("main")))
		if strings.HasPrefix(p.path, "/s/") {
			waitJS(t, ctx, "the replay", "Arena.viewer && Arena.viewer.index === 9", 10*time.Second)
		}
		if w := eval[int](t, ctx, "document.documentElement.scrollWidth"); w > 375 {
			t.Errorf("%s is %d px wide on a 375 px screen", p.path, w)
		}
		shot(t, ctx, p.name)
	}
	// The other theme on the phone too.
	steps(t, ctx, "the dark theme", chromedp.Navigate(srv.URL+loc+"?turn=9"), chromedp.WaitVisible(chromedp.CSS("main")))
	eval[any](t, ctx, "localStorage.setItem('arena-theme', 'dark')")
	steps(t, ctx, "reloading dark", chromedp.Navigate(srv.URL+loc+"?turn=9"))
	waitJS(t, ctx, "the dark replay", "document.documentElement.getAttribute('data-theme') === 'dark' && Arena.viewer && Arena.viewer.index === 9", 10*time.Second)
	shot(t, ctx, "phone-replay-dark")
	steps(t, ctx, "the dark play page", chromedp.Navigate(srv.URL+"/play/grid-royale"), chromedp.WaitVisible(chromedp.CSS("main")))
	shot(t, ctx, "phone-play-dark")
	eval[any](t, ctx, "localStorage.removeItem('arena-theme')")
}

// A house bot match watched live reaches the browser turn by turn.
func TestBrowserWatchLive(t *testing.T) {
	ctx := browser(t)
	srv := newTestSite(t, Options{Games: games.All()})
	steps(t, ctx, "starting a watched match", chromedp.Navigate(srv.URL+"/play/dots-and-boxes"),
		chromedp.SetValue(chromedp.CSS(`#watch-form input[name=seed]`), playSeed), chromedp.Click(chromedp.CSS("#start-watch")))
	waitJS(t, ctx, "live turns", "Arena.viewer && !Arena.viewer.done && Arena.viewer.frames.length > 3", 20*time.Second)
	shot(t, ctx, "watch-dots-and-boxes-live")
	waitJS(t, ctx, "the end", "Arena.viewer.done", 40*time.Second)
}
