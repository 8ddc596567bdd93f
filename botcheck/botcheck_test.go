package botcheck

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/arenabots/arena/game"
	"github.com/arenabots/arena/games/dotsandboxes"
	"github.com/arenabots/arena/replay"
	"github.com/arenabots/arena/sandbox/wasmtest"
)

func check(t *testing.T, path string) *Report {
	t.Helper()
	rep, err := Check(context.Background(), dotsandboxes.Game{}, path, Options{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestKitPasses checks the Go starter kit: it passes, with its start-up
// fuel measured and a smoke match in each seat.
func TestKitPasses(t *testing.T) {
	rep := check(t, wasmtest.GoBuild(t, "../games/dotsandboxes/kits/go/dots-and-boxes", ""))
	if !rep.Passed || len(rep.Problems) > 0 || len(rep.Hints) > 0 {
		t.Fatalf("report %+v", rep)
	}
	// The Go runtime alone spends about 0.7 million before it reads stdin.
	if rep.StartupFuel < 100_000 || rep.StartupFuel > 10_000_000 {
		t.Errorf("start-up fuel %d", rep.StartupFuel)
	}
	if len(rep.Matches) != 2 || rep.Matches[0].Seat != 0 || rep.Matches[1].Seat != 1 {
		t.Fatalf("matches %+v", rep.Matches)
	}
	for _, m := range rep.Matches {
		f := m.Fuel
		if m.Turns != 60 || m.Statuses[game.OK] == 0 || f.Answers != 60 ||
			!(0 < f.Min && f.Min <= f.Median && f.Median <= f.Max && f.Max < f.Tank) || f.Tank != 20_000_000 {
			t.Errorf("smoke match %+v", m)
		}
	}
	if len(rep.SHA256) != 64 || rep.Size == 0 {
		t.Errorf("sha256 %q size %d", rep.SHA256, rep.Size)
	}
}

// TestMistakes checks that each usual mistake fails the check with the
// hint that explains it.
func TestMistakes(t *testing.T) {
	for _, tc := range []struct {
		mode, problem, hint string
	}{
		{"debug", `got "malformed"`, "debug text to stderr"},
		{"twice", "first answer: crash", "read exactly one line per turn"},
		{"loop", "first answer: fuel", "a loop that never ends"},
		{"startup", "first answer: fuel", "start-up"},
	} {
		t.Run(tc.mode, func(t *testing.T) {
			rep := check(t, wasmtest.GoBuild(t, "testdata/bot", "-X main.mode="+tc.mode))
			if rep.Passed {
				t.Fatal("passed")
			}
			if !strings.Contains(strings.Join(rep.Problems, "\n"), tc.problem) {
				t.Errorf("problems %q, want one with %q", rep.Problems, tc.problem)
			}
			if !strings.Contains(strings.Join(rep.Hints, "\n"), tc.hint) {
				t.Errorf("hints %q, want one with %q", rep.Hints, tc.hint)
			}
		})
	}
}

// TestRefusedImports checks the hints for modules the sandbox refuses for
// their imports.
func TestRefusedImports(t *testing.T) {
	for _, tc := range []struct {
		imp, hint string
	}{
		{"gojs.runtime.ticks", "GOOS=wasip1"},
		{"arena.arena_fuel_left", `import_name("fuel_left")`},
		{"env.fuel_left", `import_module("arena")`},
	} {
		t.Run(tc.imp, func(t *testing.T) {
			path := wasmtest.Write(t, "bot", wasmtest.Echo{Import: tc.imp}.Module())
			rep := check(t, path)
			if rep.Passed || rep.Refused == "" || len(rep.Matches) != 0 {
				t.Fatalf("report %+v", rep)
			}
			if len(rep.Hints) != 1 || !strings.Contains(rep.Hints[0], tc.hint) {
				t.Errorf("hints %q, want %q", rep.Hints, tc.hint)
			}
		})
	}
}

func TestNotAModule(t *testing.T) {
	path := wasmtest.Write(t, "bot", []byte("#!/bin/sh\necho hi\n"))
	rep := check(t, path)
	if rep.Passed || !strings.Contains(rep.Refused, "not a WebAssembly module") {
		t.Fatalf("report %+v", rep)
	}
	if _, err := Check(context.Background(), dotsandboxes.Game{}, path+".missing", Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	if _, err := Check(context.Background(), dotsandboxes.Game{}, path, Options{Opponent: "nobody"}); err == nil {
		t.Error("an unknown opponent was accepted")
	}
}

// TestFuelFigures pins Fuel's arithmetic on a hand-made replay.
func TestFuelFigures(t *testing.T) {
	r := &replay.Replay{Turns: []replay.Turn{
		{Seats: []replay.Seat{{Seat: 0, Fuel: 30}, {Seat: 1, Fuel: 7}}},
		{Seats: []replay.Seat{{Seat: 0, Fuel: 10}}},
		{Seats: []replay.Seat{{Seat: 0, Fuel: 0, Status: game.Ignored}}}, // not metered: left out
		{Seats: []replay.Seat{{Seat: 0, Fuel: 20}}},
		{Seats: []replay.Seat{{Seat: 0, Fuel: 40}}},
	}}
	f := Fuel(r, 0, 100)
	if f != (FuelStats{Answers: 4, Min: 10, Median: 30, Max: 40, Tank: 100}) || f.Share() != 0.4 {
		t.Fatalf("%+v share %v", f, f.Share())
	}
	if f := Fuel(r, 2, 100); f.Answers != 0 || f.Share() != 0 {
		t.Fatalf("an absent seat: %+v", f)
	}
}

// TestDebugTextHint checks the hint for debug text on stdout, as an exec
// bot shows it: the answer recorded is the debug line.
func TestDebugTextHint(t *testing.T) {
	r := &replay.Replay{Turns: []replay.Turn{{Turn: 1, Seats: []replay.Seat{
		{Seat: 0, Status: game.Malformed, Answer: "thinking about (2,3)"},
		{Seat: 1, Status: game.Malformed, Answer: `{"orient":"Q"}`, Reason: `orient: want "h" or "v"`},
	}}, {Turn: 2, Seats: []replay.Seat{
		{Seat: 1, Status: game.Illegal, Answer: `{"orient":"h","r":9,"c":9}`, Reason: "no such edge"},
	}}}}
	if h := ReplayHints(r, 0); len(h) != 1 || !strings.Contains(h[0], "thinking about") {
		t.Errorf("seat 0 hints %q", h)
	}
	// JSON, just wrong: the first failure quoted, with its reason.
	want := `the first answer that failed, turn 1, was malformed (it read "{\"orient\":\"Q\"}"): orient: want "h" or "v"`
	if h := ReplayHints(r, 1); len(h) != 1 || h[0] != want {
		t.Errorf("seat 1 (JSON, just wrong) hints %q; want [%q]", h, want)
	}
}

// TestLoopHintQuotesTheFirstFailure: answers that never came get the loop
// hint and, after it, what the first of them was told (start-up or a turn).
func TestLoopHintQuotesTheFirstFailure(t *testing.T) {
	r := &replay.Replay{Turns: []replay.Turn{
		{Turn: 1, Seats: []replay.Seat{{Seat: 0, Status: game.Fuel, Reason: "spent 5,000,000 fuel on this turn"}}},
		{Turn: 2, Seats: []replay.Seat{{Seat: 0, Status: game.Retired, Reason: "retired after its fuel ran out"}}},
	}}
	h := ReplayHints(r, 0)
	if len(h) != 2 || h[0] != loopHint || h[1] != "the first answer that failed, turn 1, was fuel: spent 5,000,000 fuel on this turn" {
		t.Errorf("hints %q", h)
	}
}

// TestFieldsNeverRead: answers taken as ok whose fields the game never
// applied (a Dots and Boxes bot in Grid Royale) get a hint; a bot whose
// fields the game read, even once, gets none.
func TestFieldsNeverRead(t *testing.T) {
	turns := func(answer, action string, n int) []replay.Turn {
		var ts []replay.Turn
		for i := range n {
			ts = append(ts, replay.Turn{Turn: i + 1, Seats: []replay.Seat{{Seat: 0, Status: game.OK, Answer: answer, Action: json.RawMessage(action)}}})
		}
		return ts
	}
	r := &replay.Replay{Turns: turns(`{"orient":"h","r":0,"c":0}`, `{"orders":[]}`, 3)}
	if h := ReplayHints(r, 0); len(h) != 1 || !strings.Contains(h[0], `("c", "orient", "r")`) || !strings.Contains(h[0], "another game") {
		t.Errorf("a Dots and Boxes bot's answers in Grid Royale: %q", h)
	}
	r.Turns = append(r.Turns, turns(`{"orders":[{"unit":1,"do":"N"}]}`, `{"orders":[{"unit":1,"do":"N"}]}`, 1)...)
	if h := ReplayHints(r, 0); len(h) != 0 {
		t.Errorf("one answer the game read: %q; want no hint", h)
	}
}

// TestClipKeepsCharacters: a clipped bot string is cut at a character's
// start and stays valid UTF-8 (Postgres refuses a message that is not).
func TestClipKeepsCharacters(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		want string
	}{
		{"abc", 5, "abc"},
		{"ééé", 3, "é..."}, // é is 2 bytes: the cut falls inside the second
		{"ab\xffcd", 10, "ab\uFFFDcd"},
	} {
		got := clip(tc.in, tc.n)
		if got != tc.want || !utf8.ValidString(got) {
			t.Errorf("clip(%q, %d) = %q; want %q", tc.in, tc.n, got, tc.want)
		}
	}
}
