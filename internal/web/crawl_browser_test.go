package web

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/arenabots/arena/sandbox/wasmtest"
)

// problems collects what a page must not do: a console error, an uncaught
// exception, a request answered 4xx or 5xx other than the page's own.
type problems struct {
	mu    sync.Mutex
	docs  map[string]bool // the pages' own addresses, whose status is theirs
	fails []problem
}

type problem struct{ url, what string }

// watch starts collecting a tab's problems.
func watch(t *testing.T, ctx context.Context) *problems {
	t.Helper()
	p := &problems{docs: map[string]bool{}}
	err := chromedp.Listen(ctx, func(ev any) {
		p.mu.Lock()
		defer p.mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventExceptionThrown:
			p.fails = append(p.fails, problem{"", "uncaught exception: " + exceptionText(e.ExceptionDetails)})
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				p.fails = append(p.fails, problem{"", "console." + string(e.Type) + ": " + strings.Join(args, " ")})
			}
		case *log.EventEntryAdded:
			if e.Entry.Level == log.EntryLevelError {
				p.fails = append(p.fails, problem{e.Entry.URL, "console: " + e.Entry.Text})
			}
		case *network.EventResponseReceived:
			if e.Type == network.ResourceTypeDocument {
				p.docs[e.Response.URL] = true
			}
			if e.Response.Status >= 400 {
				p.fails = append(p.fails, problem{e.Response.URL, fmt.Sprintf("%d %s", e.Response.Status, e.Response.StatusText)})
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// take returns the problems since the last take, leaving out the pages' own
// statuses (an error page answers 404 on purpose).
func (p *problems) take() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, f := range p.fails {
		if f.url != "" && p.docs[f.url] {
			continue
		}
		out = append(out, strings.TrimSpace(f.url+" "+f.what))
	}
	p.fails = nil
	return out
}

// oneMatches is a plural after one.
var oneMatches = regexp.MustCompile(`\b1 (rated )?matches`)

// sections are the five entries every page links to.
var sections = []string{"Play built-ins", "Arena", "+ New bot", "Leaderboard", "Rules"}

// checkPage fails the test when the page in ctx lacks a section or had a
// problem; it returns the page's text.
func checkPage(t *testing.T, ctx context.Context, p *problems, path string) string {
	t.Helper()
	navs := eval[[]string](t, ctx, "Array.from(document.querySelectorAll('nav.sections a')).map(function(a){return a.textContent})")
	for _, s := range sections {
		if !slices.Contains(navs, s) {
			t.Errorf("%s: no %q in the navigation (%q)", path, s, navs)
		}
	}
	for _, f := range p.take() {
		t.Errorf("%s: %s", path, f)
	}
	body := eval[string](t, ctx, "document.body.innerText")
	if m := oneMatches.FindString(body); m != "" {
		t.Errorf("%s says %q", path, m)
	}
	return body
}

// Missing things and unknown addresses are pages: the site's look, the five
// sections, a status, and what to do; nothing thrown in the console.
func TestBrowserErrorPages(t *testing.T) {
	base := platform(t)
	ctx := browser(t)
	p := watch(t, ctx)
	for _, c := range []struct {
		status     int64
		path, want string
	}{
		{200, "/", "Write a bot"},
		{200, "/leaderboard/dots-and-boxes", "leaderboard"},
		{404, "/bots/99999", "There is no bot 99999"},
		{404, "/bots/abc", "There is no such bot"},
		{404, "/players/nosuchplayer", `There is no player called "nosuchplayer"`},
		{404, "/matches/99999", "There is no match 99999"},
		{404, "/nonexistent", `There is no page at "/nonexistent"`},
		{404, "/rules/chess", `There is no game called "chess"`},
		{404, "/s/nosuchgame", "This game is not here any more"},
	} {
		c2, cancel := context.WithTimeout(ctx, 30e9)
		resp, err := chromedp.RunResponse(c2, chromedp.Navigate(base+c.path))
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", c.path, err)
		}
		steps(t, ctx, "waiting for "+c.path, chromedp.WaitReady(chromedp.CSS("body")))
		if resp.Status != c.status {
			t.Errorf("%s: status %d, want %d", c.path, resp.Status, c.status)
		}
		if c.path == "/leaderboard/dots-and-boxes" {
			waitJS(t, ctx, "the leaderboard's rows", "document.querySelectorAll('#rows a').length > 0", 10e9)
		}
		body := checkPage(t, ctx, p, c.path)
		if !strings.Contains(body, c.want) {
			t.Errorf("%s says %q, want %q", c.path, body, c.want)
		}
		if c.status != http.StatusOK && !strings.Contains(body, "Check the address") {
			t.Errorf("%s does not say what to do: %q", c.path, body)
		}
		shot(t, ctx, "error"+strings.ReplaceAll(c.path, "/", "-"))
	}
}

func exceptionText(d *runtime.ExceptionDetails) string {
	if d.Exception != nil && d.Exception.Description != "" {
		return d.Exception.Description
	}
	return d.Text
}

// TestBrowserCrawl visits every page reachable from the home page, logged
// out and then logged in, on a platform with house matches played and a
// player with a refused bot: no page may log a console error, throw, ask
// for something that fails (other than the page's own status), or lack one
// of the five sections. It keeps a screenshot of each page kind.
func TestBrowserCrawl(t *testing.T) {
	loop := wasmtest.GoBuild(t, "../server/testdata/loop", "")
	base := platform(t)
	ctx := browser(t)
	p := watch(t, ctx)

	// A player whose only bot was refused (it never answers).
	var acc struct{ Token string }
	apiCall(t, "POST", base+"/api/v1/accounts", "", map[string]string{"handle": "crawler", "password": "correct horse battery"}, &acc)
	data, err := os.ReadFile(loop)
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest("POST", base+"/api/v1/games/dots-and-boxes/bots/looper", bytes.NewReader(data))
	req.Header.Set("Authorization", "Bearer "+acc.Token)
	req.Header.Set("Content-Type", "application/wasm")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 422 {
		t.Fatalf("the looping bot's upload: %d, want 422 (refused)", resp.StatusCode)
	}
	// Some finished house matches to follow links to.
	deadline := time.Now().Add(60 * time.Second)
	for {
		var list struct{ Matches []struct{ ID int64 } }
		apiCall(t, "GET", base+"/api/v1/matches?state=finished&limit=3", "", nil, &list)
		if len(list.Matches) >= 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no finished matches within a minute")
		}
		time.Sleep(time.Second)
	}

	crawl(t, ctx, p, base, "out")

	steps(t, ctx, "logging in", chromedp.Navigate(base+"/account"), chromedp.WaitVisible(chromedp.CSS("#login")),
		chromedp.SendKeys(chromedp.CSS("#li-handle"), "crawler"), chromedp.SendKeys(chromedp.CSS("#li-password"), "correct horse battery"),
		chromedp.Click(chromedp.CSS("#li-submit")))
	waitJS(t, ctx, "logged in, the bot's state known", "!document.getElementById('acc-in').hidden && document.querySelector('#acc-bots .st')", 20*time.Second)
	if bots := eval[string](t, ctx, "document.getElementById('acc-bots').textContent"); !strings.Contains(bots, "refused") || strings.Contains(bots, "rating") {
		t.Errorf("the account lists the refused bot as %q", bots)
	}
	shot(t, ctx, "crawl-account-refused-bot")
	shown := crawl(t, ctx, p, base, "in")

	// A phone: one page of each kind fits 375 px.
	steps(t, ctx, "a phone viewport", chromedp.EmulateViewport(375, 740, chromedp.EmulateMobile))
	for _, path := range shown {
		steps(t, ctx, "opening "+path+" on a phone", chromedp.Navigate(base+path))
		settle(t, ctx)
		if w := eval[int](t, ctx, "document.documentElement.scrollWidth"); w > 375 {
			t.Errorf("%s is %d px wide on a 375 px screen", path, w)
		}
		checkPage(t, ctx, p, "phone "+path)
		shot(t, ctx, "crawl-phone"+shotName(path))
	}
}

// settle waits for a page to fill itself from the API.
func settle(t *testing.T, ctx context.Context) {
	t.Helper()
	waitJS(t, ctx, "the page to settle", "document.readyState === 'complete' && !/Loading…/.test(document.body.innerText)", 20*time.Second)
	time.Sleep(300 * time.Millisecond)
}

func shotName(path string) string {
	return strings.NewReplacer("/", "-", "?", "-", "=", "-").Replace(path)
}

// crawlSkip are links not to follow: downloads, streams, the API.
var crawlSkip = regexp.MustCompile(`^/api/|/events$|\.json$|^/static/`)

// crawl visits every page reachable from base's home page (a few of each
// kind of bot, player and match) and checks each with checkPage. It
// returns the pages it kept a screenshot of: one of each kind.
func crawl(t *testing.T, ctx context.Context, p *problems, base, tag string) (shown []string) {
	t.Helper()
	kinds, shots := map[string]int{}, map[string]bool{}
	kind := regexp.MustCompile(`^/(matches|bots|players)/([0-9]+|[a-z0-9_-]+)$`)
	kindOf := func(path string) string {
		if m := kind.FindStringSubmatch(path); m != nil && path != "/bots/new" {
			return m[1]
		}
		return ""
	}
	seen := map[string]bool{"/": true}
	queue := []string{"/"}
	for len(queue) > 0 && len(seen) < 120 {
		path := queue[0]
		queue = queue[1:]
		c, cancel := context.WithTimeout(ctx, 30*time.Second)
		resp, err := chromedp.RunResponse(c, chromedp.Navigate(base+path))
		cancel()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if resp.Status != http.StatusOK {
			t.Errorf("%s (linked): status %d", path, resp.Status)
		}
		settle(t, ctx)
		checkPage(t, ctx, p, tag+" "+path)
		if k := kindOf(strings.SplitN(path, "?", 2)[0]); k == "" || !shots[k] {
			shots[k] = k != ""
			shot(t, ctx, "crawl-"+tag+shotName(path))
			shown = append(shown, path)
		}
		links := eval[[]string](t, ctx, "Array.from(document.querySelectorAll('a[href]')).filter(function(a){return !a.hasAttribute('download')}).map(function(a){return a.getAttribute('href')})")
		for _, l := range links {
			u, err := url.Parse(l)
			if err != nil || u.Host != "" || !strings.HasPrefix(u.Path, "/") || crawlSkip.MatchString(u.Path) {
				continue
			}
			u.Fragment = ""
			q := u.Query()
			q.Del("turn")
			u.RawQuery = q.Encode()
			next := u.String()
			if seen[next] {
				continue
			}
			if k := kindOf(u.Path); k != "" {
				if kinds[k] >= 3 {
					continue
				}
				kinds[k]++
			}
			seen[next] = true
			queue = append(queue, next)
		}
	}
	t.Logf("crawled %d pages (%s)", len(seen), tag)
	return shown
}

// The forms say what to fix beside the field, before sending anything: a
// handle against its rule, a short password, a bad bot name, a module over
// the upload limit.
func TestBrowserFormsSayWhatToFix(t *testing.T) {
	base := platform(t)
	ctx := browser(t)
	fieldErr := func(id string) string {
		return eval[string](t, ctx, "(function(){var e=document.getElementById('"+id+"').closest('label').querySelector('.field-err');return e&&!e.hidden?e.textContent:''})()")
	}
	posts := func(part string) int {
		return eval[int](t, ctx, "performance.getEntriesByType('resource').filter(function(e){return e.name.indexOf('"+part+"')>=0}).length")
	}
	steps(t, ctx, "a bad sign-up", chromedp.Navigate(base+"/account"), chromedp.WaitVisible(chromedp.CSS("#signup")),
		chromedp.SendKeys(chromedp.CSS("#su-handle"), "Bad Handle!"), chromedp.SendKeys(chromedp.CSS("#su-password"), "short"),
		chromedp.Click(chromedp.CSS("#su-submit")))
	if e := fieldErr("su-handle"); !strings.Contains(e, "2 to 24 small letters") {
		t.Errorf("the handle's message: %q", e)
	}
	if e := fieldErr("su-password"); !strings.Contains(e, "at least 8") {
		t.Errorf("the password's message: %q", e)
	}
	if rule, ph := eval[string](t, ctx, "document.getElementById('su-handle-rule').textContent"), eval[string](t, ctx, "document.getElementById('su-handle').placeholder"); !strings.Contains(rule, "2 to 24 small letters (a-z)") || !strings.Contains(ph, "2 to 24 of a-z") {
		t.Errorf("the handle's rule %q and placeholder %q", rule, ph)
	}
	if n := posts("/api/v1/accounts"); n != 0 {
		t.Errorf("a sign-up the page knew was bad was sent %d times", n)
	}
	shot(t, ctx, "form-signup-errors")
	eval[any](t, ctx, "document.getElementById('su-handle').value = document.getElementById('su-password').value = ''")
	steps(t, ctx, "a good sign-up", chromedp.SendKeys(chromedp.CSS("#su-handle"), "formfiller"),
		chromedp.SendKeys(chromedp.CSS("#su-password"), "correct horse battery"),
		chromedp.Click(chromedp.CSS("#su-submit")))
	waitJS(t, ctx, "logged in", "!document.getElementById('acc-in').hidden", 20*time.Second)

	big := filepath.Join(t.TempDir(), "big.wasm")
	if err := os.WriteFile(big, make([]byte, 33<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	steps(t, ctx, "a bad upload", chromedp.Navigate(base+"/bots/new?game=dots-and-boxes"), chromedp.WaitVisible(chromedp.CSS("#upload")),
		chromedp.SendKeys(chromedp.CSS("#nb-name"), "bad name!"), chromedp.SetUploadFiles(chromedp.CSS("#nb-file"), []string{big}),
		chromedp.Click(chromedp.CSS("#nb-submit")))
	if e := fieldErr("nb-name"); !strings.Contains(e, "1 to 32 letters") {
		t.Errorf("the bot name's message: %q", e)
	}
	if e := fieldErr("nb-file"); !strings.Contains(e, "33.0 MiB") || !strings.Contains(e, "at most 32.0 MiB") {
		t.Errorf("the file's message: %q", e)
	}
	if n := posts("/bots/bad"); n != 0 {
		t.Errorf("an upload the page knew was too large was sent %d times", n)
	}
	shot(t, ctx, "form-upload-errors")
}
