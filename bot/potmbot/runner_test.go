package potmbot_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/arenabots/arena/bot"
	"github.com/arenabots/arena/bot/potmbot"
	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games/linesandboxes"
	"github.com/arenabots/arena/match"
)

// TestThroughTheRunner plays whole matches with the platform's runner: the C
// entry against house search, and an entry that answers an overlapping line
// every turn, which is refused turn after turn while the match ends normally.
func TestThroughTheRunner(t *testing.T) {
	first := potmbot.CompileEntry(t, "first.c")
	overlap := potmbot.ScriptEntry(t, "echo A1 C1")
	params := game.Params{"rows": "4", "cols": "5", "predrawn": "3"}
	for _, c := range []struct {
		entry string
		want  game.Status
	}{{first, game.OK}, {overlap, game.Illegal}} {
		g := linesandboxes.Game{}
		entry, err := potmbot.Open(c.entry, bot.Match{Game: g, Seed: 9, Seat: 1, Params: params})
		if err != nil {
			t.Fatal(err)
		}
		house, err := bot.OpenBuiltin("search", bot.Match{Game: g, Seed: 9, Seat: 0, Params: params})
		if err != nil {
			t.Fatal(err)
		}
		r, err := match.Run(context.Background(), g, game.Config{Seed: 9, Players: 2, Params: params},
			[]bot.Bot{house, entry}, []bot.Identity{{Spec: "builtin:search"}, {Spec: "potm:" + c.entry}})
		if err != nil {
			t.Fatal(err)
		}
		st := r.Result.Statuses[1]
		switch c.want {
		case game.OK:
			if st[game.OK] == 0 || len(st) != 1 {
				t.Errorf("entry statuses %v, want all ok", st)
			}
		case game.Illegal:
			if st[game.Illegal] < r.Result.Turns/2-1 {
				t.Errorf("entry statuses %v over %d turns, want illegal after its first", st, r.Result.Turns)
			}
		}
		if sum := r.Result.Scores[0] + r.Result.Scores[1]; sum > 20 || sum < 15 {
			t.Errorf("scores %v on a 4x5 board", r.Result.Scores)
		}
	}
}

// TestBothClocksInTheInputFile: two entries play; the second one's input
// files show the first one's clock going down as it spends CPU, as the
// contest page says, not a full clock.
func TestBothClocksInTheInputFile(t *testing.T) {
	seen := filepath.Join(t.TempDir(), "seen")
	spender := potmbot.ScriptEntry(t, `i=0; while [ $i -lt 30000 ]; do i=$((i+1)); done; echo A1 A1`)
	watcher := potmbot.ScriptEntry(t, `sed -n 2p "$1" >> `+seen+`; echo A1 A1`)
	g := linesandboxes.Game{}
	params := game.Params{"rows": "3", "cols": "3"}
	var bots []bot.Bot
	for seat, path := range []string{spender, watcher} {
		b, err := potmbot.Open(path, bot.Match{Game: g, Seed: 2, Seat: seat, Params: params})
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		bots = append(bots, b)
	}
	if _, err := match.Run(context.Background(), g, game.Config{Seed: 2, Players: 2, Params: params},
		bots, []bot.Identity{{Spec: "potm:spender"}, {Spec: "potm:watcher"}}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(seen)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var times []float64
	for _, l := range lines {
		var player, score int
		var left float64
		if _, err := fmt.Sscanf(l, "%d %d %f", &player, &score, &left); err != nil || player != 1 {
			t.Fatalf("line 2 of an input file: %q", l)
		}
		times = append(times, left)
	}
	if len(times) < 5 || times[len(times)-1] >= times[0] || times[len(times)-1] >= 60 {
		t.Fatalf("player 1's time as player 2 saw it: %v", times)
	}
}
