package web

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/visitors"
	"github.com/arenabots/arena/replay"
)

// fakeAPI serves one match the way the platform's API does: running while
// its live stream plays the recorded turns (the first past of them as the
// turns so far, the rest one by one), finished with its replay after.
func fakeAPI(t *testing.T, replayJSON []byte, turns [][]byte, past int) http.Handler {
	var ended atomic.Bool
	mux := http.NewServeMux()
	match := func(state string, withReplay bool) map[string]any {
		m := map[string]any{"id": 1, "game": "dots-and-boxes", "params": map[string]string{}, "seed": "11", "state": state,
			"seats": []map[string]any{{"seat": 0, "player": "@house", "bot": "greedy", "bot_id": 2}, {"seat": 1, "player": "@eve", "bot": "<b>x</b>", "bot_id": 5}}}
		if withReplay {
			m["replay"] = json.RawMessage(replayJSON)
		}
		return m
	}
	mux.HandleFunc("GET /api/v1/matches/1", func(w http.ResponseWriter, r *http.Request) {
		if ended.Load() {
			writeJSON(w, 200, match("finished", true))
		} else {
			writeJSON(w, 200, match("running", false))
		}
	})
	mux.HandleFunc("GET /api/v1/matches/1/live", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: match\ndata: {}\n\n")
		fmt.Fprintf(w, "event: turns\ndata: [%s]\n\n", bytes.Join(turns[:past], []byte(",")))
		for _, t := range turns[past:] {
			fmt.Fprintf(w, "event: turn\ndata: %s\n\n", t)
			w.(http.Flusher).Flush()
		}
		ended.Store(true)
		fmt.Fprintf(w, "event: end\ndata: {}\n\n")
	})
	mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, 404, map[string]string{"error": "no"}) })
	return mux
}

// liveMatch plays a Dots and Boxes match for fakeAPI: its replay, the
// replay's bytes, and each turn as the API's live stream sends it.
func liveMatch(t *testing.T) (*replay.Replay, []byte, [][]byte) {
	t.Helper()
	r := playReplay(t, "dots-and-boxes", "builtin:greedy", "builtin:random")
	data, err := r.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	var turns [][]byte
	for i := range r.Turns {
		b, _ := json.Marshal(&r.Turns[i])
		turns = append(turns, b)
	}
	return r, data, turns
}

// A running platform match reaches the viewer turn by turn, with the states
// rebuilt from its seed and the live turns; then the whole replay. A view
// opened late starts from the turns so far.
func TestPlatformMatchLive(t *testing.T) {
	r, data, turns := liveMatch(t)
	for _, past := range []int{0, 1, 25, len(turns)} {
		t.Run(fmt.Sprintf("late by %d turns", past), func(t *testing.T) {
			site, err := New(Options{Games: games.All(), Service: true})
			if err != nil {
				t.Fatal(err)
			}
			site.SetAPI(fakeAPI(t, data, turns, past))
			srv := httptest.NewServer(site)
			defer srv.Close()

			resp, err := http.Get(srv.URL + "/matches/1/events")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			counts := map[string]int{}
			var lastFrame json.RawMessage
			type snap struct {
				Frames []json.RawMessage `json:"frames"`
				Bots   []string          `json:"bots"`
				Live   bool              `json:"live"`
				Replay struct {
					Turns []json.RawMessage `json:"turns"`
				} `json:"replay"`
			}
			var first, final snap
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(nil, 8<<20)
			event := ""
			for sc.Scan() {
				line := sc.Text()
				if strings.HasPrefix(line, "event: ") {
					event = strings.TrimPrefix(line, "event: ")
					counts[event]++
					continue
				}
				if !strings.HasPrefix(line, "data: ") {
					continue
				}
				payload := []byte(strings.TrimPrefix(line, "data: "))
				switch {
				case event == "turn":
					if counts["init"] != 1 {
						t.Fatal("a turn before the first snapshot")
					}
					var d struct{ Frame json.RawMessage }
					json.Unmarshal(payload, &d)
					lastFrame = d.Frame
				case event == "init" && counts["init"] == 1:
					if err := json.Unmarshal(payload, &first); err != nil {
						t.Fatal(err)
					}
				case event == "init" && counts["init"] == 2:
					if err := json.Unmarshal(payload, &final); err != nil {
						t.Fatal(err)
					}
				}
			}
			if counts["turn"] != len(r.Turns)-past || counts["init"] != 2 || counts["end"] != 1 || counts["progress"] != 0 {
				t.Fatalf("events %v, want %d turns, a live and a final snapshot, one end", counts, len(r.Turns)-past)
			}
			if !first.Live || len(first.Frames) != past+1 || len(first.Replay.Turns) != past {
				t.Fatalf("the first snapshot: live %v, %d frames and %d turns; want %d and %d", first.Live, len(first.Frames), len(first.Replay.Turns), past+1, past)
			}
			if counts["turn"] == 0 {
				lastFrame = first.Frames[past]
			}
			if len(final.Frames) != len(r.Turns)+1 {
				t.Fatalf("the final snapshot has %d frames", len(final.Frames))
			}
			if string(final.Frames[len(final.Frames)-1]) != string(lastFrame) {
				t.Fatal("the live frames and the replay's frames end in different states")
			}
			if past > 0 && string(first.Frames[past]) != string(final.Frames[past]) {
				t.Fatal("the late view's last frame differs from the replay's")
			}
			if final.Bots[1] != "@eve/<b>x</b>" {
				t.Fatalf("bot names %q", final.Bots)
			}
		})
	}
}

// Without the API the platform's pages say what they need instead of failing.
func TestPlatformPagesWithoutService(t *testing.T) {
	srv := newTestSite(t, Options{Games: games.All()})
	for _, p := range []string{"/leaderboard/grid-royale", "/arena/dots-and-boxes", "/bots/new", "/account", "/matches/3"} {
		resp, err := http.Get(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %d", p, resp.StatusCode)
		}
	}
	site, _ := New(Options{Games: games.All(), Service: true}) // the API never set: a clear refusal
	srv2 := httptest.NewServer(site)
	defer srv2.Close()
	resp, _ := http.Get(srv2.URL + "/matches/3")
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("a match page without the API: %d, want 503", resp.StatusCode)
	}
}

// The Arena pages that show the same lists share one feed: a change of the
// API's live list reaches every page, and the feed stops when they leave.
func TestArenaEventsShareAFeed(t *testing.T) {
	var mu sync.Mutex
	liveIDs := "[]"
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/matches", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("game") != "dots-and-boxes" || r.URL.Query().Get("bot") != "3" {
			t.Errorf("the feed asked %s", r.URL)
		}
		mu.Lock()
		defer mu.Unlock()
		if r.URL.Query().Get("state") == "live" {
			fmt.Fprintf(w, `{"matches":%s}`, liveIDs)
		} else {
			fmt.Fprint(w, `{"matches":[{"id":1,"state":"finished"}]}`)
		}
	})
	site, err := New(Options{Games: games.All(), Service: true})
	if err != nil {
		t.Fatal(err)
	}
	site.SetAPI(mux)
	srv := httptest.NewServer(site)
	defer srv.Close()

	type stream struct {
		resp   *http.Response
		events chan [2]string
	}
	open := func() stream {
		resp, err := http.Get(srv.URL + "/arena/dots-and-boxes/events?bot=3")
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
		st := stream{resp, make(chan [2]string, 16)}
		go func() {
			sc := bufio.NewScanner(resp.Body)
			name := ""
			for sc.Scan() {
				if n, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
					name = n
				} else if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
					st.events <- [2]string{name, d}
				}
			}
			close(st.events)
		}()
		return st
	}
	next := func(st stream, want string) {
		t.Helper()
		select {
		case ev := <-st.events:
			if ev[0]+" "+ev[1] != want {
				t.Fatalf("event %s %s, want %s", ev[0], ev[1], want)
			}
		case <-time.After(60 * time.Second):
			t.Fatalf("no event; want %s", want)
		}
	}
	a, b := open(), open()
	for _, st := range []stream{a, b} {
		next(st, `live {"matches":[]}`)
		next(st, `finished {"matches":[{"id":1,"state":"finished"}]}`)
	}
	mu.Lock()
	liveIDs = `[{"id":2,"state":"running"}]`
	mu.Unlock()
	for _, st := range []stream{a, b} {
		next(st, `live {"matches":[{"id":2,"state":"running"}]}`)
	}
	site.feeds.mu.Lock()
	n := len(site.feeds.byKey)
	site.feeds.mu.Unlock()
	if n != 1 {
		t.Fatalf("%d feeds for two pages of the same lists", n)
	}
	a.resp.Body.Close()
	b.resp.Body.Close()
	deadline := time.Now().Add(60 * time.Second)
	for {
		site.feeds.mu.Lock()
		n = len(site.feeds.byKey)
		site.feeds.mu.Unlock()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the feed outlives its pages")
		}
		time.Sleep(20 * time.Millisecond)
	}
	resp, _ := http.Get(srv.URL + "/arena/dots-and-boxes/events?bot=x")
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("bot=x: %d", resp.StatusCode)
	}
}

// The home page's title is the site's name alone; other pages name
// themselves first.
func TestPageTitles(t *testing.T) {
	srv := newTestSite(t, Options{Games: games.All()})
	for path, want := range map[string]string{"/": "<title>Arena</title>", "/bots/new": " · Arena</title>"} {
		resp, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(body), want) || strings.Contains(string(body), "Arena · Arena") {
			t.Errorf("%s: no %q in %.300q", path, want, body)
		}
	}
}

// TestEventStreamsPerVisitor: one visitor holds at most
// maxEventStreamsPerAddr event streams open (each is a goroutine, a
// connection and a compressor's buffers); the next is refused with 503,
// and another visitor behind the same proxy still gets one.
func TestEventStreamsPerVisitor(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/api/v1/matches", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"matches":[]}`)
	})
	srv := serveWithAPI(t, Options{Games: games.All(), Service: true, TrustedProxies: 1}, mux)
	open := func(visitor string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("GET", srv.URL+"/arena/dots-and-boxes/events", nil)
		req.Header.Set("X-Forwarded-For", visitor)
		req.Header.Set("Accept-Encoding", "gzip")
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	var held []*http.Response
	defer func() {
		for _, r := range held {
			r.Body.Close()
		}
	}()
	for i := range maxEventStreamsPerAddr {
		resp := open("198.51.100.1")
		held = append(held, resp)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("stream %d of one visitor: %d", i+1, resp.StatusCode)
		}
	}
	over := open("198.51.100.1")
	over.Body.Close()
	if over.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("stream %d of one visitor: %d, want 503", maxEventStreamsPerAddr+1, over.StatusCode)
	}
	other := open("198.51.100.2")
	held = append(held, other)
	if other.StatusCode != http.StatusOK {
		t.Errorf("another visitor's stream: %d, want 200", other.StatusCode)
	}
	// A stream closed by its visitor frees its place.
	held[0].Body.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		again := open("198.51.100.1")
		held = append(held, again)
		if again.StatusCode == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after closing a stream, a new one: %d", again.StatusCode)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestSubRequestKeepsEveryForwardedLine: the site's requests to the API
// carry every X-Forwarded-For line, so that the API counts the address the
// proxy added on a line of its own, not the client's own first line.
func TestSubRequestKeepsEveryForwardedLine(t *testing.T) {
	r := httptest.NewRequest("GET", "/matches/1", nil)
	r.Header.Add("X-Forwarded-For", "6.6.6.6")
	r.Header.Add("X-Forwarded-For", "198.51.100.7")
	sub := subRequest(context.Background(), r, "/api/v1/matches/1")
	if got, want := visitors.Addr(sub, 1), visitors.Addr(r, 1); got != want || want != "198.51.100.7" {
		t.Errorf("the API counts %q, the site %q; want both 198.51.100.7", got, want)
	}
}

// TestFinishedMatchSnapshotIsKept: a finished match's snapshot is built
// once and kept: the second view does not rebuild it (here the API hands
// out a broken replay the second time, and the view is still whole).
func TestFinishedMatchSnapshotIsKept(t *testing.T) {
	r := playReplay(t, "dots-and-boxes", "builtin:greedy", "builtin:random")
	data, _ := r.Marshal()
	var calls atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/v1/matches/1", func(w http.ResponseWriter, req *http.Request) {
		rep := json.RawMessage(data)
		if calls.Add(1) > 1 {
			rep = json.RawMessage(`{"format":"arena-replay","version":1,"game":"dots-and-boxes","turns":[]}`)
		}
		writeJSON(w, 200, map[string]any{"id": 1, "game": "dots-and-boxes", "params": map[string]string{}, "seed": "11", "state": "finished",
			"seats": []map[string]any{{"seat": 0, "player": "@house", "bot": "greedy", "bot_id": 2}, {"seat": 1, "player": "@house", "bot": "random", "bot_id": 1}}, "replay": rep})
	})
	srv := serveWithAPI(t, Options{Games: games.All(), Service: true}, mux)
	initOf := func() string {
		resp, err := http.Get(srv.URL + "/matches/1/events")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(nil, 8<<20)
		for event := ""; sc.Scan(); {
			if e, ok := strings.CutPrefix(sc.Text(), "event: "); ok {
				event = e
			} else if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok && event == "init" {
				return d
			}
		}
		t.Fatal("no init event")
		return ""
	}
	first, second := initOf(), initOf()
	if first != second || !strings.Contains(first, `"frames":[`) || len(first) < 1000 {
		t.Errorf("the second view of a finished match differs from the first (%d and %d bytes): rebuilt, not kept", len(first), len(second))
	}
	if n := calls.Load(); n != 2 {
		t.Errorf("%d calls to the API for two views; want 2, one a view (this API sends the replay even when asked not to)", n)
	}
}

// serveWithAPI serves a site whose platform API is api, until the test ends.
func serveWithAPI(t *testing.T, opts Options, api http.Handler) *httptest.Server {
	t.Helper()
	site, err := New(opts)
	if err != nil {
		t.Fatal(err)
	}
	site.SetAPI(api)
	srv := httptest.NewServer(site)
	t.Cleanup(srv.Close)
	return srv
}

// A platform match's replay downloaded from the site names each seat as the
// site does, still verifies, and shows those names when opened again.
func TestDownloadedReplayKeepsNames(t *testing.T) {
	r, data, turns := liveMatch(t)
	srv := serveWithAPI(t, Options{Games: games.All(), Service: true}, fakeAPI(t, data, turns, len(turns)))
	resp, err := http.Get(srv.URL + "/matches/1/replay.json")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusConflict {
		t.Fatalf("the replay of a running match: %d, want 409", resp.StatusCode)
	}
	resp, _ = http.Get(srv.URL + "/matches/1/events") // to its end: the fake API's match is finished after
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	resp, _ = http.Get(srv.URL + "/matches/1/replay.json")
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Disposition"), "attachment") {
		t.Fatalf("download: %d %q", resp.StatusCode, resp.Header.Get("Content-Disposition"))
	}
	got, err := replay.Parse(body)
	if err != nil {
		t.Fatal(err)
	}
	if got.Bots[0].Name != "@house/greedy" || got.Bots[1].Name != "@eve/<b>x</b>" || got.Bots[0].Spec != r.Bots[0].Spec {
		t.Fatalf("bots in the download: %+v", got.Bots)
	}
	site, _ := New(Options{Games: games.All()})
	if err := replay.Verify(got, site.lookupGame(got.Game)); err != nil {
		t.Fatalf("the download does not verify: %v", err)
	}
	sess, err := site.openReplay(body)
	if err != nil {
		t.Fatal(err)
	}
	if v := sess.snapshot(); v.Bots[1] != "@eve/<b>x</b>" {
		t.Fatalf("the opened file shows %q", v.Bots)
	}
}
