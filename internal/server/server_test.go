package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/arenabots/arena/games"
	"github.com/arenabots/arena/internal/server"
	"github.com/arenabots/arena/internal/store"
	"github.com/arenabots/arena/internal/store/storetest"
	"github.com/arenabots/arena/sandbox/wasmtest"
)

// running is a server started by a test.
type running struct {
	URL  string
	Srv  *server.Server
	dir  string // the data directory
	stop func()
}

func start(t testing.TB, dialect string, mod func(*server.Options)) *running {
	t.Helper()
	opt := server.Options{DataDir: t.TempDir(), Workers: 2, AckWait: 3 * time.Second}
	if dialect == store.Postgres {
		opt.DB = storetest.PostgresURL(t)
	}
	if mod != nil {
		mod(&opt)
	}
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := server.New(ctx, opt)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	r := &running{URL: "http://" + ln.Addr().String(), Srv: srv, dir: opt.DataDir}
	var once bool
	r.stop = func() {
		if once {
			return
		}
		once = true
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("serve: %v", err)
			}
		case <-time.After(30 * time.Second):
			// A generous bound: the 10 s promise is TestKill's, on a real
			// process (TestKill9); in process, at a load of 30, a stop once took 20 s.
			t.Error("server did not stop within 30 s")
		}
	}
	t.Cleanup(r.stop)
	waitHealthy(t, r.URL)
	return r
}

func waitHealthy(t testing.TB, url string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(url + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatal("server not healthy within 30 s")
}

// call makes a request and decodes a JSON answer into out (when non-nil);
// it returns the status.
func call(t testing.TB, method, url, token string, body io.Reader, ctype string, out any) int {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: %d %q: %v", method, url, resp.StatusCode, data, err)
		}
	}
	return resp.StatusCode
}

func signup(t testing.TB, base, handle string) string {
	t.Helper()
	var out struct{ Token string }
	body := fmt.Sprintf(`{"handle":%q,"password":"correct horse"}`, handle)
	if st := call(t, "POST", base+"/api/v1/accounts", "", strings.NewReader(body), "application/json", &out); st != 201 || out.Token == "" {
		t.Fatalf("sign-up %s: %d %+v", handle, st, out)
	}
	return out.Token
}

type leaderRow struct {
	Rank    int
	Player  string
	Bot     string
	BotID   int64 `json:"bot_id"`
	Rating  int
	Matches int
}

func leaderboard(t testing.TB, base, game string) []leaderRow {
	var out struct{ Rows []leaderRow }
	if st := call(t, "GET", base+"/api/v1/games/"+game+"/leaderboard", "", nil, "", &out); st != 200 {
		t.Fatalf("leaderboard: %d", st)
	}
	return out.Rows
}

func starterKit(t *testing.T) []byte {
	path := wasmtest.GoBuild(t, "../../games/dotsandboxes/kits/go/dots-and-boxes", "")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestNewUser is the "done when", through the API: a new user signs
// up, pushes a starter-kit bot, and sees it on the leaderboard with a rating
// and a match count beside @house; a bot that loops forever is refused with
// a message that says so.
func TestNewUser(t *testing.T) {
	for _, d := range []string{store.SQLite, store.Postgres} {
		t.Run(d, func(t *testing.T) {
			// Rated matches of Dots and Boxes only: the house's Grid Royale
			// and Lines and Boxes entries are wasm bots whose matches take
			// the workers for many seconds each, and alice's bot needs them.
			r := start(t, d, func(o *server.Options) { o.Games = []string{"dots-and-boxes"} })
			for _, g := range games.All() {
				rows := leaderboard(t, r.URL, g.Info().ID)
				if len(rows) != ladderSize(t, g.Info().ID) || rows[0].Player != "@house" {
					t.Fatalf("%s: house bots not on the first leaderboard: %+v", g.Info().ID, rows)
				}
			}
			tok := signup(t, r.URL, "alice")
			var up struct {
				Error string
				Bot   struct {
					ID     int64
					Player string
				}
				Version struct {
					State, Message string
					SmokeMatch     int64 `json:"smoke_match"`
				}
			}
			st := call(t, "POST", r.URL+"/api/v1/games/dots-and-boxes/bots/kit", tok, bytes.NewReader(starterKit(t)), "application/wasm", &up)
			if st != 201 || up.Version.State != "active" || up.Bot.Player != "@alice" || !strings.HasPrefix(up.Version.Message, "accepted") {
				t.Fatalf("push: %d %+v", st, up)
			}
			if !regexp.MustCompile(`; score \d+ to \d+\)$`).MatchString(up.Version.Message) {
				t.Fatalf("the acceptance does not give the smoke match's score: %q", up.Version.Message)
			}
			deadline := time.Now().Add(2 * time.Minute)
			for {
				var mine *leaderRow
				rows := leaderboard(t, r.URL, "dots-and-boxes")
				for i := range rows {
					if rows[i].Player == "@alice" {
						mine = &rows[i]
					}
				}
				if mine != nil && mine.Matches >= 3 && mine.Rating != 0 {
					if len(rows) != ladderSize(t, "dots-and-boxes")+1 {
						t.Fatalf("leaderboard %+v", rows)
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("alice's bot has not played 3 rated matches: %+v", rows)
				}
				time.Sleep(200 * time.Millisecond)
			}
			// The smoke match is public; its log is the owner's only.
			var m struct {
				State  string
				Kind   string
				Replay json.RawMessage
			}
			if st := call(t, "GET", fmt.Sprintf("%s/api/v1/matches/%d", r.URL, up.Version.SmokeMatch), "", nil, "", &m); st != 200 || m.Kind != "smoke" || m.State != "finished" || len(m.Replay) == 0 {
				t.Fatalf("smoke match: %d %+v", st, m.State)
			}
			logURL := fmt.Sprintf("%s/api/v1/matches/%d/seats/0/log", r.URL, up.Version.SmokeMatch)
			if st := call(t, "GET", logURL, tok, nil, "", nil); st != 200 {
				t.Fatalf("owner reading the log: %d", st)
			}
			bob := signup(t, r.URL, "bob")
			if st := call(t, "GET", logURL, bob, nil, "", nil); st != 403 {
				t.Fatalf("another user reading the log: %d", st)
			}
			// A bot that loops forever is refused, and told why.
			loop := wasmtest.GoBuild(t, "testdata/loop", "")
			data, _ := os.ReadFile(loop)
			st = call(t, "POST", r.URL+"/api/v1/games/dots-and-boxes/bots/loop", bob, bytes.NewReader(data), "application/wasm", &up)
			if st != 422 || up.Version.State != "refused" || !strings.Contains(up.Error, "loops forever") {
				t.Fatalf("looping bot: %d %+v", st, up)
			}
			if !strings.Contains(up.Error, "). No answer came back within its fuel") {
				t.Fatalf("the checker's hint is not a sentence of its own: %q", up.Error)
			}
			rows := leaderboard(t, r.URL, "dots-and-boxes")
			for _, row := range rows {
				if row.Player == "@bob" {
					t.Fatal("a refused bot is on the leaderboard")
				}
			}
			// Matches are listed and filtered.
			var list struct {
				Matches []struct {
					ID    int64
					Game  string
					State string
				}
				Next string
			}
			if st := call(t, "GET", fmt.Sprintf("%s/api/v1/matches?game=dots-and-boxes&bot=%d&limit=2", r.URL, up.Bot.ID), "", nil, "", &list); st != 200 {
				t.Fatal(st)
			}
			if len(list.Matches) == 0 || list.Matches[0].Game != "dots-and-boxes" {
				t.Fatalf("list %+v", list)
			}
			// Metrics count the matches.
			resp, err := http.Get(r.URL + "/metrics")
			if err != nil {
				t.Fatal(err)
			}
			met, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !bytes.Contains(met, []byte(`arena_matches_total{game="dots-and-boxes",state="finished"}`)) || !bytes.Contains(met, []byte("arena_queue_depth")) {
				t.Fatalf("metrics:\n%s", met)
			}
		})
	}
}

// TestRestartKeepsData stops a server cleanly and starts another on the
// same data: accounts, bots and ratings are all there.
func TestRestartKeepsData(t *testing.T) {
	dir := t.TempDir()
	r := start(t, store.SQLite, func(o *server.Options) { o.DataDir = dir })
	tok := signup(t, r.URL, "carol")
	time.Sleep(time.Second)
	before := leaderboard(t, r.URL, "grid-royale")
	r.stop()
	r2 := start(t, store.SQLite, func(o *server.Options) { o.DataDir = dir; o.NoMatchmaker = true })
	if st := call(t, "GET", r2.URL+"/api/v1/me", tok, nil, "", nil); st != 200 {
		t.Fatalf("token after restart: %d", st)
	}
	after := leaderboard(t, r2.URL, "grid-royale")
	if len(after) != len(before) {
		t.Fatalf("%+v", after)
	}
	total := func(rows []leaderRow) (n int) {
		for _, r := range rows {
			n += r.Matches
		}
		return
	}
	if total(after) < total(before) {
		t.Fatalf("matches lost: %d before, %d after", total(before), total(after))
	}
}

// TestLiveTurns watches a running match as server-sent events: the match,
// its turns as they are played, then its end.
func TestLiveTurns(t *testing.T) {
	r := start(t, store.SQLite, func(o *server.Options) { o.NoMatchmaker = true })
	tok := signup(t, r.URL, "erin")
	kit, err := os.ReadFile(wasmtest.GoBuild(t, "../../games/gridroyale/kits/go/grid-royale", ""))
	if err != nil {
		t.Fatal(err)
	}
	var up struct{ Bot struct{ ID int64 } }
	if st := call(t, "POST", r.URL+"/api/v1/games/grid-royale/bots/kit", tok, bytes.NewReader(kit), "application/wasm", &up); st != 201 {
		t.Fatalf("upload: %d", st)
	}
	var house int64
	for _, row := range leaderboard(t, r.URL, "grid-royale") {
		if row.Player == "@house" && row.Bot == "house" {
			house = row.BotID
		}
	}
	var ch struct{ Match int64 }
	body := fmt.Sprintf(`{"game":"grid-royale","bots":[%d,%d],"seed":3}`, up.Bot.ID, house)
	if st := call(t, "POST", r.URL+"/api/v1/challenges", tok, strings.NewReader(body), "application/json", &ch); st != 201 {
		t.Fatalf("challenge: %d", st)
	}
	resp, err := http.Get(fmt.Sprintf("%s/api/v1/matches/%d/live", r.URL, ch.Match))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	// Once its turns arrive, the match shows as running (it was queued).
	stream := bufio.NewReader(resp.Body)
	var head bytes.Buffer
	for !strings.Contains(head.String(), "event: turn\n") {
		line, err := stream.ReadString('\n')
		if err != nil {
			t.Fatalf("stream ended before a turn: %v, %q", err, head.String())
		}
		head.WriteString(line)
	}
	for state := ""; state != "running"; {
		var m struct{ State string }
		if st := call(t, "GET", fmt.Sprintf("%s/api/v1/matches/%d", r.URL, ch.Match), "", nil, "", &m); st != 200 {
			t.Fatalf("match: %d", st)
		}
		if state = m.State; state == "finished" {
			t.Fatal("the match was never shown running")
		}
		time.Sleep(20 * time.Millisecond)
	}
	rest, err := io.ReadAll(stream)
	if err != nil {
		t.Fatal(err)
	}
	data := append(head.Bytes(), rest...)
	events := strings.Count(string(data), "event: turn\n")
	if !strings.HasPrefix(string(data), "event: match\n") || events < 10 || !strings.Contains(string(data), "event: end\ndata: ") || !strings.Contains(string(data), `"state":"finished"`) {
		t.Fatalf("%d turn events; stream starts %.300q and ends %.300q", events, data, data[max(0, len(data)-300):])
	}
}
