package web

import (
	"archive/zip"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/chromedp"

	"github.com/arenabots/arena/botcheck"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games"
)

// TestBrowserNewBotDownloads is a newcomer's start on + New bot, without a
// clone of the repository: for every game, the page shows that game's kits
// and commands (chosen by its links, or by the upload form's game); every
// kit link downloads in Chromium; the Go starter kit, unpacked, builds with
// the commands of its own README and passes the upload's check; the arena
// command's link downloads the server's binary.
func TestBrowserNewBotDownloads(t *testing.T) {
	ctx := browser(t)
	srv := newTestSite(t, Options{Games: games.All(), Service: true})
	downloads := t.TempDir()
	yes := true
	if _, err := chromedp.Call(ctx, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
		Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: downloads, EventsEnabled: &yes}); err != nil {
		t.Fatal(err)
	}
	shown := func() string {
		return eval[string](t, ctx, `Array.from(document.querySelectorAll('[data-kits-for]')).filter(function(e){return !e.hidden}).map(function(e){return e.getAttribute('data-kits-for')}).join(',')`)
	}

	steps(t, ctx, "+ New bot", chromedp.Navigate(srv.URL+"/bots/new"), chromedp.WaitVisible(chromedp.CSS("main")))
	first := games.All()[0].Info().ID
	if got := shown(); got != first {
		t.Fatalf("+ New bot without a game shows the kits of %q, want %q", got, first)
	}
	body := eval[string](t, ctx, "document.querySelector('main').innerText")
	for _, never := range []string{"repository", "./cmd/arena", "go install"} {
		if strings.Contains(body, never) {
			t.Errorf("+ New bot says %q, which a newcomer without a clone cannot follow", never)
		}
	}

	for _, g := range games.All() {
		id := g.Info().ID
		t.Run(id, func(t *testing.T) {
			// The game's link among "Starter kits for", as a visitor
			// who is not logged in clicks it.
			steps(t, ctx, "choosing "+id, chromedp.Navigate(srv.URL+"/bots/new"), chromedp.WaitVisible(chromedp.CSS("main")),
				chromedp.Click(chromedp.CSS(`.kit-games a[data-kit-game="`+id+`"]`)))
			waitJS(t, ctx, id+"'s kits", `location.search === '?game=`+id+`' && document.querySelector('[data-kits-for="`+id+`"]') && !document.querySelector('[data-kits-for="`+id+`"]').hidden`, 20*time.Second)
			if got := shown(); got != id {
				t.Fatalf("after choosing %s the page shows the kits of %q", id, got)
			}
			steps(t, ctx, "desktop size", chromedp.EmulateViewport(1280, 900))
			shot(t, ctx, "newbot-"+id)
			steps(t, ctx, "phone size", chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile))
			shot(t, ctx, "newbot-"+id+"-phone")
			steps(t, ctx, "desktop size", chromedp.EmulateViewport(1280, 900))
			block := `[data-kits-for="` + id + `"]`
			text := eval[string](t, ctx, "document.querySelector('"+block+"').innerText")
			for _, want := range []string{"arena check --game " + id + " bot.wasm", "--game " + id + " --name mybot", "arena push --server " + srv.URL} {
				if !strings.Contains(text, want) {
					t.Errorf("the steps for %s lack %q:\n%s", id, want, text)
				}
			}
			links := eval[[]string](t, ctx, "Array.from(document.querySelectorAll('"+block+" a[download]')).map(function(a){return a.getAttribute('href')})")
			site, err := New(Options{Games: games.All()})
			if err != nil {
				t.Fatal(err)
			}
			defer site.Close()
			kitsOf := site.gameKits(id)
			if len(links) != len(kitsOf)+1 {
				t.Fatalf("%s: download links %v, want the %d kits and the arena command", id, links, len(kitsOf))
			}
			for _, k := range kitsOf {
				href := "/kits/" + k.Lang + "/" + k.Kit + ".zip"
				file := filepath.Join(downloads, k.Kit+"-"+k.Lang+".zip")
				steps(t, ctx, "downloading "+href, chromedp.Click(chromedp.CSS(block+` a[href="`+href+`"]`)))
				data := downloaded(t, file, 30*time.Second)
				dir := unzip(t, data)
				if k.Lang == "go" && k.Kit == id {
					buildAsREADME(t, dir, g)
				}
			}
		})
	}

	// The upload form's game drives the same steps, without a page load.
	steps(t, ctx, "+ New bot", chromedp.Navigate(srv.URL+"/bots/new"), chromedp.WaitVisible(chromedp.CSS("main")))
	last := games.All()[len(games.All())-1].Info().ID
	eval[bool](t, ctx, `(function(){var s=document.getElementById('nb-game');s.value='`+last+`';s.dispatchEvent(new Event('change',{bubbles:true}));return true})()`)
	if got := shown(); got != last {
		t.Fatalf("after the upload form's game became %s the page shows the kits of %q", last, got)
	}
	if cur := eval[string](t, ctx, "document.querySelector('.kit-games a[aria-current]').getAttribute('data-kit-game')"); cur != last {
		t.Errorf("the game marked among the kits' links: %q, want %q", cur, last)
	}

	// The arena command: the server's own binary, under its platform's name.
	steps(t, ctx, "downloading the arena command", chromedp.Click(chromedp.CSS(`[data-kits-for="`+last+`"] a[href="/download/`+commandName()+`"]`)))
	got := downloaded(t, filepath.Join(downloads, commandName()), 120*time.Second)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(self)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the arena command's download: %d bytes, not the server's binary (%d bytes)", len(got), len(want))
	}
	resp, err := http.Get(srv.URL + "/download/arena-plan9-mips")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound || bytes.Contains(page, []byte("repository")) || !bytes.Contains(page, []byte("+ New bot")) {
		t.Errorf("another platform's command: %d, %q: want a 404 that points to the upload form", resp.StatusCode, page)
	}
}

// downloaded waits for the browser to finish writing file and returns its
// bytes.
func downloaded(t *testing.T, file string, limit time.Duration) []byte {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(file + ".crdownload"); err != nil {
			if data, err := os.ReadFile(file); err == nil && len(data) > 0 {
				return data
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("%s was not downloaded within %s", filepath.Base(file), limit)
	return nil
}

// unzip unpacks a kit's archive (one folder) into a fresh directory and
// returns that folder.
func unzip(t *testing.T, data []byte) string {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	var folder string
	for _, f := range zr.File {
		top, _, ok := strings.Cut(f.Name, "/")
		if !ok || strings.Contains(f.Name, "..") || (folder != "" && top != folder) {
			t.Fatalf("the archive holds %q: want one folder of files", f.Name)
		}
		folder = top
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(root, top), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, f.Name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(root, folder)
}

// buildAsREADME runs the build commands of the kit's README (its first sh
// block: what a newcomer copies) in the unpacked kit, then checks the
// bot.wasm they write as an upload is checked.
func buildAsREADME(t *testing.T, dir string, g game.Game) {
	t.Helper()
	gameID := g.Info().ID
	readme, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```sh\n(.*?)```").FindSubmatch(readme)
	if m == nil {
		t.Fatalf("%s's README has no sh block with its build", gameID)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(m[1])), "\n") {
		cmd := exec.Command("sh", "-c", line)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s's README: %s: %v\n%s", gameID, line, err, out)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	rep, err := botcheck.Check(ctx, g, filepath.Join(dir, "bot.wasm"), botcheck.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Passed {
		t.Fatalf("%s's Go kit, built as its README says, fails the check: %v", gameID, rep.Problems)
	}
}
