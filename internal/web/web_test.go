package web

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/arenabots/arena/bot/local"
	"github.com/arenabots/arena/bot/spec"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/match"
	"github.com/arenabots/arena/replay"
)

func playReplay(t testing.TB, gameID string, specs ...string) *replay.Replay {
	t.Helper()
	g, err := games.Lookup(gameID)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := match.Runner{}.Play(context.Background(), g, game.Config{Seed: 11, Players: len(specs), Params: game.Params{}}, local.Seats(spec.MustParseAll(specs...)))
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// The viewer's frames are the game's own states: re-applying the replay
// gives one frame per turn plus the start, and Grid Royale's ore changes
// rebuild the full map of every turn.
func TestBuildViewFramesMatchTheStates(t *testing.T) {
	for _, c := range []struct {
		game  string
		specs []string
	}{
		{"dots-and-boxes", []string{"builtin:chains", "builtin:greedy"}},
		{"lines-and-boxes", []string{"builtin:greedy", "builtin:random"}},
		{"grid-royale", []string{"builtin:house", "builtin:harvester"}},
	} {
		r := playReplay(t, c.game, c.specs...)
		g, _ := games.Lookup(c.game)
		v, err := buildView(g, r)
		if err != nil {
			t.Fatalf("%s: %v", c.game, err)
		}
		if len(v.Frames) != len(r.Turns)+1 {
			t.Fatalf("%s: %d frames for %d turns", c.game, len(v.Frames), len(r.Turns))
		}
		// Replay the states and compare the last frame's fields with the
		// observation of the final state.
		st, _ := g.New(r.Config())
		var ore []int64
		for i, turn := range r.Turns {
			answers := make([][]byte, st.Players())
			for _, s := range turn.Seats {
				if len(s.Action) > 0 {
					answers[s.Seat] = s.Action
				}
			}
			st.Apply(answers)
			var want, got map[string]json.RawMessage
			json.Unmarshal(st.AppendObservation(nil, 0), &want)
			json.Unmarshal(v.Frames[i+1], &got)
			if c.game == "grid-royale" {
				if i == 0 { // the first frame carries the whole map
					var first map[string]json.RawMessage
					var rows [][]int64
					json.Unmarshal(v.Frames[0], &first)
					json.Unmarshal(first["ore"], &rows)
					for _, row := range rows {
						ore = append(ore, row...)
					}
				}
				var diff [][2]int64
				if err := json.Unmarshal(got["ore_diff"], &diff); err != nil {
					t.Fatalf("turn %d: ore_diff: %v", i+1, err)
				}
				for _, d := range diff {
					ore[d[0]] = d[1]
				}
				var rows [][]int64
				json.Unmarshal(want["ore"], &rows)
				for y, row := range rows {
					for x, o := range row {
						if ore[y*len(row)+x] != o {
							t.Fatalf("turn %d: ore at (%d,%d) rebuilt as %d, the state has %d", i+1, x, y, ore[y*len(row)+x], o)
						}
					}
				}
				delete(want, "ore")
				delete(got, "ore_diff")
			}
			for k, w := range want {
				if string(got[k]) != string(w) {
					t.Fatalf("%s turn %d: frame field %s is %s, the state's is %s", c.game, i+1, k, got[k], w)
				}
			}
		}
	}
}

func TestBuildViewRefusesMismatchedAndHugeReplays(t *testing.T) {
	r := playReplay(t, "dots-and-boxes", "builtin:greedy", "builtin:random")
	g, _ := games.Lookup("grid-royale")
	if _, err := buildView(g, r); err == nil {
		t.Fatal("a Dots and Boxes replay was shown as Grid Royale")
	}
	huge := *r
	huge.Turns = make([]replay.Turn, maxFrameTurns+1)
	db, _ := games.Lookup("dots-and-boxes")
	if _, err := buildView(db, &huge); err == nil {
		t.Fatal("a replay longer than the viewer's bound was accepted")
	}
}

// FuzzOpenReplay feeds arbitrary bytes to what a replay upload goes through:
// it may refuse them, never panic or hang.
func FuzzOpenReplay(f *testing.F) {
	r := playReplay(f, "lines-and-boxes", "builtin:greedy", "builtin:random")
	data, _ := r.Marshal()
	f.Add(data)
	f.Add([]byte(`{"format":"arena-replay","version":1,"game":"grid-royale","bots":[{"spec":"x"}],"turns":[{"turn":1,"seats":[{"seat":9,"action":{}}]}]}`))
	f.Add([]byte(`{"format":"arena-replay","version":1,"game":"dots-and-boxes","bots":[{},{}],"params":{"x":"1"}}`))
	site, err := New(Options{Games: games.All()})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		site.openReplay(data)
	})
}

// client is a browser-like HTTP client with cookies that sends Origin.
func client(t *testing.T) *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

func postForm(t *testing.T, c *http.Client, srv *httptest.Server, path string, form url.Values) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", srv.URL+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", srv.URL)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// A house bot picked by its difficulty is shown by that difficulty, with its
// name, not as a bot spec; one with no level keeps its spec.
func TestPlayOpponentShownByLevel(t *testing.T) {
	srv := newTestSite(t, Options{Games: games.All()})
	for _, tc := range []struct{ opponent, want string }{
		{"search-easy", "Easy (search-easy)"},
		{"greedy", "builtin:greedy"},
	} {
		c := client(t)
		resp := postForm(t, c, srv, "/play/dots-and-boxes", url.Values{"mode": {"play"}, "opponent": {tc.opponent}, "seat": {"0"}, "seed": {"1"}})
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("starting a game against %s: %d", tc.opponent, resp.StatusCode)
		}
		view, err := c.Get(srv.URL + resp.Header.Get("Location") + "/view.json")
		if err != nil {
			t.Fatal(err)
		}
		var snap struct{ Bots []string }
		err = json.NewDecoder(view.Body).Decode(&snap)
		view.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(snap.Bots) != 2 || snap.Bots[1] != tc.want {
			t.Errorf("against %s the seats are shown as %q, want the second %q", tc.opponent, snap.Bots, tc.want)
		}
	}
}

// Only the browser that started a game may move in it; others and other
// sites are refused; moves for another turn are refused.
func TestMovesBelongToTheirPlayer(t *testing.T) {
	srv := newTestSite(t, Options{Games: games.All()})
	me := client(t)
	resp := postForm(t, me, srv, "/play/dots-and-boxes", url.Values{"mode": {"play"}, "opponent": {"greedy"}, "seat": {"0"}, "seed": {"1"}})
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("starting a game: %d", resp.StatusCode)
	}
	loc := resp.Header.Get("Location")
	move := func(c *http.Client, origin, turn, body string) int {
		req, _ := http.NewRequest("POST", srv.URL+loc+"/move?turn="+turn, strings.NewReader(body))
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	deadline := time.Now().Add(60 * time.Second) // the house bot answers in milliseconds
	for {
		resp, _ := me.Get(srv.URL + loc + "/view.json")
		var snap struct{ Prompt int }
		json.NewDecoder(resp.Body).Decode(&snap)
		resp.Body.Close()
		if snap.Prompt == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("never asked for the first move")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if got := move(client(t), srv.URL, "0", `{"orient":"H","r":0,"c":0}`); got != http.StatusForbidden {
		t.Errorf("a stranger's move: %d, want 403", got)
	}
	if got := move(me, "http://evil.example", "0", `{"orient":"H","r":0,"c":0}`); got != http.StatusForbidden {
		t.Errorf("a move from another site: %d, want 403", got)
	}
	if got := move(me, srv.URL, "5", `{"orient":"H","r":0,"c":0}`); got != http.StatusConflict {
		t.Errorf("a move for another turn: %d, want 409", got)
	}
	if got := move(me, srv.URL, "0", strings.Repeat("x", 70<<10)); got != http.StatusRequestEntityTooLarge {
		t.Errorf("an oversized move: %d, want 413", got)
	}
	if got := move(me, srv.URL, "0", `{"orient":"H","r":0,"c":0}`); got != http.StatusNoContent {
		t.Errorf("my move: %d, want 204", got)
	}
}

func TestSessionLimitsPerAddress(t *testing.T) {
	srv := newTestSite(t, Options{Games: games.All()})
	c := client(t)
	for i := 0; i < defaultLimits.perIP; i++ {
		resp := postForm(t, c, srv, "/play/grid-royale", url.Values{"mode": {"play"}, "opponent": {"idle"}, "seat": {"0"}})
		resp.Body.Close()
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("game %d: %d", i, resp.StatusCode)
		}
	}
	resp := postForm(t, c, srv, "/play/grid-royale", url.Values{"mode": {"play"}, "opponent": {"idle"}, "seat": {"0"}})
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusTooManyRequests || !strings.Contains(string(body), "Too many games") {
		t.Fatalf("one game too many: %d", resp.StatusCode)
	}
}

func TestBadFormsAreRefusedWithAMessage(t *testing.T) {
	srv := newTestSite(t, Options{Games: games.All()})
	c := client(t)
	for _, form := range []url.Values{
		{"mode": {"play"}, "opponent": {"nobody"}, "seat": {"0"}},
		{"mode": {"play"}, "opponent": {"greedy"}, "seat": {"7"}},
		{"mode": {"watch"}, "bot0": {"greedy"}},
		{"mode": {"dance"}},
		{"mode": {"play"}, "opponent": {"greedy"}, "seat": {"0"}, "seed": {"-1"}},
		{"mode": {"play"}, "opponent": {"greedy"}, "seat": {"0"}, "players": {"3"}},
	} {
		resp := postForm(t, c, srv, "/play/dots-and-boxes", form)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest {
			t.Errorf("form %v: %d, want 400", form, resp.StatusCode)
		}
	}
	// A form too large to read says so, with the limit.
	resp := postForm(t, c, srv, "/play/dots-and-boxes", url.Values{"mode": {"play"}, "filler": {strings.Repeat("x", 32<<10)}})
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), "too large: at most 16 KiB") {
		t.Errorf("a 32 KiB form: %d, want 413 and the limit in the page", resp.StatusCode)
	}
	for _, path := range []string{"/rules/chess", "/play/chess", "/s/0123456789abcdef01234567"} {
		resp, _ := c.Get(srv.URL + path)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s: %d, want 404", path, resp.StatusCode)
		}
	}
}

// What a bot wrote reaches pages only as data: a replay whose bot names and
// answers are markup is served as JSON, and pages carry no inline script.
func TestBotTextIsNeverMarkup(t *testing.T) {
	r := playReplay(t, "dots-and-boxes", "builtin:greedy", "builtin:random")
	r.Bots[0].Spec = `<script>alert(1)</script>`
	r.Turns[0].Seats[0].Answer = `</pre><img src=x onerror=alert(1)>`
	srv := newTestSite(t, Options{Games: games.All(), Local: r})
	c := client(t)
	resp, _ := c.Get(srv.URL + "/local")
	loc := resp.Header.Get("Location")
	resp, _ = c.Get(srv.URL + loc)
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.Contains(string(page), "<script>alert") || strings.Contains(resp.Header.Get("Content-Security-Policy"), "unsafe-inline") {
		t.Fatal("bot text in the page, or inline scripts allowed")
	}
	resp, _ = c.Get(srv.URL + loc + "/view.json")
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("view data served as %q", ct)
	}
	data, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.Contains(string(data), "<script>") {
		t.Fatal("JSON with a raw <script> (it should be escaped as \\u003c)")
	}
}

// Finished games are kept on disk when a directory is given, and come back
// after a restart.
func TestReplaysSurviveARestart(t *testing.T) {
	dir := t.TempDir()
	srv := newTestSite(t, Options{Games: games.All(), ReplayDir: dir})
	c := client(t)
	resp := postForm(t, c, srv, "/play/dots-and-boxes", url.Values{"mode": {"watch"}, "bot0": {"greedy"}, "bot1": {"random"}, "seed": {"3"}})
	loc := resp.Header.Get("Location")
	id := strings.TrimPrefix(loc, "/s/")
	// A watched game plays a turn every 250 ms: 15 s for its 60 turns.
	deadline := time.Now().Add(150 * time.Second)
	for {
		if _, err := os.Stat(dir + "/" + id + ".json"); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the watched game's replay was not saved")
		}
		time.Sleep(100 * time.Millisecond)
	}
	again := newTestSite(t, Options{Games: games.All(), ReplayDir: dir})
	resp, err := c.Get(again.URL + loc + "/replay.json")
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("after a restart: %v %d", err, resp.StatusCode)
	}
	data, _ := io.ReadAll(resp.Body)
	if _, err := replay.Parse(data); err != nil {
		t.Fatal(err)
	}
}

// A replay's bot logs show for a file opened here, never for a platform
// match, where a log is its owner's only.
func TestLogsOnlyForFiles(t *testing.T) {
	r := playReplay(t, "dots-and-boxes", "builtin:greedy", "builtin:random")
	r.Logs = []replay.Log{replay.NewLog(0, []byte("secret plan"))}
	g, _ := games.Lookup("dots-and-boxes")
	withLogs, err := buildViewLogs(g, r, true)
	if err != nil {
		t.Fatal(err)
	}
	without, err := buildViewLogs(g, r, false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(withLogs.Replay), "secret plan") {
		t.Fatal("a file's logs are not shown")
	}
	if strings.Contains(string(without.Replay), "secret plan") || strings.Contains(string(without.Replay), `"logs"`) {
		t.Fatal("a platform match's view carries its bots' logs")
	}
}

// TestOpenedReplaysAreBoundedByBytes: replays opened from files are kept
// apart from the games played here, bounded by what their views take, the
// oldest going first; one that alone would take more than a quarter of the
// bound is refused with a message.
func TestOpenedReplaysAreBoundedByBytes(t *testing.T) {
	g, r, v := greedyGameView(t)
	size := v.size()
	ss := newSessions(sessionLimits{kept: 200, viewed: 4*size + size/2}, "")
	var opened []*session
	for range 5 {
		s, err := ss.addReplay(g, r)
		if err != nil {
			t.Fatal(err)
		}
		opened = append(opened, s)
	}
	if ss.get(opened[0].id) != nil {
		t.Error("the oldest of five opened replays is still kept; four fit the bound")
	}
	for _, s := range opened[1:] {
		if ss.get(s.id) == nil {
			t.Errorf("replay %s, one of the newest four, is gone", s.id)
		}
	}
	if ss.viewedBytes != 4*size || len(ss.viewed) != 4 {
		t.Errorf("kept %d replays, %d bytes; want 4, %d", len(ss.viewed), ss.viewedBytes, 4*size)
	}
	small := newSessions(sessionLimits{kept: 200, viewed: 2 * size}, "")
	if _, err := small.addReplay(g, r); err == nil || !strings.Contains(err.Error(), "more than this site keeps for one replay") {
		t.Errorf("a replay over a quarter of the bound: %v; want it refused, saying why", err)
	}
}

// TestOpeningReplaysIsRateLimited: rebuilding a long replay costs seconds of
// CPU, so one address opens at most viewsPerMinute a minute.
func TestOpeningReplaysIsRateLimited(t *testing.T) {
	r := playReplay(t, "dots-and-boxes", "builtin:greedy", "builtin:random")
	data, _ := r.Marshal()
	site, err := New(Options{Games: games.All()})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(site)
	defer srv.Close()
	c := client(t)
	post := func() int {
		var buf bytes.Buffer
		mw := multipart.NewWriter(&buf)
		fw, _ := mw.CreateFormFile("replay", "match.json")
		fw.Write(data)
		mw.Close()
		req, _ := http.NewRequest("POST", srv.URL+"/view", &buf)
		req.Header.Set("Content-Type", mw.FormDataContentType())
		req.Header.Set("Origin", srv.URL)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for i := range viewsPerMinute {
		if st := post(); st != http.StatusSeeOther {
			t.Fatalf("replay %d: %d, want 303 to its view", i+1, st)
		}
	}
	if st := post(); st != http.StatusTooManyRequests {
		t.Errorf("replay %d within the minute: %d, want 429", viewsPerMinute+1, st)
	}
}

// TestSavedGamesAreBounded: the games played in the browser are saved to
// the server's directory until their bytes pass the bound; then the oldest
// go until a tenth under it (a game left at once ends in a second).
func TestSavedGamesAreBounded(t *testing.T) {
	dir := t.TempDir()
	ss := newSessions(sessionLimits{saved: 10_000}, dir)
	write := func(name string, age time.Duration) string {
		path := filepath.Join(dir, name+".json")
		if err := os.WriteFile(path, make([]byte, 1000), 0o644); err != nil {
			t.Fatal(err)
		}
		when := time.Now().Add(-age)
		os.Chtimes(path, when, when)
		return path
	}
	for i := range 9 { // there from an earlier run: 9,000 bytes, oldest first
		write(fmt.Sprintf("old%d", i), time.Duration(20-i)*time.Minute)
	}
	ss.savedOne(write("new0", 0)) // 10,000: at the bound, all kept
	if ents, _ := os.ReadDir(dir); len(ents) != 10 {
		t.Fatalf("%d files at the bound; want all 10", len(ents))
	}
	ss.savedOne(write("new1", 0)) // 11,000: down to 9,000
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if len(names) != 9 || slices.Contains(names, "old0.json") || slices.Contains(names, "old1.json") || !slices.Contains(names, "new1.json") {
		t.Errorf("after passing the bound: %v; want the two oldest gone, 9 left", names)
	}
	if ss.savedBytes != 9000 {
		t.Errorf("counted %d bytes, want 9000", ss.savedBytes)
	}
}

// TestBuildViewStopsAtItsBound: a view's frames are counted as they are
// built, and a replay that makes more than maxViewBytes is refused then,
// not after all of it is built.
func TestBuildViewStopsAtItsBound(t *testing.T) {
	g, r, v := greedyGameView(t)
	saved := maxViewBytes
	defer func() { maxViewBytes = saved }()
	maxViewBytes = int(v.size()) / 2
	if _, err := buildView(g, r); err == nil || !strings.Contains(err.Error(), "the viewer shows of one replay") {
		t.Errorf("a replay twice the bound: %v; want refused, saying why", err)
	}
}

// greedyGameView plays greedy against random at Dots and Boxes and builds
// the match's view.
func greedyGameView(t *testing.T) (game.Game, *replay.Replay, *viewData) {
	t.Helper()
	r := playReplay(t, "dots-and-boxes", "builtin:greedy", "builtin:random")
	g, _ := games.Lookup("dots-and-boxes")
	v, err := buildView(g, r)
	if err != nil {
		t.Fatal(err)
	}
	return g, r, v
}

// An error is a page of the site: its status, the five sections, the problem
// and what to do; the script endpoints keep answering JSON.
func TestErrorsArePages(t *testing.T) {
	srv := newTestSite(t, Options{Games: games.All()})
	c := client(t)
	for _, tc := range []struct {
		method, path string
		status       int
		want         string
	}{
		{"GET", "/nonexistent", 404, "Check the address"},
		{"GET", "/rules/chess/extra", 404, "Check the address"},
		{"GET", "/s/nosuch", 404, "Check the address"},
		{"POST", "/view", 400, "Choose a replay file"},
	} {
		req, _ := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(""))
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != tc.status || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Errorf("%s %s: %d %s, want %d and a page", tc.method, tc.path, resp.StatusCode, resp.Header.Get("Content-Type"), tc.status)
		}
		for _, s := range []string{tc.want, `<nav class="sections"`, `href="/play"`, `href="/arena"`, `href="/bots/new"`, `href="/leaderboard"`, `href="/rules"`} {
			if !strings.Contains(string(body), s) {
				t.Errorf("%s %s: the page lacks %q", tc.method, tc.path, s)
			}
		}
	}
	resp, _ := c.Get(srv.URL + "/s/nosuch/view.json")
	resp.Body.Close()
	if resp.StatusCode != 404 || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("a script's endpoint: %d %s, want 404 in JSON", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	resp, _ = c.Get(srv.URL + "/favicon.ico")
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "image/svg+xml" {
		t.Errorf("/favicon.ico: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	// A section without a game lists the games.
	for _, p := range []string{"/play", "/arena", "/leaderboard", "/rules"} {
		resp, _ := c.Get(srv.URL + p)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || !strings.Contains(string(body), `href="`+p+`/grid-royale"`) {
			t.Errorf("%s: %d, no link to the games", p, resp.StatusCode)
		}
	}
}
