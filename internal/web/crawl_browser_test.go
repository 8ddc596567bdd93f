package web

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
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
	return eval[string](t, ctx, "document.body.innerText")
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
