package web

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/server"
	"github.com/arenabots/arena/internal/store/storetest"
	"github.com/arenabots/arena/sandbox/wasmtest"
)

// platform starts the whole platform (SQLite unless db names a database,
// in-process NATS and workers) with this site mounted, as `arena serve`
// does; change adjusts the server's options.
func platform(t *testing.T, change ...func(*server.Options)) string {
	t.Helper()
	site, err := New(Options{Games: games.All(), Service: true, ReplayDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	opt := server.Options{DataDir: t.TempDir(), Workers: 2, Site: site, Rest: time.Millisecond}
	for _, c := range change {
		c(&opt)
	}
	srv, err := server.New(ctx, opt)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	site.SetAPI(srv.Handler())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		site.Close()
		cancel()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			t.Error("the server did not stop")
		}
	})
	return "http://" + ln.Addr().String()
}

// The "done when" in a browser: sign up, upload the Go starter kit,
// see its smoke match, find it on the leaderboard beside @house with a
// rating and a match count, open one of its matches with per-turn statuses
// and its log, and make an API token; on SQLite and on Postgres (the one
// $ARENA_TEST_POSTGRES names: the test fails without it, as the store's do).
func TestBrowserSignUpUploadLeaderboard(t *testing.T) {
	wasm := wasmtest.GoBuild(t, "../../games/dotsandboxes/kits/go/dots-and-boxes", "")
	t.Run("sqlite", func(t *testing.T) { signUpUploadLeaderboard(t, wasm, platform(t), "") })
	t.Run("postgres", func(t *testing.T) {
		db := storetest.PostgresURL(t)
		signUpUploadLeaderboard(t, wasm, platform(t, func(o *server.Options) { o.DB = db }), "pg-")
	})
}

// signUpUploadLeaderboard is the flow above on one platform; its
// screenshots' names start with prefix.
func signUpUploadLeaderboard(t *testing.T, wasm, base, prefix string) {
	ctx := browser(t)
	shot := func(t *testing.T, ctx context.Context, name string) { t.Helper(); shot(t, ctx, prefix+name) }
	waitJS := func(what, js string, limit time.Duration) { t.Helper(); waitJSAt(t, ctx, what, js, limit) }

	steps(t, ctx, "the leaderboard before", chromedp.Navigate(base+"/leaderboard/dots-and-boxes"))
	waitJS("house bots on the leaderboard", "document.querySelectorAll('#rows tr td a').length >= 6", 20*time.Second)
	shot(t, ctx, "platform-leaderboard-house")

	steps(t, ctx, "signing up", chromedp.Navigate(base+"/account"), chromedp.WaitVisible(chromedp.CSS("#signup")),
		chromedp.SendKeys(chromedp.CSS("#su-handle"), "alice"), chromedp.SendKeys(chromedp.CSS("#su-password"), "correct horse battery"),
		chromedp.Click(chromedp.CSS("#su-submit")))
	waitJS("logged in", "!document.getElementById('acc-in').hidden && document.getElementById('acc-handle').textContent === '@alice'", 20*time.Second)
	if tok := eval[string](t, ctx, "document.getElementById('token').textContent"); !strings.HasPrefix(tok, "") || tok == "" {
		t.Fatal("sign-up shows no API token")
	}
	shot(t, ctx, "platform-account")

	steps(t, ctx, "uploading the starter kit", chromedp.Navigate(base+"/bots/new?game=dots-and-boxes"), chromedp.WaitVisible(chromedp.CSS("#upload")),
		chromedp.SendKeys(chromedp.CSS("#nb-name"), "starter"), chromedp.SetUploadFiles(chromedp.CSS("#nb-file"), []string{wasm}),
		chromedp.Click(chromedp.CSS("#nb-submit")))
	waitJS("the smoke match's verdict", "document.querySelector('#nb-result .ok-msg')", 90*time.Second)
	shot(t, ctx, "platform-upload-ok")
	smoke := eval[string](t, ctx, "(document.querySelector('#nb-result a[href^=\"/matches/\"]')||{}).getAttribute ? document.querySelector('#nb-result a[href^=\"/matches/\"]').getAttribute('href') : ''")
	if smoke == "" {
		t.Fatal("no link to the smoke match")
	}

	// The smoke match in the viewer: statuses per turn, and the log for the owner.
	steps(t, ctx, "the smoke match", chromedp.Navigate(base+smoke))
	waitJS("the smoke match's replay", "Arena.viewer && Arena.viewer.done && Arena.viewer.frames.length === 61", 20*time.Second)
	waitJS("the owner's log", "!document.getElementById('logs').hidden", 20*time.Second)
	steps(t, ctx, "to turn 20", chromedp.Navigate(base+smoke+"?turn=20"))
	waitJS("turn 20", "Arena.viewer && Arena.viewer.index === 20 && document.querySelectorAll('#charts .chart').length === 2", 20*time.Second)
	waitJS("the owner's log", "!document.getElementById('logs').hidden", 20*time.Second)
	shot(t, ctx, "platform-smoke-match")

	deadline := time.Now().Add(120 * time.Second)
	for {
		steps(t, ctx, "the leaderboard", chromedp.Navigate(base+"/leaderboard/dots-and-boxes"))
		waitJS("rows", "document.querySelectorAll('#rows tr').length > 1", 20*time.Second)
		row := eval[string](t, ctx, `(function(){var r=Array.from(document.querySelectorAll('#rows tr')).filter(function(tr){return tr.textContent.indexOf('@alice')>=0})[0];return r?Array.from(r.children).map(function(td){return td.textContent}).join('|'):''})()`)
		var rank, player, botName string
		var rating, matches int
		if row != "" {
			fmt.Sscanf(strings.ReplaceAll(row, "|", " "), "%s %s %s %d %d", &rank, &player, &botName, &rating, &matches)
		}
		if row != "" && matches >= 2 && rating > 0 {
			t.Logf("leaderboard row: %s", row)
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("@alice's bot is not on the leaderboard with rated matches: %q", row)
		}
		time.Sleep(2 * time.Second)
	}
	if !strings.Contains(eval[string](t, ctx, "document.getElementById('rows').textContent"), "@house") {
		t.Fatal("@house is not beside the new bot")
	}
	shot(t, ctx, "platform-leaderboard-with-alice")

	// The bot's page: versions, rating history, status counts.
	steps(t, ctx, "alice's bot", chromedp.Navigate(base+eval[string](t, ctx, `Array.from(document.querySelectorAll('#rows tr')).filter(function(tr){return tr.textContent.indexOf('@alice')>=0})[0].querySelector('a[href^="/bots/"]').getAttribute('href')`)))
	waitJS("the bot page", "document.getElementById('b-title').textContent === 'starter' && document.querySelectorAll('#b-versions tr').length === 1 && document.querySelector('#b-chart polyline') && document.querySelectorAll('#b-status tr').length === 8 && document.querySelector('#b-status caption')", 20*time.Second)
	shot(t, ctx, "platform-bot-page")

	steps(t, ctx, "the arena", chromedp.Navigate(base+"/arena/dots-and-boxes"))
	waitJS("finished matches", "document.querySelectorAll('#finished li a').length > 0 && !document.getElementById('challenge').hidden", 20*time.Second)
	shot(t, ctx, "platform-arena")
	// The button's own click, not a mouse click at its place: the live list
	// above it changes as matches start and end, which moves the button.
	eval[any](t, ctx, "document.querySelector('#challenge button[type=submit]').click()")
	waitJS("the challenge's match", "location.pathname.indexOf('/matches/') === 0 && window.Arena && Arena.viewer && Arena.viewer.done", 120*time.Second)
	shot(t, ctx, "platform-challenge-match")

	steps(t, ctx, "a new token", chromedp.Navigate(base+"/account"), chromedp.WaitVisible(chromedp.CSS("#new-token")), chromedp.Click(chromedp.CSS("#new-token")))
	waitJS("the token", "document.getElementById('token').textContent.length > 10", 10*time.Second)
	steps(t, ctx, "logging out", chromedp.Click(chromedp.CSS("#logout")))
	waitJS("logged out", "!document.getElementById('acc-out').hidden", 10*time.Second)
	steps(t, ctx, "the player page", chromedp.Navigate(base+"/players/alice"))
	waitJS("alice's bots", "document.querySelectorAll('#p-bots a').length >= 1", 10*time.Second)
	shot(t, ctx, "platform-player")

	// A phone: the leaderboard and the Arena fit 375 px.
	steps(t, ctx, "a phone viewport", chromedp.EmulateViewport(375, 740, chromedp.EmulateMobile))
	for _, p := range []struct{ path, name string }{{"/leaderboard/dots-and-boxes", "phone-platform-leaderboard"}, {"/arena/dots-and-boxes", "phone-platform-arena"}} {
		steps(t, ctx, "opening "+p.path, chromedp.Navigate(base+p.path))
		waitJS("the page's data", "document.querySelectorAll('#rows tr, #finished li').length > 1", 20*time.Second)
		if w := eval[int](t, ctx, "document.documentElement.scrollWidth"); w > 375 {
			t.Errorf("%s is %d px wide on a 375 px screen", p.path, w)
		}
		shot(t, ctx, p.name)
	}
}
