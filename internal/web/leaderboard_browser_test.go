package web

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// The leaderboard as its peers have it, in a browser, on the whole platform
// with the house ladder playing: every line with its rating's uncertainty,
// wins, draws and losses that add up to its matches, and the change of its
// last match linking to it; a search narrowed as it is typed and kept in
// the address, its wildcards taken literally; the players and active
// filters; a bot's page with its record and the rating change of each
// rated match; a player's page with their bots. No page logs an error.
func TestBrowserLeaderboard(t *testing.T) {
	base := platform(t)
	ctx := browser(t)
	p := watch(t, ctx)
	waitJS := func(what, js string) { t.Helper(); waitJSAt(t, ctx, what, js, 30*time.Second) }

	// cells reads the rows by their columns' headings.
	const cells = `Array.from(document.querySelectorAll('#rows tr')).filter(function(tr){return tr.children.length > 1}).map(function(r){
		var hs = Array.from(document.querySelectorAll('table.leaderboard thead th')).map(function(th){return th.textContent});
		var c = function(n){return r.children[hs.indexOf(n)]};
		return {rank: +c('#').textContent, bot: c('Bot').textContent, owner: c('Owner').textContent, rating: c('Rating').textContent,
			w: +c('W').textContent, d: +c('D').textContent, l: +c('L').textContent, matches: +c('Matches').textContent,
			change: c('Last change').textContent, last: (c('Last change').querySelector('a') || {}).href || ''};
	})`
	type row struct {
		Rank               int
		Bot, Owner, Rating string
		W, D, L, Matches   int
		Change, Last       string
	}
	var rows []row
	deadline := time.Now().Add(2 * time.Minute)
	for {
		steps(t, ctx, "the leaderboard", chromedp.Navigate(base+"/leaderboard/dots-and-boxes"))
		waitJS("its rows", "document.querySelectorAll('#rows a').length > 0")
		rows = eval[[]row](t, ctx, cells)
		played := 0
		for _, r := range rows {
			if r.Last != "" {
				played++
			}
		}
		if played >= 2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no two bots with a rated match after two minutes: %+v", rows)
		}
		time.Sleep(2 * time.Second)
	}
	checkPage(t, ctx, p, "/leaderboard/dots-and-boxes")
	shot(t, ctx, "platform-leaderboard-records")
	for i, r := range rows {
		if r.Rank != i+1 || r.Owner != "@house" || !strings.Contains(r.Rating, "±") {
			t.Errorf("row %d: %+v", i, r)
		}
		// A line is read in one piece: its record is its matches.
		if r.W+r.D+r.L != r.Matches {
			t.Errorf("%s: %d wins, %d draws and %d losses in %d matches", r.Bot, r.W, r.D, r.L, r.Matches)
		}
		if (r.Last != "") != (r.Matches > 0) || (r.Last != "" && !strings.Contains(r.Last, "/matches/")) {
			t.Errorf("%s: last change %q links %q after %d matches", r.Bot, r.Change, r.Last, r.Matches)
		}
	}

	// A search narrows the board as it is typed, and the address keeps it.
	name := rows[0].Bot
	steps(t, ctx, "a search", chromedp.SendKeys(chromedp.CSS("#lb-q"), name))
	waitJS("the search's rows", fmt.Sprintf(`location.search === '?q=%s' && document.getElementById('rows').getAttribute('aria-busy') === 'false' && Array.from(document.querySelectorAll('#rows tr')).every(function(tr){return tr.textContent.indexOf(%q) >= 0})`, name, name))
	shot(t, ctx, "platform-leaderboard-search")
	steps(t, ctx, "the search opened from its address", chromedp.Navigate(base+"/leaderboard/dots-and-boxes?q=%25"))
	waitJS("a wildcard matches itself only", "document.getElementById('lb-q').value === '%' && document.getElementById('rows').textContent === 'No bot matches these filters.'")
	checkPage(t, ctx, p, "/leaderboard/dots-and-boxes?q=%25")

	// The filters of a game played by 2 and by 4.
	steps(t, ctx, "Grid Royale's leaderboard", chromedp.Navigate(base+"/leaderboard/grid-royale"))
	waitJS("its rows", "document.querySelectorAll('#rows a').length > 0 || document.getElementById('rows').textContent === 'No bots yet.'")
	if opts := eval[[]string](t, ctx, "Array.from(document.querySelectorAll('#lb-players option')).map(function(o){return o.value})"); strings.Join(opts, ",") != ",2,4" {
		t.Fatalf("the players filter offers %q", opts)
	}
	eval[bool](t, ctx, `(function(){var s=document.getElementById('lb-players'); s.value='4'; s.dispatchEvent(new Event('change')); return true})()`)
	waitJS("the filtered rows", "location.search === '?players=4' && document.getElementById('rows').getAttribute('aria-busy') === 'false'")
	for _, r := range eval[[]row](t, ctx, cells) {
		if r.W+r.D+r.L != r.Matches || r.Matches == 0 {
			t.Errorf("4-player matches of %s: %d wins, %d draws and %d losses in %d matches", r.Bot, r.W, r.D, r.L, r.Matches)
		}
	}
	steps(t, ctx, "active bots only", chromedp.Click(chromedp.CSS("#lb-active")))
	waitJS("both filters in the address", "location.search === '?players=4&active=1'")
	checkPage(t, ctx, p, "/leaderboard/grid-royale?players=4&active=1")

	// The bot that played: its record, and each rated match with the change
	// it made.
	steps(t, ctx, "a bot's page", chromedp.Navigate(base+"/leaderboard/dots-and-boxes"))
	waitJS("its rows", "document.querySelectorAll('#rows a[href^=\"/matches/\"]').length > 0")
	href := eval[string](t, ctx, `Array.from(document.querySelectorAll('#rows tr')).filter(function(tr){return tr.querySelector('a[href^="/matches/"]')})[0].querySelector('a[href^="/bots/"]').getAttribute('href')`)
	steps(t, ctx, "the bot", chromedp.Navigate(base+href))
	waitJS("its record and its matches' rating changes", "document.querySelectorAll('#b-record tr th').length > 0 && document.querySelector('#b-matches .rating-change') && document.getElementById('b-sub').textContent.indexOf('±') > 0")
	record := eval[string](t, ctx, "document.getElementById('b-record').textContent")
	if !strings.Contains(record, "2 players") {
		t.Errorf("the bot's record: %q", record)
	}
	change := eval[string](t, ctx, "document.querySelector('#b-matches .rating-change').textContent")
	if !strings.HasPrefix(change, "rating ") || len(change) < len("rating 0") {
		t.Errorf("a match's rating change reads %q", change)
	}
	checkPage(t, ctx, p, href)
	shot(t, ctx, "platform-bot-rating-changes")

	steps(t, ctx, "the player's page", chromedp.Navigate(base+"/players/house"))
	waitJS("their bots", "document.querySelectorAll('#p-bots a[href^=\"/bots/\"]').length >= 6 && document.getElementById('p-bots').textContent.indexOf('±') > 0")
	checkPage(t, ctx, p, "/players/house")
}
