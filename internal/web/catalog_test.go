package web

import (
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games"
)

// withFiles is a registered game whose part of the site is files.
type withFiles struct {
	game.Game
	files fs.FS
}

func (g withFiles) Site() fs.FS { return g.files }

// TestSiteRefusesGamesWithoutTheirFiles: the site does not start with a
// game that has no part of the site, lacks its board or rules page, or
// whose rules page does not parse with the site's functions.
func TestSiteRefusesGamesWithoutTheirFiles(t *testing.T) {
	g := games.All()[0]
	board := &fstest.MapFile{Data: []byte("Arena.boards['" + g.Info().ID + "'] = {};")}
	rules := &fstest.MapFile{Data: []byte("<h1>{{.Name}}</h1>")}
	for _, c := range []struct {
		name string
		game game.Game
		want string
	}{
		{"no Site method", struct{ game.Game }{g}, "no part of the site"},
		{"no board", withFiles{g, fstest.MapFS{"rules.html": rules}}, "board.js"},
		{"no rules", withFiles{g, fstest.MapFS{"board.js": board}}, "rules.html"},
		{"rules that do not parse", withFiles{g, fstest.MapFS{"board.js": board, "rules.html": {Data: []byte("{{.Name")}}}, "rules.html"},
		{"rules naming no site function", withFiles{g, fstest.MapFS{"board.js": board, "rules.html": {Data: []byte("{{nosuch 1}}")}}}, "nosuch"},
		{"a thumbnail that does not parse", withFiles{g, fstest.MapFS{"board.js": board, "rules.html": rules, "thumb.html": {Data: []byte("{{end}}")}}}, "thumb.html"},
	} {
		_, err := New(Options{Games: []game.Game{c.game}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", c.name, err, c.want)
		}
	}
	if _, err := New(Options{}); err == nil {
		t.Error("a site without games started")
	}
	if _, err := New(Options{Games: []game.Game{g, g}}); err == nil || !strings.Contains(err.Error(), "twice") {
		t.Errorf("a game given twice: %v", err)
	}
	site, err := New(Options{Games: []game.Game{withFiles{g, fstest.MapFS{"board.js": board, "rules.html": rules}}}})
	if err != nil {
		t.Fatalf("a game with its board and rules: %v", err)
	}
	site.Close()
}

// TestGameFilesAreServed: each game's board script (and style sheet, when
// it has one) is served with an ETag the browser revalidates, the site's
// own files too, and the rules page is the game's fragment inside the
// site's page with the platform's limits.
func TestGameFilesAreServed(t *testing.T) {
	srv := newTestSite(t, Options{Games: games.All()})
	get := func(path, etag string) (*http.Response, string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		if etag != "" {
			req.Header.Set("If-None-Match", etag)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(body)
	}
	for _, g := range games.All() {
		id := g.Info().ID
		resp, body := get("/static/games/"+id+"/board.js", "")
		if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/javascript") || !strings.Contains(body, "Arena.boards['"+id+"']") {
			t.Fatalf("%s's board: %d %q", id, resp.StatusCode, resp.Header.Get("Content-Type"))
		}
		etag := resp.Header.Get("ETag")
		if etag == "" || resp.Header.Get("Cache-Control") != "no-cache" {
			t.Errorf("%s's board: ETag %q, Cache-Control %q", id, etag, resp.Header.Get("Cache-Control"))
		}
		if again, _ := get("/static/games/"+id+"/board.js", etag); again.StatusCode != http.StatusNotModified {
			t.Errorf("%s's board asked again with its ETag: %d, want 304", id, again.StatusCode)
		}
		if _, err := fs.Stat(g.(siteGame).Site(), "board.css"); err == nil {
			if resp, _ := get("/static/games/"+id+"/board.css", ""); resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/css") {
				t.Errorf("%s's style sheet: %d %q", id, resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			if _, home := get("/", ""); !strings.Contains(home, `href="/static/games/`+id+`/board.css"`) {
				t.Errorf("the pages do not link %s's style sheet", id)
			}
		} else if resp, _ := get("/static/games/"+id+"/board.css", ""); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s has no style sheet, yet board.css answers %d", id, resp.StatusCode)
		}
		resp, body = get("/rules/"+id, "")
		if resp.StatusCode != http.StatusOK || !strings.Contains(body, `<article class="rules g-`+id+`">`) || !strings.Contains(body, `id="limits"`) || !strings.Contains(body, `href="/play/`+id+`"`) {
			t.Errorf("%s's rules page: %d, without the game's article, the limits or the link to play", id, resp.StatusCode)
		}
	}
	for _, path := range []string{"/static/games/chess/board.js", "/static/games/" + games.All()[0].Info().ID + "/rules.html", "/static/nosuch.js", "/static/"} {
		if resp, _ := get(path, ""); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", path, resp.StatusCode)
		}
	}
	resp, _ := get("/static/site.css", "")
	if resp.StatusCode != http.StatusOK || resp.Header.Get("ETag") == "" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/css") {
		t.Errorf("the site's style sheet: %d, ETag %q, %q", resp.StatusCode, resp.Header.Get("ETag"), resp.Header.Get("Content-Type"))
	}
	if again, _ := get("/static/site.css", resp.Header.Get("ETag")); again.StatusCode != http.StatusNotModified {
		t.Errorf("the site's style sheet asked again with its ETag: %d, want 304", again.StatusCode)
	}
}

// TestPlayFormsOfferTheLabelledParameters: the Play page offers every
// parameter a game labels, with its default and bounds, and refuses a
// value outside them naming the label and the bounds.
func TestPlayFormsOfferTheLabelledParameters(t *testing.T) {
	srv := newTestSite(t, Options{Games: games.All()})
	c := client(t)
	offered := 0
	for _, g := range games.All() {
		id := g.Info().ID
		resp, err := c.Get(srv.URL + "/play/" + id)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, p := range g.Info().Params {
			field := fmt.Sprintf(`name="%s" min="%d" max="%d"`, p.Name, p.Min, p.Max)
			n := strings.Count(string(body), field)
			if p.Label == "" || !p.Int {
				if strings.Contains(string(body), `name="`+p.Name+`"`) {
					t.Errorf("%s: parameter %s has no label, yet the Play page offers it", id, p.Name)
				}
				continue
			}
			offered++
			if n != 2 || !strings.Contains(string(body), ">"+p.Label+" <input") || !strings.Contains(string(body), field+` step=`) {
				t.Errorf("%s: parameter %s offered %d times (want 2, with its label %q)", id, p.Name, n, p.Label)
			}
			form := url.Values{"mode": {"watch"}, "bot0": {g.HouseBots()[0].Name}, "bot1": {g.HouseBots()[0].Name}, p.Name: {strconv.Itoa(p.Max + 1)}}
			resp := postForm(t, c, srv, "/play/"+id, form)
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			want := fmt.Sprintf("%s is a whole number from %d to %d", p.Label, p.Min, p.Max)
			if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), want) {
				t.Errorf("%s: %s=%d: %d, want 400 and %q", id, p.Name, p.Max+1, resp.StatusCode, want)
			}
		}
	}
	if offered == 0 {
		t.Error("no game offers a parameter on the Play page: nothing was checked")
	}
}
