package battlesnakebot_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/bot/battlesnakebot"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games/snake"
	"github.com/arenabots/arena/match"
	"github.com/arenabots/arena/replay"
)

// server is a small Battlesnake written against Battlesnake's API only: it
// turns away from walls and bodies, as a first Battlesnake tutorial does.
type server struct {
	mu       sync.Mutex
	calls    []string
	timeouts []int
	delay    time.Duration
	answer   string // when set, every /move answers this
}

func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.calls = append(s.calls, r.Method+" "+r.URL.Path)
	delay, fixed := s.delay, s.answer
	s.mu.Unlock()
	switch r.URL.Path {
	case "/":
		io.WriteString(w, `{"apiversion":"1","author":"test","color":"#123456","head":"default","tail":"default"}`)
		return
	case "/start", "/end":
		return
	}
	var req struct {
		Game struct {
			Timeout int `json:"timeout"`
		} `json:"game"`
		Board struct {
			Width, Height int
			Snakes        []struct {
				Body []struct{ X, Y int }
			}
		} `json:"board"`
		You struct {
			Head struct{ X, Y int }
		} `json:"you"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.timeouts = append(s.timeouts, req.Game.Timeout)
	s.mu.Unlock()
	time.Sleep(delay)
	if fixed != "" {
		io.WriteString(w, fixed)
		return
	}
	taken := map[[2]int]bool{}
	for _, sn := range req.Board.Snakes {
		for _, p := range sn.Body {
			taken[[2]int{p.X, p.Y}] = true
		}
	}
	h := req.You.Head
	move := "up"
	for _, c := range []struct {
		name   string
		dx, dy int
	}{{"up", 0, 1}, {"right", 1, 0}, {"down", 0, -1}, {"left", -1, 0}} {
		x, y := h.X+c.dx, h.Y+c.dy
		if x >= 0 && y >= 0 && x < req.Board.Width && y < req.Board.Height && !taken[[2]int{x, y}] {
			move = c.name
			break
		}
	}
	json.NewEncoder(w).Encode(map[string]string{"move": move, "shout": "moving " + move})
}

// play runs one Snake match of the server (seat 0) against the house's
// safe bot.
func play(t *testing.T, url string, timeout time.Duration) *replay.Replay {
	t.Helper()
	open := func(ctx context.Context, m bot.Match) (bot.Bot, bot.Identity, error) {
		if m.Seat == 0 {
			b, err := battlesnakebot.OpenWithTimeout(url, timeout)
			if err != nil {
				return nil, bot.Identity{}, err
			}
			return b, b.Identity(), nil
		}
		b, err := bot.OpenBuiltin("safe", m)
		return b, bot.Identity{Spec: "builtin:safe"}, err
	}
	set := game.Params{"max_turns": "60"}
	r, err := match.Runner{}.Play(context.Background(), snake.Game{}, game.Config{Seed: 3, Players: 2, Params: set}, open)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestBattlesnakeServerPlays: a server written for Battlesnake's API plays
// unchanged: GET / and /start once, /move every turn with the timeout set,
// /end at the end; its answers are ok, and its latency is in its log.
func TestBattlesnakeServerPlays(t *testing.T) {
	s := &server{}
	ts := httptest.NewServer(s)
	defer ts.Close()
	r := play(t, ts.URL, time.Second)
	if n := r.Result.Statuses[0]["ok"]; n == 0 || n != r.Result.Turns && r.Result.Statuses[0]["ignored"] == 0 {
		t.Fatalf("statuses %v over %d turns: want every answer ok", r.Result.Statuses[0], r.Result.Turns)
	}
	s.mu.Lock()
	calls := strings.Join(s.calls, ",")
	s.mu.Unlock()
	moves := strings.Count(calls, "POST /move")
	if !strings.HasPrefix(calls, "GET /,POST /start,POST /move") || !strings.HasSuffix(calls, "POST /end") || moves != r.Result.Statuses[0]["ok"] {
		t.Fatalf("calls %s: want GET /, /start, one /move per answer (%d), /end", calls, r.Result.Statuses[0]["ok"])
	}
	for _, to := range s.timeouts {
		if to != 1000 {
			t.Fatalf("/move said timeout %d ms, want 1000", to)
		}
	}
	var log string
	for _, l := range r.Logs {
		if l.Seat == 0 {
			log = l.Text
		}
	}
	if !strings.Contains(log, "turn 1: /move ") || !strings.Contains(log, " ms") {
		t.Fatalf("the log has no latency: %q", log)
	}
	if r.Bots[0].Spec != "battlesnake:"+ts.URL {
		t.Fatalf("the replay names seat 0 %q", r.Bots[0].Spec)
	}
}

// TestBattlesnakeServerFailures: a slow /move is a timeout, a wrong answer
// malformed, and a server that is gone a crash; each gets the default move
// and the match goes on.
func TestBattlesnakeServerFailures(t *testing.T) {
	slow := &server{delay: 300 * time.Millisecond}
	ts := httptest.NewServer(slow)
	r := play(t, ts.URL, 50*time.Millisecond)
	ts.Close()
	if r.Result.Statuses[0]["timeout"] == 0 {
		t.Fatalf("a /move slower than the timeout: statuses %v", r.Result.Statuses[0])
	}
	bad := &server{answer: `{"move":"sideways"}`}
	ts = httptest.NewServer(bad)
	r = play(t, ts.URL, time.Second)
	ts.Close()
	if r.Result.Statuses[0]["malformed"] == 0 {
		t.Fatalf("an unknown move: statuses %v", r.Result.Statuses[0])
	}
	r = play(t, ts.URL, time.Second) // the server is closed now
	if r.Result.Statuses[0]["crash"] == 0 {
		t.Fatalf("a server that is gone: statuses %v", r.Result.Statuses[0])
	}
}

// TestOpenRefusesBadURLs: only http and https URLs with a host.
func TestOpenRefusesBadURLs(t *testing.T) {
	for _, u := range []string{"", "localhost:8000", "ftp://x/", "file:///etc/passwd", "http://"} {
		if _, err := battlesnakebot.Open(u, bot.Match{}); err == nil {
			t.Errorf("%q was accepted", u)
		}
	}
}
